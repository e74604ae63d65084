// Shapes and layouts as XLA prints them: `f32[8,<=128,?]{2,1,0:T(8,128)(2,1)S(1)}`, tuples
// `(s32[], (f32[2]))`, `token[]`, `opaque[]`.
//
// Shapes are immutable and interned per module (see ShapeTable): instructions hold a
// `const Shape*`, so two instructions with the same shape share one object and shape equality
// between interned shapes is pointer equality.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "hlo/primitive_type.h"

namespace hloscope {

class Shape;

// A tile such as (8,128); a dimension printed `*` (combine) is kTileCombine.
struct Tile {
  static constexpr int64_t kTileCombine = std::numeric_limits<int64_t>::min();
  absl::InlinedVector<int64_t, 2> dims;
  bool operator==(const Tile&) const = default;
};

// Layout `{minor_to_major:parts}`. The parts after ':' are printed in XLA's fixed order:
// D(..) T(..)... L(n) #(type) *(type) E(n) S(n) SC(..) P(shape) M(n).
struct Layout {
  absl::InlinedVector<int64_t, 6> minor_to_major;
  std::string_view dim_level_types;  // text inside D(...), empty when absent
  std::vector<Tile> tiles;
  int64_t tail_padding_alignment = 1;                    // L(n)
  PrimitiveType index_type = PrimitiveType::kInvalid;    // #(type)
  PrimitiveType pointer_type = PrimitiveType::kInvalid;  // *(type)
  int64_t element_size_bits = 0;                         // E(n); 0 = natural width
  int64_t memory_space = 0;                              // S(n)
  std::string_view split_configs;                        // text inside SC(...)
  const Shape* physical_shape = nullptr;                 // P(shape)
  int64_t dynamic_metadata_prefix_bytes = 0;             // M(n)

  bool operator==(const Layout&) const = default;
  bool HasParts() const;
};

// The element count of an array with these dimensions (`?` counted as 1, which leaves the
// product unchanged), or nullopt when it overflows int64; and whether that many elements of
// `bits` bits fit in int64 bytes. The parser refuses shapes for which either fails.
std::optional<int64_t> CheckedElementCount(absl::Span<const int64_t> dims);
bool ByteSizeFits(int64_t elements, int64_t bits);

// Whether `dims` names each dimension 0..rank-1 exactly once (transpose's dimensions=).
bool IsPermutation(absl::Span<const int64_t> dims, int64_t rank);

class Shape {
 public:
  // Dimension size printed as `?`: unbounded dynamic.
  static constexpr int64_t kUnboundedSize = std::numeric_limits<int64_t>::min();

  PrimitiveType element_type = PrimitiveType::kInvalid;
  absl::InlinedVector<int64_t, 6> dims;  // for `<=N` the bound N; kUnboundedSize for `?`
  absl::InlinedVector<bool, 6> dynamic;  // dims[i] is dynamic (`<=N` or `?`)
  bool has_layout = false;               // printed with `{...}`
  Layout layout;
  std::vector<const Shape*> tuple_elements;  // tuples; for buffers, the one array

  bool IsTuple() const { return element_type == PrimitiveType::kTuple; }
  bool IsBuffer() const { return element_type == PrimitiveType::kBuffer; }
  bool IsArray() const { return IsArrayType(element_type); }
  bool IsToken() const { return element_type == PrimitiveType::kToken; }
  int64_t rank() const { return static_cast<int64_t>(dims.size()); }
  bool IsDynamic() const;
  // Number of elements (dynamic dims count at their bound; `?` counts as 0).
  int64_t ElementCount() const;
  // Whether ElementCount and ByteSize fit in int64 (the parser refuses shapes where they do
  // not, so every Shape in a Module fits; code that builds shapes checks with this).
  bool SizeFits() const;
  // Bits of one element: the layout's E(n) when it has one, else the element type's.
  int64_t ElementBits() const;
  // Bytes of one array (sub-byte types packed, E(n) honoured); 0 for tuples, tokens, opaque.
  int64_t ByteSize() const;
  // Sum of ByteSize over all array leaves (a tuple's own pointer table is not counted);
  // saturates at INT64_MAX when the leaves together do not fit.
  int64_t TotalArrayBytes() const;
  // Equal ignoring layouts (element type, dims, dynamic bounds, tuple structure).
  bool Compatible(const Shape& other) const;
  // Equal including layouts.
  bool operator==(const Shape& other) const;

  std::string ToString(bool print_layout = true) const;
  void AppendTo(std::string& out, bool print_layout = true) const;
};

// Path to a subshape of a tuple: {} is the whole shape, {1,0} element 0 of element 1.
using ShapeIndex = absl::InlinedVector<int64_t, 2>;
std::string ShapeIndexToString(const ShapeIndex& index);
// The subshape at `index`, or nullptr when the index does not exist in `shape`.
const Shape* Subshape(const Shape& shape, const ShapeIndex& index);
// Calls fn(subshape, index) for every subshape, pre-order (tuple before its elements).
template <typename Fn>
void ForEachSubshape(const Shape& shape, Fn&& fn, ShapeIndex& index) {
  fn(shape, static_cast<const ShapeIndex&>(index));
  for (size_t i = 0; i < shape.tuple_elements.size(); ++i) {
    index.push_back(static_cast<int64_t>(i));
    ForEachSubshape(*shape.tuple_elements[i], fn, index);
    index.pop_back();
  }
}
template <typename Fn>
void ForEachSubshape(const Shape& shape, Fn&& fn) {
  ShapeIndex index;
  ForEachSubshape(shape, fn, index);
}

}  // namespace hloscope
