#include "eval/element_io.h"

#include <bit>
#include <cmath>
#include <limits>
#include <optional>

#include "eval/small_types.h"

namespace hloscope::eval {

int ElementBytes(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::kPred:
    case PrimitiveType::kS8:
    case PrimitiveType::kU8:
      return 1;
    case PrimitiveType::kS16:
    case PrimitiveType::kU16:
    case PrimitiveType::kF16:
    case PrimitiveType::kBF16:
      return 2;
    case PrimitiveType::kS32:
    case PrimitiveType::kU32:
    case PrimitiveType::kF32:
      return 4;
    case PrimitiveType::kS64:
    case PrimitiveType::kU64:
    case PrimitiveType::kF64:
    case PrimitiveType::kC64:
      return 8;
    case PrimitiveType::kC128:
      return 16;
    default:
      // Sub-byte integers and small floats: one byte per element (small_types.h).
      return SubByteIntBits(type) || IsSmallFloat(type) ? 1 : 0;
  }
}

bool IsFloatType(PrimitiveType t) {
  return t == PrimitiveType::kF16 || t == PrimitiveType::kBF16 || t == PrimitiveType::kF32 ||
         t == PrimitiveType::kF64 || IsSmallFloat(t);
}
bool IsComplexType(PrimitiveType t) {
  return t == PrimitiveType::kC64 || t == PrimitiveType::kC128;
}
bool IsSignedType(PrimitiveType t) {
  return t == PrimitiveType::kS8 || t == PrimitiveType::kS16 || t == PrimitiveType::kS32 ||
         t == PrimitiveType::kS64 || IsSubByteSigned(t);
}
bool IsUnsignedType(PrimitiveType t) {
  return t == PrimitiveType::kU8 || t == PrimitiveType::kU16 || t == PrimitiveType::kU32 ||
         t == PrimitiveType::kU64 || (SubByteIntBits(t) && !IsSubByteSigned(t));
}
int BitWidth(PrimitiveType t) {
  if (t == PrimitiveType::kPred) return 1;
  if (std::optional<int> bits = SubByteIntBits(t)) return *bits;
  if (t == PrimitiveType::kF4E2M1FN) return 4;
  if (t == PrimitiveType::kF6E2M3FN || t == PrimitiveType::kF6E3M2FN) return 6;
  return ElementBytes(t) * 8;
}

uint16_t FloatToBF16(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  if (std::isnan(f)) return static_cast<uint16_t>((x >> 16) | 0x40);  // keep it a quiet NaN
  uint32_t bias = 0x7fff + ((x >> 16) & 1);
  return static_cast<uint16_t>((x + bias) >> 16);
}
float BF16ToFloat(uint16_t b) { return std::bit_cast<float>(static_cast<uint32_t>(b) << 16); }

uint16_t FloatToHalf(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  uint32_t sign = (x >> 16) & 0x8000;
  x &= 0x7fffffff;
  if (x >= 0x7f800000) return static_cast<uint16_t>(sign | (x > 0x7f800000 ? 0x7e00 : 0x7c00));
  if (x >= 0x477ff000) return static_cast<uint16_t>(sign | 0x7c00);  // >= 65520 rounds to inf
  if (x < 0x38800000) {
    // Below the smallest normal half (2^-14): a subnormal m * 2^-24. Scaling by 2^24 is exact
    // in float, and nearbyint rounds to nearest even in the default rounding mode.
    float a = std::bit_cast<float>(x);
    auto m = static_cast<uint32_t>(std::nearbyint(a * 16777216.0f));
    return static_cast<uint16_t>(sign | m);
  }
  uint32_t odd = (x >> 13) & 1;
  x += 0xc8000fffu + odd;  // rebias the exponent (-112) and add the rounding bias
  return static_cast<uint16_t>(sign | (x >> 13));
}

float HalfToFloat(uint16_t h) {
  uint32_t sign = (static_cast<uint32_t>(h) & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f;
  uint32_t mant = h & 0x3ff;
  if (exp == 0) {
    float v = static_cast<float>(mant) * (1.0f / 16777216.0f);
    return sign ? -v : v;
  }
  if (exp == 31) return std::bit_cast<float>(sign | 0x7f800000 | (mant << 13));
  return std::bit_cast<float>(sign | ((exp + 112) << 23) | (mant << 13));
}

namespace {
template <typename T>
T Read(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}
template <typename T>
void Write(uint8_t* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

// Saturating float -> integer conversion into [lo, hi] (as doubles), NaN -> 0.
int64_t SaturateSigned(double v, int bits) {
  if (std::isnan(v)) return 0;
  double lo = -std::ldexp(1.0, bits - 1);
  double hi = std::ldexp(1.0, bits - 1);
  if (v <= lo) return bits == 64 ? std::numeric_limits<int64_t>::min() : static_cast<int64_t>(lo);
  if (v >= hi)
    return bits == 64 ? std::numeric_limits<int64_t>::max() : static_cast<int64_t>(hi) - 1;
  return static_cast<int64_t>(v);
}
uint64_t SaturateUnsigned(double v, int bits) {
  if (std::isnan(v) || v <= 0) return 0;
  double hi = std::ldexp(1.0, bits);
  if (v >= hi)
    return bits == 64 ? std::numeric_limits<uint64_t>::max() : static_cast<uint64_t>(hi) - 1;
  return static_cast<uint64_t>(v);
}
}  // namespace

double LoadDouble(PrimitiveType type, const uint8_t* p) {
  switch (type) {
    case PrimitiveType::kPred:
      return p[0] != 0 ? 1.0 : 0.0;
    case PrimitiveType::kS8:
      return Read<int8_t>(p);
    case PrimitiveType::kS16:
      return Read<int16_t>(p);
    case PrimitiveType::kS32:
      return Read<int32_t>(p);
    case PrimitiveType::kS64:
      return static_cast<double>(Read<int64_t>(p));
    case PrimitiveType::kU8:
      return Read<uint8_t>(p);
    case PrimitiveType::kU16:
      return Read<uint16_t>(p);
    case PrimitiveType::kU32:
      return Read<uint32_t>(p);
    case PrimitiveType::kU64:
      return static_cast<double>(Read<uint64_t>(p));
    case PrimitiveType::kF16:
      return HalfToFloat(Read<uint16_t>(p));
    case PrimitiveType::kBF16:
      return BF16ToFloat(Read<uint16_t>(p));
    case PrimitiveType::kF32:
      return Read<float>(p);
    case PrimitiveType::kF64:
    case PrimitiveType::kC128:
      return Read<double>(p);
    case PrimitiveType::kC64:
      return Read<float>(p);
    default:
      if (IsSmallFloat(type)) return SmallFloatToDouble(type, p[0]);
      if (SubByteIntBits(type)) return static_cast<double>(LoadInt(type, p));
      return 0;
  }
}

std::complex<double> LoadComplex(PrimitiveType type, const uint8_t* p) {
  if (type == PrimitiveType::kC64) return {Read<float>(p), Read<float>(p + 4)};
  if (type == PrimitiveType::kC128) return {Read<double>(p), Read<double>(p + 8)};
  return {LoadDouble(type, p), 0.0};
}

void StoreComplex(PrimitiveType type, uint8_t* p, std::complex<double> v) {
  if (type == PrimitiveType::kC64) {
    Write<float>(p, static_cast<float>(v.real()));
    Write<float>(p + 4, static_cast<float>(v.imag()));
  } else if (type == PrimitiveType::kC128) {
    Write<double>(p, v.real());
    Write<double>(p + 8, v.imag());
  } else {
    StoreDouble(type, p, v.real());
  }
}

int64_t LoadInt(PrimitiveType type, const uint8_t* p) {
  switch (type) {
    case PrimitiveType::kPred:
      return p[0] != 0 ? 1 : 0;
    case PrimitiveType::kS8:
      return Read<int8_t>(p);
    case PrimitiveType::kS16:
      return Read<int16_t>(p);
    case PrimitiveType::kS32:
      return Read<int32_t>(p);
    case PrimitiveType::kS64:
      return Read<int64_t>(p);
    case PrimitiveType::kU8:
      return Read<uint8_t>(p);
    case PrimitiveType::kU16:
      return Read<uint16_t>(p);
    case PrimitiveType::kU32:
      return Read<uint32_t>(p);
    case PrimitiveType::kU64:
      return static_cast<int64_t>(Read<uint64_t>(p));
    default:
      if (std::optional<int> bits = SubByteIntBits(type)) {
        // The low bits, sign- or zero-extended.
        const int64_t v = p[0] & ((1 << *bits) - 1);
        const bool negative = IsSubByteSigned(type) && ((v >> (*bits - 1)) & 1) != 0;
        return negative ? v - (int64_t{1} << *bits) : v;
      }
      return SaturateSigned(LoadDouble(type, p), 64);
  }
}

void StoreDouble(PrimitiveType type, uint8_t* p, double v) {
  switch (type) {
    case PrimitiveType::kPred:
      p[0] = v != 0 ? 1 : 0;
      return;
    case PrimitiveType::kF16:
      Write<uint16_t>(p, FloatToHalf(static_cast<float>(v)));
      return;
    case PrimitiveType::kBF16:
      Write<uint16_t>(p, FloatToBF16(static_cast<float>(v)));
      return;
    case PrimitiveType::kF32:
      Write<float>(p, static_cast<float>(v));
      return;
    case PrimitiveType::kF64:
      Write<double>(p, v);
      return;
    case PrimitiveType::kC64:
    case PrimitiveType::kC128:
      StoreComplex(type, p, {v, 0.0});
      return;
    default:
      if (IsSmallFloat(type)) {
        p[0] = DoubleToSmallFloat(type, v);
        return;
      }
      break;
  }
  if (IsSignedType(type)) {
    StoreInt(type, p, SaturateSigned(v, BitWidth(type)));
  } else if (IsUnsignedType(type)) {
    StoreInt(type, p, static_cast<int64_t>(SaturateUnsigned(v, BitWidth(type))), true);
  }
}

void StoreInt(PrimitiveType type, uint8_t* p, int64_t v, bool is_unsigned) {
  switch (type) {
    case PrimitiveType::kPred:
      p[0] = v != 0 ? 1 : 0;
      return;
    case PrimitiveType::kS8:
    case PrimitiveType::kU8:
      Write<uint8_t>(p, static_cast<uint8_t>(v));
      return;
    case PrimitiveType::kS16:
    case PrimitiveType::kU16:
      Write<uint16_t>(p, static_cast<uint16_t>(v));
      return;
    case PrimitiveType::kS32:
    case PrimitiveType::kU32:
      Write<uint32_t>(p, static_cast<uint32_t>(v));
      return;
    case PrimitiveType::kS64:
    case PrimitiveType::kU64:
      Write<uint64_t>(p, static_cast<uint64_t>(v));
      return;
    default:
      if (std::optional<int> bits = SubByteIntBits(type)) {
        // Wrapped to the type's width; the byte holds it sign- or zero-extended.
        p[0] = static_cast<uint8_t>(static_cast<uint64_t>(v) & ((1u << *bits) - 1));
        p[0] = static_cast<uint8_t>(LoadInt(type, p));
        return;
      }
      break;
  }
  if (type == PrimitiveType::kF64 || type == PrimitiveType::kC128) {
    StoreDouble(
        type, p,
        is_unsigned ? static_cast<double>(static_cast<uint64_t>(v)) : static_cast<double>(v));
    return;
  }
  // Narrower floats: round the integer to f32 once (not via f64, which would round twice).
  float f = is_unsigned ? static_cast<float>(static_cast<uint64_t>(v)) : static_cast<float>(v);
  StoreDouble(type, p, f);
}

double RoundToType(PrimitiveType type, double v) {
  switch (type) {
    case PrimitiveType::kF16:
      return HalfToFloat(FloatToHalf(static_cast<float>(v)));
    case PrimitiveType::kBF16:
      return BF16ToFloat(FloatToBF16(static_cast<float>(v)));
    case PrimitiveType::kF32:
      return static_cast<float>(v);
    default:
      if (IsSmallFloat(type)) return SmallFloatToDouble(type, DoubleToSmallFloat(type, v));
      return v;
  }
}

}  // namespace hloscope::eval
