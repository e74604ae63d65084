// The convolution kernel (convolution.cc) for callers other than the convolution opcode: the
// cuDNN custom-calls (cudnn_conv.cc) carry the same window and dim_labels.
#pragma once

#include "absl/status/statusor.h"
#include "eval/kernels.h"
#include "hlo/convolution_shape.h"
#include "hlo/instruction.h"

namespace hloscope::eval {

// window=, dim_labels=, feature_group_count= and batch_group_count= of `instr`.
absl::StatusOr<ConvolutionAttributes> ReadConvolution(const Instruction& instr);

// conv(lhs, rhs) into an array of `out` (its element type decides the accumulator, as for the
// convolution opcode); `out`'s dims must be those InferConvolutionShape gives.
Bytes Convolve(const Shape& out, const ArrayRef& lhs, const ArrayRef& rhs,
               const ConvolutionAttributes& attrs);

}  // namespace hloscope::eval
