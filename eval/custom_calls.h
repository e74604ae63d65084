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
//   __cublas$gemm, __cublas$lt$matmul,     cublas_gemm.cc
//   __cublas$lt$matmul$f8
//   __cudnn$conv*                          cudnn_conv.cc
//   xla_builder.math.*                     the formula XLA's builder expands them into, run
//                                          per element by `run` (xla_builder_calls.h)
//   xla.gpu.ext.cub_sort_*                 CUB's radix sort (cub_sort.h)
//   LayoutConstraint                       the operand in the result's layout (XLA's algebraic
//                                          simplifier makes it a copy)
//   xla.sdy.GlobalToLocalShape,            Shardy's round-trip markers of a manual computation:
//   xla.sdy.LocalToGlobalShape             per operand, as SPMDFullToShardShape and
//                                          SPMDShardToFullShape
//   _SPMDInternalOp_MultiSlice             amount + 1 shifted slices (spmd_multi_slice.h)
#pragma once

#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "eval/kernels.h"
#include "eval/xla_builder_calls.h"
#include "hlo/instruction.h"

namespace hloscope::eval {

struct EvalOptions;

bool IsKnownCustomCallTarget(std::string_view target);

// How the interpreter runs custom-call (or custom-call-start) `instr` under `options`:
//  - kKnown: by its real meaning. A known target (the list above); for the plain custom-call
//    also PadToStatic and SliceToDynamic (dynamic_shapes.h) and the buffer ops Pin, Unpin and
//    CreateBuffer (buffers.h), which the evaluator dispatches before custom-calls.
//  - kOpaque: an unknown target with options.custom_calls == kOpaque, as an opaque function of
//    its operands (opaque_custom_call.h), buffers b(T) among them: a buffer operand is read as
//    the array it holds, a buffer result holds the opaque array.
//  - kRefused: anything else.
enum class CustomCallRun { kRefused, kKnown, kOpaque };
CustomCallRun RunnableCustomCall(const Instruction& instr, const EvalOptions& options);

// `less` is TopK's comparator on two scalars and their indices in the row (true: the first comes
// first); unused otherwise. XLA's TopkDecomposer sorts the operand with an iota of indices
// beside it when the comparator takes four parameters (value, value, index, index).
using ScalarPredicate = std::function<absl::StatusOr<bool>(const Scalar& a, const Scalar& b,
                                                           int64_t a_index, int64_t b_index)>;
// `run` applies a scalar computation inside the current run (xla_builder.math.*).

// One result per array of the instruction's shape (a tuple's elements in order).
absl::StatusOr<std::vector<Bytes>> EvalCustomCall(const Instruction& instr,
                                                  absl::Span<const ArrayRef> operands,
                                                  absl::Span<const Shape* const> results,
                                                  const ScalarPredicate& less,
                                                  const ScalarRunner& run);

// custom-calls __cublas$gemm, __cublas$lt$matmul and __cublas$lt$matmul$f8: alpha * dot(a, b)
// (+ beta * c, then a cublasLt epilogue) by their gemm_backend_config, read with proto3 defaults
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
