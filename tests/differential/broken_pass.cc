#include "tests/differential/broken_pass.h"

#include <functional>
#include <string>
#include <vector>

namespace hloscope::differential {
namespace {

// Forwards each copy that `remove` picks to its operand and removes it.
absl::StatusOr<bool> RemoveCopiesIf(Module& module,
                                    const std::function<bool(const Instruction&)>& remove) {
  bool changed = false;
  for (Computation* c : module.computations()) {
    std::vector<Instruction*> copies;
    for (Instruction* i : c->instructions())
      if (i->opcode() == Opcode::kCopy && remove(*i)) copies.push_back(i);
    for (Instruction* copy : copies) {
      copy->ReplaceAllUsesWith(copy->operand(0));
      if (!c->RemoveInstruction(copy)) {
        return absl::InternalError("broken pass: could not remove " + std::string(copy->name()));
      }
      changed = true;
    }
    c->CompactInstructions();
  }
  return changed;
}

}  // namespace

absl::StatusOr<bool> RemoveAllCopies::RunOnModule(Module& module, AnalysisCache& /*analyses*/) {
  return RemoveCopiesIf(module, [](const Instruction&) { return true; });
}

absl::StatusOr<bool> RemoveCopiesOfBitcasts::RunOnModule(Module& module,
                                                         AnalysisCache& /*analyses*/) {
  return RemoveCopiesIf(module, [](const Instruction& copy) {
    return copy.operand(0)->opcode() == Opcode::kBitcast;
  });
}

absl::StatusOr<bool> RemoveSoleUseCopies::RunOnModule(Module& module, AnalysisCache& /*analyses*/) {
  return RemoveCopiesIf(module, [](const Instruction& copy) {
    const Instruction& source = *copy.operand(0);
    return source.users().size() == 1 && source.parent()->root() != &source;
  });
}

}  // namespace hloscope::differential
