// The memory diff's printers (memory_diff.h PrintMemoryDiff picks one): text, JSON
// (analysis/memory/memory_diff.proto, printed by protobuf's JSON printer) and a self-contained
// HTML page. Private to analysis/memory (not installed: *_internal.h).
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "analysis/memory/memory_diff.h"

namespace hloscope::memory_diff_internal {

// What a module is called in the report: its file when given, else its name.
inline std::string SideLabel(std::string_view label, const MemoryReport& r) {
  if (!label.empty()) return std::string(label);
  return r.modules.empty() ? std::string("?") : r.modules.front().module;
}

// A change (of bytes or a count) as the reports write it: "+16777216", "-2", "0".
inline std::string Signed(int64_t delta) {
  return delta > 0 ? "+" + std::to_string(delta) : std::to_string(delta);
}

std::string MemoryDiffText(const MemoryDiff& diff, const MemoryDiffPrintOptions& options);
absl::StatusOr<std::string> MemoryDiffJson(const MemoryDiff& diff,
                                           const MemoryDiffPrintOptions& options);
std::string MemoryDiffHtml(const MemoryDiff& diff, const MemoryDiffPrintOptions& options);

}  // namespace hloscope::memory_diff_internal
