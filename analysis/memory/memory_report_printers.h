// The memory report's printers: text, JSON (analysis/memory/memory_report.proto, printed by
// protobuf's JSON printer), CSV (the live bytes after each timeline step) and a self-contained
// HTML page. Each takes the report of the modules as given and, for a before/after comparison,
// the report of the modules after `passes` (memory_comparison.h profiles both).
//
//   std::string text = MemoryReportText(*report);
//   absl::StatusOr<std::string> json = MemoryReportJson(before, &after, "copy-elision");
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "analysis/memory/memory_profile.h"
#include "analysis/memory/memory_report_pipeline.h"
#include "analysis/memory/xla_assignment_comparison.h"
#include "support/option_spelling.h"

namespace hloscope {

// `option_spelling` (support/option_spelling.h): how the caller names the options the text and
// HTML pages point at ("passes", "top", "memory_model"), e.g. as its flags.
// `after` (with `passes`) makes a before/after comparison. `buffer_assignment` adds XLA's
// "BufferAssignment stats" block per module. `xla` (each printer): XLA's own assignment of
// modules of `report` beside ours (xla_assignment_comparison.h).
using XlaComparisons = std::vector<XlaAssignmentComparison>;
std::string MemoryReportText(const MemoryReport& report, const MemoryReport* after = nullptr,
                             std::string_view passes = {}, bool buffer_assignment = false,
                             const XlaComparisons* xla = nullptr,
                             const OptionSpelling& option_spelling = {});
// Fails only if protobuf's printer does. `memory_limit` (--memory-limit): the verdicts per
// module and stage of each report (`memory_limit`); `warnings` (memory_context.h): the
// report's `warnings` (with `after`: the comparison's and its `before`'s).
absl::StatusOr<std::string> MemoryReportJson(
    const MemoryReport& report, const MemoryReport* after = nullptr, std::string_view passes = {},
    const PipelineFigures* pipeline = nullptr, const XlaComparisons* xla = nullptr,
    std::optional<int64_t> memory_limit = std::nullopt, std::span<const std::string> warnings = {});
// With `xla`, the comparison's three tables follow the timeline, each after a blank line with
// its own header row.
std::string MemoryReportCsv(const MemoryReport& report, const MemoryReport* after = nullptr,
                            const XlaComparisons* xla = nullptr);
// `pipeline` (when set) draws per stage the activations per microbatch and each rank's peak
// under the schedule.
// `memory_limit` (--memory-limit) draws a line in each module's plot and says per module
// "over by X" / "fits with X to spare"; `warnings` (memory_context.h) open the page.
std::string MemoryReportHtml(const MemoryReport& report, const MemoryReport* after = nullptr,
                             std::string_view passes = {},
                             const PipelineFigures* pipeline = nullptr,
                             const XlaComparisons* xla = nullptr,
                             std::optional<int64_t> memory_limit = std::nullopt,
                             std::span<const std::string> warnings = {},
                             const OptionSpelling& option_spelling = {});

}  // namespace hloscope
