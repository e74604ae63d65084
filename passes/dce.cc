#include "passes/dce.h"

#include <algorithm>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/types/span.h"

namespace hloscope {

namespace {

// Whether an instruction's execution is observable beyond its result, looking through the
// computations it calls. Answers are cached per computation: large modules call the same
// reducer or body from thousands of instructions.
class EffectOracle {
 public:
  bool HasEffect(const Instruction& instr) {
    if (HasEffectBeyondResult(instr.opcode())) return true;
    if (instr.HasSideEffect()) return true;  // also custom_call_has_side_effect=true
    for (const Computation* callee : instr.called_computations()) {
      if (ComputationHasEffect(*callee)) return true;
    }
    return false;
  }

 private:
  bool ComputationHasEffect(const Computation& c) {
    auto [it, inserted] = cache_.emplace(&c, false);
    // A computation being examined further up the stack counts as effect-free here; a real
    // effect inside it is found by that outer examination. (Verified modules have no
    // recursion; this only keeps a broken one from looping.)
    if (!inserted) return it->second;
    bool effect = false;
    for (const Instruction* instr : c.instructions()) {
      if (instr->parent() != nullptr && HasEffect(*instr)) {
        effect = true;
        break;
      }
    }
    cache_[&c] = effect;  // `it` may be stale: the recursion above can rehash
    return effect;
  }

  absl::flat_hash_map<const Computation*, bool> cache_;
};

bool IsDead(const Instruction& instr, EffectOracle& effects) {
  return instr.user_count() == 0 && !instr.IsRoot() && instr.opcode() != Opcode::kParameter &&
         instr.control_successors().empty() && !effects.HasEffect(instr);
}

// Removes `instr` if dead, then whatever that leaves dead among its operands and control
// predecessors (a dead chain goes in one cascade); returns how many were removed.
int64_t RemoveWithCascade(Computation& c, Instruction* instr, EffectOracle& effects,
                          std::vector<Instruction*>& stack) {
  int64_t removed = 0;
  stack.push_back(instr);
  while (!stack.empty()) {
    Instruction* top = stack.back();
    stack.pop_back();
    // RemoveInstruction clears parent(): an instruction can be on the stack more than once.
    if (top->parent() == nullptr || !IsDead(*top, effects)) continue;
    for (Instruction* op : top->operands()) stack.push_back(op);
    for (Instruction* pred : top->control_predecessors()) stack.push_back(pred);
    if (c.RemoveInstruction(top)) ++removed;
  }
  return removed;
}

// Removes the dead instructions of `c`; returns how many.
int64_t RemoveDeadInstructions(Computation& c, EffectOracle& effects,
                               std::vector<Instruction*>& stack, InstructionPrefetcher& ahead) {
  // One forward sweep in instruction order, which is allocation order: at a million
  // instructions the sweep is bound by loading each instruction, and walking memory forward
  // with `ahead` prefetching keeps it streaming (a reverse walk of a copied list stalled on
  // every instruction). Removing an instruction can only make its operands
  // and control predecessors dead, and the cascade looks at exactly those, so the sweep
  // reaches the same fixed point as any other order; in a dead chain written operands first
  // the sweep meets the chain's end, and one cascade removes it back to its start.
  int64_t removed = 0;
  for (Instruction* instr : c.instructions()) {
    ahead.Advance();
    if (instr->parent() == nullptr || !IsDead(*instr, effects)) continue;
    removed += RemoveWithCascade(c, instr, effects, stack);
  }
  c.CompactInstructions();
  return removed;
}

}  // namespace

absl::StatusOr<bool> DeadCodeElimination::RunOnModule(Module& module, AnalysisCache& /*analyses*/) {
  EffectOracle effects;
  std::vector<Instruction*> stack;  // reused: most computations have nothing dead
  int64_t removed = 0;
  // IsDead first reads the user count, on an instruction's first cache line; the rest is
  // read only for the few instructions without users.
  InstructionPrefetcher ahead(module.computations(), /*line=*/0, /*distance=*/32);
  for (Computation* c : module.computations()) {
    removed += RemoveDeadInstructions(*c, effects, stack, ahead);
  }
  // Removing instructions (a dead while, call or fusion) can leave computations unused.
  removed += module.RemoveUnreachableComputations();
  return removed > 0;
}

}  // namespace hloscope
