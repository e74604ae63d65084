// NaN payloads in literal text (`nan(0x7f)`, `-nan(0x3f)`), read as XLA's parser reads them
// (xla/hlo/parser/hlo_parser.cc SetValueInLiteral, xla/util.h NanPayloadBits, at openxla/xla
// 2c731115): a floating-point type with signaling NaNs (f16, bf16, f32, f64, f8e5m2, f8e4m3,
// f8e3m4) takes a payload of up to its mantissa width; the others (the fn/fnuz f8 types,
// f8e8m0fnu, f6, f4) take none. A plain `nan` is the type's quiet NaN, which is also what a
// payload of exactly the quiet bit of f64 (0x8000000000000) means.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "hlo/primitive_type.h"

namespace hloscope {

// Payload bits of `t`'s NaNs: its mantissa width where it has signaling NaNs, else 0.
int NanPayloadBits(PrimitiveType t);

// The payload a NaN word gives (`-nan(0x3f)` -> 0x3f); nullopt for a word without `(0x..)`
// or with f64's quiet bit alone or 0 (both the plain quiet NaN), or with malformed digits.
std::optional<uint64_t> NanWordPayload(std::string_view word);

// Why `payload` cannot be set in a NaN of type `t`, in XLA's words; nullopt when it can.
std::optional<std::string> NanPayloadProblem(uint64_t payload, PrimitiveType t);

// The bits of a NaN of type `t` (NanPayloadBits(t) > 0, at most 64 bits wide) with that sign
// and payload: all-ones exponent, the payload as the mantissa.
uint64_t NanBitsWithPayload(PrimitiveType t, bool negative, uint64_t payload);

}  // namespace hloscope
