// Pieces the memory report's printers share (memory_report_{text,csv,json,html}.cc), so the
// text, JSON and HTML say the same numbers the same way (the memory diff's printers too). Private
// to analysis/memory.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "analysis/memory/memory_profile.h"
#include "fmt/format.h"

namespace hloscope::report {
class MemoryLiveBuffer;
}  // namespace hloscope::report

namespace hloscope::memory_report_internal {

// The saving as a percentage of the bytes before (0 when there were none).
inline double SavingPercent(int64_t saving, int64_t before) {
  return before == 0 ? 0.0 : 100.0 * static_cast<double>(saving) / static_cast<double>(before);
}

// How dynamic dimensions were sized: "dim_value=N" or "bound".
inline std::string DynamicSizes(const MemoryReport& r) {
  return r.dim_value ? fmt::format("dim_value={}", *r.dim_value) : "bound";
}

// Whether the report has pipeline stages worth a row each: several stages, named ones, or one
// stage that holds activations. A module without any gets a single stage "0"
// with no activations, which the text report does not print (a row of zeros reads as a
// measurement; issue 33).
inline bool HasPipelineStages(const MemoryReport& r) {
  if (r.stages.size() != 1) return !r.stages.empty();
  const StageMemory& s = r.stages.front();
  return !r.stage_names.empty() || s.activation_source != "none" ||
         s.activation_bytes_per_microbatch != 0;
}

// The stage saving rows: stages matched by name (modules by position).
template <typename Fn>
void ForEachStagePair(const MemoryReport& before, const MemoryReport& after, Fn fn) {
  for (const StageMemory& b : before.stages) {
    for (const StageMemory& a : after.stages) {
      if (a.stage == b.stage && a.module_index == b.module_index) {
        fn(b, a);
        break;
      }
    }
  }
}

// A buffer live at a peak in the JSON schema (memory_report.proto), for the report and the diff.
void LiveBufferToProto(const LiveBuffer& b, report::MemoryLiveBuffer* o);

}  // namespace hloscope::memory_report_internal
