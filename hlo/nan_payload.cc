#include "hlo/nan_payload.h"

#include <charconv>

#include "fmt/format.h"
#include "support/str_util.h"

namespace hloscope {
namespace {
constexpr uint64_t kF64QuietBit = uint64_t{1} << 51;
}  // namespace

int NanPayloadBits(PrimitiveType t) {
  switch (t) {
    case PrimitiveType::kF16:
      return 10;
    case PrimitiveType::kBF16:
      return 7;
    case PrimitiveType::kF32:
      return 23;
    case PrimitiveType::kF64:
      return 52;
    case PrimitiveType::kF8E5M2:
      return 2;
    case PrimitiveType::kF8E4M3:
      return 3;
    case PrimitiveType::kF8E3M4:
      return 4;
    default:
      return 0;
  }
}

std::optional<uint64_t> NanWordPayload(std::string_view word) {
  const size_t open = word.find("nan(0x");
  if (open == std::string_view::npos || !word.ends_with(')')) return std::nullopt;
  const char* begin = word.data() + open + 6;
  const char* end = word.data() + word.size() - 1;
  uint64_t payload = 0;
  auto [ptr, ec] = std::from_chars(begin, end, payload, 16);
  if (ec != std::errc() || ptr != end || begin == end) return std::nullopt;
  if (payload == 0 || payload == kF64QuietBit) return std::nullopt;
  return payload;
}

std::optional<std::string> NanPayloadProblem(uint64_t payload, PrimitiveType t) {
  const int bits = NanPayloadBits(t);
  const std::string hex = fmt::format("{:x}", payload);
  if (bits == 0) {
    return StrCat("NaN payload 0x", hex, ": ", PrimitiveTypeName(t), " does not support payloads");
  }
  const uint64_t mask = bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  if (payload > mask) {
    return StrCat("NaN payload 0x", hex, " is out of range for ", PrimitiveTypeName(t), " (0x",
                  fmt::format("{:x}", mask), ")");
  }
  return std::nullopt;
}

uint64_t NanBitsWithPayload(PrimitiveType t, bool negative, uint64_t payload) {
  const int width = GetPrimitiveTypeInfo(t).bits;
  const int mantissa = NanPayloadBits(t);
  const uint64_t exponent_ones = ((uint64_t{1} << (width - 1 - mantissa)) - 1) << mantissa;
  const uint64_t sign = negative ? uint64_t{1} << (width - 1) : 0;
  return sign | exponent_ones | (payload & ((uint64_t{1} << mantissa) - 1));
}

}  // namespace hloscope
