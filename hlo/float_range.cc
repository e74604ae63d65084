#include "hlo/float_range.h"

#include <cfloat>
#include <cmath>
#include <cstdint>

#include "fmt/format.h"

namespace hloscope {
namespace {

// The largest finite value, written as significand * 2^exponent with an integer significand
// whose lowest bit is the last place, so that the midpoint to the next step up is
// (2 * significand + 1) * 2^(exponent - 1). A value exactly there rounds to even: down to the
// largest value when its encoding is even (f8e4m3fn's 1.110b, whose 1.111b is the NaN;
// f8e8m0fnu's exponent 254), up past it otherwise.
struct FloatLimit {
  PrimitiveType type;
  int64_t significand;
  int exponent;
  bool tie_keeps_max;
};

constexpr FloatLimit kLimits[] = {
    {PrimitiveType::kF16, 2047, 5, false},          // 65504
    {PrimitiveType::kBF16, 255, 120, false},        // 3.3895e38
    {PrimitiveType::kF32, 16777215, 104, false},    // 3.4028e38
    {PrimitiveType::kF8E5M2, 7, 13, false},         // 57344
    {PrimitiveType::kF8E4M3, 15, 4, false},         // 240
    {PrimitiveType::kF8E4M3FN, 14, 5, true},        // 448
    {PrimitiveType::kF8E4M3B11FNUZ, 15, 1, false},  // 30
    {PrimitiveType::kF8E5M2FNUZ, 7, 13, false},     // 57344
    {PrimitiveType::kF8E4M3FNUZ, 15, 4, false},     // 240
    {PrimitiveType::kF8E3M4, 31, -1, false},        // 15.5
    {PrimitiveType::kF8E8M0FNU, 1, 127, true},      // 2^127
    {PrimitiveType::kF6E2M3FN, 15, -1, false},      // 7.5
    {PrimitiveType::kF6E3M2FN, 7, 2, false},        // 28
    {PrimitiveType::kF4E2M1FN, 3, 1, false},        // 6
};

const FloatLimit* LimitOf(PrimitiveType type) {
  for (const FloatLimit& l : kLimits) {
    if (l.type == type) return &l;
  }
  return nullptr;  // f64: every finite double fits
}

}  // namespace

double LargestFiniteFloat(PrimitiveType type) {
  const FloatLimit* limit = LimitOf(ComponentType(type));
  if (limit == nullptr) return DBL_MAX;
  return std::ldexp(static_cast<double>(limit->significand), limit->exponent);
}

std::optional<std::string> FloatRangeProblem(double value, PrimitiveType type) {
  const PrimitiveType component = ComponentType(type);
  if (std::isnan(value)) return std::nullopt;
  if (component == PrimitiveType::kF8E8M0FNU && value < 0) {
    return fmt::format("{} holds no negative values", PrimitiveTypeName(component));
  }
  const double magnitude = std::fabs(value);
  bool fits = std::isfinite(magnitude);
  if (const FloatLimit* limit = LimitOf(component); limit != nullptr && fits) {
    // Exact in a double: max + half an ulp has one more significant bit than max.
    const double midpoint =
        std::ldexp(static_cast<double>(2 * limit->significand + 1), limit->exponent - 1);
    fits = magnitude < midpoint || (magnitude == midpoint && limit->tie_keeps_max);
  }
  if (fits) return std::nullopt;
  return fmt::format("it rounds past the largest finite {}, {}", PrimitiveTypeName(component),
                     LargestFiniteFloat(component));
}

}  // namespace hloscope
