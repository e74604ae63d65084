#include "hlo/primitive_type.h"

#include <array>
#include <tuple>

#include "hlo/string_hash.h"

namespace hloscope {
namespace {

using P = PrimitiveType;
// name, bits, float, complex, signed int, unsigned int
constexpr std::array<PrimitiveTypeInfo, static_cast<size_t>(P::kCount)> kTable = {{
    {P::kInvalid, "invalid", 0, false, false, false, false},
    {P::kPred, "pred", 8, false, false, false, false},
    {P::kS1, "s1", 1, false, false, true, false},
    {P::kS2, "s2", 2, false, false, true, false},
    {P::kS4, "s4", 4, false, false, true, false},
    {P::kS8, "s8", 8, false, false, true, false},
    {P::kS16, "s16", 16, false, false, true, false},
    {P::kS32, "s32", 32, false, false, true, false},
    {P::kS64, "s64", 64, false, false, true, false},
    {P::kU1, "u1", 1, false, false, false, true},
    {P::kU2, "u2", 2, false, false, false, true},
    {P::kU4, "u4", 4, false, false, false, true},
    {P::kU8, "u8", 8, false, false, false, true},
    {P::kU16, "u16", 16, false, false, false, true},
    {P::kU32, "u32", 32, false, false, false, true},
    {P::kU64, "u64", 64, false, false, false, true},
    {P::kF16, "f16", 16, true, false, false, false},
    {P::kBF16, "bf16", 16, true, false, false, false},
    {P::kF32, "f32", 32, true, false, false, false},
    {P::kF64, "f64", 64, true, false, false, false},
    {P::kC64, "c64", 64, false, true, false, false},
    {P::kC128, "c128", 128, false, true, false, false},
    {P::kF8E5M2, "f8e5m2", 8, true, false, false, false},
    {P::kF8E4M3, "f8e4m3", 8, true, false, false, false},
    {P::kF8E4M3FN, "f8e4m3fn", 8, true, false, false, false},
    {P::kF8E4M3B11FNUZ, "f8e4m3b11fnuz", 8, true, false, false, false},
    {P::kF8E5M2FNUZ, "f8e5m2fnuz", 8, true, false, false, false},
    {P::kF8E4M3FNUZ, "f8e4m3fnuz", 8, true, false, false, false},
    {P::kF8E3M4, "f8e3m4", 8, true, false, false, false},
    {P::kF8E8M0FNU, "f8e8m0fnu", 8, true, false, false, false},
    {P::kF6E2M3FN, "f6e2m3fn", 6, true, false, false, false},
    {P::kF6E3M2FN, "f6e3m2fn", 6, true, false, false, false},
    {P::kF4E2M1FN, "f4e2m1fn", 4, true, false, false, false},
    {P::kToken, "token", 0, false, false, false, false},
    {P::kOpaque, "opaque", 0, false, false, false, false},
    {P::kTuple, "tuple", 0, false, false, false, false},
    {P::kBuffer, "b", 0, false, false, false, false},
}};

constexpr bool TableIsInEnumOrder() {
  for (size_t i = 0; i < kTable.size(); ++i) {
    if (static_cast<size_t>(kTable[i].type) != i) return false;
  }
  return true;
}
static_assert(TableIsInEnumOrder(), "kTable must list types in enum order");

}  // namespace

const PrimitiveTypeInfo& GetPrimitiveTypeInfo(PrimitiveType type) {
  return kTable[static_cast<size_t>(type)];
}

std::string_view PrimitiveTypeName(PrimitiveType type) { return GetPrimitiveTypeInfo(type).name; }

std::optional<PrimitiveType> ParsePrimitiveType(std::string_view name) {
  // Linear scan over ~36 short names: cheaper than hashing, and the parser caches whole shapes.
  for (size_t i = 1; i < kTable.size(); ++i) {
    if (StringViewEq{}(kTable[i].name, name) && kTable[i].type != P::kTuple &&
        kTable[i].type != P::kBuffer) {
      return kTable[i].type;
    }
  }
  return std::nullopt;
}

namespace {

// Range and precision of each floating-point type: the largest binary exponent + 1 (what
// std::numeric_limits calls max_exponent) and the significand bits including the implicit one.
struct FloatFormat {
  PrimitiveType type;
  int max_exponent;
  int digits;
};
constexpr FloatFormat kFloatFormats[] = {
    {PrimitiveType::kF16, 16, 11},       {PrimitiveType::kBF16, 128, 8},
    {PrimitiveType::kF32, 128, 24},      {PrimitiveType::kF64, 1024, 53},
    {PrimitiveType::kF8E5M2, 16, 3},     {PrimitiveType::kF8E4M3, 8, 4},
    {PrimitiveType::kF8E4M3FN, 9, 4},    {PrimitiveType::kF8E4M3B11FNUZ, 5, 4},
    {PrimitiveType::kF8E5M2FNUZ, 16, 3}, {PrimitiveType::kF8E4M3FNUZ, 8, 4},
    {PrimitiveType::kF8E3M4, 4, 5},      {PrimitiveType::kF8E8M0FNU, 128, 1},
    {PrimitiveType::kF6E2M3FN, 3, 4},    {PrimitiveType::kF6E3M2FN, 5, 3},
    {PrimitiveType::kF4E2M1FN, 3, 2},
};

// XLA orders element types by (complex, float range, float precision, bits, signedness) and
// takes the larger; two different types that tie have no common type.
std::tuple<bool, int, int, int, bool> PrecisionRank(PrimitiveType type) {
  const PrimitiveTypeInfo& info = GetPrimitiveTypeInfo(type);
  const PrimitiveType component = ComponentType(type);
  FloatFormat format{component, -1, -1};  // not a float: below every float
  for (const FloatFormat& f : kFloatFormats) {
    if (f.type == component) format = f;
  }
  return {info.is_complex, format.max_exponent, format.digits, GetPrimitiveTypeInfo(component).bits,
          info.is_signed_int};
}

}  // namespace

std::optional<PrimitiveType> HigherPrecisionType(PrimitiveType a, PrimitiveType b) {
  if (a == b) return a;
  auto ra = PrecisionRank(a), rb = PrecisionRank(b);
  if (ra == rb) return std::nullopt;
  return ra > rb ? a : b;
}

}  // namespace hloscope
