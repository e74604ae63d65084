// dot with the dimension numbers given, not read from the instruction's attributes: for the
// ops that are a dot after some preparation of their operands (block_scaled_dot.cc). The
// result is `instr`'s array shape, summed as EvalDot sums (dot_reduce.cc).
#pragma once

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "eval/kernels.h"
#include "hlo/attribute_values.h"

namespace hloscope::eval {

absl::StatusOr<Bytes> EvalDotWithDimensions(const Instruction& instr,
                                            absl::Span<const ArrayRef> operands,
                                            const DotDimensionNumbers& dnums);
// The same with the result shape given: a dot wrapped in an async start (`dot-start`), whose
// own shape is the async tuple; `instr` names the op in messages.
absl::StatusOr<Bytes> EvalDotAs(const Instruction& instr, const Shape& out,
                                absl::Span<const ArrayRef> operands,
                                const DotDimensionNumbers& dnums);

}  // namespace hloscope::eval
