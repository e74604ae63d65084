#include "hlo/shape_inference.h"

#include "hlo/str_util.h"
#include "hlo/computation.h"

namespace hloscope {

namespace {
std::string CannotInfer(const Instruction& instr, std::string_view why) {
  return StrCat("cannot infer the result shape of '", instr.name(), "' (",
                      instr.PrintedOpcode(), "): ", why, "; write the shape before the opcode");
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
                              "call, fusion, conditional, after-all and elementwise ops");
  return nullptr;
}

}  // namespace hloscope
