// The custom-calls whose meaning is documented, so that hlo-run can run them; every other
// target is refused with its name.
//
//   Sharding, xla.sdy.FuncResultSharding   sharding annotations: the operand
//   ShardBarrierFrom, ShardBarrierTo       sharding-propagation fences: the operand
//   annotate_device_placement              a placement annotation (host offloading): the operand
//   MoveToHost, MoveToDevice               memory-space moves: the operand
//   Pin, Unpin                             array-typed forms: the operand (buffer-typed results
//                                          are refused by the element-type check)
//   SPMDFullToShardShape                   replica 0's shard: the leading block of the operand
//   SPMDShardToFullShape                   the full array from identical shards (collectives.h's
//                                          model): the shard tiled over the result
//   AllocateBuffer                         an uninitialised array: zeros
//   TopK                                   (values, s32 indices) of the k greatest along the last
//                                          dimension, ordered by the comparator; ties keep the
//                                          lower index first
//   __cublas$gemm, __cublas$lt$matmul      cublas_gemm.cc
//   __cudnn$conv*                          cudnn_conv.cc
#pragma once

#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "eval/kernels.h"
#include "hlo/instruction.h"

namespace hloscope::eval {

bool IsKnownCustomCallTarget(std::string_view target);

// `less` is TopK's comparator on two scalars and their indices in the row (true: the first comes
// first); unused otherwise. XLA's TopkDecomposer sorts the operand with an iota of indices
// beside it when the comparator takes four parameters (value, value, index, index).
using ScalarPredicate = std::function<absl::StatusOr<bool>(const Scalar& a, const Scalar& b,
                                                           int64_t a_index, int64_t b_index)>;

// One result per array of the instruction's shape (a tuple's elements in order).
absl::StatusOr<std::vector<Bytes>> EvalCustomCall(const Instruction& instr,
                                                  absl::Span<const ArrayRef> operands,
                                                  absl::Span<const Shape* const> results,
                                                  const ScalarPredicate& less);

// custom-calls __cublas$gemm and __cublas$lt$matmul (without an epilogue): alpha * dot(a, b)
// (+ beta * c) by their gemm_backend_config
// (cublas_gemm.cc).
absl::StatusOr<std::vector<Bytes>> EvalCublasGemm(const Instruction& instr,
                                                  absl::Span<const ArrayRef> operands,
                                                  absl::Span<const Shape* const> results);

// The cuDNN convolutions __cudnn$convForward, __cudnn$convBackwardInput,
// __cudnn$convBackwardFilter and __cudnn$convBiasActivationForward (cudnn_conv.cc).
bool IsCudnnConvolutionTarget(std::string_view target);
absl::StatusOr<std::vector<Bytes>> EvalCudnnConvolution(const Instruction& instr,
                                                        absl::Span<const ArrayRef> operands,
                                                        absl::Span<const Shape* const> results);

}  // namespace hloscope::eval
