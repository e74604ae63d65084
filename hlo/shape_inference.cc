#include "hlo/shape_inference.h"

#include <algorithm>
#include <vector>

#include "hlo/attribute_values.h"
#include "hlo/computation.h"
#include "hlo/str_util.h"

namespace hloscope {

namespace {
std::string CannotInfer(const Instruction& instr, std::string_view why) {
  return StrCat("cannot infer the result shape of '", instr.name(), "' (",
                      instr.PrintedOpcode(), "): ", why, "; write the shape before the opcode");
}
}  // namespace

namespace {
// Integers inside a raw attribute value such as `{1,2}`; empty when absent.
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
        *error = CannotInfer(instr, StrCat("index ", instr.tuple_index(),
                                                 " is out of range for ", t->ToString()));
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
        if (!o->shape().IsArray() || o->shape().rank() != first->rank()) return Inconsistent(instr, error);
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
        std::string_view part = text.substr(pos, end == std::string_view::npos ? text.npos : end - pos);
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
      // window={size=AxB stride=CxD pad=lo_hixlo_hi lhs_dilate=.. rhs_dilate=..}; one input.
      const Shape* in = operand_shape(0);
      if (in == nullptr || !in->IsArray() || instr.operand_count() != 2) break;
      std::string_view window;
      for (const Attribute& a : instr.attributes()) {
        if (module.AttrKeyName(a.key) == "window") window = a.value;
      }
      if (window.size() < 2) break;
      window = window.substr(1, window.size() - 2);
      const int64_t rank = in->rank();
      std::vector<int64_t> size(rank, 1), stride(rank, 1), lo(rank, 0), hi(rank, 0),
          base_dilation(rank, 1), window_dilation(rank, 1);
      // Splits `key=v1xv2x...` items; pad items are `lo_hi`.
      size_t pos = 0;
      while (pos < window.size()) {
        size_t end = window.find(' ', pos);
        if (end == std::string_view::npos) end = window.size();
        std::string_view item = window.substr(pos, end - pos);
        pos = end + 1;
        size_t eq = item.find('=');
        if (eq == std::string_view::npos) continue;
        std::string_view key = item.substr(0, eq);
        std::string_view values = item.substr(eq + 1);
        std::vector<std::string_view> parts;
        for (size_t p = 0; p <= values.size();) {
          size_t x = values.find('x', p);
          if (x == std::string_view::npos) x = values.size();
          parts.push_back(values.substr(p, x - p));
          p = x + 1;
        }
        if (static_cast<int64_t>(parts.size()) != rank) return Inconsistent(instr, error);
        for (int64_t d = 0; d < rank; ++d) {
          auto number = [&](std::string_view t, int64_t* v) {
            bool negative = !t.empty() && t[0] == '-';
            if (negative) t.remove_prefix(1);
            if (t.empty() || t.size() > 15) return false;
            int64_t r = 0;
            for (char c : t) {
              if (c < '0' || c > '9') return false;
              r = r * 10 + (c - '0');
            }
            *v = negative ? -r : r;
            return true;
          };
          std::string_view part = parts[static_cast<size_t>(d)];
          bool ok = true;
          if (key == "size") {
            ok = number(part, &size[d]);
          } else if (key == "stride") {
            ok = number(part, &stride[d]);
          } else if (key == "lhs_dilate") {
            ok = number(part, &base_dilation[d]);
          } else if (key == "rhs_dilate") {
            ok = number(part, &window_dilation[d]);
          } else if (key == "pad") {
            size_t u = part.find('_');
            ok = u != std::string_view::npos && number(part.substr(0, u), &lo[d]) &&
                 number(part.substr(u + 1), &hi[d]);
          }
          if (!ok) return Inconsistent(instr, error);
        }
      }
      std::vector<int64_t> dims;
      for (int64_t d = 0; d < rank; ++d) {
        int64_t padded = (in->dims[d] - 1) * base_dilation[d] + 1 + lo[d] + hi[d];
        int64_t extent = (size[d] - 1) * window_dilation[d] + 1;
        if (stride[d] <= 0 || size[d] <= 0 || padded < extent) return Inconsistent(instr, error);
        dims.push_back((padded - extent) / stride[d] + 1);
      }
      return module.InternShape(ArrayShape(in->element_type, dims));
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
  *error = StrCat("cannot infer the result shape of '", instr.name(), "' (",
                  instr.PrintedOpcode(), "): write the shape before the opcode (hloscope infers "
                  "it only for the opcodes listed in docs/architecture.md)");
  return nullptr;
}

}  // namespace hloscope
