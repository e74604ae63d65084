// Which decimal values a floating-point element type can hold (issue 34). XLA's parser reads a
// literal value as a double, rounds it to the element type (to nearest, ties to even) and
// rejects it when that gives no finite value: `f16 constant(-65520)` is an error, while
// `f16 constant(-65505)` rounds to -65504 and is accepted. The same rule holds here for every
// floating type, the f8, f6 and f4 variants included: a value is out of range when it lies
// past the largest finite value by half a unit in the last place or more (exactly half is kept
// when the largest value's significand is even, as ties go to even: f8e4m3fn's 464 rounds to
// 448). Types without infinities or NaNs have no value to round to past that point either, so
// the rule is the same for them. f8e8m0fnu holds no negative values.
#pragma once

#include <optional>
#include <string>

#include "hlo/primitive_type.h"

namespace hloscope {

// Why `value` (read from literal text as a double; ±inf when the text overflows a double)
// does not fit floating type `type` (a complex type: its component type): "it rounds past the
// largest finite f16, 65504", "f8e8m0fnu holds no negative values"; nullopt when it fits.
// NaN fits every floating type; `type` must be a floating or complex type.
std::optional<std::string> FloatRangeProblem(double value, PrimitiveType type);

// The largest finite value of floating type `type` (a complex type: of its component type).
double LargestFiniteFloat(PrimitiveType type);

}  // namespace hloscope
