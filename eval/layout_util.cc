#include "eval/layout_util.h"

#include <algorithm>
#include <cstring>

#include "eval/element_io.h"

namespace hloscope::eval {

std::vector<int64_t> RowMajorStrides(absl::Span<const int64_t> dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (int64_t i = static_cast<int64_t>(dims.size()) - 2; i >= 0; --i) {
    strides[static_cast<size_t>(i)] =
        strides[static_cast<size_t>(i + 1)] * dims[static_cast<size_t>(i + 1)];
  }
  return strides;
}

bool IsRowMajor(const Shape& shape) {
  const auto& m2m = shape.layout.minor_to_major;
  if (!shape.has_layout || static_cast<int64_t>(m2m.size()) != shape.rank()) return true;
  for (size_t i = 0; i < m2m.size(); ++i) {
    if (m2m[i] != shape.rank() - 1 - static_cast<int64_t>(i)) return false;
  }
  return true;
}

std::vector<int64_t> PhysicalStrides(const Shape& shape) {
  if (IsRowMajor(shape)) return RowMajorStrides(shape.dims);
  std::vector<int64_t> strides(shape.dims.size(), 1);
  int64_t stride = 1;
  for (int64_t d : shape.layout.minor_to_major) {
    strides[static_cast<size_t>(d)] = stride;
    stride *= shape.dims[static_cast<size_t>(d)];
  }
  return strides;
}

namespace {
// Copies `count` elements of type T from src (stride `stride` elements) to contiguous dst.
template <typename T>
void CopyRow(const uint8_t* src, int64_t stride, uint8_t* dst, int64_t count) {
  for (int64_t i = 0; i < count; ++i) {
    T v;
    std::memcpy(&v, src + i * stride * static_cast<int64_t>(sizeof(T)), sizeof(T));
    std::memcpy(dst + i * static_cast<int64_t>(sizeof(T)), &v, sizeof(T));
  }
}
}  // namespace

void Relayout(const Shape& from, const uint8_t* src, const Shape& to, uint8_t* dst) {
  int eb = ElementBytes(from.element_type);
  std::vector<int64_t> s = PhysicalStrides(from), d = PhysicalStrides(to);
  if (s == d) {
    // An empty array may have no storage at all (null pointers, which memcpy must not see).
    const size_t bytes = static_cast<size_t>(eb * from.ElementCount());
    if (bytes > 0) std::memcpy(dst, src, bytes);
    return;
  }
  // Walk the destination in its physical order (dimensions sorted by destination stride, major
  // first) so the writes are contiguous; the innermost dimension is a tight strided loop.
  std::vector<size_t> order(d.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return d[a] > d[b]; });
  std::vector<int64_t> dims, strides;
  for (size_t k : order) {
    dims.push_back(from.dims[k]);
    strides.push_back(s[k]);
  }
  if (from.ElementCount() == 0) return;
  int64_t inner = dims.back(), inner_stride = strides.back();
  dims.pop_back();
  strides.pop_back();
  std::vector<int64_t> index(dims.size(), 0);
  int64_t src_offset = 0;
  uint8_t* out = dst;
  while (true) {
    const uint8_t* row = src + src_offset * eb;
    switch (eb) {
      case 1:
        CopyRow<uint8_t>(row, inner_stride, out, inner);
        break;
      case 2:
        CopyRow<uint16_t>(row, inner_stride, out, inner);
        break;
      case 4:
        CopyRow<uint32_t>(row, inner_stride, out, inner);
        break;
      default:
        CopyRow<uint64_t>(row, inner_stride, out, inner);
        break;
    }
    out += inner * eb;
    int64_t k = static_cast<int64_t>(dims.size()) - 1;
    for (; k >= 0; --k) {
      auto uk = static_cast<size_t>(k);
      src_offset += strides[uk];
      if (++index[uk] < dims[uk]) break;
      src_offset -= strides[uk] * dims[uk];
      index[uk] = 0;
    }
    if (k < 0) return;
  }
}

const uint8_t* RowMajorData(const Shape& shape, const uint8_t* data,
                            std::vector<uint8_t>& scratch) {
  if (IsRowMajor(shape)) return data;
  Shape row_major = shape;
  row_major.has_layout = false;
  scratch.resize(static_cast<size_t>(shape.ElementCount() * ElementBytes(shape.element_type)));
  Relayout(shape, data, row_major, scratch.data());
  return scratch.data();
}

std::vector<uint8_t> ToPhysical(const Shape& shape, std::vector<uint8_t> row_major) {
  if (IsRowMajor(shape)) return row_major;
  Shape from = shape;
  from.has_layout = false;
  std::vector<uint8_t> out(row_major.size());
  Relayout(from, row_major.data(), shape, out.data());
  return out;
}

}  // namespace hloscope::eval
