#include "analysis/memory/memory_limit.h"

#include <cctype>
#include <cmath>
#include <limits>

#include "absl/status/status.h"
#include "analysis/memory/memory_report_internal.h"
#include "fmt/format.h"
#include "support/bytes.h"
#include "support/str_util.h"

namespace hloscope {

absl::StatusOr<int64_t> ParseMemorySize(std::string_view text) {
  auto bad = [&] {
    return absl::InvalidArgumentError(
        fmt::format("'{}' is not a memory size (e.g. 80GiB, 1.5GB, 4096)", text));
  };
  size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) {
    ++i;
  }
  const std::string number(text.substr(0, i));
  if (number.empty() || number == "." || number.find('.') != number.rfind('.')) return bad();
  std::string unit;
  for (char c : text.substr(i))
    unit += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  double scale = 0;
  if (unit.empty() || unit == "b")
    scale = 1;
  else if (unit == "kb")
    scale = 1e3;
  else if (unit == "mb")
    scale = 1e6;
  else if (unit == "gb")
    scale = 1e9;
  else if (unit == "tb")
    scale = 1e12;
  else if (unit == "kib")
    scale = 1024.0;
  else if (unit == "mib")
    scale = 1024.0 * 1024;
  else if (unit == "gib")
    scale = 1024.0 * 1024 * 1024;
  else if (unit == "tib")
    scale = 1024.0 * 1024 * 1024 * 1024;
  else
    return bad();
  const double bytes = std::strtod(number.c_str(), nullptr) * scale;
  // 2^63 is the first double past int64.
  if (!std::isfinite(bytes) || bytes >= 9223372036854775808.0) {
    return absl::InvalidArgumentError(fmt::format("memory size '{}' is past int64 bytes", text));
  }
  return static_cast<int64_t>(std::llround(bytes));
}

std::string LimitVerdict(int64_t peak_bytes, int64_t limit) {
  if (peak_bytes == std::numeric_limits<int64_t>::max()) return "over (the peak passed int64)";
  if (peak_bytes > limit) {
    return fmt::format("over by {} bytes ({})", peak_bytes - limit, HumanBytes(peak_bytes - limit));
  }
  return fmt::format("fits with {} bytes ({}) to spare", limit - peak_bytes,
                     HumanBytes(limit - peak_bytes));
}

int64_t DevicePeakBytes(const ModuleMemory& m) {
  return m.host_peak_bytes > 0 ? m.device_peak_bytes : m.peak_bytes;
}

int64_t DevicePeakBytes(const StageMemory& s) {
  return s.host_peak_bytes > 0 ? s.device_peak_bytes : s.peak_bytes;
}

std::string MemoryLimitText(const MemoryReport& report, int64_t limit) {
  std::string out = fmt::format("memory limit: {} bytes ({})\n", limit, HumanBytes(limit));
  for (const ModuleMemory& m : report.modules) {
    // Host-offloaded buffers are not in the device's memory (host_placement.h).
    const int64_t peak = DevicePeakBytes(m);
    out += fmt::format("  module {}: {}peak {} ({}): {}\n", m.module,
                       m.host_peak_bytes > 0 ? "device " : "", peak, HumanBytes(peak),
                       LimitVerdict(peak, limit));
  }
  if (!memory_report_internal::HasPipelineStages(report)) return out;
  for (const StageMemory& s : report.stages) {
    const int64_t peak = DevicePeakBytes(s);
    out += fmt::format("  stage {}: {}peak {} ({}): {}\n", s.stage,
                       s.host_peak_bytes > 0 ? "device " : "", peak, HumanBytes(peak),
                       LimitVerdict(peak, limit));
  }
  return out;
}

}  // namespace hloscope
