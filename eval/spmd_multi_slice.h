// _SPMDInternalOp_MultiSlice: the SPMD partitioner's internal op for amount + 1 overlapping
// slices of one operand (xla/service/spmd/custom_call_handler.cc,
// HandleCustomCallSPMDInternal_MultiSlice). backend_config is
// "dimension=D,amount=A,start_indices=[..],limit_indices=[..],strides=[..],bufferize=B";
// result k (k = 0..A) is the operand along D from start_indices[D] + k for
// limit_indices[D] - start_indices[D] elements, every other dimension whole (the partitioner
// reads only dimension D's start and limit, so strides along D must be 1). hlo-run computes
// the unpartitioned meaning; bufferize (an optimization barrier) changes no value.
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "eval/kernels.h"
#include "hlo/instruction.h"

namespace hloscope::eval {

absl::StatusOr<std::vector<Bytes>> EvalSpmdMultiSlice(const Instruction& instr,
                                                      const ArrayRef& operand,
                                                      absl::Span<const Shape* const> results);

}  // namespace hloscope::eval
