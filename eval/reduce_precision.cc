// reduce-precision(x), exponent_bits=E, mantissa_bits=M: rounds every element to the nearest
// value of a float format with E exponent and M mantissa bits and returns it in x's own type.
//
// Done as XLA's evaluator does it: on the bit pattern of the element as f32 (f64 stays f64;
// bf16 and f16 are widened to f32 and the result rounded back), the mantissa rounded to nearest
// even by adding a bias and truncating, then exponents above the small format's range become
// infinity and those at or below its minimum normal exponent zero (keeping the sign; the small
// format has no subnormals). A NaN stays the same NaN, or becomes +inf when M is 0.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "absl/status/status.h"
#include "eval/element_io.h"
#include "eval/kernels.h"
#include "eval/layout_util.h"
#include "hlo/attribute_values.h"
#include "support/str_util.h"

namespace hloscope::eval {
namespace {

struct FloatFormat {
  int bits = 0, exponent_bits = 0, mantissa_bits = 0;
};

std::optional<FloatFormat> FormatOf(PrimitiveType t) {
  switch (t) {
    case PrimitiveType::kF16:
      return FloatFormat{16, 5, 10};
    case PrimitiveType::kBF16:
      return FloatFormat{16, 8, 7};
    case PrimitiveType::kF32:
      return FloatFormat{32, 8, 23};
    case PrimitiveType::kF64:
      return FloatFormat{64, 11, 52};
    default:
      return std::nullopt;
  }
}

uint64_t ReduceBits(uint64_t x, const FloatFormat& src, int64_t exponent_bits,
                    int64_t mantissa_bits) {
  if (mantissa_bits < src.mantissa_bits) {
    const int shift = src.mantissa_bits - static_cast<int>(mantissa_bits);
    const uint64_t last_kept_bit = uint64_t{1} << shift;
    const uint64_t base_bias = (last_kept_bit >> 1) - 1;
    // Ties go to the even kept mantissa: the bias is one larger when the last kept bit is 1.
    const uint64_t bias = ((x & last_kept_bit) >> shift) + base_bias;
    x = (x + bias) & ~(last_kept_bit - 1);
  }
  if (exponent_bits < src.exponent_bits) {
    const uint64_t sign = uint64_t{1} << (src.bits - 1);
    const uint64_t exponent_mask = ((uint64_t{1} << src.exponent_bits) - 1) << src.mantissa_bits;
    const int64_t bias = (int64_t{1} << (src.exponent_bits - 1)) - 1;
    const int64_t reduced_bias = (int64_t{1} << (exponent_bits - 1)) - 1;
    const auto max_exponent = static_cast<uint64_t>(bias + reduced_bias);
    const auto min_exponent = static_cast<uint64_t>(bias - reduced_bias);
    const uint64_t exponent = x & exponent_mask;
    if (exponent > (max_exponent << src.mantissa_bits)) {
      x = (x & sign) | exponent_mask;
    } else if (exponent <= (min_exponent << src.mantissa_bits)) {
      x = x & sign;
    }
  }
  if (src.bits < 64) x &= (uint64_t{1} << src.bits) - 1;
  return x;
}

}  // namespace

absl::StatusOr<Bytes> EvalReducePrecision(const Instruction& instr,
                                          absl::Span<const ArrayRef> operands) {
  auto fail = [&](std::string_view why) {
    return absl::InvalidArgumentError(StrCat("cannot run %", instr.name(), ": ", why));
  };
  if (operands.size() != 1 || !operands[0].shape->IsArray() ||
      operands[0].shape->dims != instr.shape().dims ||
      operands[0].shape->element_type != instr.shape().element_type) {
    return fail("reduce-precision takes one operand of the result's shape");
  }
  const Shape& s = *operands[0].shape;
  std::optional<FloatFormat> format = FormatOf(s.element_type);
  if (!format) {
    return fail(StrCat("reduce-precision needs a float operand (f16, bf16, f32, f64), not ",
                       PrimitiveTypeName(s.element_type)));
  }
  std::optional<int64_t> e = IntAttribute(instr, "exponent_bits");
  std::optional<int64_t> m = IntAttribute(instr, "mantissa_bits");
  if (!e || !m) return fail("reduce-precision needs exponent_bits= and mantissa_bits=");
  if (*e < 1 || *m < 0) {
    return fail(StrCat("exponent_bits=", *e, " and mantissa_bits=", *m,
                       " do not describe a float format (at least 1 and 0)"));
  }
  // The format the bits are reduced in: f64 for f64, f32 for every narrower float.
  const bool wide = s.element_type == PrimitiveType::kF64;
  const FloatFormat work = wide ? *FormatOf(PrimitiveType::kF64) : *FormatOf(PrimitiveType::kF32);
  // Bits the working format does not have are kept as they are.
  const int64_t ebits = std::min<int64_t>(*e, work.exponent_bits);
  const int64_t mbits = std::min<int64_t>(*m, work.mantissa_bits);
  const int eb = ElementBytes(s.element_type);
  Bytes result(static_cast<size_t>(DenseBytes(s)));
  for (int64_t i = 0; i < s.ElementCount(); ++i) {
    const uint8_t* src = operands[0].data + i * eb;
    uint8_t* dst = result.data() + i * eb;
    const double v = LoadDouble(s.element_type, src);
    if (std::isnan(v)) {
      if (*m > 0) {
        std::memcpy(dst, src, static_cast<size_t>(eb));
      } else {
        StoreDouble(s.element_type, dst, std::numeric_limits<double>::infinity());
      }
      continue;
    }
    double reduced;
    if (wide) {
      reduced = std::bit_cast<double>(ReduceBits(std::bit_cast<uint64_t>(v), work, ebits, mbits));
    } else {
      const auto bits = std::bit_cast<uint32_t>(static_cast<float>(v));
      reduced = std::bit_cast<float>(static_cast<uint32_t>(ReduceBits(bits, work, ebits, mbits)));
    }
    StoreDouble(s.element_type, dst, reduced);
  }
  // Computed in the operand's physical order; the result's layout may differ.
  Bytes out(static_cast<size_t>(DenseBytes(instr.shape())));
  Relayout(s, result.data(), instr.shape(), out.data());
  return out;
}

}  // namespace hloscope::eval
