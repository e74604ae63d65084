// Convolution with a sparse operand (sparsity_config={lhs=..., rhs=...}), as XLA's evaluator
// runs it (HandleConvolution in xla/hlo/evaluator/hlo_evaluator_typed_visitor.h and
// MaterializeSparseOperand in xla/literal_util.cc, at openxla/xla 2c731115): an operand that
// the config names and that is a tuple (values, indices) is made dense first, then the
// convolution runs as usual.
//
// `sparsity=1xM dimension=D stride=1`: each value sits in a block of M along dimension D; its
// index (0 <= index < M) says where. The dense operand has the values' dims with D times M,
// zeros elsewhere. Only 1:M sparsity with stride 1 is defined, as in XLA.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "eval/kernels.h"
#include "hlo/instruction.h"

namespace hloscope::eval {

// Whether `instr` is a convolution with a tuple operand, which only this kernel runs.
bool IsSparseConvolution(const Instruction& instr, absl::Span<const Shape* const> operands);

// `operands[k]` holds operand k's arrays: one for an array, (values, indices) for a sparse
// tuple. A dense operand larger than `max_bytes` is refused (ResourceExhausted).
absl::StatusOr<Bytes> EvalSparseConvolution(const Instruction& instr,
                                            absl::Span<const std::vector<ArrayRef>> operands,
                                            int64_t max_bytes);

}  // namespace hloscope::eval
