// PackBestFit's XLA orders (analysis/memory/heap_simulation.h) against XLA's own expectations for
// GlobalDecreasingSizeBestFitHeap, from xla/service/heap_simulator/heap_simulator_test.cc at
// openxla/xla commit 665631ec9cf81f6212110f1a0184170bf5e04404. XLA's tests call Alloc, Free and
// ShareWith; every call is one time step, so a buffer lives from its Alloc's (or ShareWith's)
// position to its Free's. Each test is named after the XLA test it translates; the tests after
// them are ours, with the arithmetic of XLA's rules written out.
#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "analysis/memory/heap_simulation.h"
#include "gtest/gtest.h"

namespace hloscope {
namespace {

// A script of XLA heap calls, turned into HeapBuffers.
class HeapScript {
 public:
  HeapScript& Alloc(const std::string& name, int64_t bytes) {
    index_[name] = static_cast<int32_t>(buffers_.size());
    buffers_.push_back({bytes, time_, time_, -1});
    ++time_;
    return *this;
  }
  HeapScript& ShareWith(const std::string& name, const std::string& with, int64_t bytes) {
    Alloc(name, bytes);
    buffers_.back().colocated_with = index_.at(with);
    return *this;
  }
  HeapScript& Free(const std::string& name) {
    buffers_[index_.at(name)].last = time_++;
    return *this;
  }
  HeapLayout Pack(HeapOrder order, int64_t alignment = 1) {
    layout_ = PackBestFit(buffers_, {.order = order, .alignment = alignment});
    return layout_;
  }
  int64_t Offset(const std::string& name) const { return layout_.offsets.at(index_.at(name)); }
  int64_t Size(const std::string& name) const { return layout_.sizes.at(index_.at(name)); }

 private:
  std::map<std::string, int32_t> index_;
  std::vector<HeapBuffer> buffers_;
  int32_t time_ = 0;
  HeapLayout layout_;
};

// GlobalDecreasingSizeBestFitHeap's default order is the spatial one.
constexpr HeapOrder kXlaDefault = HeapOrder::kXlaSpatial;

TEST(XlaGlobalDecreasingSizeBestFitHeap, Empty) {
  EXPECT_EQ(PackBestFit({}, {.order = kXlaDefault}).heap_bytes, 0);
}

TEST(XlaGlobalDecreasingSizeBestFitHeap, DecreasingSize) {
  HeapScript h;
  h.Alloc("a", 10).Alloc("b", 30).Alloc("c", 20).Alloc("d", 40);
  h.Free("a").Free("b").Free("c").Free("d");
  EXPECT_EQ(h.Pack(kXlaDefault).heap_bytes, 100);
  EXPECT_EQ(h.Size("a"), 10);
  EXPECT_EQ(h.Size("b"), 30);
  EXPECT_EQ(h.Size("c"), 20);
  EXPECT_EQ(h.Size("d"), 40);
  EXPECT_EQ(h.Offset("a"), 90);
  EXPECT_EQ(h.Offset("b"), 40);
  EXPECT_EQ(h.Offset("c"), 70);
  EXPECT_EQ(h.Offset("d"), 0);
}

TEST(XlaGlobalDecreasingSizeBestFitHeap, DecreasingSizeWithAlignment) {
  HeapScript h;
  h.Alloc("a", 10).Alloc("b", 20).Alloc("c", 50).Free("a").Alloc("d", 40);
  h.Free("b").Free("c").Free("d");
  EXPECT_EQ(h.Pack(kXlaDefault, /*alignment=*/20).heap_bytes, 120);
  EXPECT_EQ(h.Size("a"), 10);
  EXPECT_EQ(h.Size("b"), 20);
  EXPECT_EQ(h.Size("c"), 50);
  EXPECT_EQ(h.Size("d"), 40);
  EXPECT_EQ(h.Offset("a"), 60);
  EXPECT_EQ(h.Offset("b"), 100);
  EXPECT_EQ(h.Offset("c"), 0);
  EXPECT_EQ(h.Offset("d"), 60);
}

TEST(XlaGlobalDecreasingSizeBestFitHeap, BestFit) {
  HeapScript h;
  h.Alloc("a", 10).Alloc("b", 20).Alloc("c", 40).Free("a").Alloc("d", 30).Alloc("e", 50);
  h.Free("b").Free("c").Free("d").Free("e");
  EXPECT_EQ(h.Pack(kXlaDefault).heap_bytes, 140);
  EXPECT_EQ(h.Offset("a"), 90);
  EXPECT_EQ(h.Offset("b"), 120);
  EXPECT_EQ(h.Offset("c"), 50);
  EXPECT_EQ(h.Offset("d"), 90);
  EXPECT_EQ(h.Offset("e"), 0);
}

TEST(XlaGlobalDecreasingSizeBestFitHeap, Colocated) {
  HeapScript h;
  h.Alloc("a", 40).Free("a").Alloc("b", 20).Free("b").ShareWith("c", "a", 40).Free("c");
  EXPECT_EQ(h.Pack(kXlaDefault).heap_bytes, 40);
  EXPECT_EQ(h.Size("a"), 40);
  EXPECT_EQ(h.Size("b"), 20);
  EXPECT_EQ(h.Size("c"), 40);
  EXPECT_EQ(h.Offset("a"), 0);
  EXPECT_EQ(h.Offset("b"), 0);
  EXPECT_EQ(h.Offset("c"), 0);
}

TEST(XlaGlobalDecreasingSizeBestFitHeap, ColocatedII) {
  HeapScript h;
  h.Alloc("a", 40).Free("a").Alloc("b", 20).ShareWith("c", "a", 40).Free("c").Free("b");
  EXPECT_EQ(h.Pack(kXlaDefault).heap_bytes, 60);
  EXPECT_EQ(h.Offset("a"), 0);
  EXPECT_EQ(h.Offset("b"), 40);
  EXPECT_EQ(h.Offset("c"), 0);
}

TEST(XlaGlobalDecreasingSizeBestFitHeap, ColocatedIII) {
  HeapScript h;
  h.Alloc("a", 10).Free("a").Alloc("b", 30).ShareWith("c", "a", 10).Free("c").Free("b");
  EXPECT_EQ(h.Pack(kXlaDefault).heap_bytes, 40);
  EXPECT_EQ(h.Size("a"), 10);
  EXPECT_EQ(h.Size("b"), 30);
  EXPECT_EQ(h.Size("c"), 10);
  EXPECT_EQ(h.Offset("a"), 30);
  EXPECT_EQ(h.Offset("b"), 0);
  EXPECT_EQ(h.Offset("c"), 30);
}

TEST(XlaGlobalDecreasingSizeBestFitHeap, ColocatedDifferentSize1) {
  HeapScript h;
  h.Alloc("a", 40).Free("a").Alloc("b", 20).ShareWith("c", "a", 30).Free("c").Free("b");
  EXPECT_EQ(h.Pack(kXlaDefault).heap_bytes, 60);
  EXPECT_EQ(h.Size("a"), 40);
  EXPECT_EQ(h.Size("b"), 20);
  EXPECT_EQ(h.Size("c"), 40);  // the group's chunk
  EXPECT_EQ(h.Offset("a"), 0);
  EXPECT_EQ(h.Offset("b"), 40);
  EXPECT_EQ(h.Offset("c"), 0);
}

TEST(XlaGlobalDecreasingSizeBestFitHeap, ColocatedDifferentSize2) {
  HeapScript h;
  h.Alloc("a", 40).Free("a").Alloc("b", 20).ShareWith("c", "a", 50).Free("c").Free("b");
  EXPECT_EQ(h.Pack(kXlaDefault).heap_bytes, 70);
  EXPECT_EQ(h.Size("a"), 50);
  EXPECT_EQ(h.Size("b"), 20);
  EXPECT_EQ(h.Size("c"), 50);
  EXPECT_EQ(h.Offset("a"), 0);
  EXPECT_EQ(h.Offset("b"), 50);
  EXPECT_EQ(h.Offset("c"), 0);
}

// Rule 3 (issue 29), by hand. p = 10 bytes [0,1], q = 10 bytes [1,5]: the same size, so the
// orders part on the tie. Ideal: the earlier start first, p at 0 and q above it at 10. XLA's
// spatial order: the longer range first (q: 4 steps, p: 1), q at 0 and p at 10. XLA's temporal
// order: the longer range first as well. The heap is 20 bytes every way; the offsets say which
// rule placed them.
TEST(XlaHeapOrder, TiesBreakByLongerRangeNotEarlierStart) {
  const std::vector<HeapBuffer> buffers = {{10, 0, 1}, {10, 1, 5}};
  const HeapLayout ideal = PackBestFit(buffers);
  EXPECT_EQ(ideal.offsets, (std::vector<int64_t>{0, 10}));
  const HeapLayout spatial = PackBestFit(buffers, {.order = HeapOrder::kXlaSpatial});
  EXPECT_EQ(spatial.offsets, (std::vector<int64_t>{10, 0}));
  const HeapLayout temporal = PackBestFit(buffers, {.order = HeapOrder::kXlaTemporal});
  EXPECT_EQ(temporal.offsets, (std::vector<int64_t>{10, 0}));
  EXPECT_EQ(ideal.heap_bytes, 20);
  EXPECT_EQ(spatial.heap_bytes, 20);
}

// Rule 3, the second order by hand: a = 10 bytes [0,9], b = 30 bytes [0,3], c = 30 bytes [6,9],
// d = 20 bytes [4,5]. Spatial (size first): b at 0 (0-30), c at 0 (disjoint from b), then d (20,
// [4,5]) meets neither b nor c: at 0; a (10, [0,9]) meets b, c and d, all at 0: above them, at
// 30; heap 40. Temporal (longer first): a at 0 (0-10); b meets a: at 10 (10-40); c meets a: at
// 10; d meets a only: at 10 (10-30); heap 40. Both 40: kXla keeps the spatial one (a tie).
// Then e = 40 bytes [2,7] added: spatial places e first at 0 (0-40), b meets e: 40 (40-70),
// c meets e: 40, d meets e: 40 (40-60), a meets all: its gaps are none below 70, so 70 (70-80):
// heap 80. Temporal: a (9 steps) at 0, e (5 steps) at 10 (10-50), b (3 steps, 30) meets a and e:
// 50 (50-80), c the same: 50, d (1 step) meets a and e: 50 (50-70): heap 80. Again a tie.
TEST(XlaHeapOrder, BothXlaOrdersTheSmallerHeapKept) {
  std::vector<HeapBuffer> buffers = {{10, 0, 9}, {30, 0, 3}, {30, 6, 9}, {20, 4, 5}};
  const HeapLayout spatial = PackBestFit(buffers, {.order = HeapOrder::kXlaSpatial});
  EXPECT_EQ(spatial.offsets, (std::vector<int64_t>{30, 0, 0, 0}));
  EXPECT_EQ(spatial.heap_bytes, 40);
  const HeapLayout temporal = PackBestFit(buffers, {.order = HeapOrder::kXlaTemporal});
  EXPECT_EQ(temporal.offsets, (std::vector<int64_t>{0, 10, 10, 10}));
  EXPECT_EQ(temporal.heap_bytes, 40);
  EXPECT_EQ(PackBestFit(buffers, {.order = HeapOrder::kXla}).offsets, spatial.offsets);
  buffers.push_back({40, 2, 7});
  EXPECT_EQ(PackBestFit(buffers, {.order = HeapOrder::kXlaSpatial}).heap_bytes, 80);
  EXPECT_EQ(PackBestFit(buffers, {.order = HeapOrder::kXlaTemporal}).heap_bytes, 80);
}

// A chunk shared by several buffers sorts by the one that allocated it: in XLA the others
// joined it with ShareWith and need no allocation of their own, and the spatial order reads
// the allocating interval's own size and range (GetSpatialBufferIntervalCompare,
// heap_simulator.cc, tchatow/xla commit 91c3b76c682c81d6a9e1b7e5dc7cee183d364c3f), whatever
// the ids of the buffers sharing it. Here buffer 0 (10 bytes, [5,20]) shares buffer 1's chunk
// (10 bytes, [0,4]: allocated, freed, then shared), and buffer 2 is 10 bytes over [0,10]. By
// the owner, 4 ticks against buffer 2's 10: buffer 2 first, at 0, and the shared chunk above
// it at 10 (sorting by buffer 0, the lowest index, 15 ticks, put the chunk at 0). The temporal
// order takes the chunk's latest end (20) either way: the chunk first. Replaying the heap
// trace of the corpus's MaxText train step this way gives XLA's offsets for all of its 1130
// values; by the lowest index, 1093 differed.
TEST(XlaHeapOrder, SharedChunkSortsByTheBufferThatAllocatedIt) {
  const std::vector<HeapBuffer> buffers = {{10, 5, 20, 1}, {10, 0, 4}, {10, 0, 10}};
  const HeapLayout spatial = PackBestFit(buffers, {.order = HeapOrder::kXlaSpatial});
  EXPECT_EQ(spatial.offsets, (std::vector<int64_t>{10, 10, 0}));
  const HeapLayout temporal = PackBestFit(buffers, {.order = HeapOrder::kXlaTemporal});
  EXPECT_EQ(temporal.offsets, (std::vector<int64_t>{0, 0, 10}));
}

// XLA measures a free gap from its aligned start: its free chunks begin at the aligned end of
// the chunk below (MakeFreeChunks, heap_simulator.cc, tchatow/xla commit
// 91c3b76c682c81d6a9e1b7e5dc7cee183d364c3f), and the smallest that fits wins, the lowest offset
// on a tie. Alignment 8; spatial order b2 (35), b0, b3 (29), b6 (22), b4, b5 (18), b1 (15):
// b2 at 0 (0-35), b0 at 0 (it meets no one), b3 above b0 at 32, b6 above b2 and b3 at 64
// (64-86), b4 at 88, b5 at 112 (112-130). b1 ([0,3]) meets b2 (0-35), b6 (64-86) and b5: two
// gaps, 35-64 and 86-112, both 24 bytes from their aligned starts (40 and 88), so the lower,
// 40. Measured from the unaligned ends (29 and 26 bytes) the second looked smaller: 88. The
// corpus's Pax step replays its own heap trace to XLA's offsets only this way (93 of 2139
// values were elsewhere).
TEST(XlaHeapOrder, FreeGapMeasuredFromItsAlignedStart) {
  const std::vector<HeapBuffer> buffers = {{29, 5, 8}, {15, 0, 3}, {35, 0, 3}, {29, 4, 7},
                                           {18, 4, 7}, {18, 2, 5}, {22, 2, 4}};
  const HeapLayout layout = PackBestFit(buffers, {.order = HeapOrder::kXlaSpatial, .alignment = 8});
  EXPECT_EQ(layout.offsets, (std::vector<int64_t>{0, 40, 0, 32, 88, 112, 64}));
  EXPECT_EQ(layout.heap_bytes, 130);
}

// kXla is the smaller of the two XLA orders, on random heaps; with alignment every offset is a
// multiple of it and no two buffers that live together overlap.
TEST(XlaHeapOrder, KeepsTheSmallerOfBothAndNeverOverlaps) {
  std::mt19937 rng(29);
  for (int round = 0; round < 100; ++round) {
    std::vector<HeapBuffer> buffers;
    const int n = 1 + static_cast<int>(rng() % 60);
    for (int i = 0; i < n; ++i) {
      const int32_t a = static_cast<int32_t>(rng() % 40);
      const int32_t b = a + static_cast<int32_t>(rng() % 10);
      const int32_t with = i > 0 && rng() % 5 == 0 ? static_cast<int32_t>(rng() % i) : -1;
      buffers.push_back({static_cast<int64_t>(rng() % 100), a, b, with});
    }
    const int64_t alignment = 1 + static_cast<int64_t>(rng() % 3) * 31;
    const HeapLayout s =
        PackBestFit(buffers, {.order = HeapOrder::kXlaSpatial, .alignment = alignment});
    const HeapLayout t =
        PackBestFit(buffers, {.order = HeapOrder::kXlaTemporal, .alignment = alignment});
    const HeapLayout x = PackBestFit(buffers, {.order = HeapOrder::kXla, .alignment = alignment});
    ASSERT_EQ(x.heap_bytes, std::min(s.heap_bytes, t.heap_bytes)) << round;
    // Colocation names a lower index here, so following it ends at the group's first buffer.
    auto group = [&](size_t i) {
      while (buffers[i].colocated_with >= 0) i = static_cast<size_t>(buffers[i].colocated_with);
      return i;
    };
    for (size_t i = 0; i < buffers.size(); ++i) {
      if (x.sizes[i] == 0) continue;
      ASSERT_EQ(x.offsets[i] % alignment, 0) << round;
      ASSERT_LE(x.offsets[i] + x.sizes[i], x.heap_bytes) << round;
      for (size_t j = i + 1; j < buffers.size(); ++j) {
        if (x.sizes[j] == 0) continue;
        if (group(i) == group(j)) {
          ASSERT_EQ(x.offsets[i], x.offsets[j]) << round;  // one chunk
          continue;
        }
        const bool together =
            buffers[i].first <= buffers[j].last && buffers[j].first <= buffers[i].last;
        const bool apart =
            x.offsets[i] + x.sizes[i] <= x.offsets[j] || x.offsets[j] + x.sizes[j] <= x.offsets[i];
        ASSERT_TRUE(!together || apart) << round << " " << i << " " << j;
      }
    }
  }
}

}  // namespace
}  // namespace hloscope
