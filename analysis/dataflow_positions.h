// Numbering of the subshapes of a shape in pre-order (the order ForEachSubshape visits them):
// position 0 is the whole shape, then element 0's subtree, element 1's subtree, ... Every
// subtree is a contiguous range, so forwarding a tuple element or a get-tuple-element result
// is a copy of one range of positions. The dataflow analysis stores its value sets in one flat
// array indexed by (instruction base + position).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "analysis/hlo_value.h"
#include "hlo/shape.h"

namespace hloscope {

class ShapePositions {
 public:
  // Number of positions of `shape` (1 + all nested subshapes). Arrays and tokens, nearly
  // every instruction, answer without a table lookup.
  int32_t Count(const Shape& shape) { return shape.IsTuple() ? Get(shape).count : 1; }
  // Position of element `i`'s subtree inside `shape` (shape must be a tuple with > i elements).
  int32_t ElementOffset(const Shape& shape, int64_t i);
  // Position of `index` inside `shape`, or nullopt when the index does not exist.
  std::optional<int32_t> Offset(const Shape& shape, const ShapeIndex& index);
  // The shape index of position `pos` of `shape` (pos < Count(shape)).
  ShapeIndex IndexAt(const Shape& shape, int32_t pos);
  // The subshape at position `pos`.
  const Shape* SubshapeAt(const Shape& shape, int32_t pos);
  // IndexAt as a view of a table kept here (one per shape, built on first use): valid while
  // this object lives.
  ShapeIndexView IndexViewAt(const Shape& shape, int32_t pos);

 private:
  struct Info {
    int32_t count = 1;
    std::vector<int32_t> element_offsets;  // offset of each element's subtree
    // Every position's index, length first, at index_start[pos] (IndexViewAt).
    std::vector<int64_t> indices;
    std::vector<uint32_t> index_start;
  };
  Info& Get(const Shape& shape);

  // Keyed by address: shapes are interned per module, so there are few distinct ones.
  absl::flat_hash_map<const Shape*, std::unique_ptr<Info>> infos_;
};

}  // namespace hloscope
