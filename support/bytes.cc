#include "support/bytes.h"

#include <array>
#include <cmath>
#include <string_view>

#include "fmt/format.h"
#include "support/checked_int.h"

namespace hloscope {

std::string FormatBinaryBytes(double bytes, int decimals) {
  static constexpr std::array<std::string_view, 6> kUnits = {"B",   "KiB", "MiB",
                                                             "GiB", "TiB", "PiB"};
  size_t unit = 0;
  double v = bytes;
  while (std::fabs(v) >= 1024 && unit + 1 < kUnits.size()) {
    v /= 1024;
    ++unit;
  }
  if (unit == 0) return fmt::format("{:.0f} B", v);
  return fmt::format("{:.{}f} {}", v, decimals, kUnits[unit]);
}

std::string HumanBytes(int64_t bytes) {
  // Exact below 1 KiB, where the double could otherwise only round what is already whole.
  if (bytes > -1024 && bytes < 1024) return fmt::format("{} B", bytes);
  return FormatBinaryBytes(static_cast<double>(bytes), 1);
}

std::string FormatBytes(double bytes) { return FormatBinaryBytes(bytes, 2); }

std::string FormatCount(int64_t n) {
  return n == kInt64Max ? std::string(kSaturatedText) : fmt::format("{}", n);
}

std::string HumanBytesOrOverflow(int64_t bytes) {
  return bytes == kInt64Max ? std::string(kSaturatedText) : HumanBytes(bytes);
}

}  // namespace hloscope
