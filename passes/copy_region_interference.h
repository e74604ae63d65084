// XLA's region-based live-range interference test, which its copy removal asks when the
// ordered value lists refuse a copy (copy-elision{region-analysis=true}; docs/copy_elision.md).
//
// Read from openxla/xla at 2c731115ef3bbd9457cfbc46cd5fba5a35ee74bb (the bulk corpus's
// commit): xla/service/copy_removal.cc, CopyRemover::ValuesInterfere and
// ComputeRelativeLocation (ComputeBetweenLiveRangeRegions, ComputeBetweenInstructionEntries,
// InstructionCanIntercept, ComputeRuntimeOrdering), with the execution constraints of
// xla/hlo/analysis/hlo_ordering.cc (GetExecutionConstraint: the branches of one conditional
// are exclusive, an instruction inside a branch runs "before the end" of its conditional).
//
// The two buffers' values become live-range regions: per computation, the instructions that
// define or read them. Each instruction of one region is placed against the other region's
// instructions of a computation that dominates it in the call graph (before, after, both:
// "overlap"), and marked as intercepting when it could overwrite the combined buffer between
// a definition and its use. Two regions that overlap each other interfere; when only one
// overlaps the other (one sits inside the other, e.g. a branch inside its conditional's
// range), they interfere only if a write intercepts. Exclusive branches do not overlap.
//
// Where XLA would add control edges to order two unordered instructions (ForceRuntimeOrder),
// this answers "interfere": the copy stays (safe; XLA may remove it). Shared computations and
// phi values are outside the model and also answer "interfere". copy-elision checks the
// merged buffer with its own live ranges besides, so this only decides what XLA's lists would
// otherwise refuse; it never makes a removal that the live ranges reject.
#pragma once

#include <optional>
#include <string>

#include "absl/types/span.h"
#include "analysis/value_liveness.h"

namespace hloscope {

// How the source's values join the destination's (XLA's CombineLiveRangeOption): the copy
// defines the destination's first value (kMergeFirstDestInSource), or reads the source's
// last (kMergeLastSourceInDest).
enum class RegionMerge : uint8_t { kFirstDestInSource, kLastSourceInDest };

// Empty when XLA's region analysis finds the two buffers' live ranges free of interference;
// otherwise why not. `source` is the source buffer's values starting at the value the copy
// reads, `dest` the destination's starting at the copy's value, each in XLA's list order
// (wrapping around), with their uses as they stand before the copy is removed.
std::optional<std::string> RegionInterference(const ValueLiveness& live,
                                              absl::Span<const ValueId> source,
                                              absl::Span<const ValueId> dest, RegionMerge merge);

}  // namespace hloscope
