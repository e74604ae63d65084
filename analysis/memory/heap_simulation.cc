#include "analysis/memory/heap_simulation.h"

#include <algorithm>
#include <limits>
#include <tuple>
#include <utility>

#include "absl/types/span.h"

namespace hloscope {
namespace {

// Bytes [start, end) of the heap.
struct Segment {
  int64_t start;
  int64_t end;
};

// The bytes some buffers occupy, as sorted, disjoint segments that do not touch. Best fit only
// needs the gaps between the buffers overlapping a range, i.e. the union of their bytes, and
// buffers packed side by side collapse into one segment: on hlo-gen's 1M-instruction module
// the sets hold a tenth of the buffers they cover.
class SegmentSet {
 public:
  void Add(int64_t start, int64_t end) {
    // The segments [start, end] overlaps or touches: from the first ending at or after `start`
    // to the last starting at or before `end`.
    auto first = std::lower_bound(segments_.begin(), segments_.end(), start,
                                  [](const Segment& s, int64_t x) { return s.end < x; });
    auto after = std::upper_bound(first, segments_.end(), end,
                                  [](int64_t x, const Segment& s) { return x < s.start; });
    if (first == after) {
      segments_.insert(first, {start, end});
      return;
    }
    first->start = std::min(start, first->start);
    first->end = std::max(end, (after - 1)->end);
    segments_.erase(first + 1, after);
  }
  const std::vector<Segment>& segments() const { return segments_; }

 private:
  std::vector<Segment> segments_;
};

// The placed buffers' bytes, for "which bytes do the buffers overlapping steps [a, b] occupy":
// a segment tree over the steps. A buffer's bytes are added at the nodes that exactly cover its
// range (`own`) and at every ancestor of those nodes (`sub`: the union over the subtree). A
// placed buffer overlapping [a, b] shares a step with some node q covering part of [a, b]; its
// covering node is then in q's subtree (counted in sub[q]) or a strict ancestor of q (counted
// in own of that ancestor). A buffer may be reached more than once; a union does not mind.
class PlacedIndex {
 public:
  explicit PlacedIndex(int32_t steps) {
    while (size_ < steps) size_ *= 2;
    own_.resize(2 * static_cast<size_t>(size_));
    sub_.resize(2 * static_cast<size_t>(size_));
    sub_last_.assign(2 * static_cast<size_t>(size_), -1);
    node_seen_.assign(2 * static_cast<size_t>(size_), 0);
  }

  void Insert(int32_t id, int32_t first, int32_t last, int64_t start, int64_t end) {
    Cover(first, last);
    for (int32_t c : cover_) {
      own_[c].Add(start, end);
      for (int32_t x = c; x >= 1 && sub_last_[x] != id; x >>= 1) {
        sub_last_[x] = id;
        sub_[x].Add(start, end);
      }
    }
  }

  // Calls `fn(segments)` for sets whose union is the bytes of the placed buffers overlapping
  // [first, last].
  template <typename Fn>
  void ForEachOverlapping(int32_t first, int32_t last, Fn fn) {
    ++stamp_;
    Cover(first, last);
    for (int32_t q : cover_) {
      fn(sub_[q].segments());
      for (int32_t x = q >> 1; x >= 1 && node_seen_[x] != stamp_; x >>= 1) {
        node_seen_[x] = stamp_;
        fn(own_[x].segments());
      }
    }
  }

 private:
  // The nodes that exactly cover [first, last].
  void Cover(int32_t first, int32_t last) {
    cover_.clear();
    for (int32_t l = first + size_, r = last + size_ + 1; l < r; l >>= 1, r >>= 1) {
      if (l & 1) cover_.push_back(l++);
      if (r & 1) cover_.push_back(--r);
    }
  }

  int32_t size_ = 1;
  std::vector<SegmentSet> own_, sub_;
  std::vector<int32_t> sub_last_;
  std::vector<uint32_t> node_seen_;
  uint32_t stamp_ = 0;
  std::vector<int32_t> cover_;
};

// Colocation groups as flat arrays: the members of the group led by `l` (its lowest index) are
// members[start[l]] .. members[start[l + 1] - 1], empty for a buffer that is not a leader. A
// buffer naming an index out of range, or itself, is in no group but its own.
struct ColocationGroups {
  std::vector<int32_t> start, members;
  absl::Span<const int32_t> Of(int32_t leader) const {
    return absl::Span<const int32_t>(members).subspan(start[leader],
                                                      start[leader + 1] - start[leader]);
  }
};

ColocationGroups GroupColocated(const std::vector<HeapBuffer>& buffers) {
  const int32_t n = static_cast<int32_t>(buffers.size());
  std::vector<int32_t> parent(n);
  bool any = false;
  for (int32_t i = 0; i < n; ++i) parent[i] = i;
  auto find = [&](int32_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  for (int32_t i = 0; i < n; ++i) {
    const int32_t j = buffers[i].colocated_with;
    if (j < 0 || j >= n || j == i) continue;
    any = true;
    const int32_t a = find(i), b = find(j);
    if (a != b) parent[std::max(a, b)] = std::min(a, b);
  }
  ColocationGroups g;
  g.start.assign(static_cast<size_t>(n) + 1, 0);
  g.members.resize(n);
  if (!any) {  // the common case: every buffer alone
    for (int32_t i = 0; i < n; ++i) {
      g.start[i + 1] = i + 1;
      g.members[i] = i;
    }
    return g;
  }
  for (int32_t i = 0; i < n; ++i) ++g.start[find(i) + 1];
  for (int32_t i = 0; i < n; ++i) g.start[i + 1] += g.start[i];
  std::vector<int32_t> next(g.start.begin(), g.start.end() - 1);
  for (int32_t i = 0; i < n; ++i) g.members[next[find(i)]++] = i;
  return g;
}

int64_t RoundUp(int64_t x, int64_t alignment) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  if (alignment <= 1) return x;
  const int64_t r = x % alignment;
  if (r == 0) return x;
  return x > kMax - (alignment - r) ? kMax : x + (alignment - r);
}

HeapLayout PackInOrder(const std::vector<HeapBuffer>& buffers, HeapOrder kind, int64_t alignment,
                       int64_t size_limit_per_heap) {
  HeapLayout out;
  out.offsets.assign(buffers.size(), 0);
  out.sizes.assign(buffers.size(), 0);
  out.heap_of.assign(buffers.size(), 0);
  const ColocationGroups groups = GroupColocated(buffers);
  struct Group {
    int32_t leader;
    int64_t bytes;  // the chunk: the largest member
    int32_t last;   // the members' latest end
    // The member that shares no one's chunk (XLA's interval that needs an allocation; the
    // others joined it with ShareWith): XLA's orders read its size, start, end and id.
    int32_t owner;
  };
  std::vector<Group> order;
  order.reserve(buffers.size());
  int32_t steps = 1;
  for (size_t i = 0; i < buffers.size(); ++i) {
    const absl::Span<const int32_t> members = groups.Of(static_cast<int32_t>(i));
    if (members.empty()) continue;  // not a leader
    Group g{static_cast<int32_t>(i), 0, buffers[i].last, -1};
    for (int32_t m : members) {
      const int32_t with = buffers[m].colocated_with;
      if (g.owner < 0 && (with < 0 || with >= static_cast<int32_t>(buffers.size()) || with == m)) {
        g.owner = m;
      }
      g.bytes = std::max(g.bytes, buffers[m].bytes);
      g.last = std::max(g.last, buffers[m].last);
      steps = std::max(steps, buffers[m].last + 1);
    }
    if (g.bytes <= 0) continue;           // takes no space; offset 0
    if (g.owner < 0) g.owner = g.leader;  // a cycle: no member owns the chunk
    order.push_back(g);
  }
  auto by = [&](auto key) {
    std::stable_sort(order.begin(), order.end(),
                     [&](const Group& a, const Group& b) { return key(a) < key(b); });
  };
  auto length = [&](const HeapBuffer& b) { return int64_t{b.last} - b.first; };
  switch (kind) {
    case HeapOrder::kIdeal:
    case HeapOrder::kXla:  // not reached: PackBestFit runs the two XLA orders
      by([&](const Group& g) { return std::make_tuple(-g.bytes, buffers[g.leader].first); });
      break;
    case HeapOrder::kXlaSpatial:
      by([&](const Group& g) {
        const HeapBuffer& b = buffers[g.owner];
        return std::make_tuple(-b.bytes, -length(b), g.owner);
      });
      break;
    case HeapOrder::kXlaTemporal:
      by([&](const Group& g) {
        const HeapBuffer& b = buffers[g.owner];
        return std::make_tuple(b.first - int64_t{g.last}, -b.bytes, g.owner);
      });
      break;
  }
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  std::vector<Segment> occupied;  // the overlapping buffers' bytes, several sets' worth
  std::vector<Segment> scratch;
  std::vector<size_t> runs, next_runs;  // where each set's segments start in `occupied`
  auto by_start = [](const Segment& x, const Segment& y) { return x.start < y.start; };
  // One heap after another, each from the groups the ones before left (a do-while: XLA makes
  // one heap also when there is nothing to place).
  std::vector<Group> rest;
  int32_t heap = 0;
  do {
    PlacedIndex placed(steps);
    int64_t heap_size = 0;
    rest.clear();
    for (const Group& g : order) {
      const absl::Span<const int32_t> members = groups.Of(g.leader);
      occupied.clear();
      runs.assign(1, 0);
      for (int32_t m : members) {
        placed.ForEachOverlapping(buffers[m].first, buffers[m].last,
                                  [&](const std::vector<Segment>& set) {
                                    if (set.empty()) return;
                                    occupied.insert(occupied.end(), set.begin(), set.end());
                                    runs.push_back(occupied.size());
                                  });
      }
      // Each set is sorted: merge them pairwise, in passes, rather than sort them all (a third
      // faster on the curated models, where a buffer overlaps more sets).
      while (runs.size() > 2) {
        scratch.resize(occupied.size());
        next_runs.assign(1, 0);
        size_t r = 0;
        for (; r + 2 < runs.size(); r += 2) {
          std::merge(occupied.begin() + runs[r], occupied.begin() + runs[r + 1],
                     occupied.begin() + runs[r + 1], occupied.begin() + runs[r + 2],
                     scratch.begin() + runs[r], by_start);
          next_runs.push_back(runs[r + 2]);
        }
        if (r + 1 < runs.size()) {  // an odd one out
          std::copy(occupied.begin() + runs[r], occupied.begin() + runs[r + 1],
                    scratch.begin() + runs[r]);
          next_runs.push_back(runs[r + 1]);
        }
        occupied.swap(scratch);
        runs.swap(next_runs);
      }
      // Gaps between the occupied bytes, by offset: the smallest that fits at an aligned offset
      // (touching segments leave no gap, so sets that overlap one another give the gaps of their
      // union). A gap is measured from its aligned start, as XLA's free chunks begin at the
      // aligned end of the chunk below (MakeFreeChunks): of two gaps that fit, the one with
      // less room above the alignment padding wins.
      int64_t best_offset = -1;
      int64_t best_gap = kMax;
      int64_t top = 0;  // the lowest offset above everything seen so far
      for (const Segment& s : occupied) {
        if (s.start > top) {
          const int64_t aligned = RoundUp(top, alignment);
          const int64_t gap = s.start - aligned;
          if (aligned <= s.start && gap >= g.bytes && gap < best_gap) {
            best_gap = gap;
            best_offset = aligned;
          }
        }
        top = std::max(top, s.end);
      }
      const int64_t offset = best_offset >= 0 ? best_offset : RoundUp(top, alignment);
      const int64_t end = offset > kMax - g.bytes ? kMax : offset + g.bytes;
      // Over the limit: left for a later heap, unless this heap is still empty.
      if (end > size_limit_per_heap && heap_size > 0) {
        rest.push_back(g);
        continue;
      }
      heap_size = std::max(heap_size, end);
      for (int32_t m : members) {
        out.offsets[m] = offset;
        out.sizes[m] = g.bytes;
        out.heap_of[m] = heap;
        placed.Insert(m, buffers[m].first, buffers[m].last, offset, end);
      }
    }
    out.heap_sizes.push_back(heap_size);
    out.heap_bytes = out.heap_bytes > kMax - heap_size ? kMax : out.heap_bytes + heap_size;
    order.swap(rest);
    ++heap;
  } while (!order.empty());
  return out;
}

}  // namespace

HeapLayout PackBestFit(const std::vector<HeapBuffer>& buffers, const HeapPackOptions& options) {
  const int64_t alignment = std::max<int64_t>(options.alignment, 1);
  const int64_t limit = options.size_limit_per_heap;
  if (options.order != HeapOrder::kXla) {
    return PackInOrder(buffers, options.order, alignment, limit);
  }
  HeapLayout spatial = PackInOrder(buffers, HeapOrder::kXlaSpatial, alignment, limit);
  HeapLayout temporal = PackInOrder(buffers, HeapOrder::kXlaTemporal, alignment, limit);
  return temporal.heap_bytes < spatial.heap_bytes ? temporal : spatial;
}

}  // namespace hloscope
