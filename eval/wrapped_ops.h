// The array ops an async start runs in its wrapped form (`slice-start`, `dynamic-slice-start`,
// `dynamic-update-slice-start`, `dot-start`): the wrapped op's attributes are the start's own
// (slice=, dynamic_slice_sizes=, the dot dimension numbers) and its result is the start's
// element 1.
//
// Why not build the wrapped op as an instruction: a stand-alone instruction with attributes
// keeps its lists in the module's arena, which the replicas of --replicas share as threads.
// These entry points take the result shape and read the attributes from the start, so they
// only read the module.
#pragma once

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "eval/kernels.h"
#include "hlo/instruction.h"

namespace hloscope::eval {

// Whether EvalWrappedArrayOp runs `op`.
bool IsWrappedArrayOp(Opcode op);

// Runs the op `start` wraps into `out` (the start's element 1). Operands, attributes and `out`
// are checked first, since the verifier checks the wrapped op only through the start's shape:
// an error names the start and what does not fit.
absl::StatusOr<Bytes> EvalWrappedArrayOp(const Instruction& start, const Shape& out,
                                         absl::Span<const ArrayRef> operands);

// slice (with `slice`), dynamic-slice and dynamic-update-slice into `out`, operands already
// checked (data_movement.cc).
absl::StatusOr<Bytes> EvalSliceAs(Opcode op, absl::Span<const SliceDim> slice, const Shape& out,
                                  absl::Span<const ArrayRef> operands);

}  // namespace hloscope::eval
