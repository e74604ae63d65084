// XLA:GPU's CUB radix sort custom-calls (xla/backends/gpu/transforms/sort_rewriter.cc replaces
// a sort by them; xla/stream_executor/cuda/cub_sort_kernel_cuda.cc runs them):
//
//   xla.gpu.ext.cub_sort_unassigned_scratch_size   (keys[, values]) -> (keys, [values,] u8[N])
//       the rewriter's form: backend_config is SortOptions JSON ({"descending":true}; absent:
//       ascending); the batch is every dimension but the last (num_items / dims.back()).
//   xla.gpu.ext.cub_sort_keys                      (keys) -> (keys, u8[N])
//   xla.gpu.ext.cub_sort_pairs                     (keys, values) -> (keys, values, u8[N])
//       the FFI forms: backend_config is the handler's attribute dictionary
//       {descending = B, batch_size = N : i64}, both required.
//
// Meaning (cub::DeviceRadixSort / DeviceSegmentedRadixSort): the buffer, in its physical
// order, is batch_size contiguous segments of num_items / batch_size elements, each sorted by
// the key's bits (floats: the sign bit flipped for positives, every bit for negatives, so
// -NaN < -inf < ... < +inf < +NaN; -0.0 and +0.0 equal), stably (equal keys keep their input
// order, ascending or descending); values move with their keys. The last result is CUB's
// temporary storage: its bytes are the backend's and unspecified, hlo-run gives zeros so that
// two runs compare equal. Key and value types are those the CUDA handler instantiates; others
// are refused as it refuses them.
#pragma once

#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "eval/kernels.h"
#include "hlo/instruction.h"

namespace hloscope::eval {

bool IsCubSortTarget(std::string_view target);

absl::StatusOr<std::vector<Bytes>> EvalCubSort(const Instruction& instr,
                                               absl::Span<const ArrayRef> operands,
                                               absl::Span<const Shape* const> results);

}  // namespace hloscope::eval
