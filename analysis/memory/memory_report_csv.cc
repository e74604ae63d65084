// The memory report as CSV: the live bytes after each timeline step, one row per step (and per
// phase, before and after, when passes ran).
#include <iterator>
#include <string>

#include "analysis/memory/memory_report_printers.h"
#include "analysis/memory/xla_comparison_printers_internal.h"
#include "fmt/format.h"
#include "support/escapes.h"

namespace hloscope {

std::string MemoryReportCsv(const MemoryReport& report, const MemoryReport* after,
                            const XlaComparisons* xla) {
  // With host memory (host_placement.h) in some module, a last column: the host's part.
  bool host = false;
  for (const MemoryReport* r : {&report, after}) {
    if (r == nullptr) continue;
    for (const ModuleMemory& m : r->modules) host = host || m.host_peak_bytes > 0;
  }
  std::string out = after == nullptr ? "module,step,instruction,stage,live_bytes"
                                     : "phase,module,step,instruction,stage,live_bytes";
  out += host ? ",host_bytes\n" : "\n";
  auto rows = [&](const MemoryReport& r, std::string_view phase) {
    for (const ModuleMemory& m : r.modules) {
      for (size_t t = 0; t < m.timeline.size(); ++t) {
        const TimelinePoint& p = m.timeline[t];
        std::string_view stage = p.stage >= 0 && static_cast<size_t>(p.stage) < r.stage_names.size()
                                     ? std::string_view(r.stage_names[p.stage])
                                     : std::string_view();
        if (!phase.empty()) fmt::format_to(std::back_inserter(out), "{},", phase);
        fmt::format_to(std::back_inserter(out), "{},{},{},{},{}", CsvField(m.module), t,
                       CsvField(p.instruction->name()), CsvField(stage), p.live_bytes);
        if (host) fmt::format_to(std::back_inserter(out), ",{}", p.host_bytes);
        out += '\n';
      }
    }
  };
  rows(report, after == nullptr ? "" : "before");
  if (after != nullptr) rows(*after, "after");
  // Under the xla model, each module's two peaks, named: the timeline's (the largest
  // live_bytes above) and XLA's measure on our model of its assignment.
  std::string peaks;
  auto peak_rows = [&](const MemoryReport& r, std::string_view phase) {
    for (const ModuleMemory& m : r.modules) {
      if (!m.modeled_xla_peak_bytes) continue;
      const std::string lead =
          phase.empty() ? CsvField(m.module) : fmt::format("{},{}", phase, CsvField(m.module));
      peaks += fmt::format("{},timeline_peak,{}\n", lead, m.peak_bytes);
      peaks += fmt::format("{},modeled_xla_peak,{}\n", lead, *m.modeled_xla_peak_bytes);
      peaks +=
          fmt::format("{},modeled_xla_peak_static,{}\n", lead, m.modeled_xla_peak_static_bytes);
    }
  };
  peak_rows(report, after == nullptr ? "" : "before");
  if (after != nullptr) peak_rows(*after, "after");
  if (!peaks.empty()) {
    out += after == nullptr ? "\nmodule,peak,bytes\n" : "\nphase,module,peak,bytes\n";
    out += peaks;
  }
  if (xla != nullptr) {
    for (const XlaAssignmentComparison& c : *xla) AppendXlaComparisonCsv(c, out);
  }
  return out;
}

}  // namespace hloscope
