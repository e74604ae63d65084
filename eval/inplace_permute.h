// The in-place collective-permute: collective-permute(input, output, input_offsets,
// output_offsets), slice_sizes={{...}} (and its -start). Each pair (source, target) sends the
// slice of the source's input that starts at the source's input offset into the target's copy
// of `output` at the target's output offset. The result is the output operand with the
// received slice written; a participant that no pair targets keeps its output operand whole.
// Buffers may be one array or a tuple of arrays (input and output alike), each with its own
// offsets and slice size (one slice_sizes entry shared by every buffer is allowed too).
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "eval/collectives.h"

namespace hloscope::eval {

// One participant's side of the exchange: its input buffers and where each slice starts.
struct InPlacePermuteSender {
  std::vector<ArrayRef> inputs;
  std::vector<std::vector<int64_t>> input_offsets;  // per buffer, one start per dimension
};

// This participant's results, one per output buffer, of the shapes `results` (the output
// buffers' dimensions, any layout).
// `senders` are the group's participants in group order. Starts are clamped as dynamic-slice
// and dynamic-update-slice clamp theirs, so every offset gives a defined result.
absl::StatusOr<std::vector<Bytes>> EvalInPlaceCollectivePermute(
    const Instruction& instr, const CollectiveGroup& group,
    absl::Span<const InPlacePermuteSender> senders, absl::Span<const ArrayRef> outputs,
    absl::Span<const std::vector<int64_t>> output_offsets,
    absl::Span<const std::vector<int64_t>> slice_sizes, absl::Span<const Shape* const> results);

// Unimplemented, naming the layout, when the operands are not one of the forms above: array
// input and output with a tuple of integer scalars (one per dimension) for each offset, or
// tuples of B arrays with a tuple of B such index tuples for each offset. A tuple of index
// tuples for one buffer (several slices per buffer, as some of XLA's tests write) is refused:
// how those slices pair with source_target_pairs is not defined outside the backends.
absl::Status CheckInPlacePermuteLayout(const Instruction& instr);

// The `slice_sizes={{a,b},{c,d}}` attribute, one list per brace group; empty when absent.
std::vector<std::vector<int64_t>> InPlacePermuteSliceSizes(const Instruction& instr);

}  // namespace hloscope::eval
