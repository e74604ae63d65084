// The `window={size=3x3 stride=2x2 pad=1_1x0_0 lhs_dilate=1x1 rhs_dilate=2x2}` attribute of
// convolution, reduce-window and select-and-scatter, read from the text the IR keeps, and the
// output extent a window gives along one dimension (what shape inference needs).
//
//   absl::StatusOr<std::vector<WindowDim>> w = ParseWindow(*RawAttribute(instr, "window"));
//   int64_t out = *WindowedOutputSize((*w)[0], /*base=*/10, /*index=*/0);
//
// Following XLA: `size=` is required, every other list defaults per dimension (stride 1,
// padding 0_0, dilations 1, no reversal) and must have as many entries as `size=`.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace hloscope {

struct WindowDim {
  int64_t size = 0;
  int64_t stride = 1;
  int64_t padding_low = 0;
  int64_t padding_high = 0;
  int64_t base_dilation = 1;    // lhs_dilate: holes between the input elements
  int64_t window_dilation = 1;  // rhs_dilate: holes between the window elements
  bool reversal = false;        // rhs_reversal
};

// `text` is the attribute value as written, braces included. An error names the offending
// sub-attribute; `{}` is a window of no dimensions, as in XLA's parser.
absl::StatusOr<std::vector<WindowDim>> ParseWindow(std::string_view text);

// Number of window positions along a dimension of `base` elements (XLA's windowed output
// bound): the base is dilated and padded, the window dilated, and a window larger than the
// padded base gives 0. Errors for a non-positive size, stride or dilation, a base padded to a
// negative size, and sizes that overflow 64 bits; `index` (the window dimension) is named in
// the message.
absl::StatusOr<int64_t> WindowedOutputSize(const WindowDim& dim, int64_t base, int64_t index);

}  // namespace hloscope
