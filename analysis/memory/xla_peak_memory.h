// XLA's own figures computed from its BufferAssignmentProto, as XLA computes them for its
// compile statistics (xla/service/buffer_assignment.cc at ROCm/xla 183fa00cb5:
// ComputePeakMemorySizes, ComputePeakMemory, ComputeLogicalBufferUnpaddedSizes): the peak of
// its heap-simulator traces, padded (each logical buffer's size as assigned) and unpadded (the
// bytes of the shape of the instruction defining it, in the default layout). The reader of
// XLA's dumps (xla_buffer_assignment.h) calls these on the proto it read and keeps the result
// (XlaBufferAssignment::peak_bytes, peak_unpadded_bytes); the side-by-side report prints it.
//
// The replay is XLA's, quirks included, so that the figure is the one XLA reports:
//  - the static allocations (entry parameters, constants, maybe-live-out; not thread-local)
//    are live from the start, each counted by the largest logical buffer it holds (the first
//    of equal ones), and that buffer counts as allocated once;
//  - every trace is replayed in order on one running total (traces do not start from zero);
//  - ALLOC of a buffer already live counts nothing; SHARE_WITH makes the buffer an alias of
//    the root of the one it shares with, allocating that root if it was not live; FREE gives
//    back one reference to the root of the buffer's chain;
//  - the unpadded size of a value at shape index {..., i} is the bytes of tuple element i of
//    the defining instruction's top-level shape (only the last index is used), or of the whole
//    shape when it has no element i; a tuple counts 8 bytes per element (its table).
// Where XLA would crash or read past an array (an event naming an undefined buffer, a buffer
// defined at an instruction id the module lacks, a malformed shape, a negative size or
// index), or loop forever (an event walking the shares to a buffer that shares its own
// region), these return an error naming it instead. An allocation that names an undefined
// logical buffer is skipped, as XLA skips it.
#pragma once

#include <cstdint>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "analysis/memory/xla_buffer_assignment.h"

namespace hloscope {

namespace xla_ba {
class BufferAssignmentProto;
class ModuleNameView;
class ShapeView;
}  // namespace xla_ba

// XLA's ShapeUtil::ByteSizeOf of `shape` with its layout made the default one (only
// minor_to_major changes: an element size in bits stays) and 8-byte pointers: elements times
// the element's bytes (or its bits in the layout, rounded up to bytes), 8 per tuple element,
// 8 for an opaque value, 0 for a token. Errors: what XLA's Shape::FromProto refuses, and an
// element type or dimension that has no size.
absl::StatusOr<int64_t> XlaUnpaddedShapeBytes(const xla_ba::ShapeView& shape);

// Each logical buffer's unpadded size, by id (ComputeLogicalBufferUnpaddedSizes). The defining
// instruction is found by its id in `module` (by its name when the location gives one:
// older XLA wrote names only).
absl::StatusOr<absl::flat_hash_map<int64_t, int64_t>> XlaLogicalBufferUnpaddedSizes(
    const xla_ba::ModuleNameView& module, const xla_ba::BufferAssignmentProto& assignment);

// The peak of the heap traces, padded and unpadded (ComputePeakMemorySizes).
absl::StatusOr<XlaPeakMemory> XlaPeakMemorySizes(const xla_ba::BufferAssignmentProto& assignment,
                                                 const xla_ba::ModuleNameView& module);

// The padded peak alone, without the module (ComputePeakMemory: every unpadded size 0).
absl::StatusOr<int64_t> XlaPaddedPeakMemory(const xla_ba::BufferAssignmentProto& assignment);

}  // namespace hloscope
