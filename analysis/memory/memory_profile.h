// Memory profiler: the bytes live at each step of a module's schedule, the peak and what is
// live there, and per pipeline stage the activations one microbatch leaves for the backward.
//
//   MemoryOptions options;
//   options.stage_regex = R"(/stage_(\d+)/)";
//   absl::StatusOr<MemoryReport> r = ProfileModule(module, options);
//   fmt::print("peak {} at {}\n", r->peak_bytes, r->peak_instruction);
//
// Model (computed once per call; the module must not change meanwhile):
//  - Schedule. A computation runs in text order when the module is `is_scheduled=true`;
//    otherwise in a deterministic topological order: text order, except that an instruction
//    comes after its operands and control predecessors (placed depth-first, in operand
//    order, before it) when the text lists it earlier.
//  - Buffers are AliasAnalysis buffers: values that share storage are counted once. A buffer
//    is live from the first definition of any of its values in a computation to the last
//    use there. Entry parameters are live from the start to the end (the caller owns them),
//    except donated ones (input_output_alias), which end at their last use unless an output
//    keeps them; buffers of the entry's result live to the end.
//  - An instruction writes its result while it reads its operands, so both count at that
//    step. A `copy` (or any instruction that cannot reuse the operand's storage) whose source
//    and result fall into one buffer, as the loop-state copies of XLA's copy insertion do,
//    holds two copies at that step.
//  - A while / conditional / call adds, at the calling instruction, the peak of its callee's
//    own buffers (while: max of body and condition; conditional: max over branches); the
//    buffers the callee shares with the caller (its parameters' and root's) are the caller's,
//    live from the calling instruction on. A while condition's root (the pred) is its own.
//  - An entry parameter's buffer has the parameter's stage and direction (from its own
//    op_name), whatever instruction step 0 is.
//    Fusion internals and other embedded computations (reduce's to_apply, ...) are no memory.
//  - Tuples cost nothing unless `count_tuple_tables` (XLA's tables: 8 bytes per element).
//  - Dynamic dimensions count at their bound (`<=N`); `dim_value` evaluates them at N. An
//    unbounded one (`?`) without `dim_value` makes the peak undeterminable: an error.
//  - Sums past int64 saturate at INT64_MAX and set `saturated` (never a wrapped number).
//
// Errors about an option name its MemoryOptions field ("stage_regex", "dim_value") and record
// it in the status (support/option_error.h), so a tool can name its own flag in that place.
//
// Stages (one of): several modules, one per stage (ProfileModules); a regular expression with
// one capture group on metadata op_name; a frontend attribute. Instructions without a stage
// take their calling instruction's. Without any of these, stash buffers with a stage
// dimension (see activations) give the stages.
//
// Activations. Stash buffers first: a while's loop-state element that the body updates with a
// dynamic-update-slice (directly or inside a fusion) at a dynamic index, and that some other
// instruction reads with a dynamic-slice. Each loop iteration writes one microbatch's row,
// so the DUS update's bytes are one microbatch's activation; the dimension after the
// microbatch dimension, when its index is constant, is the stage dimension (its size = the
// stages the buffer holds; SPMD modules hold one per device). When a module has no stash
// buffers: values defined by a forward instruction and read by a backward one, told apart by
// op_name (`backward_regex`, default `transpose\(`, wins over `forward_regex`, default
// `jvp\(`); the whole step is then one microbatch.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "analysis/dataflow_options.h"
#include "analysis/memory/memory_schedulers.h"
#include "analysis/memory/peak_groups.h"
#include "hlo/module.h"

namespace hloscope {

struct MemoryOptions {
  // kXla: what XLA's heap simulator counts -- constants are their own allocations (not in
  // the heap), and a result takes over an operand buffer that dies at its instruction when
  // CanShareOperandBufferWithUser allows. kLiveness: every buffer from definition to last use.
  enum class Model { kLiveness, kXla };
  Model model = Model::kXla;
  // The order of modules that are not is_scheduled=true (memory_schedulers.h).
  ScheduleKind schedule = ScheduleKind::kText;
  enum class StageBy { kNone, kModule, kOpNameRegex, kFrontendAttribute };
  StageBy stage_by = StageBy::kNone;
  std::string stage_regex;  // kOpNameRegex: RE2 with exactly one capture group
  std::string stage_attr;   // kFrontendAttribute: the attribute's key

  std::string forward_regex = R"(jvp\()";
  std::string backward_regex = R"(transpose\()";

  bool count_tuple_tables = false;
  DataflowOptions dataflow = {};  // of the alias analysis the profile is built on
  // Dynamic dimensions evaluated at this size (capped by their bound); nullopt: the bound.
  std::optional<int64_t> dim_value;
  // Buffers listed as live at the peak.
  int top_buffers = 10;
  // Keep the per-instruction timeline (off saves memory when only the numbers are wanted).
  bool timeline = true;
  // Pack the entry's buffers into a heap (heap_bytes, peak_layout, allocations).
  bool heap = true;
  // The timeline steps through control-flow callees (XLA's live-range order: a calling
  // instruction's callees, then the instruction) instead of one point per entry instruction;
  // a callee step holds the caller's buffers at the call plus the callee's live bytes there.
  bool whole_program_timeline = false;
  // List every value of the simulated assignment with its allocation, offset and live range
  // (ModuleMemory::simulated_allocations), to hold against XLA's (xla_assignment_comparison.h).
  // Needs `heap`.
  bool list_allocations = false;
  // Keep the largest buffers' boxes (ModuleMemory::heap_boxes) that the HTML page draws. Off
  // when nothing draws them: they cost a name, a shape and an op name per box.
  bool heap_boxes = true;
  // Under kXla, also lay the module out as XLA's buffer assignment would (AssignLikeXla) and
  // count its peak as XLA's ComputePeakMemory does (ModuleMemory::modeled_xla_peak_bytes).
  // Off by default: the layout costs several times the profile itself (4.5x on Mixtral 8x7B).
  bool modeled_xla_peak = false;
};

// What a buffer live at a peak is.
enum class LiveBufferKind {
  kBuffer,
  kStash,       // an activation: a row of a stash buffer
  kActivation,  // an activation found by op_name (a module without stash buffers)
  kCopy,        // the second copy of a same-buffer copy
  kCallee,      // a callee's own peak at its calling instruction
};

// "buffer", "stash", "activation", "copy" or "callee": the reports' names (text, JSON, HTML).
std::string_view LiveBufferKindName(LiveBufferKind kind);

// A buffer (or a transient) live at a peak.
struct LiveBuffer {
  int64_t bytes = 0;
  std::string instruction;  // defining instruction
  std::string op_name;
  std::string shape;
  std::string stage;
  LiveBufferKind kind = LiveBufferKind::kBuffer;
  // As in CategorySeries: "parameters", "stashed activations", "other activations",
  // "temporaries" (copies and callee peaks too) or "outputs".
  std::string category;
  // The defining instruction's opcode (groups buffers without an op_name: peak_groups.h) and
  // its metadata's "source_file:source_line" ("" when the metadata has no source_file).
  std::string opcode = {};
  std::string source = {};
  // Where the buffer is live: the first and last step (0-based) of the schedule it is listed
  // in, the module's (the timeline's index) or, under a CalleePeak, the callee's; a copy's
  // second buffer and a callee's peak are the peak's step alone.
  int64_t start = 0;
  int64_t end = 0;
};

// What a callee holds at its own peak, when the caller's peak is inside it (issue 33).
struct CalleePeak {
  std::string computation;       // the callee
  std::string caller;            // the instruction that calls it (call, while, conditional)
  int64_t peak_bytes = 0;        // the callee's own peak (its buffers, copies, nested callees)
  std::string peak_instruction;  // where in the callee
  std::vector<LiveBuffer> top_buffers;  // live there, largest first (--top)
};

struct TimelinePoint {
  const Instruction* instruction = nullptr;  // points into the profiled module
  int stage = -1;  // index into MemoryReport::stage_names (regex / attribute stages), -1: none
  int64_t live_bytes = 0;
  // Of live_bytes, host memory (host_placement.h); in a callee, its caller's entry step's.
  int64_t host_bytes = 0;
};

struct StageMemory {
  std::string stage;
  std::string module;  // stage-by=module: the module's name
  int64_t peak_bytes = 0;
  std::string peak_instruction;
  int64_t activation_bytes_per_microbatch = 0;
  int64_t peak_activation_bytes = 0;
  int64_t microbatch_slots = 0;  // rows of its stash buffers (0 when none)
  int64_t stash_buffers = 0;
  std::string activation_source;  // "stash", "op_name" or "none"
  // Live bytes of this stage's buffers after each entry instruction of `module_index`.
  int module_index = 0;
  std::vector<int64_t> timeline;
  // The device's part of the stage and the host's (host_placement.h), as ModuleMemory's: the
  // device's peak holds the stage's other buffers with its steps' copies and callee peaks,
  // the host's its host buffers, each with where it is. Without host buffers in the stage
  // host_peak_bytes is 0 and the device's figures are the stage's. --memory-limit holds the
  // device's peak against the limit.
  int64_t device_peak_bytes = 0;
  std::string device_peak_instruction = {};
  int64_t host_peak_bytes = 0;
  std::string host_peak_instruction = {};
  // With `timeline` and host buffers in the stage: its device's part and its host's after each
  // entry instruction, the series the two peaks above are the highest of (the HTML page draws
  // them as two lines); empty otherwise.
  std::vector<int64_t> device_timeline = {};
  std::vector<int64_t> host_timeline = {};
};

// A buffer's place in the simulated heap.
struct HeapSlot {
  int64_t offset = 0;
  int64_t bytes = 0;
  std::string name;  // defining instruction ("name{index}" for a tuple element)
};

// A buffer of the simulated heap over the entry's schedule, for drawing.
struct HeapBox {
  int32_t first = 0;  // schedule steps, inclusive
  int32_t last = 0;
  int64_t offset = 0;
  int64_t bytes = 0;
  std::string name;
  // What the HTML page's tooltips and buffer table say of it (as LiveBuffer's fields).
  std::string shape = {};  // the defining value's
  std::string opcode = {};
  std::string op_name = {};
  std::string source = {};  // "source_file:source_line", "" without
  std::string category = {};
  // Its bytes without the padding of tiled layouts (`{1,0:T(8,128)}`, L(n)): equal to `bytes`
  // unless a tile rounds a dimension up.
  int64_t unpadded_bytes = 0;
};

// Live bytes of one category of buffers after each entry instruction: "parameters",
// "stashed activations", "other activations", "temporaries" (with each step's copies and
// callee peaks) or "outputs"; the five add up to the timeline.
struct CategorySeries {
  std::string category;
  std::vector<int64_t> live_bytes;
};

// The entry's memory in XLA's buffer-assignment categories (the "BufferAssignment stats" of
// an out-of-memory message): entry parameters, constants, the entry's result (not a
// parameter), and one preallocated temp allocation holding the rest, packed best-fit.
struct AllocationSummary {
  int64_t parameter_bytes = 0;
  int64_t constant_bytes = 0;
  int64_t maybe_live_out_bytes = 0;
  int64_t temp_bytes = 0;  // the temp heap's size
  int64_t total_bytes = 0;
};

// A value of the simulated assignment: one instruction's result (at a shape index) in a buffer
// the entry counts.
struct SimulatedValue {
  std::string instruction;
  std::vector<int64_t> index;
  int64_t bytes = 0;   // its buffer's
  int64_t offset = 0;  // within its allocation
  int32_t first = 0;   // entry schedule steps its buffer is live, inclusive
  int32_t last = 0;
  int64_t buffer = 0;  // values with one number share one buffer (and its span)
};

// An allocation of the simulated assignment, in XLA's kinds: an entry parameter's buffer, a
// constant, a live-out buffer, or the one preallocated temp allocation (which also holds each
// step's copies and callee peaks, not listed as values).
struct SimulatedAllocation {
  enum class Kind { kParameter, kConstant, kLiveOut, kTemp };
  Kind kind = Kind::kTemp;
  int64_t parameter_number = -1;  // kParameter
  std::vector<int64_t> parameter_index;
  int64_t bytes = 0;
  std::vector<SimulatedValue> values;
  // XLA's words: "parameter 0 {}", "constant", "maybe-live-out", "preallocated-temp".
  std::string KindText() const;
};

// The peak of the buffers in one memory space (S(n) in their layouts; 0 is the default).
struct MemorySpacePeak {
  int64_t space = 0;
  int64_t peak_bytes = 0;
  std::string peak_instruction;
};

struct ModuleMemory {
  std::string module;
  bool scheduled = false;  // text order was the schedule
  int64_t peak_bytes = 0;
  std::string peak_instruction;
  std::string peak_op_name;
  std::vector<LiveBuffer> top_buffers;
  // When the peak is inside a callee: what it holds at its own peak, outermost first, down
  // through nested callees (top_buffers above are the caller's, the callee's peak one entry).
  std::vector<CalleePeak> callee_peaks;
  // Every buffer live at the peak, grouped by category and op_name scope (peak_groups.h),
  // each group with its --top largest.
  std::vector<PeakGroup> peak_groups;
  // One per entry instruction, in schedule order (whole_program_timeline: and per callee
  // instruction, before its calling instruction).
  std::vector<TimelinePoint> timeline;
  int64_t instructions = 0;
  bool saturated = false;  // some step passed int64 bytes: the peak is INT64_MAX, a lower bound
  std::string model;       // "xla" or "liveness"
  // The schedule used: "text order (is_scheduled)", "topological", "list", "dfs",
  // "post-order", or "min: KIND (list P, dfs P, post-order P)".
  std::string schedule;
  // The entry's buffers (and each step's copies and callee peak) packed best-fit: at least
  // peak_bytes; the difference is fragmentation.
  int64_t heap_bytes = 0;
  std::vector<HeapSlot> peak_layout;  // buffers live at the peak, by offset (--top largest)
  std::vector<HeapBox> heap_boxes;    // the largest 2000 buffers of the heap, for the HTML page
  std::vector<CategorySeries> categories;  // with the per-entry-instruction timeline only
  AllocationSummary allocations;
  // One per memory space present, when some buffer is outside the default space (copies and
  // callee peaks are not split by space).
  std::vector<MemorySpacePeak> memory_spaces;
  // When some buffer is host memory (S(5), or placed there by MoveToHost /
  // annotate_device_placement: host_placement.h): the device's peak (every other buffer, with
  // the steps' copies and callee peaks) and the host's, each with where it is. Without host
  // buffers host_peak_bytes is 0 and the device peak is peak_bytes.
  int64_t device_peak_bytes = 0;
  std::string device_peak_instruction;
  int64_t host_peak_bytes = 0;
  std::string host_peak_instruction;
  // With MemoryOptions::list_allocations: parameters, constants and live-out buffers in entry
  // order of their first step, then the temp allocation.
  std::vector<SimulatedAllocation> simulated_allocations;
  // Under the xla model: the peak as XLA itself counts it (its ComputePeakMemory, the figure
  // of its compile statistics) on our model of XLA's buffer assignment of the module
  // (xla_model_peak.h): the static allocations by their largest values, then the modeled heap
  // trace call by call, a result that takes over its dying operand's chunk adding nothing.
  // peak_bytes above is the timeline's: whole entry steps, a control-flow callee's peak as a
  // block at its call. None under liveness, or when the model refuses the module
  // (modeled_xla_peak_unknown says why).
  std::optional<int64_t> modeled_xla_peak_bytes;
  int64_t modeled_xla_peak_static_bytes = 0;  // its static part
  std::string modeled_xla_peak_unknown;
};

struct MemoryReport {
  int64_t peak_bytes = 0;
  std::string peak_instruction;
  std::string peak_op_name;
  std::string peak_module;
  std::vector<LiveBuffer> top_buffers;  // at the peak of the module with the highest peak
  std::vector<ModuleMemory> modules;
  std::vector<StageMemory> stages;       // in stage order (numeric when the names are numbers)
  std::vector<std::string> stage_names;  // stages named inside modules, in stage order
  bool has_dynamic_dims = false;         // some buffer had a dynamic dimension
  std::optional<int64_t> dim_value;
  // Some sum passed int64: the numbers that did hold INT64_MAX (a lower bound, not a size).
  bool saturated = false;
};

absl::StatusOr<MemoryReport> ProfileModule(const Module& module, const MemoryOptions& options);
// Several modules; with StageBy::kModule each is one stage (named by its index).
absl::StatusOr<MemoryReport> ProfileModules(std::vector<const Module*> modules,
                                            const MemoryOptions& options);

}  // namespace hloscope
