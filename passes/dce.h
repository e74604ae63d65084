// Dead code elimination (`dce`): removes instructions whose results nobody reads, then the
// computations no instruction calls any more.
//
// An instruction is dead when it has no users, is not its computation's root, is not a
// parameter (parameters are a computation's signature) and removing it cannot change what the
// program does. Kept regardless of users:
//  - side effects: opcodes flagged kOpSideEffect (send/recv, infeed/outfeed, rng, ...),
//    custom-calls with custom_call_has_side_effect=true;
//  - collectives and every async start/update/done (the other half may be live, and the
//    communication itself is observable);
//  - instructions that call a computation containing any of the above (a while loop whose
//    body does an outfeed, say);
//  - control predecessors: the edge orders work for scheduling or memory, which DCE cannot
//    judge. Once every control successor has been removed the predecessor is reconsidered.
// Removal cascades: removing an instruction may leave its operands dead, and those go too.
// The entry computation is never removed.
#pragma once

#include "passes/pass.h"

namespace hloscope {

class DeadCodeElimination : public Pass {
 public:
  std::string_view name() const override { return "dce"; }
  std::string_view description() const override {
    return "Removes unused instructions without side effects, then computations no longer "
           "called.";
  }
  absl::StatusOr<bool> RunOnModule(Module& module, AnalysisCache& analyses) override;
};

}  // namespace hloscope
