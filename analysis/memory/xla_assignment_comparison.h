// Our simulated buffer assignment held against the one XLA really made for the same module
// (xla_buffer_assignment.h): per-kind totals with the difference, the allocations side by side
// (matched by the values they hold), the values that account for the difference, largest first,
// and both heaps for drawing. What `hlo-opt --memory-report --xla-buffer-assignment=FILE` prints:
// under --memory-model=xla (the default) our side is AssignLikeXla's allocations
// (CompareModelWithXla), under --memory-model=liveness the profiler's (CompareWithXla).
//
//   MemoryOptions options;
//   options.list_allocations = true;  // the per-value placement the comparison needs
//   absl::StatusOr<MemoryReport> ours = ProfileModule(module, options);
//   absl::StatusOr<XlaAssignmentComparison> c =
//       CompareWithXla(module, ours->modules[0], xla, /*top=*/10);
//
// Values are matched by instruction name and shape index. A value differs when
//  - it is missing: XLA placed it and we did not (our model counts a control-flow callee's own
//    buffers as one block at its call, and never thread-local ones), or the other way round;
//  - it is placed elsewhere: in another kind of allocation (a temporary that XLA put into an
//    output allocation, say) or another parameter's;
//  - it is in another allocation of the same kind: XLA's allocation M and our N are not each
//    other's pair in the side-by-side (two outputs XLA shares one allocation between, say):
//    "in allocation N here, M in XLA's";
//  - its size differs (padding, alignment, tuple tables);
//  - it lives longer or shorter: our buffer's span, held against the union of XLA's live
//    ranges of the buffer's values in its heap-simulator trace, mapped onto our entry schedule
//    (an event in a callee counts at the callee's calling instruction). XLA's trace orders its
//    events in time but names each by the instruction defining its value, a free's too, so a
//    free is known only to lie between two allocations ("steps 4-5..6"); a difference is
//    reported only beyond that. Only with a trace (HloProto dumps), only for temporaries of
//    both.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "analysis/memory/memory_profile.h"
#include "analysis/memory/xla_assignment_model.h"
#include "analysis/memory/xla_buffer_assignment.h"
#include "hlo/module.h"

namespace hloscope {

// One kind's bytes, ours and XLA's: "parameter", "constant", "maybe-live-out", "thread-local",
// "preallocated-temp" or "total".
struct XlaKindTotal {
  std::string kind;
  int64_t ours = 0;
  int64_t xla = 0;
  int64_t difference() const { return ours - xla; }
};

// An allocation of XLA's beside ours holding most of the same bytes (-1: none on that side).
struct XlaAllocationPair {
  int64_t xla_index = -1;
  std::string xla_kind;  // XlaAllocation::KindText()
  int64_t xla_bytes = 0;
  int64_t xla_values = 0;
  int64_t ours_index = -1;  // into ModuleMemory::simulated_allocations
  std::string ours_kind;    // SimulatedAllocation kind text, same words as XLA's
  int64_t ours_bytes = 0;
  int64_t ours_values = 0;
  std::string example_value;  // a value both hold, or the largest of the one side
};

enum class XlaValueDifferenceKind {
  kMissingInOurs,
  kMissingInXla,
  kPlacedElsewhere,
  kOtherAllocation,  // same kind, but not in the allocation beside XLA's
  kSizeDiffers,
  kLivesLonger,  // longer in ours than in XLA's
  kLivesShorter,
};
// "missing in ours", "missing in XLA's", "placed elsewhere", "other allocation", "size
// differs", "lives longer", "lives shorter".
std::string_view XlaValueDifferenceName(XlaValueDifferenceKind kind);

struct XlaValueDifference {
  XlaValueDifferenceKind kind = XlaValueDifferenceKind::kMissingInOurs;
  std::string value;  // "name" or "name{1}"
  int64_t bytes = 0;  // the larger of the two sizes
  std::string xla;    // where XLA has it, e.g. "allocation 3 (maybe-live-out) at 0, steps 4-6"
  std::string ours;   // where we have it, e.g. "preallocated-temp at 1024, steps 4-5"
};

// A box of a heap over time, for drawing: XLA's from its trace (time = XLA's event order,
// counting each simulated instruction once), ours from the simulation (time = entry steps).
struct XlaHeapBox {
  int32_t first = 0;
  int32_t last = 0;
  int64_t offset = 0;
  int64_t bytes = 0;
  std::string name;
};

struct XlaAssignmentComparison {
  std::string module;
  std::string source;  // the file XLA's assignment came from
  std::vector<XlaKindTotal> totals;
  std::vector<XlaAllocationPair> allocations;   // XLA's by index, then ours no one matched
  std::vector<XlaValueDifference> differences;  // largest first, at most `top`
  int64_t differing_values = 0;                 // all of them, listed or not
  int64_t differing_bytes = 0;
  bool has_heap_trace = false;
  // XLA's preallocated temp allocation(s) as placed over its trace (the largest 2000 values);
  // empty without a trace.
  std::vector<XlaHeapBox> xla_heap;
  int32_t xla_heap_steps = 0;
  int64_t xla_heap_bytes = 0;
  // XLA's own peak from its heap-simulator traces (XlaBufferAssignment::peak_bytes and
  // peak_unpadded_bytes): the static allocations plus the most its traces hold at once; none
  // from a text dump, no unpadded one where the module lacks a shape (the reason beside it).
  std::optional<int64_t> xla_peak_bytes;
  std::optional<int64_t> xla_peak_unpadded_bytes;
  std::string xla_peak_unpadded_unknown;
  // Under the xla model: the same measure on our model of the assignment (XlaModelPeakMemory:
  // XLA's ComputePeakMemory over the model's own simulated trace), and its static part (the
  // entry-parameter, constant and maybe-live-out allocations by their largest values). None
  // under liveness.
  std::optional<int64_t> modeled_xla_peak_bytes;
  std::optional<int64_t> modeled_xla_peak_static_bytes;
  // XLA's allocations per memory space (XlaBufferAssignment::MemorySpaces).
  std::vector<XlaMemorySpaceTotals> xla_memory_spaces;
  // Which of our models is "ours": "xla" (CompareModelWithXla) or "liveness" (CompareWithXla).
  std::string ours_model;
  // Under the xla model, its preallocated temp allocation(s) laid end to end as XLA's are,
  // each value a box at its offset over the model's whole-module timeline (time = position on
  // it, a callee's instructions each their own, as in XLA's trace); the largest 2000 values.
  // Empty under liveness, whose heap the HTML page draws from the profile.
  std::vector<XlaHeapBox> ours_heap;
  int32_t ours_heap_steps = 0;
  int64_t ours_heap_bytes = 0;
};

// Refuses an assignment of another module (ResolveXlaBufferAssignment's error). `ours` must
// come from ProfileModule(module, options) with options.list_allocations set.
absl::StatusOr<XlaAssignmentComparison> CompareWithXla(const Module& module,
                                                       const ModuleMemory& ours,
                                                       const XlaBufferAssignment& xla, int top);

// The same comparison with our model of XLA's own assignment (AssignLikeXla of `module`, made
// with the alignment XLA used) as our side: its allocations, kinds (thread-local ones too) and
// offsets; live ranges from its whole-module timeline, each time counted at the entry step at
// or after it (a callee's instructions run just before its calling instruction). What
// `--memory-report` compares under --memory-model=xla.
absl::StatusOr<XlaAssignmentComparison> CompareModelWithXla(const Module& module,
                                                            const XlaModelAssignment& ours,
                                                            const XlaBufferAssignment& xla,
                                                            int top);

}  // namespace hloscope
