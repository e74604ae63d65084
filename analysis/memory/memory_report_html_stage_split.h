// The memory report's HTML page (memory_report_html.cc), per pipeline stage the device's part
// and the host's (issue 33): StageMemory's device_peak_* and host_peak_* as bars on one scale,
// the memory limit a line against the device's bars only (it is the device's memory, as the
// text report's "stage N: device peak ..." lines hold it), each device bar with its verdict.
// Private to analysis/memory.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "analysis/memory/memory_profile.h"

namespace hloscope::memory_report_internal {

// True when some stage row holds host memory: only then do stages get a device/host split.
bool StagesHoldHostMemory(const MemoryReport& r);

// Nothing unless StagesHoldHostMemory(r). `title`: the drawing's heading ("device and host
// memory per stage", with "before" or "after" when passes ran).
void AppendStageDeviceAndHostHtml(const MemoryReport& r, std::optional<int64_t> limit,
                                  std::string_view title, std::string& out);

}  // namespace hloscope::memory_report_internal
