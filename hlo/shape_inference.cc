#include "hlo/shape_inference.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hlo/attribute_values.h"
#include "hlo/computation.h"
#include "hlo/convolution_shape.h"
#include "hlo/window_attribute.h"
#include "support/status_text.h"
#include "support/str_util.h"

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

bool Contains(absl::Span<const int64_t> v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// An array shape without a layout, to which dimensions are appended with their dynamic flag
// (`<=N` keeps its bound N and stays dynamic; `?` is kUnboundedSize and dynamic).
Shape ArrayShape(PrimitiveType type) {
  Shape s;
  s.element_type = type;
  return s;
}
void AddDim(Shape& s, int64_t size, bool dynamic) {
  s.dims.push_back(size);
  s.dynamic.push_back(dynamic || size == Shape::kUnboundedSize);
}
void AddDimOf(Shape& s, const Shape& from, int64_t d) {
  AddDim(s, from.dims[static_cast<size_t>(d)], from.dynamic[static_cast<size_t>(d)]);
}
bool InRange(absl::Span<const int64_t> dims, int64_t rank) {
  for (int64_t d : dims) {
    if (d < 0 || d >= rank) return false;
  }
  return true;
}

const Shape* StatusToError(const Instruction& instr, const absl::Status& status,
                           std::string* error) {
  *error = CannotInfer(instr, StatusText(status));
  return nullptr;
}

// `key=N`, or `absent` when the instruction has no such attribute.
absl::StatusOr<int64_t> IntAttribute(const Instruction& instr, const Module& module,
                                     std::string_view key, int64_t absent) {
  std::optional<std::string_view> text = RawAttribute(instr, module, key);
  if (!text) return absent;
  std::optional<int64_t> v = ParseInt64(*text);
  if (!v) return absl::InvalidArgumentError(StrCat(key, "=", *text, " is not an integer"));
  return *v;
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

std::optional<Shape> InferTransposeShape(const Shape& operand,
                                         absl::Span<const int64_t> permutation) {
  if (!operand.IsArray() || !IsPermutation(permutation, operand.rank())) return std::nullopt;
  Shape out = ArrayShape(operand.element_type);
  for (int64_t p : permutation) AddDimOf(out, operand, p);
  return out;
}

std::optional<Shape> InferConcatenateShape(absl::Span<const Shape* const> operands,
                                           int64_t dimension) {
  if (operands.empty() || !operands[0]->IsArray() || dimension < 0 ||
      dimension >= operands[0]->rank()) {
    return std::nullopt;
  }
  Shape out = *operands[0];
  out.has_layout = false;
  out.layout = Layout();
  const size_t axis = static_cast<size_t>(dimension);
  out.dims[axis] = 0;
  for (const Shape* part : operands) {
    if (!part->IsArray() || part->rank() != out.rank()) return std::nullopt;
    for (size_t d = 0; d < part->dims.size(); ++d)
      out.dynamic[d] = out.dynamic[d] || part->dynamic[d];
    int64_t size = part->dims[axis];
    if (size == Shape::kUnboundedSize || out.dims[axis] == Shape::kUnboundedSize) {
      out.dims[axis] = Shape::kUnboundedSize;
    } else if (__builtin_add_overflow(out.dims[axis], size, &out.dims[axis])) {
      return std::nullopt;
    }
  }
  return out;
}

std::optional<Shape> InferPadShape(const Shape& operand, absl::Span<const PaddingDim> padding) {
  if (!operand.IsArray() || static_cast<int64_t>(padding.size()) != operand.rank()) {
    return std::nullopt;
  }
  Shape out = ArrayShape(operand.element_type);
  for (size_t i = 0; i < padding.size(); ++i) {
    if (operand.dims[i] == Shape::kUnboundedSize) {
      AddDim(out, Shape::kUnboundedSize, true);
      continue;
    }
    std::optional<int64_t> padded = PaddedSize(operand.dims[i], padding[i]);
    if (!padded) return std::nullopt;
    AddDim(out, *padded, operand.dynamic[i]);
  }
  return out;
}

std::optional<Shape> InferReduceShape(const Shape& operand, absl::Span<const int64_t> reduced,
                                      PrimitiveType type) {
  if (!operand.IsArray() || !InRange(reduced, operand.rank())) return std::nullopt;
  Shape out = ArrayShape(type);
  for (int64_t i = 0; i < operand.rank(); ++i) {
    if (!Contains(reduced, i)) AddDimOf(out, operand, i);
  }
  return out;
}

bool DotDimensionsInRange(const Shape& lhs, const Shape& rhs, const DotDimensionNumbers& dnums) {
  return lhs.IsArray() && rhs.IsArray() && dnums.lhs_batch.size() == dnums.rhs_batch.size() &&
         dnums.lhs_contracting.size() == dnums.rhs_contracting.size() &&
         InRange(dnums.lhs_batch, lhs.rank()) && InRange(dnums.lhs_contracting, lhs.rank()) &&
         InRange(dnums.rhs_batch, rhs.rank()) && InRange(dnums.rhs_contracting, rhs.rank());
}

namespace {
// InferDotShape, without rhs dimension `rhs_skip` (ragged-dot's group dimension; -1: none).
Shape DotShapeWithout(const Shape& lhs, const Shape& rhs, const DotDimensionNumbers& d,
                      PrimitiveType type, int64_t rhs_skip) {
  Shape out = ArrayShape(type);
  for (size_t k = 0; k < d.lhs_batch.size(); ++k) {
    const size_t l = static_cast<size_t>(d.lhs_batch[k]), r = static_cast<size_t>(d.rhs_batch[k]);
    AddDim(out, lhs.dims[l], lhs.dynamic[l] || rhs.dynamic[r]);
  }
  for (int64_t i = 0; i < lhs.rank(); ++i) {
    if (!Contains(d.lhs_batch, i) && !Contains(d.lhs_contracting, i)) AddDimOf(out, lhs, i);
  }
  for (int64_t i = 0; i < rhs.rank(); ++i) {
    if (i != rhs_skip && !Contains(d.rhs_batch, i) && !Contains(d.rhs_contracting, i)) {
      AddDimOf(out, rhs, i);
    }
  }
  return out;
}
}  // namespace

Shape InferDotShape(const Shape& lhs, const Shape& rhs, const DotDimensionNumbers& dnums,
                    PrimitiveType type) {
  return DotShapeWithout(lhs, rhs, dnums, type, -1);
}

Shape InferRaggedDotShape(const Shape& lhs, const Shape& rhs, const Shape& group_sizes,
                          const DotDimensionNumbers& dnums, PrimitiveType type) {
  const int64_t ragged = dnums.lhs_ragged[0];
  if (Contains(dnums.lhs_batch, ragged)) return InferDotShape(lhs, rhs, dnums, type);
  if (!Contains(dnums.lhs_contracting, ragged)) {
    return DotShapeWithout(lhs, rhs, dnums, type, dnums.rhs_group[0]);
  }
  // Contracting: one result per group, the group count first.
  Shape dot = InferDotShape(lhs, rhs, dnums, type);
  Shape out = ArrayShape(type);
  AddDimOf(out, group_sizes, group_sizes.rank() - 1);
  for (int64_t d = 0; d < dot.rank(); ++d) AddDimOf(out, dot, d);
  return out;
}

absl::StatusOr<Shape> InferConvolutionResult(const Instruction& instr, const Module& module) {
  if (instr.operand_count() != 2) {
    return absl::InvalidArgumentError(
        StrCat("it has ", instr.operand_count(), " operands, but a convolution takes 2"));
  }
  return InferConvolution(instr, module);
}

absl::StatusOr<Shape> InferReduceWindowResult(const Instruction& instr, const Module& module) {
  if (instr.operand_count() != 2 || !instr.operand(0)->shape().IsArray()) {
    return absl::InvalidArgumentError("it is not a reduce-window of one array and its init value");
  }
  return InferReduceWindowShape(instr, module, instr.operand(0)->shape());
}

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
      std::optional<Shape> out = InferTransposeShape(*in, perm);
      if (!out) return Inconsistent(instr, error);
      return module.InternShape(*std::move(out));
    }
    case Opcode::kConcatenate: {
      auto dim = instr.dimensions();
      const Shape* first = operand_shape(0);
      if (first == nullptr || !first->IsArray() || dim.size() != 1 || dim[0] < 0 ||
          dim[0] >= first->rank()) {
        break;
      }
      absl::InlinedVector<const Shape*, 8> parts;
      for (Instruction* o : instr.operands()) parts.push_back(o->shape_ptr());
      std::optional<Shape> out = InferConcatenateShape(parts, dim[0]);
      if (!out) return Inconsistent(instr, error);
      return module.InternShape(*std::move(out));
    }
    case Opcode::kDot: {
      const Shape* lhs = operand_shape(0);
      const Shape* rhs = operand_shape(1);
      if (lhs == nullptr || rhs == nullptr || !lhs->IsArray() || !rhs->IsArray()) break;
      const DotDimensionNumbers dnums = ReadDotDimensionNumbers(instr, module);
      if (!DotDimensionsInRange(*lhs, *rhs, dnums)) return Inconsistent(instr, error);
      std::optional<PrimitiveType> type = HigherPrecisionType(lhs->element_type, rhs->element_type);
      if (!type) {
        *error = CannotInfer(
            instr, StrCat("the lhs element type ", PrimitiveTypeName(lhs->element_type),
                          " and the rhs element type ", PrimitiveTypeName(rhs->element_type),
                          " have no common result type"));
        return nullptr;
      }
      return module.InternShape(InferDotShape(*lhs, *rhs, dnums, *type));
    }
    case Opcode::kPad: {
      // padding=lo_hi[_interior] per dimension, joined by 'x'; a dynamic dimension stays
      // dynamic (its bound padded), an unbounded one unbounded.
      const Shape* in = operand_shape(0);
      std::optional<std::string_view> text = RawAttribute(instr, module, "padding");
      if (in == nullptr || !in->IsArray() || !text) break;
      std::optional<std::vector<PaddingDim>> pads = ParsePadding(*text);
      if (!pads) {
        *error = CannotInfer(instr, StrCat("padding=", *text, " is not a list like 1_1x0_0_2"));
        return nullptr;
      }
      std::optional<Shape> out = InferPadShape(*in, *pads);
      if (!out) return Inconsistent(instr, error);
      return module.InternShape(*std::move(out));
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
      absl::StatusOr<Shape> s = InferReduceWindowResult(instr, module);
      if (!s.ok()) return StatusToError(instr, s.status(), error);
      return module.InternShape(*std::move(s));
    }
    case Opcode::kConvolution: {
      absl::StatusOr<Shape> s = InferConvolutionResult(instr, module);
      if (!s.ok()) return StatusToError(instr, s.status(), error);
      return module.InternShape(*std::move(s));
    }
    case Opcode::kReduce: {
      // Single-output reduce: the input without the reduced dimensions.
      const Shape* in = operand_shape(0);
      if (in == nullptr || !in->IsArray() || instr.operand_count() != 2) break;
      std::optional<Shape> out = InferReduceShape(*in, instr.dimensions(), in->element_type);
      if (!out) return Inconsistent(instr, error);
      return module.InternShape(*std::move(out));
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
    // As XLA's InferUnaryOpShape: abs, real and imag of a complex operand are its real
    // component type (c64 -> f32), is-finite and compare give pred; complex composes c64 or
    // c128.
    std::optional<PrimitiveType> type;
    if (op == Opcode::kCompare || op == Opcode::kIsFinite) {
      type = PrimitiveType::kPred;
    } else if ((op == Opcode::kAbs || op == Opcode::kReal || op == Opcode::kImag) &&
               GetPrimitiveTypeInfo(base->element_type).is_complex) {
      type = ComponentType(base->element_type);
    } else if (op == Opcode::kComplex && base->element_type == PrimitiveType::kF32) {
      type = PrimitiveType::kC64;  // XLA's InferBinaryOpShape: complex(f32, f32) is c64
    } else if (op == Opcode::kComplex && base->element_type == PrimitiveType::kF64) {
      type = PrimitiveType::kC128;
    }
    if (!type) return base;
    Shape s = *base;
    s.element_type = *type;
    return module.InternShape(std::move(s));
  }
  *error = StrCat("cannot infer the result shape of '", instr.name(), "' (", instr.PrintedOpcode(),
                  "): write the shape before the opcode (hloscope infers "
                  "it only for the opcodes listed in docs/architecture.md)");
  return nullptr;
}

}  // namespace hloscope
