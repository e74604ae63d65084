// The memory report's "opportunities" section (issue 33): what the user could change to lower
// the peak, found by running copy-elision on a copy of each module.
//  - Copies kept only because an entry parameter is not donated: the parameters, the copies'
//    bytes per step ("at least" when a loop's trip count is unknown), and how to donate them
//    (JAX's donate_argnums; PyTorch/XLA's buffer donation), and the peak with them donated
//    (--assume-donated, passes/assumed_donation.h, then copy-elision again).
//  - The largest single temporaries at the peak, with the op that made them.
#pragma once

#include <string>

#include "analysis/memory/memory_profile.h"
#include "hlo/module.h"

namespace hloscope {

// `module` is changed (copy-elision runs on it): pass a copy. `memory` is the report's entry
// for the same module, made with `options`. "" when there is nothing to suggest.
std::string MemoryOpportunitiesText(Module& module, const ModuleMemory& memory,
                                    const MemoryOptions& options);

}  // namespace hloscope
