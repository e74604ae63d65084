#include "pipeline/units.h"

#include <array>
#include <charconv>
#include <cmath>
#include <utility>

#include "absl/status/status.h"
#include "fmt/format.h"
#include "support/str_util.h"

namespace hloscope::pipeline {

absl::StatusOr<double> ParseBytes(std::string_view text) {
  std::string_view t = StripWhitespace(text);
  double value = 0;
  auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
  if (ec != std::errc() || end == t.data()) {
    return absl::InvalidArgumentError(StrCat("'", text, "' is not a byte size"));
  }
  const std::string unit = Lower(StripWhitespace(std::string_view(end, t.data() + t.size() - end)));
  static constexpr std::array<std::pair<std::string_view, double>, 10> kUnits = {{
      {"", 1},
      {"b", 1},
      {"kb", 1e3},
      {"mb", 1e6},
      {"gb", 1e9},
      {"tb", 1e12},
      {"kib", 1024.0},
      {"mib", 1024.0 * 1024},
      {"gib", 1024.0 * 1024 * 1024},
      {"tib", 1024.0 * 1024 * 1024 * 1024},
  }};
  for (const auto& [name, scale] : kUnits) {
    if (unit == name) {
      if (!(value >= 0) || !std::isfinite(value)) {
        return absl::InvalidArgumentError(StrCat("'", text, "': sizes must be >= 0"));
      }
      return value * scale;
    }
  }
  return absl::InvalidArgumentError(
      StrCat("'", text, "': unknown unit '", unit, "' (use B, KB, MB, GB, KiB, MiB, GiB, TiB)"));
}

std::string JsonNumber(double value) {
  if (!std::isfinite(value)) return "null";
  // Integral values print without ".0"; others as the shortest text that reads back exactly.
  return fmt::format("{}", value);
}

}  // namespace hloscope::pipeline
