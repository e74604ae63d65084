// The result shape of a convolution, as XLA infers it when HLO text leaves it out:
//
//   conv = convolution(lhs, rhs), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
//
// dim_labels name each dimension of the input (lhs: b batch, f feature), the kernel (rhs:
// i input feature, o output feature) and the output (b, f), spatial dimensions by their index
// 0..N-1; the window has one entry per spatial dimension. The output has
//   batch   = lhs batch / batch_group_count,
//   feature = rhs output feature,
//   spatial = the positions of the (dilated, strided) window over the (dilated, padded) input,
// laid out as the output labels say, with the element type of the operands (the more precise
// one when they differ). Dynamic input dimensions make the matching output dimensions dynamic.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "hlo/shape.h"
#include "hlo/window_attribute.h"

namespace hloscope {

// `b01f_01io->b01f` decoded into dimension numbers (positions within each shape).
struct ConvDimLabels {
  std::string text;  // as written, for messages
  int64_t lhs_batch = 0, lhs_feature = 0;
  std::vector<int64_t> lhs_spatial;  // lhs_spatial[k]: where spatial dimension k lies
  int64_t rhs_input_feature = 0, rhs_output_feature = 0;
  std::vector<int64_t> rhs_spatial;
  int64_t out_batch = 0, out_feature = 0;
  std::vector<int64_t> out_spatial;

  int64_t rank() const { return static_cast<int64_t>(lhs_spatial.size()) + 2; }
};

// Errors say which part is malformed: not `lhs_rhs->out`, parts of different lengths, or a part
// that does not name its two letters and the spatial digits once each.
absl::StatusOr<ConvDimLabels> ParseConvDimLabels(std::string_view text);

struct ConvolutionAttributes {
  std::vector<WindowDim> window;  // empty when the instruction has no window (no spatial dims)
  ConvDimLabels dim_labels;
  int64_t feature_group_count = 1;
  int64_t batch_group_count = 1;
};

// The output shape (no layout), or an error naming the attribute or operand that does not fit.
absl::StatusOr<Shape> InferConvolutionShape(const Shape& lhs, const Shape& rhs,
                                            const ConvolutionAttributes& attrs);

}  // namespace hloscope
