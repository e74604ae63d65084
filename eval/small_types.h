// Element types narrower than a byte's worth of meaning: the sub-byte integers (s1, s2, s4, u1,
// u2, u4) and the 8-, 6- and 4-bit floats (f8e5m2, f8e4m3, f8e4m3fn, f8e4m3b11fnuz, f8e5m2fnuz,
// f8e4m3fnuz, f8e3m4, f8e8m0fnu, f6e2m3fn, f6e3m2fn, f4e2m1fn). The interpreter stores each
// element in one byte (the low bits; sub-byte integers sign- or zero-extended), as XLA's
// literals do: packing by a layout's element_size_in_bits is a device concern.
//
// The floats follow ml_dtypes (XLA's definitions): a value is rounded to nearest even straight
// from double; past the largest finite value it becomes inf where the type has one, else NaN
// (f8e8m0fnu, which has no sign and no zero, rounds to the nearest power of two). NaN is kept.
#pragma once

#include <cstdint>
#include <optional>

#include "hlo/primitive_type.h"

namespace hloscope::eval {

// Sub-byte integer widths: 1, 2 or 4; nullopt for other types.
std::optional<int> SubByteIntBits(PrimitiveType type);
bool IsSubByteSigned(PrimitiveType type);

// Whether `type` is one of the small floats above.
bool IsSmallFloat(PrimitiveType type);
// Decodes a small float's bit pattern (in the low bits of `bits`).
double SmallFloatToDouble(PrimitiveType type, uint8_t bits);
// Rounds `v` to the small float type and returns its bit pattern.
uint8_t DoubleToSmallFloat(PrimitiveType type, double v);

}  // namespace hloscope::eval
