// Block-scaled dots (block_scaled_dot.cc): the `scaled-dot` opcode and the custom-call
// `__op$block_scaled_dot`, each a dot of its operands dequantized by their block scales.
#pragma once

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "eval/kernels.h"
#include "hlo/attribute_values.h"

namespace hloscope::eval {

// scaled-dot(lhs, rhs, lhs_scale, rhs_scale) with these dot dimension numbers; the result is
// `instr`'s shape.
absl::StatusOr<Bytes> EvalBlockScaledDot(const Instruction& instr,
                                         absl::Span<const ArrayRef> operands,
                                         const DotDimensionNumbers& dnums);

// __op$block_scaled_dot(lhs, rhs, lhs_scale, rhs_scale): rank 2 or 3, contracting the last
// dimension of both, dimension 0 a batch dimension at rank 3; blocks along the last dimension.
absl::StatusOr<Bytes> EvalBlockScaledDotCustomCall(const Instruction& instr,
                                                   absl::Span<const ArrayRef> operands);

}  // namespace hloscope::eval
