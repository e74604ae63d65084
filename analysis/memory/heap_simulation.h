// A heap for buffers with known live ranges: each gets an offset so that buffers live at the
// same time never overlap, packed the way XLA's default heap algorithm does (global
// decreasing size, best fit).
//
//   std::vector<HeapBuffer> buffers = {{.bytes = 1024, .first = 0, .last = 3}, ...};
//   HeapLayout layout = PackBestFit(buffers);
//   fmt::print("heap {} bytes\n", layout.heap_bytes);
//
// A buffer goes into the smallest gap between the placed buffers whose range overlaps its own
// that it fits (the lowest of equal gaps); when none fits, above the highest of them. Ranges are
// inclusive steps: [0,3] and [3,5] overlap, as a result is written while its operands are read.
// The order buffers are placed in (HeapOrder):
//  - kIdeal (PackBestFit's default, the "ideal packer" figure): largest first, ties by earlier
//    start, then input order. It packs better than XLA on real modules.
//  - kXlaSpatial: XLA's GlobalDecreasingSizeBestFitHeap order: larger first, then the longer
//    live range, then the lower id (the input index).
//  - kXlaTemporal: XLA's second order: the longer live range first (a colocated group's range
//    ends at its members' latest end), then larger, then lower id.
//  - kXla: both XLA orders, keeping the smaller heap (the spatial one on a tie), as XLA's
//    ChooseBestHeapAlgorithm does for buffer assignment.
// Colocated buffers (XLA's ShareWith: `colocated_with` names the index of the buffer whose chunk
// this one shares, transitively) share one chunk, as large as the largest of them, placed where
// it is free over every member's range. kIdeal sorts the group by its first buffer; XLA's orders
// by its owner, the member that shares no one's chunk (XLA's interval that needed an
// allocation; the others joined it with ShareWith), its size, range and index as the id. Offsets
// are rounded up to `alignment` (a gap fits when the aligned offset leaves room).
//
// With `size_limit_per_heap` (XLA's --xla_multiheap_size_constraint_per_heap, as its
// ConstrainedGlobalDecreasingSizeBestFitHeap), the buffers fill several heaps: each heap takes,
// in the order above, every group whose chunk would end within the limit (the first group of a
// heap always: the limit is soft), the rest go on to the next heap, which starts empty.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

namespace hloscope {

struct HeapBuffer {
  int64_t bytes = 0;
  int32_t first = 0;
  int32_t last = 0;
  int32_t colocated_with = -1;  // index of the buffer whose chunk this one shares; -1: none
};

enum class HeapOrder { kIdeal, kXlaSpatial, kXlaTemporal, kXla };

struct HeapPackOptions {
  HeapOrder order = HeapOrder::kIdeal;
  int64_t alignment = 1;  // every offset a multiple of it (>= 1)
  int64_t size_limit_per_heap = std::numeric_limits<int64_t>::max();
};

struct HeapLayout {
  std::vector<int64_t> offsets;  // by input index
  std::vector<int64_t> sizes;    // by input index: the chunk's size (a colocated group's largest)
  // The sum of the heaps' sizes, each the highest end of its buffers (saturates at INT64_MAX);
  // with one heap, the highest end of any buffer.
  int64_t heap_bytes = 0;
  std::vector<int32_t> heap_of;  // by input index: which heap holds the buffer (0 unless limited)
  std::vector<int64_t> heap_sizes;  // by heap; at least one
};

HeapLayout PackBestFit(const std::vector<HeapBuffer>& buffers, const HeapPackOptions& options = {});

}  // namespace hloscope
