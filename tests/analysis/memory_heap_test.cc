// PackBestFit (analysis/memory/heap_simulation.h) against XLA's own expectations for its
// default heap, GlobalDecreasingSizeBestFitHeap, from heap_simulator_test.cc (openxla/xla
// commit 665631ec9cf81f6212110f1a0184170bf5e04404). XLA's tests give each buffer an Alloc and a
// Free call; the call's position in the test is its time, so a buffer lives from its Alloc's
// position to its Free's.
#include <cstdint>
#include <limits>
#include <vector>

#include "analysis/memory/heap_simulation.h"
#include "gtest/gtest.h"

namespace hloscope {
namespace {

// GlobalDecreasingSizeBestFitHeapTest.DecreasingSize: a(10) [0,4], b(30) [1,5], c(20) [2,6],
// d(40) [3,7], all overlapping: stacked largest first.
TEST(HeapBestFit, XlaDecreasingSize) {
  const HeapLayout layout = PackBestFit({{10, 0, 4}, {30, 1, 5}, {20, 2, 6}, {40, 3, 7}});
  EXPECT_EQ(layout.heap_bytes, 100);
  EXPECT_EQ(layout.offsets, (std::vector<int64_t>{90, 40, 70, 0}));
}

// GlobalDecreasingSizeBestFitHeapTest.BestFit: a(10) [0,3], b(20) [1,6], c(40) [2,7],
// d(30) [4,8], e(50) [5,9]. a overlaps only c (50..90) and b (120..140): of the free gaps
// 0..50 and 90..120, the smaller one that fits wins, so a goes to 90 beside d.
TEST(HeapBestFit, XlaBestFit) {
  const HeapLayout layout =
      PackBestFit({{10, 0, 3}, {20, 1, 6}, {40, 2, 7}, {30, 4, 8}, {50, 5, 9}});
  EXPECT_EQ(layout.heap_bytes, 140);
  EXPECT_EQ(layout.offsets, (std::vector<int64_t>{90, 120, 50, 90, 0}));
}

TEST(HeapBestFit, DisjointBuffersShareOffsets) {
  const HeapLayout layout = PackBestFit({{64, 0, 1}, {64, 2, 3}, {0, 0, 3}});
  EXPECT_EQ(layout.heap_bytes, 64);
  EXPECT_EQ(layout.offsets, (std::vector<int64_t>{0, 0, 0}));
}

// Two buffers of 2^62 bytes live together: the heap's end saturates instead of wrapping.
TEST(HeapBestFit, HeapSizeSaturates) {
  const int64_t huge = int64_t{1} << 62;
  const HeapLayout layout = PackBestFit({{huge, 0, 1}, {huge, 0, 1}});
  EXPECT_EQ(layout.heap_bytes, std::numeric_limits<int64_t>::max());
}

}  // namespace
}  // namespace hloscope
