// stochastic-convert(operand, random) (stochastic_convert.cc).
#pragma once

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "eval/kernels.h"
#include "hlo/instruction.h"

namespace hloscope::eval {

// A float array converted to a signed integer type, each element rounded toward zero or away
// from it by comparing its fraction with the unsigned random bits at the same index.
absl::StatusOr<Bytes> EvalStochasticConvert(const Instruction& instr,
                                            absl::Span<const ArrayRef> operands);

}  // namespace hloscope::eval
