// Shapes and layouts → ShapeProto / LayoutProto.
#include <string>

#include "hlo/proto_writer_internal.h"
#include "support/str_util.h"

namespace hloscope::proto_writer {

xla_proto::PrimitiveType ToProtoType(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::kPred:
      return xla_proto::PRED;
    case PrimitiveType::kS1:
      return xla_proto::S1;
    case PrimitiveType::kS2:
      return xla_proto::S2;
    case PrimitiveType::kS4:
      return xla_proto::S4;
    case PrimitiveType::kS8:
      return xla_proto::S8;
    case PrimitiveType::kS16:
      return xla_proto::S16;
    case PrimitiveType::kS32:
      return xla_proto::S32;
    case PrimitiveType::kS64:
      return xla_proto::S64;
    case PrimitiveType::kU1:
      return xla_proto::U1;
    case PrimitiveType::kU2:
      return xla_proto::U2;
    case PrimitiveType::kU4:
      return xla_proto::U4;
    case PrimitiveType::kU8:
      return xla_proto::U8;
    case PrimitiveType::kU16:
      return xla_proto::U16;
    case PrimitiveType::kU32:
      return xla_proto::U32;
    case PrimitiveType::kU64:
      return xla_proto::U64;
    case PrimitiveType::kF16:
      return xla_proto::F16;
    case PrimitiveType::kBF16:
      return xla_proto::BF16;
    case PrimitiveType::kF32:
      return xla_proto::F32;
    case PrimitiveType::kF64:
      return xla_proto::F64;
    case PrimitiveType::kC64:
      return xla_proto::C64;
    case PrimitiveType::kC128:
      return xla_proto::C128;
    case PrimitiveType::kF8E5M2:
      return xla_proto::F8E5M2;
    case PrimitiveType::kF8E4M3:
      return xla_proto::F8E4M3;
    case PrimitiveType::kF8E4M3FN:
      return xla_proto::F8E4M3FN;
    case PrimitiveType::kF8E4M3B11FNUZ:
      return xla_proto::F8E4M3B11FNUZ;
    case PrimitiveType::kF8E5M2FNUZ:
      return xla_proto::F8E5M2FNUZ;
    case PrimitiveType::kF8E4M3FNUZ:
      return xla_proto::F8E4M3FNUZ;
    case PrimitiveType::kF8E3M4:
      return xla_proto::F8E3M4;
    case PrimitiveType::kF8E8M0FNU:
      return xla_proto::F8E8M0FNU;
    // XLA's PrimitiveType has no f6 types.
    case PrimitiveType::kF6E2M3FN:
    case PrimitiveType::kF6E3M2FN:
    case PrimitiveType::kF4E2M1FN:
      return xla_proto::F4E2M1FN;
    case PrimitiveType::kToken:
      return xla_proto::TOKEN;
    case PrimitiveType::kOpaque:
      return xla_proto::OPAQUE_TYPE;
    case PrimitiveType::kTuple:
      return xla_proto::TUPLE;
    case PrimitiveType::kBuffer:
      return xla_proto::BUFFER;
    case PrimitiveType::kInvalid:
    case PrimitiveType::kCount:
      break;
  }
  return xla_proto::PRIMITIVE_TYPE_INVALID;
}

namespace {

// D(D,C,S,H) as XLA writes dim level types: dense, compressed, singleton, loose compressed;
// a '+' (not unique) or '~' (not ordered) suffix sets dim_unique / dim_ordered to false.
absl::Status DimLevelTypesToProto(std::string_view text, xla_proto::LayoutProto* out) {
  std::vector<std::string_view> parts = SplitTopLevel(text, ',');
  bool any_unique = false, any_ordered = false;
  std::vector<bool> unique, ordered;
  for (std::string_view p : parts) {
    if (p.empty()) return absl::InvalidArgumentError("empty dim level type in D(...)");
    switch (p.front()) {
      case 'D':
        out->add_dim_level_types(xla_proto::DIM_DENSE);
        break;
      case 'C':
        out->add_dim_level_types(xla_proto::DIM_COMPRESSED);
        break;
      case 'S':
        out->add_dim_level_types(xla_proto::DIM_SINGLETON);
        break;
      case 'H':
        out->add_dim_level_types(xla_proto::DIM_LOOSE_COMPRESSED);
        break;
      default:
        return absl::InvalidArgumentError(StrCat("unknown dim level type '", p, "' in D(...)"));
    }
    std::string_view suffix = p.substr(1);
    bool u = suffix.find('+') == std::string_view::npos;
    bool o = suffix.find('~') == std::string_view::npos;
    if (suffix.find_first_not_of("+~") != std::string_view::npos) {
      return absl::InvalidArgumentError(StrCat("unknown dim level type '", p, "' in D(...)"));
    }
    any_unique |= !u;
    any_ordered |= !o;
    unique.push_back(u);
    ordered.push_back(o);
  }
  if (any_unique) {
    for (bool u : unique) out->add_dim_unique(u);
  }
  if (any_ordered) {
    for (bool o : ordered) out->add_dim_ordered(o);
  }
  return absl::OkStatus();
}

// SC(dimension:index,index,...), XLA's split config.
absl::Status SplitConfigsToProto(std::string_view text, xla_proto::LayoutProto* out) {
  size_t colon = text.find(':');
  if (colon == std::string_view::npos) {
    return absl::InvalidArgumentError(StrCat("expected SC(dimension:indices), found '", text, "'"));
  }
  auto* sc = out->add_split_configs();
  absl::StatusOr<int64_t> dim = OneInt(text.substr(0, colon));
  if (!dim.ok()) return dim.status();
  sc->set_dimension(*dim);
  for (std::string_view i : SplitTopLevel(text.substr(colon + 1), ',')) {
    absl::StatusOr<int64_t> v = OneInt(i);
    if (!v.ok()) return v.status();
    sc->add_split_indices(*v);
  }
  return absl::OkStatus();
}

absl::Status LayoutToProto(const Layout& layout, xla_proto::LayoutProto* out) {
  for (int64_t d : layout.minor_to_major) out->add_minor_to_major(d);
  if (!layout.dim_level_types.empty()) {
    absl::Status s = DimLevelTypesToProto(layout.dim_level_types, out);
    if (!s.ok()) return s;
  }
  for (const Tile& tile : layout.tiles) {
    auto* t = out->add_tiles();
    // `*` (combine) is XLA's kCombineDimension, INT64_MIN, as it is ours.
    for (int64_t d : tile.dims) t->add_dimensions(d);
  }
  out->set_tail_padding_alignment_in_elements(layout.tail_padding_alignment);
  if (layout.index_type != PrimitiveType::kInvalid) {
    out->set_index_primitive_type(ToProtoType(layout.index_type));
  }
  if (layout.pointer_type != PrimitiveType::kInvalid) {
    out->set_pointer_primitive_type(ToProtoType(layout.pointer_type));
  }
  out->set_element_size_in_bits(layout.element_size_bits);
  out->set_memory_space(layout.memory_space);
  if (!layout.split_configs.empty()) {
    absl::Status s = SplitConfigsToProto(layout.split_configs, out);
    if (!s.ok()) return s;
  }
  if (layout.physical_shape != nullptr) {
    absl::Status s = ShapeToProto(*layout.physical_shape, out->mutable_physical_shape());
    if (!s.ok()) return s;
  }
  out->set_dynamic_shape_metadata_prefix_bytes(layout.dynamic_metadata_prefix_bytes);
  return absl::OkStatus();
}

}  // namespace

absl::Status ShapeToProto(const Shape& shape, xla_proto::ShapeProto* out) {
  out->set_element_type(ToProtoType(shape.element_type));
  if (out->element_type() == xla_proto::PRIMITIVE_TYPE_INVALID) {
    return absl::UnimplementedError(StrCat("element type '", PrimitiveTypeName(shape.element_type),
                                           "' has no value in XLA's PrimitiveType"));
  }
  for (size_t i = 0; i < shape.dims.size(); ++i) {
    out->add_dimensions(shape.dims[i]);
    out->add_is_dynamic_dimension(i < shape.dynamic.size() && shape.dynamic[i]);
  }
  for (const Shape* element : shape.tuple_elements) {
    absl::Status s = ShapeToProto(*element, out->add_tuple_shapes());
    if (!s.ok()) return s;
  }
  if (shape.has_layout) return LayoutToProto(shape.layout, out->mutable_layout());
  // XLA gives every array a layout and prints none for a scalar's (which has no dimensions to
  // order): a scalar written without one has that empty layout, as in XLA's own protos.
  if (shape.IsArray() && shape.dims.empty()) {
    out->mutable_layout()->set_tail_padding_alignment_in_elements(1);
  }
  return absl::OkStatus();
}

}  // namespace hloscope::proto_writer
