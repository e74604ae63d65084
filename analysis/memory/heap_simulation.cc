#include "analysis/memory/heap_simulation.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <utility>

namespace hloscope {
namespace {

// The placed buffers, for "which of them overlap steps [a, b]" in time proportional to the
// answer: a segment tree over the steps. A buffer is listed at the nodes that exactly cover
// its range (`own`) and at every ancestor of those nodes (`sub`: buffers in the subtree). A
// placed buffer overlapping [a, b] shares a step with some node q covering part of [a, b];
// its covering node is then in q's subtree (found in sub[q]) or a strict ancestor of q (found
// in own of that ancestor). Lists are singly linked through one pool, so an empty node costs
// two integers.
class PlacedIndex {
 public:
  explicit PlacedIndex(int32_t steps) {
    while (size_ < steps) size_ *= 2;
    own_.assign(2 * static_cast<size_t>(size_), -1);
    sub_.assign(2 * static_cast<size_t>(size_), -1);
    sub_last_.assign(2 * static_cast<size_t>(size_), -1);
    node_seen_.assign(2 * static_cast<size_t>(size_), 0);
  }

  void Insert(int32_t id, int32_t first, int32_t last) {
    Cover(first, last);
    for (int32_t c : cover_) {
      Push(own_[c], id);
      for (int32_t x = c; x >= 1 && sub_last_[x] != id; x >>= 1) {
        sub_last_[x] = id;
        Push(sub_[x], id);
      }
    }
    if (static_cast<size_t>(id) >= seen_.size()) seen_.resize(static_cast<size_t>(id) + 1, 0);
  }

  // Calls `fn(id)` once per placed buffer overlapping [first, last].
  template <typename Fn>
  void ForEachOverlapping(int32_t first, int32_t last, Fn fn) {
    ++stamp_;
    auto visit = [&](int32_t head) {
      for (int32_t e = head; e >= 0; e = pool_[e].next) {
        const int32_t id = pool_[e].id;
        if (seen_[id] == stamp_) continue;
        seen_[id] = stamp_;
        fn(id);
      }
    };
    Cover(first, last);
    for (int32_t q : cover_) {
      visit(sub_[q]);
      for (int32_t x = q >> 1; x >= 1 && node_seen_[x] != stamp_; x >>= 1) {
        node_seen_[x] = stamp_;
        visit(own_[x]);
      }
    }
  }

 private:
  struct Entry {
    int32_t id;
    int32_t next;
  };
  void Push(int32_t& head, int32_t id) {
    pool_.push_back({id, head});
    head = static_cast<int32_t>(pool_.size() - 1);
  }
  // The nodes that exactly cover [first, last].
  void Cover(int32_t first, int32_t last) {
    cover_.clear();
    for (int32_t l = first + size_, r = last + size_ + 1; l < r; l >>= 1, r >>= 1) {
      if (l & 1) cover_.push_back(l++);
      if (r & 1) cover_.push_back(--r);
    }
  }

  int32_t size_ = 1;
  std::vector<int32_t> own_, sub_, sub_last_;
  std::vector<uint32_t> node_seen_, seen_;
  uint32_t stamp_ = 0;
  std::vector<Entry> pool_;
  std::vector<int32_t> cover_;
};

}  // namespace

HeapLayout PackBestFit(const std::vector<HeapBuffer>& buffers) {
  HeapLayout out;
  out.offsets.assign(buffers.size(), 0);
  std::vector<int32_t> order;
  order.reserve(buffers.size());
  int32_t steps = 1;
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (buffers[i].bytes <= 0) continue;  // takes no space; offset 0
    order.push_back(static_cast<int32_t>(i));
    steps = std::max(steps, buffers[i].last + 1);
  }
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    if (buffers[a].bytes != buffers[b].bytes) return buffers[a].bytes > buffers[b].bytes;
    return buffers[a].first < buffers[b].first;
  });
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  PlacedIndex placed(steps);
  std::vector<int64_t> end(buffers.size(), 0);           // offset + bytes, by input index
  std::vector<std::pair<int64_t, int64_t>> overlapping;  // (offset, end)
  for (int32_t i : order) {
    const HeapBuffer& b = buffers[i];
    overlapping.clear();
    placed.ForEachOverlapping(b.first, b.last, [&](int32_t id) {
      overlapping.push_back({out.offsets[id], end[id]});
    });
    std::sort(overlapping.begin(), overlapping.end());
    // Gaps between the overlapping buffers, by offset: the smallest that fits.
    int64_t best_offset = -1;
    int64_t best_gap = kMax;
    int64_t top = 0;  // the lowest offset above everything seen so far
    for (const auto& [offset, finish] : overlapping) {
      if (offset > top) {
        const int64_t gap = offset - top;
        if (gap >= b.bytes && gap < best_gap) {
          best_gap = gap;
          best_offset = top;
        }
      }
      top = std::max(top, finish);
    }
    const int64_t offset = best_offset >= 0 ? best_offset : top;
    out.offsets[i] = offset;
    end[i] = offset > kMax - b.bytes ? kMax : offset + b.bytes;
    out.heap_bytes = std::max(out.heap_bytes, end[i]);
    placed.Insert(i, b.first, b.last);
  }
  return out;
}

}  // namespace hloscope
