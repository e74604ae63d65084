// What is live at a module's peak, for the memory profiler (memory_profile.cc): the largest
// buffers there (with a step's second copy and its callee's peak), every one of them grouped
// (peak_groups.h), and, when the peak is inside a callee, what each callee down the nest holds
// at its own peak. Private to analysis/memory.
#pragma once

#include "absl/container/flat_hash_map.h"
#include "analysis/alias.h"
#include "analysis/memory/module_profile_internal.h"

namespace hloscope::memory_profile_internal {

// The live bytes of each synchronous control-flow callee (buffer_live_ranges.h), by callee.
using CalleeLiveness = absl::flat_hash_map<const Computation*, ComputationLiveness>;

// Fills profile.memory's peak_instruction, peak_op_name, top_buffers (the `top_buffers`
// largest), peak_groups and callee_peaks; nothing when the entry has no step.
void DescribePeak(const AliasAnalysis& alias, const CalleeLiveness& callees,
                  const StageNames& names, int top_buffers, ModuleProfile& profile);

}  // namespace hloscope::memory_profile_internal
