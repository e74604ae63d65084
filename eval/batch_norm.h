// batch-norm-training, batch-norm-inference and batch-norm-grad (batch_norm.cc).
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "eval/kernels.h"
#include "hlo/instruction.h"

namespace hloscope::eval {

bool IsBatchNorm(Opcode op);

// The results of a batch-norm op: (output, mean, variance) for batch-norm-training,
// (grad_operand, grad_scale, grad_offset) for batch-norm-grad, the one output for
// batch-norm-inference. Computed as XLA's BatchNormExpander rewrites the op into elementwise
// ops and reduces, each rounded to the operand's element type as those ops would be.
absl::StatusOr<std::vector<Bytes>> EvalBatchNorm(const Instruction& instr,
                                                 absl::Span<const ArrayRef> operands);

}  // namespace hloscope::eval
