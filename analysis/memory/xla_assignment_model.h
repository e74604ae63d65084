// XLA's buffer assignment, modeled: the allocations XLA's BufferAssigner makes for a scheduled
// module, with their kinds, sizes and the values in each (offset, size), and XLA's per-kind
// totals. It follows xla/service/buffer_assignment.cc (read at openxla/xla commits
// 001918b7024cf5f020051a9d25d2dd57a5896aaa and later; docs/xla_memory_tests.md):
//
//   absl::StatusOr<XlaModelAssignment> a = AssignLikeXla(module, {.alignment = 128});
//   fmt::print("temp {}\n", a->totals.preallocated_temp_bytes);
//
//  1. Which computations get buffers: those run as control flow from the entry (while, call,
//     conditional, async computations) share one assignment; those called by reduce, map,
//     sort, scatter, all-reduce, custom-call and the like (not fusion) get thread-local
//     allocations; values inside fusions get none.
//  2. Buffers (alias analysis with XLA's own in-place rule, XlaModelDataflowOptions: a
//     fusion updates in place only a parameter its root reaches through tuples, not through a
//     bitcast; values that share storage; sizes as XLA's size function, tuples 8
//     bytes per element) sorted largest first, live-out first among equals, then by the post
//     order of their first value (computations in the reverse of XLA's CallGraph::VisitNodes
//     walk, call sites in XLA's instruction order when `instruction_ids` gives it; a
//     short-form async-start's wrapped op, and the tuple table XLA gives it, at the place of
//     the computation XLA wraps it in), then id. Each in turn: a constant gets its own constant
//     allocation; an entry parameter its parameter allocation (reusable by later buffers when
//     input_output_alias donates it); a thread-local buffer its own allocation; a tuple's
//     table its own allocation (a temporary one unless it lives out).
//     Otherwise it joins an allocation of its instruction's operands, else the smallest
//     reusable allocation made so far (donated parameters and live-out buffers' allocations),
//     when it fits (MaybeAssignBuffer): not read-only, no larger, no live range interfering
//     with any value already there (ranges that only touch interfere unless the later value's
//     instruction reads the earlier value at one of its positions and may share that buffer,
//     as XLA asks since 183fa00cb5; a copy never shares with what it reads), and a live-out buffer
//     only into an allocation of exactly its size. What is left and not live out is a temporary; a
//     live-out buffer gets a new allocation.
//  3. Temporaries are packed into one preallocated temp allocation per memory space by the
//     heap simulator over the whole-module timeline (xla_live_range.h): values of one buffer
//     share a chunk, a result shares the chunk of an operand value that dies at its
//     instruction when CanShareOperandBufferWithUser allows (once per operand value; only
//     when both are alone in their buffers and the result's instruction reads the operand
//     value directly, as HeapSimulator::RunComputation, which replays definitions and frees
//     step by step, the definitions of a step by (start, end, id)), and the packing is XLA's
//     (heap_simulation.h, HeapOrder::kXla: both orders, the smaller heap; under
//     multiheap_size_constraint_per_heap several heaps, an allocation each), every chunk at a
//     multiple of `alignment`, on the heap algorithm's own clock: each Alloc, ShareWith and
//     Free call one tick, so a range's length counts the calls made while it lives.
//     `ideal_temp_bytes` is the same heap packed by our own order (kIdeal): what a better packer
//     would need. The heap is made after the global computations' allocations and before the
//     thread-local ones. Then, as XLA's CombineTempAllocations, every temp allocation of a memory
//     space (the temporary tuple tables' and the heap's) is concatenated into one, each part at a
//     multiple of `alignment`, after the other allocations, all in the order XLA's unstable
//     std::partition leaves them (the largest tuple tables after the heap).
//  4. An allocation is maybe-live-out when a value in it may be in the entry's result,
//     parameter and constant allocations included. Totals add each allocation to every kind it
//     has, as XLA's BufferAssignment stats do.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "analysis/dataflow_options.h"
#include "analysis/memory/heap_simulation.h"
#include "analysis/memory/xla_live_range.h"
#include "hlo/module.h"

namespace hloscope {

struct XlaModelOptions {
  int64_t alignment = 1;  // of temp chunks (XLA:GPU: 256, older versions 128; its tests 1, 64)
  HeapOrder heap_order = HeapOrder::kXla;
  XlaLiveRangeOptions live_ranges = {};
  // Whether buffers share by XLA:GPU's rule (its CanShareBufferHint: xla_gpu_buffer_sharing.h)
  // or XLA's generic one; unset: XLA:GPU's when the module carries XLA:GPU's marks
  // (LooksLikeXlaGpuModule).
  std::optional<bool> gpu_buffer_sharing = std::nullopt;
  // XLA's unique ids of the module's instructions, by name (XlaBufferAssignment::instruction_ids
  // of the HloProto the module came from). XLA's buffer order walks each computation's call
  // sites in its in-memory instruction order, the order of these ids; a module read back from
  // an HloProto is in schedule order instead. Empty, or missing an instruction of a
  // computation: that computation's own order.
  absl::flat_hash_map<std::string, int64_t> instruction_ids = {};
  // XLA's --xla_multiheap_size_constraint_per_heap (bytes; -1: no limit): the temporaries fill
  // heaps of at most this many bytes each (a buffer larger than the limit gets a heap of its
  // own), an allocation per heap, and CombineTempAllocations starts another combined temp
  // allocation when a part would bring the current one to the limit.
  int64_t multiheap_size_constraint_per_heap = -1;
};

struct XlaModelValue {
  std::string name;  // "instruction" or "instruction{1,0}"
  int64_t offset = 0;
  int64_t size = 0;
  int64_t id = 0;          // our dataflow value id (XLA numbers its values its own way)
  std::string shape = {};  // the value's shape, with layout
  bool phi = false;
  // Its live range on the whole-module timeline (XlaModelAssignment::timeline; inclusive
  // logical times) and the alias analysis buffer it belongs to (values of one buffer share
  // their place).
  int64_t start = 0;
  int64_t end = 0;
  int64_t buffer = -1;
};

struct XlaModelAllocation {
  int64_t index = 0;
  int64_t size = 0;
  bool parameter = false;
  int64_t parameter_number = -1;
  ShapeIndex parameter_index = {};
  bool parameter_aliased = false;  // donated by input_output_alias
  bool maybe_live_out = false;
  bool constant = false;
  bool thread_local_ = false;
  bool tuple = false;
  bool preallocated_temp = false;
  int64_t memory_space = 0;
  std::vector<XlaModelValue> values = {};
  std::string parameter_shape = {};  // the entry parameter's whole shape, without layout
  std::string output_shape = {};     // holding the entry root's top level: the root's shape
  // XLA's PeakMemoryLogicalBuffers. An allocation made for one buffer (a parameter, a
  // constant, an output, a thread-local value, a tuple table) names that buffer's first value,
  // whatever later reuses it; the temp heap names the values live at its peak, one per chunk
  // (values that share a chunk are counted once, as XLA's SHARE_WITH), and the combined temp
  // allocation lists its parts' in order. peak_bytes, peak_instruction and peak_computation
  // are the heap's peak: its bytes in chunks (unaligned sizes) and where on the whole-module
  // timeline (inside a callee: the callee's instruction and computation); 0 and empty for
  // allocations without a heap.
  int64_t peak_bytes = 0;
  std::vector<std::string> peak_values = {};
  std::vector<std::string> heap_peak_values = {};  // the heap's part of peak_values
  std::string peak_instruction = {};
  std::string peak_computation = {};
};

struct XlaModelTotals {
  int64_t parameter_bytes = 0;
  int64_t constant_bytes = 0;
  int64_t maybe_live_out_bytes = 0;
  int64_t thread_local_bytes = 0;
  int64_t preallocated_temp_bytes = 0;
  int64_t total_bytes = 0;
  int64_t ideal_temp_bytes = 0;  // the temporaries packed by our own order
  // XLA's "preallocated temp fragmentation" (HeapSimulator's fragmentation_size, summed over
  // the temp heaps): each heap's size less its peak of live bytes in chunks; -1 when no heap
  // was simulated (no temporaries), where XLA prints no line.
  int64_t temp_fragmentation_bytes = -1;
  // XLA's "total fragmentation": total_bytes less HeapSimulator::MinimumMemoryForModule, the
  // most bytes the module's values (constants and thread-local ones aside) hold at once on
  // the whole-module timeline, each value counted whole while it lives.
  int64_t total_fragmentation_bytes = 0;
};

// One call of the modeled heap simulation, as XLA's HeapSimulator traces it
// (HeapSimulatorTrace::Event): a value gets a chunk of its own (kAlloc), gives it back (kFree)
// or takes the chunk of `shared_with` (kShareWith: a later value of the same buffer, or a
// result taking over its dying operand's chunk, after that operand's kFree). Values by
// XlaModelValue::id.
struct XlaModelHeapEvent {
  enum class Kind { kAlloc, kFree, kShareWith };
  Kind kind = Kind::kAlloc;
  int64_t value = 0;
  int64_t shared_with = -1;
};

struct XlaModelAssignment {
  std::vector<XlaModelAllocation> allocations;
  // The heap simulations' traces, one per memory space's heap in the order simulated, each in
  // the order of XLA's calls (xla_model_peak.h replays them as XLA's ComputePeakMemory).
  std::vector<std::vector<XlaModelHeapEvent>> heap_traces = {};
  XlaModelTotals totals;
  // The allocation index of the value defined as "name" or "name{i}"; -1 when it has none.
  int64_t AllocationOf(std::string_view value_name) const;
  // By ValueId of the module's DataflowAnalysis with default options (the one the model
  // runs): the allocation index of each value, -1 for values without one (inside fusions).
  std::vector<int64_t> value_allocation = {};
  // The whole-module timeline the live ranges are on (XlaLiveRanges::sequence): pointers into
  // the module, valid while it lives.
  std::vector<const Instruction*> timeline = {};
};

// Errors: no entry, an alignment below 1, the alias analysis's or live ranges' errors, and
// OutOfRange for a module whose buffers (with the alignment) add up past int64 bytes, whose
// sizes and offsets could not be told.
absl::StatusOr<XlaModelAssignment> AssignLikeXla(const Module& module,
                                                 const XlaModelOptions& options = {});

// The dataflow options AssignLikeXla analyses the module with: XLA's own in-place rule, a
// fusion updating in place only the parameter its root reaches through tuples alone
// (DataflowOptions::in_place_through_bitcast = false). Values are the same as with the default
// options; buffers may be split where a bitcast stood between.
DataflowOptions XlaModelDataflowOptions();

// The assignment in the layout of XLA's `*-buffer-assignment.txt` (BufferAllocation::ToString
// per allocation, values by id, then "Total bytes used"), so that `diff` against XLA's dump
// lines up; value ids are ours, not XLA's (xla_assignment_text.cc).
std::string XlaAssignmentToString(const XlaModelAssignment& assignment);

// Each allocation's peak buffers (XlaModelAllocation::peak_values; XLA's
// PeakMemoryLogicalBuffers, which its memory usage report ranks), one line per allocation:
//   " allocation 2: x, y"
// after a blank line and "Peak buffers:".
std::string XlaPeakBuffersString(const XlaModelAssignment& assignment);

// XLA's BufferAssignment::StatsString of the modeled assignment (the head of XLA's memory usage
// report): bytes per kind in XLA's human units and its two fragmentation lines (each printed
// as XLA does: the temp one only when a heap was simulated, the total one when not negative).
std::string XlaAssignmentStatsString(const XlaModelTotals& totals);

}  // namespace hloscope
