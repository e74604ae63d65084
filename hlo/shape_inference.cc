#include "hlo/shape_inference.h"

#include <algorithm>
#include <vector>

#include "hlo/str_util.h"
#include "hlo/computation.h"

namespace hloscope {

namespace {
std::string CannotInfer(const Instruction& instr, std::string_view why) {
  return StrCat("cannot infer the result shape of '", instr.name(), "' (",
                      instr.PrintedOpcode(), "): ", why, "; write the shape before the opcode");
}
}  // namespace

namespace {
// Integers inside a raw attribute value such as `{1,2}`; empty when absent.
std::vector<int64_t> IntsOfAttribute(const Instruction& instr, const Module& module,
                                     std::string_view key) {
  std::vector<int64_t> out;
  for (const Attribute& a : instr.attributes()) {
    if (module.AttrKeyName(a.key) != key) continue;
    int64_t v = 0;
    bool in_number = false, negative = false;
    for (char c : a.value) {
      if (c >= '0' && c <= '9') {
        v = v * 10 + (c - '0');
        in_number = true;
      } else {
        if (in_number) out.push_back(negative ? -v : v);
        negative = c == '-';
        v = 0;
        in_number = false;
      }
    }
    if (in_number) out.push_back(negative ? -v : v);
  }
  return out;
}

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
      auto lb = IntsOfAttribute(instr, module, "lhs_batch_dims");
      auto lc = IntsOfAttribute(instr, module, "lhs_contracting_dims");
      auto rb = IntsOfAttribute(instr, module, "rhs_batch_dims");
      auto rc = IntsOfAttribute(instr, module, "rhs_contracting_dims");
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
      auto p = IntsOfAttribute(instr, module, "padding");
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
  *error = CannotInfer(instr, "hloscope infers shapes only for tuple, get-tuple-element, while, "
                              "call, fusion, conditional, after-all, transpose, concatenate, "
                              "dot, pad, reduce and elementwise ops");
  return nullptr;
}

}  // namespace hloscope
