#include "passes/tuple_simplify.h"

namespace hloscope {

namespace {

// The instruction `gte` reads when its operand is a tuple instruction, or nullptr.
Instruction* ForwardedOperand(const Instruction& gte) {
  if (gte.opcode() != Opcode::kGetTupleElement || gte.operand_count() != 1) return nullptr;
  const Instruction* tuple = gte.operand(0);
  if (tuple->opcode() != Opcode::kTuple) return nullptr;
  const int64_t index = gte.tuple_index();
  if (index < 0 || index >= tuple->operand_count()) return nullptr;
  Instruction* element = tuple->operand(index);
  if (!element->shape().Compatible(gte.shape())) return nullptr;
  return element;
}

}  // namespace

absl::StatusOr<bool> TupleSimplify::RunOnModule(Module& module, AnalysisCache& /*analyses*/) {
  bool changed = false;
  for (Computation* c : module.computations()) {
    // In text order a rewrite exposes the next level of a nested chain to the instructions
    // after it, so one sweep usually suffices; another sweep catches lists that are not in
    // topological order. A rewritten get-tuple-element has no uses left, so this terminates.
    bool again = true;
    while (again) {
      again = false;
      for (Instruction* instr : c->instructions()) {
        if (instr->user_count() == 0 && !instr->IsRoot()) continue;
        Instruction* element = ForwardedOperand(*instr);
        if (element == nullptr) continue;
        instr->ReplaceAllUsesWith(element);
        changed = again = true;
      }
    }
  }
  return changed;
}

}  // namespace hloscope
