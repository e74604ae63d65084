// stochastic-convert(operand, random): a float array to a signed integer type, rounding each
// element by a random number of the operand's width (u16 for bf16 and f16, u32 for f32, u64
// for f64, u8 for the 8-bit floats).
//
// As XLA's evaluator defines it (and its StochasticConvertDecomposer, which gives the same
// values): with m = |x| truncated to an integer and f = |x| - m (exact in x's type), the result
// is m + 1 when random < f * 2^bits (f scaled to the random type's range and truncated, an
// unsigned comparison) and m otherwise, with x's sign. Infinities and values at or beyond the
// result type's limits (compared in x's type, where the limit may round: 2^31 - 1 is 2^31 in
// f32) saturate; NaN gives 0; a value in (min, -max) whose magnitude rounds up past max gives
// min. XLA defines no stochastic conversion to unsigned or float results: those are refused.
#include "eval/stochastic_convert.h"

#include <cmath>
#include <cstdint>

#include "absl/status/status.h"
#include "eval/element_io.h"
#include "support/str_util.h"

namespace hloscope::eval {
namespace {

absl::Status Bad(const Instruction& instr, std::string_view why) {
  return absl::InvalidArgumentError(StrCat("cannot run %", instr.name(), ": ", why));
}

int64_t StochasticRound(PrimitiveType from, double x, uint64_t random, int random_bits, int64_t min,
                        int64_t max) {
  const bool negative = std::signbit(x);
  if (std::isinf(x)) return negative ? min : max;
  if (std::isnan(x)) return 0;
  if (x >= RoundToType(from, static_cast<double>(max))) return max;
  if (x <= RoundToType(from, static_cast<double>(min))) return min;
  const double magnitude = std::fabs(x);
  auto truncated = static_cast<int64_t>(magnitude);
  const double fraction = magnitude - static_cast<double>(truncated);
  if (fraction != 0) {
    // fraction * 2^random_bits < 2^random_bits: it fits the random type.
    const auto fixed = static_cast<uint64_t>(std::ldexp(fraction, random_bits));
    if (random < fixed) {
      if (truncated == max) return min;
      ++truncated;
    }
  }
  return negative ? -truncated : truncated;
}

}  // namespace

absl::StatusOr<Bytes> EvalStochasticConvert(const Instruction& instr,
                                            absl::Span<const ArrayRef> operands) {
  const Shape& out = instr.shape();
  if (operands.size() != 2 || !operands[0].shape->IsArray() || !operands[1].shape->IsArray() ||
      !out.IsArray() || operands[0].shape->dims != out.dims ||
      operands[1].shape->dims != out.dims) {
    return Bad(instr,
               "stochastic-convert takes an operand and random bits of its result's dimensions");
  }
  const PrimitiveType from = operands[0].shape->element_type;
  const PrimitiveType random = operands[1].shape->element_type;
  const PrimitiveType to = out.element_type;
  if (!IsFloatType(from) || !IsUnsignedType(random) || BitWidth(random) != BitWidth(from)) {
    return Bad(instr, StrCat("stochastic-convert needs a real floating-point operand and random "
                             "bits of an unsigned type of its width, not ",
                             PrimitiveTypeName(from), " and ", PrimitiveTypeName(random)));
  }
  if (!IsSignedType(to)) {
    return absl::UnimplementedError(StrCat(
        "the interpreter does not run stochastic-convert to ", PrimitiveTypeName(to),
        " (instruction %", instr.name(),
        "): XLA defines it only for signed integer results (its evaluator refuses the others)"));
  }
  const int bits = BitWidth(to);
  const int64_t max = bits >= 64 ? INT64_MAX : (int64_t{1} << (bits - 1)) - 1;
  const int64_t min = -max - 1;
  const OperandsInResultOrder in = InResultOrder(out, operands);
  const int64_t n = out.ElementCount();
  const int out_bytes = ElementBytes(to);
  Bytes result(static_cast<size_t>(n * out_bytes));
  for (int64_t i = 0; i < n; ++i) {
    const double x = LoadDouble(from, in.data[0] + i * in.step[0]);
    const auto r = static_cast<uint64_t>(LoadInt(random, in.data[1] + i * in.step[1]));
    StoreInt(to, result.data() + i * out_bytes,
             StochasticRound(from, x, r, BitWidth(random), min, max));
  }
  return result;
}

}  // namespace hloscope::eval
