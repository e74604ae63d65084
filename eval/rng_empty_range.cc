#include "eval/rng_empty_range.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "eval/element_io.h"

namespace hloscope::eval {
namespace {

template <typename U>
U RandomWord(std::minstd_rand0& engine) {
  return std::uniform_int_distribution<U>(0, std::numeric_limits<U>::max())(engine);
}

// ConvertRandomBitsToUniformFloatingPoint for F (float, double) from a word of type U.
template <typename F, typename U>
F UniformFloat(F low, F high, std::minstd_rand0& engine) {
  constexpr int kMantissa = std::numeric_limits<F>::digits - 1;  // 23, 52
  constexpr int kBits = static_cast<int>(sizeof(U) * 8);
  const U bits = RandomWord<U>(engine) >> (kBits - kMantissa);
  const F u = static_cast<F>(bits) * static_cast<F>(std::ldexp(1.0, -kMantissa));
  return u * (high - low) + low;
}

// ConvertRandomBitsToUniformInt in the unsigned type U; the result's bits as U.
template <typename U>
U UniformInt(U low, U high, std::minstd_rand0& engine) {
  const U range = static_cast<U>(high - low);
  const U bits = RandomWord<U>(engine);
  const U dist = range == 0 ? bits : static_cast<U>(bits % range);
  const U half = static_cast<U>(dist >> 1);
  return static_cast<U>(low + half + static_cast<U>(dist - half));
}

}  // namespace

bool RngFormulaDefines(PrimitiveType t) {
  switch (t) {
    case PrimitiveType::kF16:
    case PrimitiveType::kBF16:
    case PrimitiveType::kF32:
    case PrimitiveType::kF64:
    case PrimitiveType::kS32:
    case PrimitiveType::kU32:
    case PrimitiveType::kS64:
    case PrimitiveType::kU64:
      return true;
    default:
      return false;
  }
}

Bytes RngByBackendFormula(PrimitiveType t, const uint8_t* low, const uint8_t* high, int64_t n,
                          std::minstd_rand0& engine) {
  const int eb = ElementBytes(t);
  Bytes out(static_cast<size_t>(n * eb));
  for (int64_t i = 0; i < n; ++i) {
    uint8_t* dst = out.data() + i * eb;
    if (t == PrimitiveType::kF64) {
      const double v =
          UniformFloat<double, uint64_t>(LoadDouble(t, low), LoadDouble(t, high), engine);
      std::memcpy(dst, &v, 8);
    } else if (IsFloatType(t)) {
      const float v = UniformFloat<float, uint32_t>(
          static_cast<float>(LoadDouble(t, low)), static_cast<float>(LoadDouble(t, high)), engine);
      StoreDouble(t, dst, v);
    } else if (BitWidth(t) == 64) {
      const auto v = UniformInt<uint64_t>(static_cast<uint64_t>(LoadInt(t, low)),
                                          static_cast<uint64_t>(LoadInt(t, high)), engine);
      std::memcpy(dst, &v, 8);
    } else {
      const auto v = UniformInt<uint32_t>(static_cast<uint32_t>(LoadInt(t, low)),
                                          static_cast<uint32_t>(LoadInt(t, high)), engine);
      std::memcpy(dst, &v, 4);
    }
  }
  return out;
}

}  // namespace hloscope::eval
