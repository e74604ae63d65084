#include "analysis/memory/buffer_sizes.h"

#include <algorithm>
#include <limits>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "analysis/memory/host_placement.h"
#include "fmt/format.h"
#include "support/option_error.h"

namespace hloscope::memory_profile_internal {
namespace {

// The extents an array is sized at: dynamic dimensions at `dim_value` (capped by their bound)
// or at the bound; an unbounded one without `dim_value` is 0, and noted.
absl::InlinedVector<int64_t, 6> SizedExtents(const Shape& shape,
                                             const std::optional<int64_t>& dim_value,
                                             SizeNotes* notes) {
  absl::InlinedVector<int64_t, 6> extents(shape.dims.begin(), shape.dims.end());
  if (shape.IsDynamic()) notes->dynamic = true;
  for (int64_t dim = 0; dim < shape.rank(); ++dim) {
    if (!shape.dynamic[dim]) continue;
    if (extents[dim] == Shape::kUnboundedSize) {
      if (!dim_value) notes->unbounded = true;
      extents[dim] = dim_value.value_or(0);
    } else if (dim_value) {
      extents[dim] = std::min(extents[dim], *dim_value);
    }
  }
  return extents;
}

// The dimensions in physical order, minor first: the layout's minor_to_major (default: the
// last dimension first).
absl::InlinedVector<int64_t, 6> MinorToMajor(const Shape& shape) {
  absl::InlinedVector<int64_t, 6> order(shape.layout.minor_to_major.begin(),
                                        shape.layout.minor_to_major.end());
  if (static_cast<int64_t>(order.size()) != shape.rank()) {
    order.clear();
    for (int64_t dim = shape.rank() - 1; dim >= 0; --dim) order.push_back(dim);
  }
  return order;
}

bool HasTiledLayout(const Shape& shape) {
  return !shape.layout.tiles.empty() || shape.layout.tail_padding_alignment > 1;
}

}  // namespace

int64_t ArrayBytes(const Shape& shape, const std::optional<int64_t>& dim_value, SizeNotes* notes) {
  if (!shape.IsArray()) return 0;
  const bool tiled = HasTiledLayout(shape);
  if (!shape.IsDynamic() && !tiled) return shape.ByteSize();
  constexpr __int128 kMax = std::numeric_limits<int64_t>::max();
  const absl::InlinedVector<int64_t, 6> extents = SizedExtents(shape, dim_value, notes);
  __int128 elements = 1;
  auto times = [&](int64_t extent) {
    elements = std::min<__int128>(elements * std::max<int64_t>(extent, 0), kMax);
  };
  auto round_up = [](int64_t value, int64_t to) {
    return to <= 1 || to == Tile::kTileCombine ? value : (value + to - 1) / to * to;
  };
  if (shape.layout.tiles.empty()) {
    for (int64_t extent : extents) times(extent);
  } else {
    const absl::InlinedVector<int64_t, 6> minor_to_major = MinorToMajor(shape);
    const auto& tile = shape.layout.tiles.front().dims;
    const int64_t tile_rank = static_cast<int64_t>(tile.size());
    int64_t physical = 0;  // index into minor_to_major
    for (; physical < tile_rank; ++physical) {
      const int64_t extent = physical < shape.rank() ? extents[minor_to_major[physical]] : 1;
      times(round_up(extent, tile[tile_rank - physical - 1]));
    }
    for (; physical < shape.rank(); ++physical) times(extents[minor_to_major[physical]]);
  }
  if (shape.layout.tail_padding_alignment > 1) {
    const __int128 alignment = shape.layout.tail_padding_alignment;
    elements = std::min<__int128>((elements + alignment - 1) / alignment * alignment, kMax);
  }
  const int64_t bits = shape.layout.element_size_bits != 0
                           ? shape.layout.element_size_bits
                           : GetPrimitiveTypeInfo(shape.element_type).bits;
  return static_cast<int64_t>(std::min<__int128>((elements * bits + 7) / 8, kMax));
}

absl::Status SizeBuffers(const Module& module, const AliasAnalysis& alias,
                         const MemoryOptions& options, ModuleProfile& profile, SizeNotes& notes) {
  const DataflowAnalysis& flow = alias.dataflow();
  const size_t buffer_count = alias.buffers().size();
  profile.buffer_bytes.assign(buffer_count, 0);
  profile.buffer_space.assign(buffer_count, 0);
  profile.unpadded_bytes.assign(buffer_count, 0);
  // Shapes are interned, and a module has few distinct ones: each is sized once.
  struct ValueSizes {
    int64_t bytes = 0;
    int64_t unpadded = 0;
    int64_t space = 0;
  };
  absl::flat_hash_map<const Shape*, ValueSizes> sized;
  auto sizes_of = [&](const Shape& shape) {
    auto [it, inserted] = sized.try_emplace(&shape);
    if (!inserted) return it->second;
    ValueSizes& sizes = it->second;
    const int64_t tuple_table_bytes =
        options.count_tuple_tables ? 8 * static_cast<int64_t>(shape.tuple_elements.size()) : 0;
    sizes.bytes =
        shape.IsTuple() ? tuple_table_bytes : ArrayBytes(shape, options.dim_value, &notes);
    sizes.unpadded = sizes.bytes;
    if (shape.IsArray() && HasTiledLayout(shape)) {
      Shape untiled = shape;
      untiled.layout.tiles.clear();
      untiled.layout.tail_padding_alignment = 1;
      sizes.unpadded = ArrayBytes(untiled, options.dim_value, &notes);
    }
    if (shape.IsArray()) sizes.space = shape.layout.memory_space;
    return sizes;
  };
  for (const HloBuffer& buffer : alias.buffers()) {
    int64_t bytes = 0;
    int64_t unpadded = 0;  // the same without tile padding, for the HTML page to say both
    int64_t space = 0;     // S(n) of its arrays (the largest when they differ)
    for (ValueId value_id : buffer.values) {
      const Shape& shape = *flow.value(value_id).shape;
      const ValueSizes sizes = sizes_of(shape);
      if (notes.unbounded) {
        const HloValue& value = flow.value(value_id);
        return InvalidOptionError(
            fmt::format("module '{}': the peak cannot be determined: {} ({}) has an unbounded "
                        "dynamic dimension; size it with ",
                        module.name(), value.instruction->name(), shape.ToString()),
            "dim_value", "=N");
      }
      bytes = std::max(bytes, sizes.bytes);
      unpadded = std::max(unpadded, sizes.unpadded);
      space = std::max(space, sizes.space);
    }
    profile.buffer_bytes[buffer.id] = bytes;
    profile.unpadded_bytes[buffer.id] = unpadded;
    profile.buffer_space[buffer.id] = space;
  }
  // Values a before-offloading module places on the host are host memory as S(5) is.
  const std::vector<bool> on_host = HostOffloadedBuffers(alias);
  for (size_t buffer = 0; buffer < buffer_count; ++buffer) {
    if (on_host[buffer] && profile.buffer_space[buffer] == 0) {
      profile.buffer_space[buffer] = kHostMemorySpace;
    }
  }
  return absl::OkStatus();
}

}  // namespace hloscope::memory_profile_internal
