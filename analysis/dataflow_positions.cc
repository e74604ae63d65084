#include "analysis/dataflow_positions.h"

#include <algorithm>

namespace hloscope {

ShapePositions::Info& ShapePositions::Get(const Shape& shape) {
  auto it = infos_.find(&shape);
  if (it != infos_.end()) return *it->second;
  auto info = std::make_unique<Info>();
  // Tuple nesting is bounded by the parser (64 deep), so recursion depth is bounded too.
  int32_t next = 1;
  info->element_offsets.reserve(shape.tuple_elements.size());
  if (shape.IsTuple()) {
    for (const Shape* element : shape.tuple_elements) {
      info->element_offsets.push_back(next);
      next += Get(*element).count;
    }
  }
  info->count = next;
  Info& ref = *info;
  infos_.emplace(&shape, std::move(info));
  return ref;
}

int32_t ShapePositions::ElementOffset(const Shape& shape, int64_t i) {
  return Get(shape).element_offsets[static_cast<size_t>(i)];
}

std::optional<int32_t> ShapePositions::Offset(const Shape& shape, const ShapeIndex& index) {
  const Shape* s = &shape;
  int32_t pos = 0;
  for (int64_t i : index) {
    if (!s->IsTuple() || i < 0 || i >= static_cast<int64_t>(s->tuple_elements.size())) {
      return std::nullopt;
    }
    pos += ElementOffset(*s, i);
    s = s->tuple_elements[static_cast<size_t>(i)];
  }
  return pos;
}

ShapeIndex ShapePositions::IndexAt(const Shape& shape, int32_t pos) {
  ShapeIndex index;
  const Shape* s = &shape;
  while (pos > 0) {
    const Info& info = Get(*s);
    // The element whose subtree holds `pos`: the last one starting at or before it.
    auto it = std::upper_bound(info.element_offsets.begin(), info.element_offsets.end(), pos);
    const auto i = static_cast<int64_t>(it - info.element_offsets.begin()) - 1;
    index.push_back(i);
    pos -= info.element_offsets[static_cast<size_t>(i)];
    s = s->tuple_elements[static_cast<size_t>(i)];
  }
  return index;
}

const Shape* ShapePositions::SubshapeAt(const Shape& shape, int32_t pos) {
  const Shape* s = &shape;
  while (pos > 0) {
    const Info& info = Get(*s);
    auto it = std::upper_bound(info.element_offsets.begin(), info.element_offsets.end(), pos);
    const auto i = static_cast<size_t>(it - info.element_offsets.begin()) - 1;
    pos -= info.element_offsets[i];
    s = s->tuple_elements[i];
  }
  return s;
}

ShapeIndexView ShapePositions::IndexViewAt(const Shape& shape, int32_t pos) {
  if (pos == 0) return ShapeIndexView();
  // The reference stays valid while IndexAt adds Infos: they are held by pointer.
  Info& info = Get(shape);
  if (info.index_start.empty()) {
    info.index_start.reserve(static_cast<size_t>(info.count));
    for (int32_t p = 0; p < info.count; ++p) {
      const ShapeIndex index = IndexAt(shape, p);
      info.index_start.push_back(static_cast<uint32_t>(info.indices.size()));
      info.indices.push_back(static_cast<int64_t>(index.size()));
      info.indices.insert(info.indices.end(), index.begin(), index.end());
    }
  }
  return ShapeIndexView(&info.indices[info.index_start[static_cast<size_t>(pos)]]);
}

}  // namespace hloscope
