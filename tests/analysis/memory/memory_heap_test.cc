// PackBestFit (analysis/memory/heap_simulation.h) against XLA's own expectations for its
// default heap, GlobalDecreasingSizeBestFitHeap, from heap_simulator_test.cc (openxla/xla
// commit 665631ec9cf81f6212110f1a0184170bf5e04404). XLA's tests give each buffer an Alloc and a
// Free call; the call's position in the test is its time, so a buffer lives from its Alloc's
// position to its Free's.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <utility>
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

// The same packing by brute force: every placed buffer checked for overlap.
HeapLayout NaiveBestFit(const std::vector<HeapBuffer>& buffers) {
  HeapLayout out;
  out.offsets.assign(buffers.size(), 0);
  std::vector<size_t> order;
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (buffers[i].bytes > 0) order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (buffers[a].bytes != buffers[b].bytes) return buffers[a].bytes > buffers[b].bytes;
    return buffers[a].first < buffers[b].first;
  });
  std::vector<size_t> placed;
  for (size_t i : order) {
    std::vector<std::pair<int64_t, int64_t>> busy;
    for (size_t j : placed) {
      if (buffers[j].first <= buffers[i].last && buffers[i].first <= buffers[j].last) {
        busy.push_back({out.offsets[j], out.offsets[j] + buffers[j].bytes});
      }
    }
    std::sort(busy.begin(), busy.end());
    int64_t best = -1, best_gap = std::numeric_limits<int64_t>::max(), top = 0;
    for (const auto& [o, e] : busy) {
      if (o > top && o - top >= buffers[i].bytes && o - top < best_gap) {
        best_gap = o - top;
        best = top;
      }
      top = std::max(top, e);
    }
    out.offsets[i] = best >= 0 ? best : top;
    out.heap_bytes = std::max(out.heap_bytes, out.offsets[i] + buffers[i].bytes);
    placed.push_back(i);
  }
  return out;
}

// The indexed search finds exactly the overlapping buffers the brute force does.
TEST(HeapBestFit, AgreesWithBruteForce) {
  std::mt19937 rng(20);
  for (int round = 0; round < 50; ++round) {
    std::vector<HeapBuffer> buffers;
    const int n = 1 + static_cast<int>(rng() % 200);
    const int steps = 1 + static_cast<int>(rng() % 300);
    for (int i = 0; i < n; ++i) {
      const int32_t a = static_cast<int32_t>(rng() % steps);
      const int32_t b = a + static_cast<int32_t>(rng() % (rng() % 4 == 0 ? steps : 8));
      buffers.push_back({static_cast<int64_t>(rng() % 64), a, b});
    }
    const HeapLayout fast = PackBestFit(buffers);
    const HeapLayout slow = NaiveBestFit(buffers);
    ASSERT_EQ(fast.heap_bytes, slow.heap_bytes) << "round " << round;
    ASSERT_EQ(fast.offsets, slow.offsets) << "round " << round;
  }
}

}  // namespace
}  // namespace hloscope
