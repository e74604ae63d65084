// Index arithmetic shared by the literal code and the op kernels: strides of logical
// (row-major) and physical (layout minor_to_major) element order, and conversion between them.
// Tiles are ignored: the interpreter stores elements densely in minor_to_major order.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "hlo/shape.h"

namespace hloscope::eval {

// Element strides of row-major order over `dims`.
std::vector<int64_t> RowMajorStrides(absl::Span<const int64_t> dims);
// Element strides of `shape`'s physical order (its layout, or row-major without one).
std::vector<int64_t> PhysicalStrides(const Shape& shape);
// Whether the physical order of `shape` equals row-major (layout absent or descending).
bool IsRowMajor(const Shape& shape);
// Copies an array stored in `from`'s physical order into `to`'s physical order (same dims,
// same element type). `dst` must not overlap `src`.
void Relayout(const Shape& from, const uint8_t* src, const Shape& to, uint8_t* dst);
// The elements in row-major order: `data` itself when already row-major, else a reordered copy
// kept in `scratch`.
const uint8_t* RowMajorData(const Shape& shape, const uint8_t* data, std::vector<uint8_t>& scratch);
// Converts row-major bytes to `shape`'s physical order (moves when already row-major).
std::vector<uint8_t> ToPhysical(const Shape& shape, std::vector<uint8_t> row_major);

// Calls fn(index) for every multi-index of `dims` in row-major order.
template <typename Fn>
void ForEachIndex(absl::Span<const int64_t> dims, Fn&& fn) {
  for (int64_t d : dims) {
    if (d <= 0) return;
  }
  std::vector<int64_t> index(dims.size(), 0);
  while (true) {
    fn(static_cast<const std::vector<int64_t>&>(index));
    int64_t k = static_cast<int64_t>(dims.size()) - 1;
    for (; k >= 0; --k) {
      if (++index[static_cast<size_t>(k)] < dims[static_cast<size_t>(k)]) break;
      index[static_cast<size_t>(k)] = 0;
    }
    if (k < 0) return;
  }
}

}  // namespace hloscope::eval
