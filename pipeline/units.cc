#include "pipeline/units.h"

#include <array>
#include <charconv>
#include <cmath>
#include <utility>

#include "absl/status/status.h"
#include "pipeline/string_pieces.h"
#include "fmt/format.h"
#include "hlo/str_util.h"

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

std::string FormatBytes(double bytes) {
  static constexpr std::array<std::string_view, 5> kNames = {"B", "KiB", "MiB", "GiB", "TiB"};
  size_t i = 0;
  double v = bytes;
  while (std::fabs(v) >= 1024 && i + 1 < kNames.size()) {
    v /= 1024;
    ++i;
  }
  if (i == 0) return fmt::format("{:.0f} B", v);
  return fmt::format("{:.2f} {}", v, kNames[i]);
}

std::string JsonNumber(double value) {
  if (!std::isfinite(value)) return "null";
  // Integral values print without ".0"; others as the shortest text that reads back exactly.
  return fmt::format("{}", value);
}

std::string JsonString(std::string_view text) {
  std::string out = "\"";
  for (char ch : text) {
    switch (ch) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (static_cast<unsigned char>(ch) < 0x20) {
          out += fmt::format("\\u{:04x}", static_cast<int>(ch));
        } else {
          out += ch;
        }
    }
  }
  out += '"';
  return out;
}

}  // namespace hloscope::pipeline
