// A heap for buffers with known live ranges: each gets an offset so that buffers live at the
// same time never overlap, packed the way XLA's default heap algorithm does (global
// decreasing size, best fit).
//
//   std::vector<HeapBuffer> buffers = {{.bytes = 1024, .first = 0, .last = 3}, ...};
//   HeapLayout layout = PackBestFit(buffers);
//   fmt::print("heap {} bytes\n", layout.heap_bytes);
//
// Buffers are placed largest first (ties: earlier start, then input order). A buffer goes
// into the smallest gap between the placed buffers whose range overlaps its own that it fits;
// when none fits, above the highest of them. Ranges are inclusive steps: [0,3] and [3,5]
// overlap, as a result is written while its operands are read.
#pragma once

#include <cstdint>
#include <vector>

namespace hloscope {

struct HeapBuffer {
  int64_t bytes = 0;
  int32_t first = 0;
  int32_t last = 0;
};

struct HeapLayout {
  std::vector<int64_t> offsets;  // by input index
  int64_t heap_bytes = 0;        // the highest end of any buffer (saturates at INT64_MAX)
};

HeapLayout PackBestFit(const std::vector<HeapBuffer>& buffers);

}  // namespace hloscope
