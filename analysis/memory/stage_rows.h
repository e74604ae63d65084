// The memory report's per-stage rows (MemoryReport::stages), for the memory profiler
// (memory_profile.cc): one per module, or per stash stage dimension, or per stage named inside
// the modules (a regex on op_name, a frontend attribute). Private to analysis/memory.
#pragma once

#include <vector>

#include "analysis/memory/module_profile_internal.h"

namespace hloscope::memory_profile_internal {

// Appends the stage rows of `profiles` to report.stages (and, for named stages,
// report.stage_names, renumbering the profiles' timeline points to the sorted stage order;
// without named stages the points get no stage).
void AddStageRows(const MemoryOptions& options, const StageNames& names,
                  std::vector<ModuleProfile>& profiles, MemoryReport& report);

}  // namespace hloscope::memory_profile_internal
