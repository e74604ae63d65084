#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "hlo/opcode.h"
#include "hlo/proto_reader_internal.h"
#include "support/escapes.h"
#include "support/status_text.h"
#include "support/str_util.h"

namespace hloscope {
namespace {

using xla::HloComputationProto;
using xla::HloInstructionProto;
using xla::ShapeProto;

// ---------------------------------------------------------------------------------------------
// Shapes and layouts.

std::string LowerName(std::string_view name) {
  std::string s(name);
  for (char& c : s) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return s;
}

// The lower-case name of an element type as shapes spell it (`f32`, `f8e4m3fn`), from a table
// built once: shapes are printed for every instruction.
std::string_view TypeName(xla::PrimitiveType type) {
  static const std::vector<std::string>* const names = [] {
    auto* v = new std::vector<std::string>();
    const google::protobuf::EnumDescriptor* d = xla::PrimitiveType_descriptor();
    int max = 0;
    for (int i = 0; i < d->value_count(); ++i) max = std::max(max, d->value(i)->number());
    v->resize(static_cast<size_t>(max) + 1);
    for (int i = 0; i < d->value_count(); ++i) {
      (*v)[static_cast<size_t>(d->value(i)->number())] = LowerName(d->value(i)->name());
    }
    return v;
  }();
  const auto i = static_cast<size_t>(type);
  return i < names->size() ? std::string_view((*names)[i]) : std::string_view("invalid");
}

void AppendShape(const ShapeProto& shape, std::string& out);

void AppendLayout(const ShapeProto& shape, std::string& out) {
  const xla::LayoutProto& layout = shape.layout();
  const int64_t tail = layout.tail_padding_alignment_in_elements();
  const bool has_parts = layout.dim_level_types_size() > 0 || layout.tiles_size() > 0 ||
                         (tail != 0 && tail != 1) ||
                         layout.index_primitive_type() != xla::PRIMITIVE_TYPE_INVALID ||
                         layout.pointer_primitive_type() != xla::PRIMITIVE_TYPE_INVALID ||
                         layout.element_size_in_bits() != 0 || layout.memory_space() != 0 ||
                         layout.split_configs_size() > 0 || layout.has_physical_shape() ||
                         layout.dynamic_shape_metadata_prefix_bytes() != 0;
  // XLA prints no braces for a scalar whose layout says nothing beyond the (empty) order.
  if (shape.dimensions_size() == 0 && !has_parts) return;
  out += '{';
  for (int i = 0; i < layout.minor_to_major_size(); ++i) {
    if (i) out += ',';
    StrAppend(&out, layout.minor_to_major(i));
  }
  if (has_parts) {
    out += ':';
    if (layout.dim_level_types_size() > 0) {
      out += "D(";
      for (int i = 0; i < layout.dim_level_types_size(); ++i) {
        if (i) out += ',';
        switch (layout.dim_level_types(i)) {
          case xla::DIM_DENSE:
            out += 'D';
            break;
          case xla::DIM_COMPRESSED:
            out += 'C';
            break;
          case xla::DIM_SINGLETON:
            out += 'S';
            break;
          case xla::DIM_LOOSE_COMPRESSED:
            out += 'H';
            break;
          default:
            out += '?';
            break;
        }
        if (i < layout.dim_unique_size() && !layout.dim_unique(i)) out += '+';
        if (i < layout.dim_ordered_size() && !layout.dim_ordered(i)) out += '~';
      }
      out += ')';
    }
    if (layout.tiles_size() > 0) {
      out += 'T';
      for (const xla::TileProto& tile : layout.tiles()) {
        out += '(';
        for (int i = 0; i < tile.dimensions_size(); ++i) {
          if (i) out += ',';
          // A combined dimension (-1) prints as `*`.
          if (tile.dimensions(i) == -1) {
            out += '*';
          } else {
            StrAppend(&out, tile.dimensions(i));
          }
        }
        out += ')';
      }
    }
    if (tail != 0 && tail != 1) StrAppend(&out, "L(", tail, ")");
    if (layout.index_primitive_type() != xla::PRIMITIVE_TYPE_INVALID) {
      StrAppend(&out, "#(", LowerName(xla::PrimitiveType_Name(layout.index_primitive_type())), ")");
    }
    if (layout.pointer_primitive_type() != xla::PRIMITIVE_TYPE_INVALID) {
      StrAppend(&out, "*(", LowerName(xla::PrimitiveType_Name(layout.pointer_primitive_type())),
                ")");
    }
    if (layout.element_size_in_bits() != 0) {
      StrAppend(&out, "E(", layout.element_size_in_bits(), ")");
    }
    if (layout.memory_space() != 0) StrAppend(&out, "S(", layout.memory_space(), ")");
    if (layout.split_configs_size() > 0) {
      out += "SC";
      for (const xla::SplitConfigProto& sc : layout.split_configs()) {
        StrAppend(&out, "(", sc.dimension(), ":", StrJoin(sc.split_indices(), ","), ")");
      }
    }
    if (layout.has_physical_shape()) {
      out += "P(";
      AppendShape(layout.physical_shape(), out);
      out += ')';
    }
    if (layout.dynamic_shape_metadata_prefix_bytes() != 0) {
      StrAppend(&out, "M(", layout.dynamic_shape_metadata_prefix_bytes(), ")");
    }
  }
  out += '}';
}

// XLA marks an unbounded dynamic dimension with this size.
constexpr int64_t kUnboundedDimension = INT64_MIN;

void AppendShape(const ShapeProto& shape, std::string& out) {
  switch (shape.element_type()) {
    case xla::TUPLE:
      out += '(';
      for (int i = 0; i < shape.tuple_shapes_size(); ++i) {
        if (i) out += ", ";
        AppendShape(shape.tuple_shapes(i), out);
      }
      out += ')';
      return;
    case xla::BUFFER:
      out += "b(";
      if (shape.tuple_shapes_size() > 0) AppendShape(shape.tuple_shapes(0), out);
      out += ')';
      return;
    case xla::TOKEN:
      out += "token[]";
      return;
    case xla::OPAQUE_TYPE:
      out += "opaque[]";
      return;
    default:
      break;
  }
  out += TypeName(shape.element_type());
  out += '[';
  for (int i = 0; i < shape.dimensions_size(); ++i) {
    if (i) out += ',';
    if (shape.dimensions(i) == kUnboundedDimension) {
      out += '?';
      continue;
    }
    if (i < shape.is_dynamic_dimension_size() && shape.is_dynamic_dimension(i)) out += "<=";
    StrAppend(&out, shape.dimensions(i));
  }
  out += ']';
  if (shape.has_layout()) AppendLayout(shape, out);
}

// What makes `shape` no shape at all, or empty when it is one: an element type that is unset
// or unknown, a negative dimension (other than the unbounded marker).
std::string ShapeProblem(const ShapeProto& shape, int depth = 0) {
  if (depth > 64) return "tuple shapes nested more than 64 deep";
  if (shape.element_type() == xla::PRIMITIVE_TYPE_INVALID) return "shape has no element type";
  if (!xla::PrimitiveType_IsValid(shape.element_type())) {
    return StrCat("shape has unknown element type ", static_cast<int>(shape.element_type()));
  }
  for (int64_t d : shape.dimensions()) {
    if (d < 0 && d != kUnboundedDimension) return StrCat("shape has dimension size ", d);
  }
  for (const ShapeProto& t : shape.tuple_shapes()) {
    if (std::string p = ShapeProblem(t, depth + 1); !p.empty()) return p;
  }
  return {};
}

// ---------------------------------------------------------------------------------------------
// Attribute values.

void AppendQuoted(std::string_view s, std::string& out) {
  out += '"';
  // Most strings need no escape: copy them whole.
  bool plain = true;
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\' || u < 0x20) {
      plain = false;
      break;
    }
  }
  if (plain) {
    out += s;
  } else {
    out += EscapeCString(s);
  }
  out += '"';
}

void AppendIntList(const auto& values, std::string& out) {
  out += '{';
  bool first = true;
  for (const auto v : values) {
    if (!first) out += ',';
    first = false;
    StrAppend(&out, static_cast<int64_t>(v));
  }
  out += '}';
}

bool HasMetadata(const xla::OpMetadata& m) {
  return !m.op_type().empty() || !m.op_name().empty() || !m.source_file().empty() ||
         m.source_line() != 0 || m.source_end_line() != 0 || m.source_column() != 0 ||
         m.source_end_column() != 0 || !m.deduplicated_name().empty() ||
         !m.scheduling_name().empty() || m.stack_frame_id() != 0;
}

void AppendMetadataBody(const xla::OpMetadata& m, std::string& out) {
  bool first = true;
  auto sep = [&] {
    if (!first) out += ' ';
    first = false;
  };
  auto str = [&](std::string_view key, const std::string& v) {
    if (v.empty()) return;
    sep();
    out += key;
    out += '=';
    AppendQuoted(v, out);
  };
  auto num = [&](std::string_view key, int64_t v) {
    if (v == 0) return;
    sep();
    StrAppend(&out, key, "=", v);
  };
  str("op_type", m.op_type());
  str("op_name", m.op_name());
  str("source_file", m.source_file());
  num("source_line", m.source_line());
  num("source_end_line", m.source_end_line());
  num("source_column", m.source_column());
  num("source_end_column", m.source_end_column());
  str("deduplicated_name", m.deduplicated_name());
  str("scheduling_name", m.scheduling_name());
  num("stack_frame_id", m.stack_frame_id());
}

void AppendFrontendAttributes(const xla::FrontendAttributes& attrs, std::string& out) {
  // Sorted by key, as XLA prints its map.
  std::vector<std::pair<std::string_view, std::string_view>> sorted(attrs.map().begin(),
                                                                    attrs.map().end());
  std::sort(sorted.begin(), sorted.end());
  out += '{';
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (i) out += ',';
    out += sorted[i].first;
    out += '=';
    AppendQuoted(sorted[i].second, out);
  }
  out += '}';
}

// `[dims]<=[reshape]` with `T(perm)` when the permutation is not the identity.
void AppendIota(const auto& dims, const auto& reshape, const auto& perm, std::string& out) {
  StrAppend(&out, "[", StrJoin(dims, ","), "]<=[", StrJoin(reshape, ","), "]");
  bool identity = true;
  for (int i = 0; i < perm.size(); ++i) {
    if (perm[i] != i) identity = false;
  }
  if (!identity) StrAppend(&out, "T(", StrJoin(perm, ","), ")");
}

std::string_view ShardingTypeWord(xla::OpSharding::Type type) {
  switch (type) {
    case xla::OpSharding::REPLICATED:
      return "replicated";
    case xla::OpSharding::MAXIMAL:
      return "maximal";
    case xla::OpSharding::MANUAL:
      return "manual";
    case xla::OpSharding::UNKNOWN:
      return "unknown";
    case xla::OpSharding::UNREDUCED:
      return "unreduced";
    default:
      return "other";
  }
}

void AppendShardingBody(const xla::OpSharding& s, std::string& out) {
  switch (s.type()) {
    case xla::OpSharding::TUPLE:
      out += '{';
      for (int i = 0; i < s.tuple_shardings_size(); ++i) {
        if (i) out += ", ";
        AppendShardingBody(s.tuple_shardings(i), out);
      }
      out += '}';
      return;
    case xla::OpSharding::REPLICATED:
    case xla::OpSharding::MANUAL:
    case xla::OpSharding::UNKNOWN:
    case xla::OpSharding::UNREDUCED:
      out += '{';
      out += ShardingTypeWord(s.type());
      break;
    case xla::OpSharding::MAXIMAL:
      out += "{maximal device=";
      StrAppend(&out, s.tile_assignment_devices_size() > 0 ? s.tile_assignment_devices(0) : 0);
      break;
    default: {
      out += "{devices=";
      if (s.iota_reshape_dims_size() > 0) {
        AppendIota(s.tile_assignment_dimensions(), s.iota_reshape_dims(), s.iota_transpose_perm(),
                   out);
      } else {
        StrAppend(&out, "[", StrJoin(s.tile_assignment_dimensions(), ","), "]",
                  StrJoin(s.tile_assignment_devices(), ","));
      }
      if (s.replicate_on_last_tile_dim()) out += " last_tile_dim_replicate";
      if (s.last_tile_dims_size() > 0) {
        out += " last_tile_dims={";
        for (int i = 0; i < s.last_tile_dims_size(); ++i) {
          if (i) out += ", ";
          out += ShardingTypeWord(static_cast<xla::OpSharding::Type>(s.last_tile_dims(i)));
        }
        out += '}';
      }
      break;
    }
  }
  if (s.is_shard_group()) {
    StrAppend(&out, s.shard_group_type() == xla::OpSharding::AS ? " shard_as " : " shard_like ",
              s.shard_group_id());
  }
  if (s.metadata_size() == 1) {
    out += " metadata={";
    AppendMetadataBody(s.metadata(0), out);
    out += '}';
  } else if (s.metadata_size() > 1) {
    out += " metadata={";
    for (int i = 0; i < s.metadata_size(); ++i) {
      if (i) out += ", ";
      out += '{';
      AppendMetadataBody(s.metadata(i), out);
      out += '}';
    }
    out += '}';
  }
  out += '}';
}

void AppendReplicaGroups(const HloInstructionProto& instr, std::string& out) {
  if (instr.has_collective_device_list() &&
      instr.collective_device_list().has_iota_replica_group_list()) {
    const xla::IotaReplicaGroupListProto& iota =
        instr.collective_device_list().iota_replica_group_list();
    std::vector<int64_t> dims = {iota.num_replica_groups(), iota.num_devices_per_group()};
    AppendIota(dims, iota.iota_reshape_dims(), iota.iota_transpose_perm(), out);
    return;
  }
  const auto& groups = instr.has_collective_device_list()
                           ? instr.collective_device_list().replica_groups()
                           : instr.replica_groups();
  out += '{';
  for (int i = 0; i < groups.size(); ++i) {
    if (i) out += ',';
    AppendIntList(groups[i].replica_ids(), out);
  }
  out += '}';
}

void AppendWindow(const xla::Window& w, std::string& out) {
  auto dims = [&](auto get) {
    std::string s;
    for (int i = 0; i < w.dimensions_size(); ++i) {
      if (i) s += 'x';
      get(w.dimensions(i), s);
    }
    return s;
  };
  auto any = [&](auto pred) {
    for (const xla::WindowDimension& d : w.dimensions()) {
      if (pred(d)) return true;
    }
    return false;
  };
  out += '{';
  // As XLA's window_util::ToString: a window of no dimensions is `{}`, not `{size=}`.
  if (w.dimensions_size() > 0) {
    out += "size=";
    out += dims([](const xla::WindowDimension& d, std::string& s) { StrAppend(&s, d.size()); });
  }
  if (any([](const xla::WindowDimension& d) { return d.stride() != 1; })) {
    out += " stride=";
    out += dims([](const xla::WindowDimension& d, std::string& s) { StrAppend(&s, d.stride()); });
  }
  if (any([](const xla::WindowDimension& d) {
        return d.padding_low() != 0 || d.padding_high() != 0;
      })) {
    out += " pad=";
    out += dims([](const xla::WindowDimension& d, std::string& s) {
      StrAppend(&s, d.padding_low(), "_", d.padding_high());
    });
  }
  if (any([](const xla::WindowDimension& d) { return d.base_dilation() != 1; })) {
    out += " lhs_dilate=";
    out += dims(
        [](const xla::WindowDimension& d, std::string& s) { StrAppend(&s, d.base_dilation()); });
  }
  if (any([](const xla::WindowDimension& d) { return d.window_dilation() != 1; })) {
    out += " rhs_dilate=";
    out += dims(
        [](const xla::WindowDimension& d, std::string& s) { StrAppend(&s, d.window_dilation()); });
  }
  if (any([](const xla::WindowDimension& d) { return d.window_reversal(); })) {
    out += " rhs_reversal=";
    out += dims([](const xla::WindowDimension& d, std::string& s) {
      s += d.window_reversal() ? '1' : '0';
    });
  }
  out += '}';
}

// `b01f_01io->b01f`: each operand's dimensions labelled by role, spatial ones by their index.
std::string DimLabels(const xla::ConvolutionDimensionNumbers& d) {
  auto labels = [](int64_t rank, int64_t a, char a_label, int64_t b, char b_label,
                   const auto& spatial) {
    std::string s(static_cast<size_t>(std::max<int64_t>(rank, 0)), '?');
    auto put = [&](int64_t dim, char c) {
      if (dim >= 0 && dim < rank) s[static_cast<size_t>(dim)] = c;
    };
    put(a, a_label);
    put(b, b_label);
    for (int i = 0; i < spatial.size(); ++i) put(spatial[i], static_cast<char>('0' + i));
    return s;
  };
  const int64_t rank = d.input_spatial_dimensions_size() + 2;
  return StrCat(labels(rank, d.input_batch_dimension(), 'b', d.input_feature_dimension(), 'f',
                       d.input_spatial_dimensions()),
                "_",
                labels(rank, d.kernel_input_feature_dimension(), 'i',
                       d.kernel_output_feature_dimension(), 'o', d.kernel_spatial_dimensions()),
                "->",
                labels(rank, d.output_batch_dimension(), 'b', d.output_feature_dimension(), 'f',
                       d.output_spatial_dimensions()));
}

void AppendPrecisionConfig(const xla::PrecisionConfig& p, std::string& out) {
  bool non_default = false;
  for (int v : p.operand_precision()) non_default |= v != xla::PrecisionConfig::DEFAULT;
  if (non_default) {
    out += ", operand_precision={";
    for (int i = 0; i < p.operand_precision_size(); ++i) {
      if (i) out += ',';
      out += LowerName(xla::PrecisionConfig::Precision_Name(p.operand_precision(i)));
    }
    out += '}';
  }
  if (p.algorithm() != xla::PrecisionConfig::ALG_UNSET) {
    std::string name = LowerName(xla::PrecisionConfig::Algorithm_Name(p.algorithm()));
    if (name.starts_with("alg_")) name.erase(0, 4);
    StrAppend(&out, ", algorithm=", name);
  }
}

void AppendDotDims(const xla::DotDimensionNumbers& d, std::string& out) {
  auto list = [&](std::string_view key, const auto& v) {
    if (v.empty()) return;
    StrAppend(&out, ", ", key, "=");
    AppendIntList(v, out);
  };
  list("lhs_batch_dims", d.lhs_batch_dimensions());
  list("lhs_contracting_dims", d.lhs_contracting_dimensions());
  list("rhs_batch_dims", d.rhs_batch_dimensions());
  list("rhs_contracting_dims", d.rhs_contracting_dimensions());
}

void AppendOutputOperandAliasing(const HloInstructionProto& instr, std::string& out) {
  if (instr.output_operand_aliasing_size() == 0) return;
  out += ", output_to_operand_aliasing={";
  for (int i = 0; i < instr.output_operand_aliasing_size(); ++i) {
    const xla::OutputOperandAliasing& a = instr.output_operand_aliasing(i);
    if (i) out += ", ";
    AppendIntList(a.output_shape_index(), out);
    StrAppend(&out, ": (", a.operand_index(), ", ");
    AppendIntList(a.operand_shape_index(), out);
    out += ')';
  }
  out += '}';
}

// An in-place collective-permute's `slice_sizes={{...}, ...}`: XLA's proto keeps the lists
// flattened in dynamic_slice_sizes, each as long as the rank of the buffer it slices (the
// input's, or each tuple element's in turn).
void AppendPermuteSliceSizes(const HloInstructionProto& instr, const HloInstructionProto& input,
                             std::string& out) {
  std::vector<int> ranks;
  if (input.shape().element_type() == xla::TUPLE) {
    for (const xla::ShapeProto& e : input.shape().tuple_shapes())
      ranks.push_back(e.dimensions_size());
  } else {
    ranks.push_back(input.shape().dimensions_size());
  }
  const int total = instr.dynamic_slice_sizes_size();
  int per_list_sum = 0;
  for (int r : ranks) per_list_sum += r;
  // With tuple start indices each buffer has several lists; they follow buffer by buffer.
  const int lists_per_buffer =
      per_list_sum > 0 && total % per_list_sum == 0 ? total / per_list_sum : 1;
  out += ", slice_sizes={";
  int pos = 0;
  bool first = true;
  for (size_t b = 0; b < ranks.size() && pos < total; ++b) {
    for (int l = 0; l < lists_per_buffer && pos < total; ++l) {
      if (!first) out += ", ";
      first = false;
      out += '{';
      for (int k = 0; k < ranks[b] && pos < total; ++k, ++pos) {
        if (k) out += ',';
        StrAppend(&out, instr.dynamic_slice_sizes(pos));
      }
      out += '}';
    }
  }
  // Whatever the shapes did not account for is still shown, never dropped.
  for (; pos < total; ++pos) {
    StrAppend(&out, first ? "" : ", ", "{", instr.dynamic_slice_sizes(pos), "}");
    first = false;
  }
  out += '}';
}

// `origin={...}`: the original value, over the instruction's shape: a tuple as `(a, b)`, a
// leaf as `{"name"}` or `{"name" {i,j}}`, a leaf with no original value as `{}`.
void AppendOriginalLeaves(const xla::OriginalValueProto& v, const xla::ShapeProto& shape,
                          std::vector<int64_t>& index, std::string& out) {
  if (shape.element_type() == xla::TUPLE) {
    out += '(';
    for (int i = 0; i < shape.tuple_shapes_size(); ++i) {
      if (i) out += ", ";
      index.push_back(i);
      AppendOriginalLeaves(v, shape.tuple_shapes(i), index, out);
      index.pop_back();
    }
    out += ')';
    return;
  }
  out += '{';
  for (const xla::OriginalValueElementProto& e : v.elements()) {
    if (!std::equal(e.shape_index().begin(), e.shape_index().end(), index.begin(), index.end())) {
      continue;
    }
    AppendQuoted(e.original_array().instruction_name(), out);
    if (e.original_array().shape_index_size() > 0) {
      out += ' ';
      AppendIntList(e.original_array().shape_index(), out);
    }
    break;
  }
  out += '}';
}

// Whether every element's index is a leaf of `shape`.
bool OriginFitsShape(const xla::OriginalValueProto& v, const xla::ShapeProto& shape) {
  for (const xla::OriginalValueElementProto& e : v.elements()) {
    const xla::ShapeProto* s = &shape;
    for (int64_t i : e.shape_index()) {
      if (s->element_type() != xla::TUPLE || i < 0 || i >= s->tuple_shapes_size()) return false;
      s = &s->tuple_shapes(static_cast<int>(i));
    }
    if (s->element_type() == xla::TUPLE) return false;
  }
  return true;
}

// The tuple structure the elements' indices imply, for an origin that does not fit the
// instruction's shape (XLA's verifier refuses it; the text still shows all of it).
xla::ShapeProto OriginSkeleton(const xla::OriginalValueProto& v) {
  xla::ShapeProto root;
  root.set_element_type(xla::F32);
  for (const xla::OriginalValueElementProto& e : v.elements()) {
    xla::ShapeProto* s = &root;
    for (int64_t i : e.shape_index()) {
      if (i < 0 || i > 1024) break;
      s->set_element_type(xla::TUPLE);
      while (s->tuple_shapes_size() <= i) s->add_tuple_shapes()->set_element_type(xla::F32);
      s = s->mutable_tuple_shapes(static_cast<int>(i));
    }
  }
  return root;
}

void AppendOriginalValue(const HloInstructionProto& instr, std::string& out) {
  out += ", origin={";
  std::vector<int64_t> index;
  if (OriginFitsShape(instr.original_value(), instr.shape())) {
    AppendOriginalLeaves(instr.original_value(), instr.shape(), index, out);
  } else {
    AppendOriginalLeaves(instr.original_value(), OriginSkeleton(instr.original_value()), index,
                         out);
  }
  out += '}';
}

// `domain={kind="sharding", entry={...}, exit={...}}`: the shardings on either side of a domain
// (`{}` for a side without one).
void AppendDomain(const HloInstructionProto& instr, std::string& out) {
  if (!instr.has_domain_entry_sharding() && !instr.has_domain_exit_sharding()) return;
  out += ", domain={kind=\"sharding\", entry=";
  if (instr.has_domain_entry_sharding()) {
    AppendShardingBody(instr.domain_entry_sharding(), out);
  } else {
    out += "{}";
  }
  out += ", exit=";
  if (instr.has_domain_exit_sharding()) {
    AppendShardingBody(instr.domain_exit_sharding(), out);
  } else {
    out += "{}";
  }
  out += '}';
}

// The comparison type XLA assumes for an element type; `type=` is printed only when another.
std::string_view DefaultComparisonType(xla::PrimitiveType t) {
  switch (t) {
    case xla::F16:
    case xla::F32:
    case xla::F64:
    case xla::BF16:
    case xla::C64:
    case xla::C128:
    case xla::F8E5M2:
    case xla::F8E4M3:
    case xla::F8E4M3FN:
    case xla::F8E4M3B11FNUZ:
    case xla::F8E3M4:
    case xla::F8E5M2FNUZ:
    case xla::F8E4M3FNUZ:
    case xla::F4E2M1FN:
    case xla::F8E8M0FNU:
      return "FLOAT";
    case xla::S1:
    case xla::S2:
    case xla::S4:
    case xla::S8:
    case xla::S16:
    case xla::S32:
    case xla::S64:
      return "SIGNED";
    default:
      return "UNSIGNED";
  }
}

bool IsCollective(std::string_view op) {
  return op == "all-reduce" || op == "all-reduce-start" || op == "all-gather" ||
         op == "all-gather-start" || op == "reduce-scatter" || op == "all-to-all" ||
         op == "ragged-all-to-all" || op == "collective-broadcast";
}

bool TakesToApply(std::string_view op) {
  return op == "call" || op == "map" || op == "reduce-window" || op == "reduce" ||
         op == "all-reduce" || op == "all-reduce-start" || op == "reduce-scatter" ||
         op == "scatter" || op == "sort";
}

// Characters that would end or break a name in HLO text.
// The bytes a name may not hold, as a table: every instruction's name is checked, and 37K
// names of a large module made the chain of comparisons a measurable part of the reading.
constexpr std::array<bool, 256> kNotInName = [] {
  std::array<bool, 256> t{};
  for (int c = 0; c <= ' '; ++c) t[static_cast<size_t>(c)] = true;
  for (char c : std::string_view(",(){}=\":%[]")) t[static_cast<unsigned char>(c)] = true;
  t[0x7f] = true;
  return t;
}();

bool IsValidName(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    if (kNotInName[static_cast<unsigned char>(c)]) return false;
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// The module.

class ModuleTextWriter {
 public:
  ModuleTextWriter(const xla::HloModuleProto& module, const xla::HloModuleConfigProto* config)
      : module_(module), config_(config) {}

  absl::StatusOr<std::string> Run() {
    if (absl::Status s = IndexComputations(); !s.ok()) return s;
    size_t instructions = 0;
    for (const HloComputationProto& c : module_.computations()) {
      instructions += static_cast<size_t>(c.instructions_size());
    }
    out_.reserve(instructions * 160);
    AppendHeader();
    AppendStackFrames();
    FindSugaredAsyncComputations();
    for (const HloComputationProto& comp : module_.computations()) {
      if (sugared_.contains(comp.id())) continue;
      if (absl::Status s = AppendComputation(comp); !s.ok()) return s;
    }
    return std::move(out_);
  }

 private:
  absl::Status IndexComputations() {
    if (module_.computations_size() == 0) {
      return absl::InvalidArgumentError("module has no computations");
    }
    for (int i = 0; i < module_.computations_size(); ++i) {
      const HloComputationProto& c = module_.computations(i);
      if (!IsValidName(c.name())) {
        return absl::InvalidArgumentError(StrCat(
            "computation #", i, " (id ", c.id(), ") has ",
            c.name().empty() ? "no name" : "a name that is no HLO identifier: '" + c.name() + "'"));
      }
      if (!computation_by_id_.emplace(c.id(), &c).second) {
        return absl::InvalidArgumentError(StrCat("computation '", c.name(), "': id ", c.id(),
                                                 " is also computation '",
                                                 computation_by_id_[c.id()]->name(), "''s"));
      }
    }
    // The entry: by id when the proto has one that names a computation, else by name, else the
    // last computation (callers come after callees).
    entry_ = nullptr;
    if (auto it = computation_by_id_.find(module_.entry_computation_id());
        it != computation_by_id_.end() && module_.entry_computation_id() != 0) {
      entry_ = it->second;
    }
    if (entry_ == nullptr && !module_.entry_computation_name().empty()) {
      for (const HloComputationProto& c : module_.computations()) {
        if (c.name() == module_.entry_computation_name()) entry_ = &c;
      }
      if (entry_ == nullptr) {
        return absl::InvalidArgumentError(StrCat("the entry computation '",
                                                 module_.entry_computation_name(),
                                                 "' is no computation of the module"));
      }
    }
    if (entry_ == nullptr) {
      if (module_.entry_computation_id() != 0) {
        return absl::InvalidArgumentError(StrCat("the entry computation id ",
                                                 module_.entry_computation_id(),
                                                 " is no computation of the module"));
      }
      entry_ = &module_.computations(module_.computations_size() - 1);
    }
    return absl::OkStatus();
  }

  // The computations only async ops call whose instructions are parameters and one root on
  // them (XLA's HloComputation::CanExpandIntoSingleInstruction): their async ops print as
  // `X-start` / `X-update` / `X-done` and they are not printed, as XLA prints them by default.
  void FindSugaredAsyncComputations() {
    absl::flat_hash_set<int64_t> async_called;
    absl::flat_hash_set<int64_t> other_called;
    for (const HloComputationProto& c : module_.computations()) {
      for (const HloInstructionProto& i : c.instructions()) {
        const bool is_async = i.opcode() == "async-start" || i.opcode() == "async-update" ||
                              i.opcode() == "async-done";
        for (int64_t id : i.called_computation_ids()) {
          (is_async && i.called_computation_ids_size() == 1 ? async_called : other_called)
              .insert(id);
        }
      }
    }
    for (int64_t id : async_called) {
      auto it = computation_by_id_.find(id);
      if (it == computation_by_id_.end() || other_called.contains(id)) continue;
      const HloComputationProto& c = *it->second;
      if (&c == entry_) continue;
      bool single = false;
      bool parameters_only = true;
      for (const HloInstructionProto& i : c.instructions()) {
        if (i.id() == c.root_id()) {
          single = i.opcode() != "parameter" && i.opcode().rfind("async-", 0) != 0 &&
                   ParseOpcode(i.opcode()).has_value() && IsValidName(i.name());
        } else if (i.opcode() != "parameter") {
          parameters_only = false;
        }
      }
      if (single && parameters_only) sugared_.emplace(id, &c);
    }
  }

  // The sugared computation `instr` (an async op) wraps, or nullptr. An async-update or -done
  // may name it itself or only through the async op it reads.
  const HloComputationProto* SugaredCallee(const HloInstructionProto& instr) {
    for (int depth = 0; depth < 64; ++depth) {
      if (instr.called_computation_ids_size() == 1) {
        auto it = sugared_.find(instr.called_computation_ids(0));
        return it != sugared_.end() ? it->second : nullptr;
      }
      if (instr.called_computation_ids_size() > 1 || instr.opcode() == "async-start" ||
          instr.operand_ids_size() != 1) {
        return nullptr;
      }
      auto it = instr_by_id_.find(instr.operand_ids(0));
      if (it == instr_by_id_.end()) return nullptr;
      const std::string& o = it->second->opcode();
      if (o != "async-start" && o != "async-update") return nullptr;
      return SugaredCallee(*it->second);
    }
    return nullptr;
  }

  void AppendHeader() {
    out_ += "HloModule ";
    out_ += module_.name().empty() ? std::string_view("unnamed") : std::string_view(module_.name());
    if (module_.has_schedule() && !module_.schedule().sequences().empty()) {
      out_ += ", is_scheduled=true";
    }
    if (module_.input_output_alias().entries_size() > 0) {
      out_ += ", input_output_alias={ ";
      for (int i = 0; i < module_.input_output_alias().entries_size(); ++i) {
        const auto& e = module_.input_output_alias().entries(i);
        if (i) out_ += ", ";
        AppendIntList(e.output_shape_index(), out_);
        StrAppend(&out_, ": (", e.parameter_number(), ", ");
        AppendIntList(e.parameter_shape_index(), out_);
        out_ += e.kind() == xla::MUST_ALIAS ? ", must-alias)" : ", may-alias)";
      }
      out_ += " }";
    }
    if (module_.buffer_donor().entries_size() > 0) {
      out_ += ", buffer_donor={ ";
      for (int i = 0; i < module_.buffer_donor().entries_size(); ++i) {
        const auto& e = module_.buffer_donor().entries(i);
        if (i) out_ += ", ";
        StrAppend(&out_, "(", e.parameter_number(), ", ");
        AppendIntList(e.parameter_shape_index(), out_);
        out_ += ')';
      }
      out_ += " }";
    }
    // The entry computation layout: the host program shape when the proto has one, else the
    // entry computation's own signature.
    const xla::ProgramShapeProto* program = nullptr;
    if (module_.has_host_program_shape()) {
      program = &module_.host_program_shape();
    } else if (entry_->has_program_shape()) {
      program = &entry_->program_shape();
    }
    if (program != nullptr) {
      out_ += ", entry_computation_layout={(";
      for (int i = 0; i < program->parameters_size(); ++i) {
        if (i) out_ += ", ";
        AppendShape(program->parameters(i), out_);
      }
      out_ += ")->";
      AppendShape(program->result(), out_);
      out_ += '}';
    }
    if (config_ != nullptr) AppendConfig(*config_);
    if (!module_.frontend_attributes().map().empty()) {
      out_ += ", frontend_attributes=";
      AppendFrontendAttributes(module_.frontend_attributes(), out_);
    }
    out_ += '\n';
  }

  // The header attributes XLA keeps in the module's config, in the order XLA's printer puts
  // them: after the entry layout, before the frontend attributes. A field left at its default
  // (no list, a count of 0) is not printed.
  void AppendConfig(const xla::HloModuleConfigProto& config) {
    auto bools = [&](std::string_view key, const google::protobuf::RepeatedField<bool>& list) {
      if (list.empty()) return;
      StrAppend(&out_, ", ", key, "={");
      for (int i = 0; i < list.size(); ++i) {
        if (i) out_ += ',';
        out_ += list.Get(i) ? "true" : "false";
      }
      out_ += '}';
    };
    bools("allow_spmd_sharding_propagation_to_parameters",
          config.allow_spmd_sharding_propagation_to_parameters());
    bools("allow_spmd_sharding_propagation_to_output",
          config.allow_spmd_sharding_propagation_to_output());
    if (config.replica_count() != 0) StrAppend(&out_, ", replica_count=", config.replica_count());
    if (config.num_partitions() != 0) {
      StrAppend(&out_, ", num_partitions=", config.num_partitions());
    }
  }

  void AppendStackFrames() {
    if (!module_.has_stack_frame_index()) return;
    const xla::StackFrameIndexProto& index = module_.stack_frame_index();
    if (index.file_names_size() == 0 && index.function_names_size() == 0 &&
        index.file_locations_size() == 0 && index.stack_frames_size() == 0) {
      return;
    }
    out_ += "\nFileNames\n";
    for (int i = 0; i < index.file_names_size(); ++i) {
      StrAppend(&out_, i + 1, " ");
      AppendQuoted(index.file_names(i), out_);
      out_ += '\n';
    }
    out_ += "\nFunctionNames\n";
    for (int i = 0; i < index.function_names_size(); ++i) {
      StrAppend(&out_, i + 1, " ");
      AppendQuoted(index.function_names(i), out_);
      out_ += '\n';
    }
    out_ += "\nFileLocations\n";
    for (int i = 0; i < index.file_locations_size(); ++i) {
      const auto& l = index.file_locations(i);
      // As XLA prints them (HloModule's stack-frame printer), end_line and end_column always.
      StrAppend(&out_, i + 1, " {file_name_id=", l.file_name_id(),
                " function_name_id=", l.function_name_id(), " line=", l.line(),
                " end_line=", l.end_line(), " column=", l.column(), " end_column=", l.end_column(),
                "}\n");
    }
    out_ += "\nStackFrames\n";
    for (int i = 0; i < index.stack_frames_size(); ++i) {
      const auto& f = index.stack_frames(i);
      // XLA's text writes the proto's parent_frame_id plus one (a root frame, parent 0 in the
      // proto, reads parent_frame_id=1); the proto writer subtracts it again.
      StrAppend(&out_, i + 1, " {file_location_id=", f.file_location_id(),
                " parent_frame_id=", int64_t{f.parent_frame_id()} + 1, "}\n");
    }
  }

  absl::Status AppendComputation(const HloComputationProto& comp) {
    // A fresh table: clearing the last one would walk all its slots, and a module has
    // thousands of small computations after a few large ones.
    absl::flat_hash_map<int64_t, const HloInstructionProto*>().swap(instr_by_id_);
    instr_by_id_.reserve(static_cast<size_t>(comp.instructions_size()));
    for (int i = 0; i < comp.instructions_size(); ++i) {
      const HloInstructionProto& instr = comp.instructions(i);
      if (!IsValidName(instr.name())) {
        return absl::InvalidArgumentError(StrCat(
            "computation '", comp.name(), "': instruction #", i, " (id ", instr.id(), ") has ",
            instr.name().empty() ? std::string("no name")
                                 : "a name that is no HLO identifier: '" + instr.name() + "'"));
      }
      if (!instr_by_id_.emplace(instr.id(), &instr).second) {
        return absl::InvalidArgumentError(
            StrCat("computation '", comp.name(), "': instruction '", instr.name(), "': id ",
                   instr.id(), " is also instruction '", instr_by_id_[instr.id()]->name(), "''s"));
      }
    }
    // Instruction order: the schedule's sequence for this computation when there is one.
    std::vector<const HloInstructionProto*> order;
    order.reserve(static_cast<size_t>(comp.instructions_size()));
    auto seq = module_.schedule().sequences().find(comp.id());
    if (seq != module_.schedule().sequences().end()) {
      for (int64_t id : seq->second.instruction_ids()) {
        auto it = instr_by_id_.find(id);
        if (it == instr_by_id_.end()) {
          return absl::InvalidArgumentError(StrCat("schedule of computation '", comp.name(),
                                                   "': id ", id,
                                                   " is no instruction of the computation"));
        }
        order.push_back(it->second);
      }
      if (order.size() != static_cast<size_t>(comp.instructions_size())) {
        return absl::InvalidArgumentError(StrCat("schedule of computation '", comp.name(),
                                                 "' lists ", order.size(), " of its ",
                                                 comp.instructions_size(), " instructions"));
      }
    } else {
      for (const HloInstructionProto& instr : comp.instructions()) order.push_back(&instr);
    }
    if (comp.instructions_size() > 0 && !instr_by_id_.contains(comp.root_id())) {
      return absl::InvalidArgumentError(StrCat("computation '", comp.name(), "': root id ",
                                               comp.root_id(), " is no instruction of it"));
    }
    out_ += '\n';
    if (&comp == entry_) out_ += "ENTRY ";
    out_ += comp.name();
    out_ += " {\n";
    for (const HloInstructionProto* instr : order) {
      if (absl::Status s = AppendInstruction(comp, *instr, instr->id() == comp.root_id());
          !s.ok()) {
        return s;
      }
    }
    out_ += '}';
    if (!comp.execution_thread().empty() && comp.execution_thread() != "main") {
      out_ += ", execution_thread=";
      AppendQuoted(comp.execution_thread(), out_);
    }
    out_ += '\n';
    return absl::OkStatus();
  }

  absl::Status Error(const HloComputationProto& comp, const HloInstructionProto& instr,
                     std::string_view message) {
    return absl::InvalidArgumentError(
        StrCat("computation '", comp.name(), "': instruction '", instr.name(), "': ", message));
  }

  // The names of the called computations, in order, or an error naming the dangling id.
  absl::Status CalledNames(const HloComputationProto& comp, const HloInstructionProto& instr,
                           std::vector<std::string_view>& names) {
    for (int64_t id : instr.called_computation_ids()) {
      auto it = computation_by_id_.find(id);
      if (it == computation_by_id_.end()) {
        return Error(comp, instr,
                     StrCat("called computation id ", id, " is no computation of the module"));
      }
      names.push_back(it->second->name());
    }
    return absl::OkStatus();
  }

  absl::Status AppendInstruction(const HloComputationProto& comp, const HloInstructionProto& instr,
                                 bool is_root) {
    const std::string_view op = instr.opcode();
    if (!ParseOpcode(op).has_value()) {
      return Error(comp, instr, StrCat("unknown opcode '", op, "'"));
    }
    if (std::string problem = ShapeProblem(instr.shape()); !problem.empty()) {
      return Error(comp, instr, problem);
    }
    out_ += "  ";
    if (is_root) out_ += "ROOT ";
    out_ += instr.name();
    out_ += " = ";
    AppendShape(instr.shape(), out_);
    out_ += ' ';
    // An async op around a computation that is one instruction on its parameters is printed
    // as XLA prints it by default: `reduce-scatter-start(...)` with the wrapped op's attributes,
    // and the computation itself left out.
    const HloComputationProto* wrapped = nullptr;
    if (op == "async-start" || op == "async-update" || op == "async-done") {
      wrapped = SugaredCallee(instr);
    }
    const HloInstructionProto* wrapped_root = nullptr;
    if (wrapped != nullptr) {
      for (const HloInstructionProto& i : wrapped->instructions()) {
        if (i.id() == wrapped->root_id()) wrapped_root = &i;
      }
      out_ += wrapped_root->opcode();
      out_ += op.substr(std::string_view("async").size());
    } else {
      out_ += op;
    }
    out_ += '(';
    std::vector<const HloInstructionProto*> operands;
    operands.reserve(static_cast<size_t>(instr.operand_ids_size()));
    if (op == "parameter") {
      StrAppend(&out_, instr.parameter_number());
    } else if (op == "constant") {
      if (!instr.has_literal()) return Error(comp, instr, "constant has no literal");
      if (absl::Status s = AppendLiteralText(instr.literal(), instr.shape(), out_); !s.ok()) {
        return Error(comp, instr, StatusText(s));
      }
    } else {
      for (int i = 0; i < instr.operand_ids_size(); ++i) {
        auto it = instr_by_id_.find(instr.operand_ids(i));
        if (it == instr_by_id_.end()) {
          return Error(comp, instr,
                       StrCat("operand ", i, " is id ", instr.operand_ids(i),
                              ", which is no instruction of the computation"));
        }
        if (i) out_ += ", ";
        out_ += it->second->name();
        operands.push_back(it->second);
      }
    }
    out_ += ')';
    if (absl::Status s = AppendOpcodeAttributes(comp, instr, operands); !s.ok()) return s;
    if (wrapped != nullptr && op == "async-start") {
      // The wrapped op's own attributes, its operands being the computation's parameters.
      std::vector<const HloInstructionProto*> wrapped_operands;
      for (int64_t id : wrapped_root->operand_ids()) {
        for (const HloInstructionProto& i : wrapped->instructions()) {
          if (i.id() == id) wrapped_operands.push_back(&i);
        }
      }
      if (absl::Status s = AppendOpcodeAttributes(*wrapped, *wrapped_root, wrapped_operands);
          !s.ok()) {
        return s;
      }
      if (absl::Status s = AppendCalledComputations(*wrapped, *wrapped_root, wrapped_operands);
          !s.ok()) {
        return s;
      }
    }
    if (absl::Status s = AppendCommonAttributes(comp, instr, operands, wrapped == nullptr);
        !s.ok()) {
      return s;
    }
    out_ += '\n';
    return absl::OkStatus();
  }

  // What only some opcodes print, in the order XLA's printer writes it.
  absl::Status AppendOpcodeAttributes(const HloComputationProto& comp,
                                      const HloInstructionProto& instr,
                                      const std::vector<const HloInstructionProto*>& operands) {
    const std::string_view op = instr.opcode();
    std::string& out = out_;
    auto dims = [&](std::string_view key) {
      StrAppend(&out, ", ", key, "=");
      AppendIntList(instr.dimensions(), out);
    };
    // An async op's thread comes first, before everything of the op it wraps.
    if (!instr.async_execution_thread().empty() && instr.async_execution_thread() != "main" &&
        (op == "async-start" || op == "async-update" || op == "async-done")) {
      out += ", async_execution_thread=";
      AppendQuoted(instr.async_execution_thread(), out);
    }
    if (op == "parameter" && instr.has_parameter_replication()) {
      out += ", parameter_replication={";
      const auto& r = instr.parameter_replication().replicated_at_leaf_buffers();
      for (int i = 0; i < r.size(); ++i) {
        if (i) out += ',';
        out += r[i] ? "true" : "false";
      }
      out += '}';
    } else if (op == "get-tuple-element") {
      StrAppend(&out, ", index=", instr.tuple_index());
    } else if (op == "broadcast" || op == "transpose" || op == "reduce" || op == "reverse" ||
               op == "concatenate" || op == "map") {
      if (op != "map" || instr.dimensions_size() > 0) dims("dimensions");
    } else if (op == "set-dimension-size" || op == "get-dimension-size") {
      dims("dimensions");
    } else if (op == "domain") {
      AppendDomain(instr, out);
    } else if (op == "sort") {
      dims("dimensions");
      if (instr.is_stable()) out += ", is_stable=true";
    } else if (op == "iota") {
      StrAppend(&out, ", iota_dimension=", instr.dimensions_size() > 0 ? instr.dimensions(0) : 0);
    } else if (op == "topk") {
      StrAppend(&out, ", k=", instr.k(), ", largest=", instr.largest() ? "true" : "false");
    } else if (op == "slice") {
      out += ", slice={";
      for (int i = 0; i < instr.slice_dimensions_size(); ++i) {
        const auto& s = instr.slice_dimensions(i);
        if (i) out += ", ";
        StrAppend(&out, "[", s.start(), ":", s.limit());
        if (s.stride() != 1) StrAppend(&out, ":", s.stride());
        out += ']';
      }
      out += '}';
    } else if (op == "dynamic-slice") {
      out += ", dynamic_slice_sizes=";
      AppendIntList(instr.dynamic_slice_sizes(), out);
    } else if (op == "pad") {
      bool interior = false;
      for (const auto& d : instr.padding_config().dimensions()) {
        interior |= d.interior_padding() != 0;
      }
      out += ", padding=";
      for (int i = 0; i < instr.padding_config().dimensions_size(); ++i) {
        const auto& d = instr.padding_config().dimensions(i);
        if (i) out += 'x';
        StrAppend(&out, d.edge_padding_low(), "_", d.edge_padding_high());
        if (interior) StrAppend(&out, "_", d.interior_padding());
      }
    } else if (op == "fusion") {
      StrAppend(&out, ", kind=", instr.fusion_kind());
    } else if (op == "compare") {
      StrAppend(&out, ", direction=", instr.comparison_direction());
      if (!instr.comparison_type().empty() && !operands.empty() &&
          instr.comparison_type() != DefaultComparisonType(operands[0]->shape().element_type())) {
        StrAppend(&out, ", type=", instr.comparison_type());
      }
    } else if (op == "dot" || op == "ragged-dot" || op == "scaled-dot") {
      const xla::DotDimensionNumbers& d =
          op != "ragged-dot" ? instr.dot_dimension_numbers()
                             : instr.ragged_dot_dimension_numbers().dot_dimension_numbers();
      AppendDotDims(d, out);
      if (op == "ragged-dot") {
        const auto& r = instr.ragged_dot_dimension_numbers();
        out += ", lhs_ragged_dims=";
        AppendIntList(r.lhs_ragged_dimensions(), out);
        if (r.rhs_group_dimensions_size() > 0) {
          out += ", rhs_group_dims=";
          AppendIntList(r.rhs_group_dimensions(), out);
        }
      }
      AppendPrecisionConfig(instr.precision_config(), out);
      if (instr.dot_sparsity_size() > 0) {
        out += ", sparsity=";
        for (int i = 0; i < instr.dot_sparsity_size(); ++i) {
          const auto& s = instr.dot_sparsity(i);
          if (i) out += '_';
          StrAppend(&out, s.index() == 0 ? "L." : "R.", s.dimension(), "@", s.n(), ":", s.m());
        }
      }
    } else if (op == "convolution") {
      // XLA's printer leaves out a window of no dimensions on these opcodes (a custom-call
      // that has a window prints it, `{}` included).
      if (instr.window().dimensions_size() > 0) {
        out += ", window=";
        AppendWindow(instr.window(), out);
      }
      StrAppend(&out, ", dim_labels=", DimLabels(instr.convolution_dimension_numbers()));
      if (instr.feature_group_count() > 1) {
        StrAppend(&out, ", feature_group_count=", instr.feature_group_count());
      }
      if (instr.batch_group_count() > 1) {
        StrAppend(&out, ", batch_group_count=", instr.batch_group_count());
      }
      AppendPrecisionConfig(instr.precision_config(), out);
    } else if (op == "reduce-window" || op == "select-and-scatter") {
      if (instr.window().dimensions_size() > 0) {
        out += ", window=";
        AppendWindow(instr.window(), out);
      }
    } else if (op == "gather") {
      const auto& g = instr.gather_dimension_numbers();
      out += ", offset_dims=";
      AppendIntList(g.offset_dims(), out);
      out += ", collapsed_slice_dims=";
      AppendIntList(g.collapsed_slice_dims(), out);
      out += ", start_index_map=";
      AppendIntList(g.start_index_map(), out);
      if (g.operand_batching_dims_size() > 0 || g.start_indices_batching_dims_size() > 0) {
        out += ", operand_batching_dims=";
        AppendIntList(g.operand_batching_dims(), out);
        out += ", start_indices_batching_dims=";
        AppendIntList(g.start_indices_batching_dims(), out);
      }
      StrAppend(&out, ", index_vector_dim=", g.index_vector_dim(), ", slice_sizes=");
      AppendIntList(instr.gather_slice_sizes(), out);
      if (instr.indices_are_sorted()) out += ", indices_are_sorted=true";
    } else if (op == "scatter") {
      const auto& s = instr.scatter_dimension_numbers();
      out += ", update_window_dims=";
      AppendIntList(s.update_window_dims(), out);
      out += ", inserted_window_dims=";
      AppendIntList(s.inserted_window_dims(), out);
      out += ", scatter_dims_to_operand_dims=";
      AppendIntList(s.scatter_dims_to_operand_dims(), out);
      if (s.input_batching_dims_size() > 0 || s.scatter_indices_batching_dims_size() > 0) {
        out += ", input_batching_dims=";
        AppendIntList(s.input_batching_dims(), out);
        out += ", scatter_indices_batching_dims=";
        AppendIntList(s.scatter_indices_batching_dims(), out);
      }
      StrAppend(&out, ", index_vector_dim=", s.index_vector_dim());
      if (instr.indices_are_sorted()) out += ", indices_are_sorted=true";
      if (instr.unique_indices()) out += ", unique_indices=true";
    } else if (op == "custom-call") {
      if (instr.has_window()) {
        out += ", window=";
        AppendWindow(instr.window(), out);
      }
      if (instr.has_convolution_dimension_numbers()) {
        StrAppend(&out, ", dim_labels=", DimLabels(instr.convolution_dimension_numbers()));
      }
      if (instr.feature_group_count() > 1) {
        StrAppend(&out, ", feature_group_count=", instr.feature_group_count());
      }
      if (instr.batch_group_count() > 1) {
        StrAppend(&out, ", batch_group_count=", instr.batch_group_count());
      }
      AppendPrecisionConfig(instr.precision_config(), out);
      if (instr.padding_type() != xla::PADDING_INVALID) {
        StrAppend(&out, ", padding_type=", xla::PaddingType_Name(instr.padding_type()));
      }
      out += ", custom_call_target=";
      AppendQuoted(instr.custom_call_target(), out);
      if (instr.constrain_layout()) {
        out += ", operand_layout_constraints={";
        for (int i = 0; i < instr.operand_shapes_with_layout_size(); ++i) {
          if (i) out += ", ";
          AppendShape(instr.operand_shapes_with_layout(i), out);
        }
        out += '}';
      }
      if (instr.custom_call_has_side_effect()) out += ", custom_call_has_side_effect=true";
      AppendOutputOperandAliasing(instr, out);
      if (instr.has_literal()) {
        out += ", literal=";
        if (absl::Status s = AppendLiteralText(
                instr.literal(),
                instr.literal().has_shape() ? instr.literal().shape() : instr.shape(), out);
            !s.ok()) {
          return Error(comp, instr, StatusText(s));
        }
      }
      if (instr.custom_call_schedule() != xla::SCHEDULE_NONE) {
        StrAppend(&out, ", schedule=", xla::CustomCallSchedule_Name(instr.custom_call_schedule()));
      }
      // XLA prints every version but ORIGINAL, API_VERSION_UNSPECIFIED (the proto's 0) too.
      if (instr.custom_call_api_version() != xla::API_VERSION_ORIGINAL) {
        StrAppend(&out, ", api_version=",
                  xla::CustomCallApiVersion_Name(instr.custom_call_api_version()));
      }
    } else if (op == "reduce-precision") {
      StrAppend(&out, ", exponent_bits=", instr.exponent_bits(),
                ", mantissa_bits=", instr.mantissa_bits());
    } else if (op == "batch-norm-training" || op == "batch-norm-inference" ||
               op == "batch-norm-grad") {
      out += ", epsilon=";
      char buf[32];
      auto r = std::to_chars(buf, buf + sizeof buf, instr.epsilon());
      out.append(buf, static_cast<size_t>(r.ptr - buf));
      StrAppend(&out, ", feature_index=", instr.feature_index());
    } else if (op == "rng") {
      StrAppend(&out,
                ", distribution=", LowerName(xla::RandomDistribution_Name(instr.distribution())));
    } else if (op == "rng-bit-generator") {
      StrAppend(&out, ", algorithm=", LowerName(xla::RandomAlgorithm_Name(instr.rng_algorithm())));
    } else if (op == "rng-get-and-update-state") {
      StrAppend(&out, ", delta=", instr.delta());
    } else if (op == "fft") {
      StrAppend(&out, ", fft_type=", xla::FftType_Name(instr.fft_type()), ", fft_length=");
      AppendIntList(instr.fft_length(), out);
    } else if (op == "triangular-solve") {
      const auto& o = instr.triangular_solve_options();
      if (o.left_side()) out += ", left_side=true";
      if (o.lower()) out += ", lower=true";
      if (o.unit_diagonal()) out += ", unit_diagonal=true";
      StrAppend(&out,
                ", transpose_a=", xla::TriangularSolveOptions::Transpose_Name(o.transpose_a()));
    } else if (op == "cholesky") {
      if (instr.cholesky_options().lower()) out += ", lower=true";
    } else if (op == "infeed") {
      if (!instr.infeed_config().empty()) {
        out += ", infeed_config=";
        AppendQuoted(instr.infeed_config(), out);
      }
    } else if (op == "outfeed") {
      if (instr.has_outfeed_shape()) {
        out += ", outfeed_shape=";
        AppendShape(instr.outfeed_shape(), out);
      }
      if (!instr.outfeed_config().empty()) {
        out += ", outfeed_config=";
        AppendQuoted(instr.outfeed_config(), out);
      }
    } else if (op == "copy-start") {
      if (instr.has_cross_program_prefetch_index()) {
        StrAppend(&out, ", cross_program_prefetch_index=", instr.cross_program_prefetch_index());
      }
    }
    // Channels, replica groups and collective flags.
    const bool is_send_recv =
        op == "send" || op == "recv" || op == "send-done" || op == "recv-done";
    const bool is_permute = op == "collective-permute" || op == "collective-permute-start";
    if (IsCollective(op) || is_send_recv || is_permute) {
      // A send or recv always has a channel (XLA reads its channel_id as is, 0 included); a
      // collective's 0 is none.
      if (instr.channel_id() > 0 || is_send_recv) {
        StrAppend(&out, ", channel_id=", instr.channel_id());
      }
    }
    if (IsCollective(op)) {
      out += ", replica_groups=";
      AppendReplicaGroups(instr, out);
      if (instr.constrain_layout()) out += ", constrain_layout=true";
      // The gathered or scattered dimension (all-to-all's split dimension, when it has one).
      if (op == "all-gather" || op == "all-gather-start" || op == "reduce-scatter" ||
          instr.dimensions_size() > 0) {
        dims("dimensions");
      }
      if (instr.use_global_device_ids()) out += ", use_global_device_ids=true";
    }
    if (is_permute) {
      out += ", source_target_pairs={";
      for (int i = 0; i < instr.source_target_pairs_size(); ++i) {
        if (i) out += ',';
        StrAppend(&out, "{", instr.source_target_pairs(i).source(), ",",
                  instr.source_target_pairs(i).target(), "}");
      }
      out += '}';
      if (instr.dynamic_slice_sizes_size() > 0 && !operands.empty()) {
        AppendPermuteSliceSizes(instr, *operands[0], out);
      }
    }
    if (is_send_recv && instr.is_host_transfer()) out += ", is_host_transfer=true";
    if (op == "fusion") AppendOutputOperandAliasing(instr, out);
    return absl::OkStatus();
  }

  // The called computations, by role (`condition=`, `to_apply=`, `calls=`, ...).
  absl::Status AppendCalledComputations(const HloComputationProto& comp,
                                        const HloInstructionProto& instr,
                                        const std::vector<const HloInstructionProto*>& operands) {
    const std::string_view op = instr.opcode();
    std::string& out = out_;
    std::vector<std::string_view> called;
    if (absl::Status s = CalledNames(comp, instr, called); !s.ok()) return s;
    if (!called.empty()) {
      auto need = [&](size_t n) -> absl::Status {
        if (called.size() == n) return absl::OkStatus();
        return Error(comp, instr, StrCat(op, " calls ", called.size(), " computations, not ", n));
      };
      if (op == "while") {
        // XLA keeps the body first and the condition second.
        if (absl::Status s = need(2); !s.ok()) return s;
        StrAppend(&out, ", condition=", called[1], ", body=", called[0]);
      } else if (op == "select-and-scatter") {
        if (absl::Status s = need(2); !s.ok()) return s;
        StrAppend(&out, ", select=", called[0], ", scatter=", called[1]);
      } else if (op == "conditional") {
        // A predicate picks true/false; an index picks among the branches.
        const bool by_predicate =
            !operands.empty() && operands[0]->shape().element_type() == xla::PRED;
        if (by_predicate && called.size() == 2) {
          StrAppend(&out, ", true_computation=", called[0], ", false_computation=", called[1]);
        } else {
          StrAppend(&out, ", branch_computations={", StrJoin(called, ", "), "}");
        }
      } else if (TakesToApply(op) && called.size() == 1) {
        StrAppend(&out, ", to_apply=", called[0]);
      } else if (op == "custom-call") {
        StrAppend(&out, ", called_computations={", StrJoin(called, ", "), "}");
      } else if (called.size() == 1) {
        StrAppend(&out, ", calls=", called[0]);
      } else {
        StrAppend(&out, ", calls={", StrJoin(called, ", "), "}");
      }
    }
    return absl::OkStatus();
  }

  // Called computations, sharding, frontend attributes, control predecessors, metadata,
  // backend_config: what any instruction may carry.
  absl::Status AppendCommonAttributes(const HloComputationProto& comp,
                                      const HloInstructionProto& instr,
                                      const std::vector<const HloInstructionProto*>& operands,
                                      bool print_called) {
    const std::string_view op = instr.opcode();
    std::string& out = out_;
    // An async-start's own aliasing (of its output to its operands): before `calls=`, or after
    // the attributes of the op it wraps in the short form.
    if (op == "async-start") AppendOutputOperandAliasing(instr, out);
    if (print_called) {
      if (absl::Status s = AppendCalledComputations(comp, instr, operands); !s.ok()) return s;
    }
    if (op == "call" && instr.is_composite()) out += ", is_composite=true";
    if (instr.has_sharding()) {
      out += ", sharding=";
      AppendShardingBody(instr.sharding(), out);
    }
    if (!instr.frontend_attributes().map().empty()) {
      out += ", frontend_attributes=";
      AppendFrontendAttributes(instr.frontend_attributes(), out);
    }
    if (instr.control_predecessor_ids_size() > 0) {
      out += ", control-predecessors={";
      for (int i = 0; i < instr.control_predecessor_ids_size(); ++i) {
        auto it = instr_by_id_.find(instr.control_predecessor_ids(i));
        if (it == instr_by_id_.end()) {
          return Error(
              comp, instr,
              StrCat("control predecessor ", i, " is id ", instr.control_predecessor_ids(i),
                     ", which is no instruction of the computation"));
        }
        if (i) out += ", ";
        out += it->second->name();
      }
      out += '}';
    }
    if (instr.has_result_accuracy()) {
      const xla::ResultAccuracy& a = instr.result_accuracy();
      if (a.has_tolerance()) {
        StrAppend(&out, ", result_accuracy={tolerance={atol=");
        char buf[64];
        auto r = std::to_chars(buf, buf + sizeof buf, a.tolerance().atol());
        out.append(buf, static_cast<size_t>(r.ptr - buf));
        out += " rtol=";
        r = std::to_chars(buf, buf + sizeof buf, a.tolerance().rtol());
        out.append(buf, static_cast<size_t>(r.ptr - buf));
        StrAppend(&out, " ulps=", a.tolerance().ulps(), "}}");
      } else if (a.mode() != xla::ResultAccuracy::DEFAULT) {
        StrAppend(&out,
                  ", result_accuracy={mode=", LowerName(xla::ResultAccuracy::Mode_Name(a.mode())),
                  "}");
      }
    }
    if (instr.has_original_value()) AppendOriginalValue(instr, out);
    if (instr.has_metadata() && HasMetadata(instr.metadata())) {
      out += ", metadata={";
      AppendMetadataBody(instr.metadata(), out);
      out += '}';
    }
    if (!instr.backend_config().empty()) {
      out += ", backend_config=";
      // A JSON object reads back without quotes, as XLA prints it; anything else is a string.
      const std::string_view config = instr.backend_config();
      if (config.front() == '{' && config.back() == '}') {
        out += config;
      } else {
        AppendQuoted(config, out);
      }
    }
    return absl::OkStatus();
  }

  const xla::HloModuleProto& module_;
  const xla::HloModuleConfigProto* config_ = nullptr;  // HloModuleProtoWithConfig's, if any
  const HloComputationProto* entry_ = nullptr;
  absl::flat_hash_map<int64_t, const HloComputationProto*> computation_by_id_;
  absl::flat_hash_map<int64_t, const HloInstructionProto*> instr_by_id_;
  absl::flat_hash_map<int64_t, const HloComputationProto*> sugared_;
  std::string out_;
};

}  // namespace

absl::StatusOr<std::string> HloModuleProtoToText(const xla::HloModuleProto& module,
                                                 const xla::HloModuleConfigProto* config) {
  return ModuleTextWriter(module, config).Run();
}

}  // namespace hloscope
