#include "hlo/shape.h"

#include <limits>

#include "support/checked_int.h"
#include "support/str_util.h"

namespace hloscope {

bool Layout::HasParts() const {
  return !dim_level_types.empty() || !tiles.empty() || tail_padding_alignment != 1 ||
         index_type != PrimitiveType::kInvalid || pointer_type != PrimitiveType::kInvalid ||
         element_size_bits != 0 || memory_space != 0 || !split_configs.empty() ||
         physical_shape != nullptr || dynamic_metadata_prefix_bytes != 0;
}

bool Shape::IsDynamic() const {
  for (bool d : dynamic) {
    if (d) return true;
  }
  for (const Shape* e : tuple_elements) {
    if (e->IsDynamic()) return true;
  }
  return false;
}

int64_t Shape::ElementCount() const {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d == kUnboundedSize) return 0;
    n *= d;
  }
  return n;
}

std::optional<int64_t> CheckedElementCount(absl::Span<const int64_t> dims) {
  int64_t elements = 1;
  for (int64_t d : dims) {
    if (d != Shape::kUnboundedSize && __builtin_mul_overflow(elements, d, &elements)) {
      return std::nullopt;
    }
  }
  return elements;
}

bool ByteSizeFits(int64_t elements, int64_t bits) {
  return (static_cast<__int128>(elements) * bits + 7) / 8 <= std::numeric_limits<int64_t>::max();
}

bool IsPermutation(absl::Span<const int64_t> dims, int64_t rank) {
  if (static_cast<int64_t>(dims.size()) != rank) return false;
  absl::InlinedVector<bool, 8> seen(dims.size(), false);
  for (int64_t d : dims) {
    if (d < 0 || d >= rank || seen[static_cast<size_t>(d)]) return false;
    seen[static_cast<size_t>(d)] = true;
  }
  return true;
}

int64_t Shape::ElementBits() const {
  return layout.element_size_bits != 0 ? layout.element_size_bits
                                       : GetPrimitiveTypeInfo(element_type).bits;
}

bool Shape::SizeFits() const {
  std::optional<int64_t> elements = CheckedElementCount(dims);
  return elements && ByteSizeFits(*elements, ElementBits());
}

int64_t Shape::ByteSize() const {
  if (!IsArray()) return 0;
  // Sub-byte types pack and round up to a byte. 128-bit arithmetic: the parser guarantees the
  // byte count fits in 64 bits, but elements * bits may not.
  return static_cast<int64_t>((static_cast<__int128>(ElementCount()) * ElementBits() + 7) / 8);
}

int64_t Shape::TotalArrayBytes() const {
  if (!IsTuple() && !IsBuffer()) return ByteSize();
  int64_t total = 0;
  for (const Shape* e : tuple_elements) total = SaturatingAdd(total, e->TotalArrayBytes());
  return total;
}

bool Shape::Compatible(const Shape& other) const {
  if (this == &other) return true;
  if (element_type != other.element_type) return false;
  if (IsTuple() || IsBuffer()) {
    if (tuple_elements.size() != other.tuple_elements.size()) return false;
    for (size_t i = 0; i < tuple_elements.size(); ++i) {
      if (!tuple_elements[i]->Compatible(*other.tuple_elements[i])) return false;
    }
    return true;
  }
  return dims == other.dims && dynamic == other.dynamic;
}

bool Shape::operator==(const Shape& other) const {
  if (this == &other) return true;
  if (element_type != other.element_type || dims != other.dims || dynamic != other.dynamic ||
      has_layout != other.has_layout || !(layout == other.layout) ||
      tuple_elements.size() != other.tuple_elements.size()) {
    return false;
  }
  for (size_t i = 0; i < tuple_elements.size(); ++i) {
    if (!(*tuple_elements[i] == *other.tuple_elements[i])) return false;
  }
  return true;
}

namespace {

void AppendLayout(const Layout& layout, std::string& out) {
  out += '{';
  for (size_t i = 0; i < layout.minor_to_major.size(); ++i) {
    if (i) out += ',';
    StrAppend(&out, layout.minor_to_major[i]);
  }
  if (layout.HasParts()) {
    out += ':';
    if (!layout.dim_level_types.empty()) StrAppend(&out, "D(", layout.dim_level_types, ")");
    if (!layout.tiles.empty()) {
      out += 'T';
      for (const Tile& t : layout.tiles) {
        out += '(';
        for (size_t i = 0; i < t.dims.size(); ++i) {
          if (i) out += ',';
          if (t.dims[i] == Tile::kTileCombine) {
            out += '*';
          } else {
            StrAppend(&out, t.dims[i]);
          }
        }
        out += ')';
      }
    }
    if (layout.tail_padding_alignment != 1) {
      StrAppend(&out, "L(", layout.tail_padding_alignment, ")");
    }
    if (layout.index_type != PrimitiveType::kInvalid) {
      StrAppend(&out, "#(", PrimitiveTypeName(layout.index_type), ")");
    }
    if (layout.pointer_type != PrimitiveType::kInvalid) {
      StrAppend(&out, "*(", PrimitiveTypeName(layout.pointer_type), ")");
    }
    if (layout.element_size_bits != 0) StrAppend(&out, "E(", layout.element_size_bits, ")");
    if (layout.memory_space != 0) StrAppend(&out, "S(", layout.memory_space, ")");
    if (!layout.split_configs.empty()) StrAppend(&out, "SC(", layout.split_configs, ")");
    if (layout.physical_shape != nullptr) {
      out += "P(";
      layout.physical_shape->AppendTo(out, true);
      out += ')';
    }
    if (layout.dynamic_metadata_prefix_bytes != 0) {
      StrAppend(&out, "M(", layout.dynamic_metadata_prefix_bytes, ")");
    }
  }
  out += '}';
}

}  // namespace

void Shape::AppendTo(std::string& out, bool print_layout) const {
  if (IsBuffer()) {
    out += "b(";
    tuple_elements[0]->AppendTo(out, print_layout);
    out += ')';
    return;
  }
  if (IsTuple()) {
    out += '(';
    for (size_t i = 0; i < tuple_elements.size(); ++i) {
      if (i) out += ", ";
      tuple_elements[i]->AppendTo(out, print_layout);
    }
    out += ')';
    return;
  }
  out += PrimitiveTypeName(element_type);
  out += '[';
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) out += ',';
    if (dims[i] == kUnboundedSize) {
      out += '?';
    } else {
      if (dynamic[i]) out += "<=";
      StrAppend(&out, dims[i]);
    }
  }
  out += ']';
  if (print_layout && has_layout) AppendLayout(layout, out);
}

std::string Shape::ToString(bool print_layout) const {
  std::string out;
  AppendTo(out, print_layout);
  return out;
}

std::string ShapeIndexToString(const ShapeIndex& index) {
  std::string out = "{";
  for (size_t i = 0; i < index.size(); ++i) {
    if (i) out += ',';
    StrAppend(&out, index[i]);
  }
  out += '}';
  return out;
}

const Shape* Subshape(const Shape& shape, const ShapeIndex& index) {
  const Shape* s = &shape;
  for (int64_t i : index) {
    if (!s->IsTuple() || i < 0 || i >= static_cast<int64_t>(s->tuple_elements.size())) {
      return nullptr;
    }
    s = s->tuple_elements[static_cast<size_t>(i)];
  }
  return s;
}

}  // namespace hloscope
