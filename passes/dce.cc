#include "passes/dce.h"

#include <vector>

#include "absl/container/flat_hash_map.h"

namespace hloscope {

namespace {

// Whether an instruction's execution is observable beyond its result, looking through the
// computations it calls. Answers are cached per computation: large modules call the same
// reducer or body from thousands of instructions.
class EffectOracle {
 public:
  bool HasEffect(const Instruction& instr) {
    constexpr uint32_t kKeepFlags =
        kOpSideEffect | kOpCollective | kOpAsyncStart | kOpAsyncUpdate | kOpAsyncDone;
    if ((GetOpcodeInfo(instr.opcode()).flags & kKeepFlags) != 0) return true;
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

// Removes the dead instructions of `c`; returns how many.
int64_t RemoveDeadInstructions(Computation& c, EffectOracle& effects) {
  // A stack whose top is the last instruction: users tend to come after their operands, so a
  // dead chain is removed from its end back to its start in one sweep, and the operands of a
  // removed instruction are looked at right after it.
  std::vector<Instruction*> work(c.instructions().begin(), c.instructions().end());
  int64_t removed = 0;
  while (!work.empty()) {
    Instruction* instr = work.back();
    work.pop_back();
    // RemoveInstruction clears parent(): an instruction can be on the stack more than once.
    if (instr->parent() == nullptr || !IsDead(*instr, effects)) continue;
    for (Instruction* op : instr->operands()) work.push_back(op);
    for (Instruction* pred : instr->control_predecessors()) work.push_back(pred);
    if (c.RemoveInstruction(instr)) ++removed;
  }
  c.CompactInstructions();
  return removed;
}

}  // namespace

absl::StatusOr<bool> DeadCodeElimination::Run(Module& module) {
  EffectOracle effects;
  int64_t removed = 0;
  for (Computation* c : module.computations()) removed += RemoveDeadInstructions(*c, effects);
  // Removing instructions (a dead while, call or fusion) can leave computations unused.
  removed += module.RemoveUnreachableComputations();
  return removed > 0;
}

}  // namespace hloscope
