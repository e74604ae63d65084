// Element types that XLA prints in shapes ("f32", "bf16", "s4", "f8e4m3fn", "token", ...).
//
// One table (primitive_type.cc) gives each type its printed name and width in bits; everything
// else (byte sizes, parsing, printing) reads that table instead of switching on the enum.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace hloscope {

enum class PrimitiveType : uint8_t {
  kInvalid,
  kPred,
  kS1,
  kS2,
  kS4,
  kS8,
  kS16,
  kS32,
  kS64,
  kU1,
  kU2,
  kU4,
  kU8,
  kU16,
  kU32,
  kU64,
  kF16,
  kBF16,
  kF32,
  kF64,
  kC64,
  kC128,
  kF8E5M2,
  kF8E4M3,
  kF8E4M3FN,
  kF8E4M3B11FNUZ,
  kF8E5M2FNUZ,
  kF8E4M3FNUZ,
  kF8E3M4,
  kF8E8M0FNU,
  kF6E2M3FN,
  kF6E3M2FN,
  kF4E2M1FN,
  kToken,
  kOpaque,
  kTuple,
  kBuffer,  // `b(f32[8])`: a buffer holding one array (XLA's buffer shapes)
  kCount,   // not a type; the number of entries above
};

struct PrimitiveTypeInfo {
  PrimitiveType type;
  std::string_view name;  // as printed in HLO text
  int bits;               // storage width of one element; 0 for token/opaque/tuple
  bool is_float;
  bool is_complex;
  bool is_signed_int;
  bool is_unsigned_int;
};

const PrimitiveTypeInfo& GetPrimitiveTypeInfo(PrimitiveType type);
std::string_view PrimitiveTypeName(PrimitiveType type);
// Parses a printed element type name; nullopt when it is not one.
std::optional<PrimitiveType> ParsePrimitiveType(std::string_view name);
// The result element type XLA gives an op on operands of types a and b when the instruction
// does not say (dot, convolution): the larger by (complex, float range, float precision, bits,
// signedness); nullopt when two different types tie.
std::optional<PrimitiveType> HigherPrecisionType(PrimitiveType a, PrimitiveType b);
// The type of the real and imaginary parts of a complex type (f32 for c64, f64 for c128);
// any other type itself.
inline PrimitiveType ComponentType(PrimitiveType t) {
  if (t == PrimitiveType::kC64) return PrimitiveType::kF32;
  if (t == PrimitiveType::kC128) return PrimitiveType::kF64;
  return t;
}
inline bool IsArrayType(PrimitiveType t) {
  return t != PrimitiveType::kInvalid && t != PrimitiveType::kToken &&
         t != PrimitiveType::kOpaque && t != PrimitiveType::kTuple && t != PrimitiveType::kBuffer &&
         t != PrimitiveType::kCount;
}

}  // namespace hloscope
