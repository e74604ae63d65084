// Bytes of buffers as XLA sizes them, for the memory profiler (memory_profile.cc): dynamic
// dimensions, tiled layouts and their padding, sub-byte element widths, and the memory space
// (device or host) each buffer lives in. Private to analysis/memory.
#pragma once

#include <cstdint>
#include <optional>

#include "absl/status/status.h"
#include "analysis/alias.h"
#include "analysis/memory/module_profile_internal.h"
#include "hlo/shape.h"

namespace hloscope::memory_profile_internal {

// What sizing the buffers found out about the shapes.
struct SizeNotes {
  bool dynamic = false;    // some array had a dynamic dimension
  bool unbounded = false;  // ... an unbounded one (`?`) sized without a dim_value
};

// Bytes of an array as XLA sizes it: dynamic dimensions evaluated at `dim_value` (capped by
// the bound), or at the bound when there is none; with a tiled layout, the physical
// dimensions the first tile covers (the minor-most ones, the tile's last dimension on the
// most minor) rounded up to the tile, the rest as they are (later tiles add no padding);
// then the tail padding L(n) in elements and the element width (E(n) when given). An
// unbounded dimension without `dim_value` has no size: it is noted, and counts 0. A size past
// int64 saturates (the caller's sums notice it).
int64_t ArrayBytes(const Shape& shape, const std::optional<int64_t>& dim_value, SizeNotes* notes);

// Fills `profile`'s buffer_bytes, unpadded_bytes and buffer_space for every buffer of `alias`
// (host-offloaded values, host_placement.h, in the host's space). A buffer with an unbounded
// dynamic dimension and no dim_value is an error: a peak that left it out would be a wrong
// number printed as success.
absl::Status SizeBuffers(const Module& module, const AliasAnalysis& alias,
                         const MemoryOptions& options, ModuleProfile& profile, SizeNotes& notes);

}  // namespace hloscope::memory_profile_internal
