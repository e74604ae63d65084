// Reading and writing single elements of the types the interpreter supports, in their natural
// width (pred: one byte). Floats travel as double, integers as int64 bit patterns
// (sign-extended for signed types, zero-extended for unsigned ones).
//
// Rounding: a double is stored into f32 with C++'s conversion (round to nearest even); into
// bf16 and f16 by first converting to f32 and then rounding to nearest even, as XLA's CPU
// backend (Eigen) does. Float -> integer conversion saturates at the type's range, NaN -> 0.
#pragma once

#include <complex>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "hlo/primitive_type.h"

namespace hloscope::eval {

// Bytes of one element in a literal; 0 for types the interpreter does not support (token,
// tuple). Sub-byte integers and f8/f6/f4 take one byte each (small_types.h); c64 is two f32
// (real first), c128 two f64, as in XLA.
int ElementBytes(PrimitiveType type);
inline bool IsSupportedElementType(PrimitiveType type) { return ElementBytes(type) > 0; }
bool IsFloatType(PrimitiveType type);     // f16, bf16, f32, f64, f8/f6/f4
bool IsComplexType(PrimitiveType type);   // c64, c128
bool IsSignedType(PrimitiveType type);    // s1..s64
bool IsUnsignedType(PrimitiveType type);  // u1..u64 (not pred)
int BitWidth(PrimitiveType type);         // pred: 1, s4: 4, f4e2m1fn: 4

uint16_t FloatToBF16(float f);
float BF16ToFloat(uint16_t b);
uint16_t FloatToHalf(float f);
float HalfToFloat(uint16_t h);

// Complex elements: both parts as doubles (reals load with imaginary part 0; a complex type
// stores each part rounded to its component type).
std::complex<double> LoadComplex(PrimitiveType type, const uint8_t* p);
void StoreComplex(PrimitiveType type, uint8_t* p, std::complex<double> v);

// The element's value as double (integers converted; pred 0/1; complex: the real part).
double LoadDouble(PrimitiveType type, const uint8_t* p);
// Integer types and pred: the value as a sign- or zero-extended int64 bit pattern. Float types:
// the value truncated toward zero and saturated (NaN -> 0).
int64_t LoadInt(PrimitiveType type, const uint8_t* p);
// An element as a dot's accumulator: int64_t for integer accumulation, else converted from
// the double LoadDouble gives (ragged-dot, cublas gemm).
template <typename Acc>
Acc LoadAs(PrimitiveType type, const uint8_t* p) {
  if constexpr (std::is_same_v<Acc, int64_t>) {
    return LoadInt(type, p);
  } else {
    return static_cast<Acc>(LoadDouble(type, p));
  }
}
// Stores a double (floats rounded as above; integers saturated, NaN -> 0; pred: != 0;
// complex: real part v, imaginary part 0).
void StoreDouble(PrimitiveType type, uint8_t* p, double v);
// Stores an integer bit pattern (truncated to the type's width; pred: != 0). For float types
// `v` is read as signed when `is_unsigned` is false.
void StoreInt(PrimitiveType type, uint8_t* p, int64_t v, bool is_unsigned = false);

// Round a double to the precision of a float type (the value it would read back as).
double RoundToType(PrimitiveType type, double v);

}  // namespace hloscope::eval
