#include "analysis/memory/heap_simulation.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace hloscope {

HeapLayout PackBestFit(const std::vector<HeapBuffer>& buffers) {
  HeapLayout out;
  out.offsets.assign(buffers.size(), 0);
  std::vector<size_t> order(buffers.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (buffers[a].bytes != buffers[b].bytes) return buffers[a].bytes > buffers[b].bytes;
    return buffers[a].first < buffers[b].first;
  });
  struct Placed {
    int64_t offset;
    int64_t end;  // offset + bytes
    int32_t first;
    int32_t last;
  };
  // Placed buffers, kept sorted by offset so the gaps are read in one pass.
  std::vector<Placed> placed;
  std::vector<const Placed*> overlapping;
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  for (size_t i : order) {
    const HeapBuffer& b = buffers[i];
    if (b.bytes <= 0) continue;  // takes no space; offset 0
    overlapping.clear();
    for (const Placed& p : placed) {
      if (p.first <= b.last && b.first <= p.last) overlapping.push_back(&p);
    }
    // Gaps between the overlapping buffers (sorted by offset): the smallest that fits.
    int64_t best_offset = -1;
    int64_t best_gap = kMax;
    int64_t top = 0;  // the lowest offset above everything seen so far
    for (const Placed* p : overlapping) {
      if (p->offset > top) {
        const int64_t gap = p->offset - top;
        if (gap >= b.bytes && gap < best_gap) {
          best_gap = gap;
          best_offset = top;
        }
      }
      top = std::max(top, p->end);
    }
    const int64_t offset = best_offset >= 0 ? best_offset : top;
    const int64_t end = offset > kMax - b.bytes ? kMax : offset + b.bytes;
    out.offsets[i] = offset;
    out.heap_bytes = std::max(out.heap_bytes, end);
    const Placed entry{offset, end, b.first, b.last};
    placed.insert(
        std::upper_bound(placed.begin(), placed.end(), entry,
                         [](const Placed& x, const Placed& y) { return x.offset < y.offset; }),
        entry);
  }
  return out;
}

}  // namespace hloscope
