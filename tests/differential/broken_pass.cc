#include "tests/differential/broken_pass.h"

#include <vector>

namespace hloscope::differential {

absl::StatusOr<bool> RemoveAllCopies::Run(Module& module) {
  bool changed = false;
  for (Computation* c : module.computations()) {
    std::vector<Instruction*> copies;
    for (Instruction* i : c->instructions())
      if (i->opcode() == Opcode::kCopy) copies.push_back(i);
    for (Instruction* copy : copies) {
      copy->ReplaceAllUsesWith(copy->operand(0));
      if (!c->RemoveInstruction(copy)) {
        return absl::InternalError("remove-all-copies: could not remove " +
                                   std::string(copy->name()));
      }
      changed = true;
    }
    c->CompactInstructions();
  }
  return changed;
}

}  // namespace hloscope::differential
