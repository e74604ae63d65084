#include "eval/small_types.h"

#include <cmath>
#include <limits>

namespace hloscope::eval {
namespace {

// How a small float encodes what is not an ordinary finite value.
enum class Special {
  kIeee,  // exponent all ones: inf (mantissa 0) or NaN, as IEEE 754 (f8e5m2, f8e4m3, f8e3m4)
  kFn,    // no inf; only exponent and mantissa all ones is NaN (f8e4m3fn)
  kFnuz,  // no inf, no negative zero; the pattern of -0 (sign bit alone) is the NaN
  kNone,  // no inf, no NaN (f6e2m3fn, f6e3m2fn, f4e2m1fn): all patterns are finite
  kE8M0,  // unsigned powers of two 2^-127..2^127; all ones is NaN (f8e8m0fnu)
};

struct Format {
  int exponent_bits, mantissa_bits, bias;
  Special special;
};

std::optional<Format> FormatOf(PrimitiveType t) {
  switch (t) {
    case PrimitiveType::kF8E5M2:
      return Format{5, 2, 15, Special::kIeee};
    case PrimitiveType::kF8E4M3:
      return Format{4, 3, 7, Special::kIeee};
    case PrimitiveType::kF8E3M4:
      return Format{3, 4, 3, Special::kIeee};
    case PrimitiveType::kF8E4M3FN:
      return Format{4, 3, 7, Special::kFn};
    case PrimitiveType::kF8E4M3B11FNUZ:
      return Format{4, 3, 11, Special::kFnuz};
    case PrimitiveType::kF8E5M2FNUZ:
      return Format{5, 2, 16, Special::kFnuz};
    case PrimitiveType::kF8E4M3FNUZ:
      return Format{4, 3, 8, Special::kFnuz};
    case PrimitiveType::kF8E8M0FNU:
      return Format{8, 0, 127, Special::kE8M0};
    case PrimitiveType::kF6E2M3FN:
      return Format{2, 3, 1, Special::kNone};
    case PrimitiveType::kF6E3M2FN:
      return Format{3, 2, 3, Special::kNone};
    case PrimitiveType::kF4E2M1FN:
      return Format{2, 1, 1, Special::kNone};
    default:
      return std::nullopt;
  }
}

int TotalBits(const Format& f) {
  return (f.special == Special::kE8M0 ? 0 : 1) + f.exponent_bits + f.mantissa_bits;
}

uint8_t NanBits(const Format& f) {
  const int mag_bits = f.exponent_bits + f.mantissa_bits;
  switch (f.special) {
    case Special::kFnuz:
      return static_cast<uint8_t>(1u << mag_bits);
    case Special::kE8M0:
      return 0xff;
    default:
      return static_cast<uint8_t>((1u << mag_bits) - 1);  // all ones, positive
  }
}

// The largest finite magnitude's bit pattern (without sign).
uint32_t MaxFiniteBits(const Format& f) {
  const uint32_t all = (1u << (f.exponent_bits + f.mantissa_bits)) - 1;
  switch (f.special) {
    case Special::kIeee:
      return all - (1u << f.mantissa_bits);  // exponent all ones is inf/NaN
    case Special::kFn:
    case Special::kE8M0:
      return all - 1;  // all ones is NaN
    default:
      return all;
  }
}

double Decode(const Format& f, uint32_t mag) {
  const uint32_t e = mag >> f.mantissa_bits;
  const uint32_t m = mag & ((1u << f.mantissa_bits) - 1);
  const double scale = std::ldexp(1.0, -f.mantissa_bits);
  if (f.special == Special::kE8M0) return std::ldexp(1.0, static_cast<int>(e) - f.bias);
  if (e == 0) return std::ldexp(static_cast<double>(m) * scale, 1 - f.bias);  // subnormal
  return std::ldexp(1.0 + static_cast<double>(m) * scale, static_cast<int>(e) - f.bias);
}

}  // namespace

std::optional<int> SubByteIntBits(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::kS1:
    case PrimitiveType::kU1:
      return 1;
    case PrimitiveType::kS2:
    case PrimitiveType::kU2:
      return 2;
    case PrimitiveType::kS4:
    case PrimitiveType::kU4:
      return 4;
    default:
      return std::nullopt;
  }
}

bool IsSubByteSigned(PrimitiveType type) {
  return type == PrimitiveType::kS1 || type == PrimitiveType::kS2 || type == PrimitiveType::kS4;
}

bool IsSmallFloat(PrimitiveType type) { return FormatOf(type).has_value(); }

double SmallFloatToDouble(PrimitiveType type, uint8_t bits) {
  const Format f = *FormatOf(type);
  const int total = TotalBits(f);
  bits = static_cast<uint8_t>(bits & ((1u << total) - 1));
  if (f.special == Special::kE8M0) {
    return bits == 0xff ? std::numeric_limits<double>::quiet_NaN() : Decode(f, bits);
  }
  const int mag_bits = f.exponent_bits + f.mantissa_bits;
  const bool negative = (bits >> mag_bits) & 1;
  const uint32_t mag = bits & ((1u << mag_bits) - 1);
  if (f.special == Special::kFnuz && bits == NanBits(f)) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  if (f.special == Special::kFn && mag == (1u << mag_bits) - 1) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  if (f.special == Special::kIeee && (mag >> f.mantissa_bits) == (1u << f.exponent_bits) - 1) {
    if ((mag & ((1u << f.mantissa_bits) - 1)) != 0) return std::numeric_limits<double>::quiet_NaN();
    return negative ? -std::numeric_limits<double>::infinity()
                    : std::numeric_limits<double>::infinity();
  }
  const double v = Decode(f, mag);
  return negative ? -v : v;
}

uint8_t DoubleToSmallFloat(PrimitiveType type, double v) {
  const Format f = *FormatOf(type);
  if (std::isnan(v)) return NanBits(f);
  const int mag_bits = f.exponent_bits + f.mantissa_bits;
  const uint32_t sign = (f.special == Special::kE8M0 || !std::signbit(v)) ? 0u : 1u << mag_bits;
  const double a = std::fabs(v);
  const uint32_t max_bits = MaxFiniteBits(f);
  const double max = Decode(f, max_bits);
  if (f.special == Special::kE8M0) {
    // Powers of two only: round the exponent (ties of the mantissa go up, to the even
    // exponent's neighbour as ml_dtypes does by rounding the f32 pattern).
    if (a == 0 || std::signbit(v)) return NanBits(f);
    int e;
    const double m = std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
    int exp = e - 1 + (m >= 0.75 ? 1 : 0);
    if (exp + f.bias > 254) return NanBits(f);
    if (exp + f.bias < 0) exp = -f.bias;
    return static_cast<uint8_t>(exp + f.bias);
  }
  if (std::isinf(a) || a > max) {
    // Beyond the largest finite value: values that would round down to it still do.
    const double ulp =
        std::ldexp(1.0, static_cast<int>(max_bits >> f.mantissa_bits) - f.bias - f.mantissa_bits);
    // A tie goes to the even pattern: max itself when its mantissa is even.
    const double half = max + ulp / 2;
    if (!std::isinf(a) && (a < half || (a == half && (max_bits & 1) == 0))) {
      return static_cast<uint8_t>(sign | max_bits);
    }
    if (f.special == Special::kIeee) {
      return static_cast<uint8_t>(sign | ((1u << f.exponent_bits) - 1) << f.mantissa_bits);
    }
    if (f.special == Special::kNone) return static_cast<uint8_t>(sign | max_bits);
    return NanBits(f);
  }
  // Round a to a multiple of the spacing at its binade (subnormal spacing below the normals),
  // ties to even; the result's pattern follows from the value.
  const int min_exp = 1 - f.bias;
  int e;
  std::frexp(a, &e);  // a in [2^(e-1), 2^e)
  const int binade = std::max(e - 1, min_exp);
  const double spacing = std::ldexp(1.0, binade - f.mantissa_bits);
  const double q = std::nearbyint(a / spacing);  // default rounding mode: ties to even
  const double r = q * spacing;
  if (r == 0) {
    // fnuz types have no -0: zero is always the positive pattern.
    return static_cast<uint8_t>(f.special == Special::kFnuz ? 0 : sign);
  }
  int re;
  std::frexp(r, &re);
  uint32_t mag;
  if (re - 1 < min_exp) {
    mag = static_cast<uint32_t>(r / std::ldexp(1.0, min_exp - f.mantissa_bits));  // subnormal
  } else {
    const uint32_t exp_field = static_cast<uint32_t>(re - 1 + f.bias);
    const double frac = r / std::ldexp(1.0, re - 1) - 1.0;
    mag = exp_field << f.mantissa_bits |
          static_cast<uint32_t>(std::lround(frac * std::ldexp(1.0, f.mantissa_bits)));
  }
  if (mag > max_bits)
    return f.special == Special::kIeee
               ? static_cast<uint8_t>(sign | ((1u << f.exponent_bits) - 1) << f.mantissa_bits)
               : NanBits(f);
  return static_cast<uint8_t>(sign | mag);
}

}  // namespace hloscope::eval
