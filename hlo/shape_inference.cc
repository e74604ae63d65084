#include "hlo/shape_inference.h"

#include <algorithm>
#include <charconv>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hlo/attribute_values.h"
#include "hlo/computation.h"
#include "hlo/convolution_shape.h"
#include "hlo/str_util.h"
#include "hlo/window_attribute.h"

namespace hloscope {

namespace {
std::string CannotInfer(const Instruction& instr, std::string_view why) {
  return StrCat("cannot infer the result shape of '", instr.name(), "' (", instr.PrintedOpcode(),
                "): ", why, "; write the shape before the opcode");
}
}  // namespace

namespace {
const Shape* Inconsistent(const Instruction& instr, std::string* error) {
  *error = StrCat("cannot infer the result shape of '", instr.name(), "' (", instr.PrintedOpcode(),
                  "): its operands and attributes do not fit together; write the shape before "
                  "the opcode");
  return nullptr;
}

bool Contains(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

Shape ArrayShape(PrimitiveType type, std::vector<int64_t> dims) {
  Shape s;
  s.element_type = type;
  for (int64_t d : dims) {
    s.dims.push_back(d);
    s.dynamic.push_back(false);
  }
  return s;
}

const Shape* StatusToError(const Instruction& instr, const absl::Status& status,
                           std::string* error) {
  *error = CannotInfer(instr, std::string_view(status.message().data(), status.message().size()));
  return nullptr;
}

// `key=N`, or `absent` when the instruction has no such attribute.
absl::StatusOr<int64_t> IntAttribute(const Instruction& instr, const Module& module,
                                     std::string_view key, int64_t absent) {
  std::optional<std::string_view> text = RawAttribute(instr, module, key);
  if (!text) return absent;
  int64_t v = 0;
  const char* end = text->data() + text->size();
  auto [ptr, ec] = std::from_chars(text->data(), end, v);
  if (text->empty() || ec != std::errc() || ptr != end) {
    return absl::InvalidArgumentError(StrCat(key, "=", *text, " is not an integer"));
  }
  return v;
}

// Each output dimension is the number of window positions over the matching input dimension.
// As in XLA, no window attribute means an empty window (a scalar input).
absl::StatusOr<Shape> InferReduceWindowShape(const Instruction& instr, const Module& module,
                                             const Shape& in) {
  absl::StatusOr<std::vector<WindowDim>> window = std::vector<WindowDim>();
  if (std::optional<std::string_view> text = RawAttribute(instr, module, "window")) {
    window = ParseWindow(*text);
    if (!window.ok()) return window.status();
  }
  if (static_cast<int64_t>(window->size()) != in.rank()) {
    return absl::InvalidArgumentError(StrCat(
        "the window has ", window->size(), window->size() == 1 ? " dimension" : " dimensions",
        " but the input ", in.ToString(false), " has rank ", in.rank()));
  }
  Shape out = in;
  out.has_layout = false;
  out.layout = Layout();
  for (int64_t d = 0; d < in.rank(); ++d) {
    if (in.dims[d] == Shape::kUnboundedSize) continue;
    absl::StatusOr<int64_t> size = WindowedOutputSize((*window)[d], in.dims[d], d);
    if (!size.ok()) return size.status();
    out.dims[d] = *size;
  }
  return out;
}

// The attributes XLA's parser reads for a convolution: window (optional: none means no spatial
// dimensions), dim_labels (required) and the two group counts (default 1).
absl::StatusOr<Shape> InferConvolution(const Instruction& instr, const Module& module) {
  ConvolutionAttributes attrs;
  std::optional<std::string_view> labels = RawAttribute(instr, module, "dim_labels");
  if (!labels) return absl::InvalidArgumentError("it has no dim_labels");
  absl::StatusOr<ConvDimLabels> dn = ParseConvDimLabels(*labels);
  if (!dn.ok()) return dn.status();
  attrs.dim_labels = *std::move(dn);
  if (std::optional<std::string_view> window = RawAttribute(instr, module, "window")) {
    absl::StatusOr<std::vector<WindowDim>> dims = ParseWindow(*window);
    if (!dims.ok()) return dims.status();
    attrs.window = *std::move(dims);
  }
  absl::StatusOr<int64_t> fgc = IntAttribute(instr, module, "feature_group_count", 1);
  if (!fgc.ok()) return fgc.status();
  absl::StatusOr<int64_t> bgc = IntAttribute(instr, module, "batch_group_count", 1);
  if (!bgc.ok()) return bgc.status();
  attrs.feature_group_count = *fgc;
  attrs.batch_group_count = *bgc;
  return InferConvolutionShape(instr.operand(0)->shape(), instr.operand(1)->shape(), attrs);
}
}  // namespace

const Shape* InferShape(const Instruction& instr, const Computation* callee, Module& module,
                        std::string* error) {
  for (int64_t i = 0; i < instr.operand_count(); ++i) {
    if (instr.operand(i) == nullptr) {
      *error = CannotInfer(instr, StrCat("operand ", i, " is defined later"));
      return nullptr;
    }
  }
  auto operand_shape = [&](int64_t i) -> const Shape* {
    return i < instr.operand_count() ? instr.operand(i)->shape_ptr() : nullptr;
  };
  Opcode op = instr.opcode();
  switch (op) {
    case Opcode::kTuple: {
      Shape s;
      s.element_type = PrimitiveType::kTuple;
      for (Instruction* o : instr.operands()) s.tuple_elements.push_back(o->shape_ptr());
      return module.InternShape(std::move(s));
    }
    case Opcode::kGetTupleElement: {
      const Shape* t = operand_shape(0);
      if (t == nullptr || !t->IsTuple()) {
        *error = CannotInfer(instr, "operand is not a tuple");
        return nullptr;
      }
      if (instr.tuple_index() >= static_cast<int64_t>(t->tuple_elements.size())) {
        *error = CannotInfer(
            instr, StrCat("index ", instr.tuple_index(), " is out of range for ", t->ToString()));
        return nullptr;
      }
      return t->tuple_elements[static_cast<size_t>(instr.tuple_index())];
    }
    case Opcode::kWhile:
    case Opcode::kAddDependency:
    case Opcode::kOptBarrier:
    case Opcode::kCopy:
      if (const Shape* s = operand_shape(0)) return s;
      break;
    case Opcode::kAfterAll: {
      Shape s;
      s.element_type = PrimitiveType::kToken;
      return module.InternShape(std::move(s));
    }
    case Opcode::kCall:
    case Opcode::kFusion:
    case Opcode::kConditional:
      if (callee != nullptr && callee->root() != nullptr) return callee->root()->shape_ptr();
      *error = CannotInfer(instr, "its computation is not defined before it");
      return nullptr;
    case Opcode::kTranspose: {
      const Shape* in = operand_shape(0);
      auto perm = instr.dimensions();
      if (in == nullptr || !in->IsArray() || static_cast<int64_t>(perm.size()) != in->rank()) break;
      std::vector<int64_t> dims;
      for (int64_t p : perm) {
        if (p < 0 || p >= in->rank()) return Inconsistent(instr, error);
        dims.push_back(in->dims[static_cast<size_t>(p)]);
      }
      return module.InternShape(ArrayShape(in->element_type, dims));
    }
    case Opcode::kConcatenate: {
      auto dim = instr.dimensions();
      const Shape* first = operand_shape(0);
      if (first == nullptr || !first->IsArray() || dim.size() != 1 || dim[0] < 0 ||
          dim[0] >= first->rank()) {
        break;
      }
      std::vector<int64_t> dims(first->dims.begin(), first->dims.end());
      dims[static_cast<size_t>(dim[0])] = 0;
      for (Instruction* o : instr.operands()) {
        if (!o->shape().IsArray() || o->shape().rank() != first->rank())
          return Inconsistent(instr, error);
        dims[static_cast<size_t>(dim[0])] += o->shape().dims[static_cast<size_t>(dim[0])];
      }
      return module.InternShape(ArrayShape(first->element_type, dims));
    }
    case Opcode::kDot: {
      const Shape* lhs = operand_shape(0);
      const Shape* rhs = operand_shape(1);
      if (lhs == nullptr || rhs == nullptr || !lhs->IsArray() || !rhs->IsArray()) break;
      auto lb = IntListAttribute(instr, module, "lhs_batch_dims");
      auto lc = IntListAttribute(instr, module, "lhs_contracting_dims");
      auto rb = IntListAttribute(instr, module, "rhs_batch_dims");
      auto rc = IntListAttribute(instr, module, "rhs_contracting_dims");
      std::vector<int64_t> dims;
      for (int64_t d : lb) {
        if (d < 0 || d >= lhs->rank()) return Inconsistent(instr, error);
        dims.push_back(lhs->dims[static_cast<size_t>(d)]);
      }
      for (int64_t i = 0; i < lhs->rank(); ++i) {
        if (!Contains(lb, i) && !Contains(lc, i)) dims.push_back(lhs->dims[static_cast<size_t>(i)]);
      }
      for (int64_t i = 0; i < rhs->rank(); ++i) {
        if (!Contains(rb, i) && !Contains(rc, i)) dims.push_back(rhs->dims[static_cast<size_t>(i)]);
      }
      return module.InternShape(ArrayShape(lhs->element_type, dims));
    }
    case Opcode::kPad: {
      // padding=lo_hi[_interior] per dimension, joined by 'x'.
      const Shape* in = operand_shape(0);
      auto p = IntListAttribute(instr, module, "padding");
      if (in == nullptr || !in->IsArray()) break;
      const Attribute* raw = nullptr;
      for (const Attribute& a : instr.attributes()) {
        if (module.AttrKeyName(a.key) == "padding") raw = &a;
      }
      if (raw == nullptr) break;
      std::vector<int64_t> dims;
      size_t pos = 0;
      std::string_view text = raw->value;
      for (int64_t d = 0; d < in->rank(); ++d) {
        size_t end = text.find('x', pos);
        std::string_view part =
            text.substr(pos, end == std::string_view::npos ? text.npos : end - pos);
        int64_t vals[3] = {0, 0, 0};
        int n = 0;
        bool neg = false;
        int64_t v = 0;
        bool any = false;
        for (size_t i = 0; i <= part.size(); ++i) {
          char c = i < part.size() ? part[i] : '_';
          if (c == '-') {
            neg = true;
          } else if (c >= '0' && c <= '9') {
            v = v * 10 + (c - '0');
            any = true;
          } else if (c == '_' && any && n < 3) {
            vals[n++] = neg ? -v : v;
            v = 0;
            neg = false;
            any = false;
          }
        }
        int64_t size = in->dims[static_cast<size_t>(d)];
        int64_t interior = size > 0 ? (size - 1) * vals[2] : 0;
        dims.push_back(size + vals[0] + vals[1] + interior);
        if (end == std::string_view::npos) break;
        pos = end + 1;
      }
      if (static_cast<int64_t>(dims.size()) != in->rank()) break;
      return module.InternShape(ArrayShape(in->element_type, dims));
    }
    case Opcode::kSort: {
      // Sorting keeps shapes: one operand gives its shape, several give a tuple of theirs.
      if (instr.operand_count() == 1) return operand_shape(0);
      Shape s;
      s.element_type = PrimitiveType::kTuple;
      for (Instruction* o : instr.operands()) s.tuple_elements.push_back(o->shape_ptr());
      return module.InternShape(std::move(s));
    }
    case Opcode::kReduceWindow: {
      // One input and its init value; the window has one entry per input dimension.
      const Shape* in = operand_shape(0);
      if (in == nullptr || !in->IsArray() || instr.operand_count() != 2) break;
      absl::StatusOr<Shape> s = InferReduceWindowShape(instr, module, *in);
      if (!s.ok()) return StatusToError(instr, s.status(), error);
      return module.InternShape(*std::move(s));
    }
    case Opcode::kConvolution: {
      if (instr.operand_count() != 2) {
        *error = CannotInfer(instr, StrCat("it has ", instr.operand_count(),
                                           " operands, but a convolution takes 2"));
        return nullptr;
      }
      absl::StatusOr<Shape> s = InferConvolution(instr, module);
      if (!s.ok()) return StatusToError(instr, s.status(), error);
      return module.InternShape(*std::move(s));
    }
    case Opcode::kReduce: {
      // Single-output reduce: the input without the reduced dimensions.
      const Shape* in = operand_shape(0);
      if (in == nullptr || !in->IsArray() || instr.operand_count() != 2) break;
      std::vector<int64_t> reduced(instr.dimensions().begin(), instr.dimensions().end());
      std::vector<int64_t> dims;
      for (int64_t i = 0; i < in->rank(); ++i) {
        if (!Contains(reduced, i)) dims.push_back(in->dims[static_cast<size_t>(i)]);
      }
      return module.InternShape(ArrayShape(in->element_type, dims));
    }
    default:
      break;
  }
  if (IsElementwise(op) && instr.operand_count() > 0) {
    // select/clamp take their shape from the value operands, not the predicate / bounds.
    const Shape* base = operand_shape(op == Opcode::kSelect || op == Opcode::kClamp ? 1 : 0);
    if (base == nullptr || !base->IsArray()) {
      *error = CannotInfer(instr, "operand is not an array");
      return nullptr;
    }
    if (op != Opcode::kCompare) return base;
    Shape s = *base;
    s.element_type = PrimitiveType::kPred;
    return module.InternShape(std::move(s));
  }
  *error = StrCat("cannot infer the result shape of '", instr.name(), "' (", instr.PrintedOpcode(),
                  "): write the shape before the opcode (hloscope infers "
                  "it only for the opcodes listed in docs/architecture.md)");
  return nullptr;
}

}  // namespace hloscope
