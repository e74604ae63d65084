// Which buffers live in host memory (issue 33): a host-offloaded value is not device memory, and
// the memory report gives the device and the host their own peaks.
//
// A buffer is on the host when one of its arrays has memory space S(5) in its layout (XLA's host
// memory space, what XLA's host offloader leaves after optimization), or when it holds a value
// that a before-offloading module places there (XLA's host_offloader.cc and
// host_memory_offload_annotations.h): the result of a custom-call `MoveToHost`, or of
// `annotate_device_placement` with frontend attribute `_xla_buffer_placement="pinned_host"` (or
// "unpinned_host"), and what that result flows into through bitcast and reshape, and as the
// update of a dynamic-update-slice: the buffer updated in place (for an activation stash, the
// whole loop-carried `[layers, ...]` buffer, which XLA then allocates on the host). A
// `MoveToDevice` (or a placement "device") brings values back: what reads the host buffer with
// dynamic-slice makes device values.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/alias.h"

namespace hloscope {

// XLA's memory space color for host memory (S(5) in a layout).
inline constexpr int64_t kHostMemorySpace = 5;

// By BufferId: whether the buffer is host memory by the markers above (layouts aside: the
// profiler reads S(n) from the shapes itself).
std::vector<bool> HostOffloadedBuffers(const AliasAnalysis& alias);

}  // namespace hloscope
