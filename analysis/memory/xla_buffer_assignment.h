// XLA's own buffer assignment of a compiled module, read from what XLA dumps: the
// BufferAssignmentProto inside an `HloProto` (`*.hlo.pb`, schema xla_buffer_assignment.proto),
// the `*-buffer-assignment.txt` text (BufferAssignment::ToString), or only the total of a
// `*-memory-usage-report.txt`. It is what XLA really allocated, to hold our simulation against
// (xla_assignment_comparison.h).
//
//   absl::StatusOr<XlaBufferAssignment> xla = ParseXlaBufferAssignment(contents, path);
//   if (absl::Status s = ResolveXlaBufferAssignment(*xla, module); !s.ok()) ...;  // not its module
//   fmt::print("XLA: {} bytes\n", xla->Totals().total_bytes);
//
// Errors name the file and line (text) or the byte offset (binary); nothing is guessed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hlo/module.h"

namespace hloscope {

// A value XLA placed in an allocation (an HloValue: an instruction's result at a shape index).
struct XlaAssignedValue {
  int64_t id = 0;              // XLA's logical buffer / value id
  std::string instruction;     // defining instruction
  std::vector<int64_t> index;  // shape index ({} for an array result)
  int64_t offset = 0;          // within the allocation
  int64_t bytes = 0;
};

// An instruction XLA wraps in an async op: the root of the computation an async-start calls
// (XLA's async wrapping: async-start's output is ((operands), output, context), the output
// element {1} holding the wrapped root's value, which async-done then returns). Our module may
// print the pair in XLA's short form (`reduce-scatter-start(...)`) without the wrapped
// computation, so XLA's values of the wrapped instruction are values of the async-start there.
struct XlaAsyncWrapping {
  std::string wrapped_instruction;
  std::string wrapped_computation;
  std::string async_start;
  std::string async_start_computation;
};

struct XlaAllocation {
  int64_t index = 0;
  int64_t bytes = 0;
  int64_t color = 0;  // memory space
  bool is_entry_parameter = false;
  int64_t parameter_number = -1;
  std::vector<int64_t> parameter_index;
  bool is_constant = false;
  bool maybe_live_out = false;
  bool is_thread_local = false;
  bool is_tuple = false;
  std::vector<XlaAssignedValue> values;  // by id

  // XLA's BufferAllocation::IsPreallocatedTempBuffer: none of parameter, live-out,
  // thread-local, constant.
  bool is_preallocated_temp() const {
    return !is_entry_parameter && !maybe_live_out && !is_thread_local && !is_constant;
  }
  // XLA's words for its kinds, as in its text dump: "parameter 0 {}, maybe-live-out",
  // "constant", "thread-local", "preallocated-temp"; "tuple" is added when set.
  std::string KindText() const;
};

// One step of XLA's heap simulator for a value (by id).
struct XlaHeapEvent {
  enum class Kind { kAlloc, kFree, kShareWith };
  Kind kind = Kind::kAlloc;
  int64_t value_id = 0;
  std::string computation;
  std::string instruction;  // the instruction XLA was simulating
  int64_t share_with = -1;  // kShareWith: the value whose region is reused
};

struct XlaHeapTrace {
  int64_t allocation_index = -1;
  bool whole_module = false;
  std::vector<XlaHeapEvent> events;
};

// Per kind, summed as XLA's BufferAssignment stats and memory usage report sum them: an
// allocation counts in every kind it has (a donated parameter that lives out counts as both),
// and total_bytes ("Total bytes used") is every allocation once.
struct XlaAllocationTotals {
  int64_t parameter_bytes = 0;
  int64_t constant_bytes = 0;
  int64_t maybe_live_out_bytes = 0;
  int64_t thread_local_bytes = 0;
  int64_t preallocated_temp_bytes = 0;
  int64_t total_bytes = 0;
  int64_t allocations = 0;
};

// XLA's peak memory from its heap-simulator traces (xla_peak_memory.h: ComputePeakMemorySizes):
// padded, the logical buffers' sizes; unpadded, the bytes of the defining instructions' shapes
// in the default layout.
struct XlaPeakMemory {
  int64_t padded = 0;
  int64_t unpadded = 0;
};

// One memory space's allocations (XLA's color), as XLA's ComputeTotalAllocationBytes and
// ComputeIndefiniteAllocationsInBytes count them for that color: every allocation once;
// indefinite ones are those that live throughout (thread-local, entry parameter, constant or
// maybe-live-out).
struct XlaMemorySpaceTotals {
  int64_t memory_space = 0;
  int64_t total_bytes = 0;
  int64_t indefinite_bytes = 0;
  int64_t allocations = 0;
};

struct XlaBufferAssignment {
  std::string source;                      // the file it came from
  std::string module_name;                 // from the HloProto's module ("" from a text dump)
  std::vector<XlaAllocation> allocations;  // by index
  std::vector<XlaHeapTrace> heap_traces;   // empty when the dump has none (text dumps)
  // "Total bytes used" as the dump states it (text dumps); checked against the allocations.
  std::optional<int64_t> stated_total_bytes;
  // Every async-wrapped instruction of the HloProto's module (empty from a text dump, which
  // does not say which computation an async op calls).
  std::vector<XlaAsyncWrapping> async_wrappings;
  // XLA's unique id of every instruction of the HloProto's module, by name (empty from a text
  // dump). XLA hands ids out as instructions are added to their computation, so they give the
  // order of its in-memory instruction lists, which the HloProto's own order (a post order)
  // and the schedule do not; the XLA assignment model walks call sites in it
  // (XlaModelOptions::instruction_ids).
  absl::flat_hash_map<std::string, int64_t> instruction_ids;
  // XLA's peak from the heap-simulator traces of an HloProto, padded (ComputePeakMemory); none
  // from a text dump, which has neither the traces nor the logical buffers' own sizes.
  std::optional<int64_t> peak_bytes;
  // The same peak unpadded (ComputePeakMemorySizes), when the module gives every logical
  // buffer's defining instruction a shape; otherwise none, and peak_unpadded_unknown says why
  // (a hand-made or damaged dump: the rest of it is still read).
  std::optional<int64_t> peak_unpadded_bytes;
  std::string peak_unpadded_unknown;

  XlaAllocationTotals Totals() const;
  // Per memory space that has an allocation, by memory space.
  std::vector<XlaMemorySpaceTotals> MemorySpaces() const;
  // The value with this id, or null (a linear search).
  const XlaAssignedValue* FindValue(int64_t id) const;
};

// From the bytes of an HloProto (a `*.hlo.pb` dump): field 3, the BufferAssignmentProto, with
// the module's instruction names (field 1) to name values written with ids only. `filename`
// is for messages. Errors: bytes that are not a protobuf (with the byte offset where the wire
// format breaks), no buffer assignment in it, a value or trace event that names an instruction
// or buffer the proto does not define, a logical buffer of negative size, a peak past int64
// bytes. (What keeps only the unpadded peak from being computed is not an error:
// peak_unpadded_unknown.)
absl::StatusOr<XlaBufferAssignment> ReadXlaBufferAssignmentProto(std::string_view bytes,
                                                                 std::string_view filename);

// Whether `bytes` look like an HloProto that carries XLA's buffer assignment (its top-level
// fields are the module and one assignment): for a caller that has read a module from a
// `.hlo.pb` and wants XLA's assignment beside ours when there is one. A bare HloModuleProto
// (which also uses field numbers 1 and 3) gives false.
bool HasXlaBufferAssignment(std::string_view bytes);

// From XLA's `*-buffer-assignment.txt` (BufferAssignment::ToString; the stats and peak-buffer
// blocks of ToVerboseString before it are skipped). Errors name `filename:line:col`.
absl::StatusOr<XlaBufferAssignment> ParseXlaBufferAssignmentText(std::string_view text,
                                                                 std::string_view filename);

// From XLA's `*-memory-usage-report.txt`: only "Total bytes used" and the allocation count are
// exact there (the sizes per allocation are rounded), so only those are read.
struct XlaMemoryUsageReport {
  int64_t total_bytes = 0;
  int64_t allocations = 0;
};
absl::StatusOr<XlaMemoryUsageReport> ParseXlaMemoryUsageReport(std::string_view text,
                                                               std::string_view filename);

// A file's contents, the reader picked by content: the text dump when it starts with
// "BufferAssignment" or "allocation ", else an HloProto. A memory usage report is refused (its
// sizes are rounded: there is nothing exact to compare but the total).
absl::StatusOr<XlaBufferAssignment> ParseXlaBufferAssignment(std::string_view contents,
                                                             std::string_view filename);

// The assignment belongs to `module`: every value's instruction is one of its instructions.
// Otherwise "buffer assignment does not match module 'M': no instruction 'foo' (allocation 3)"
// for the first value (by allocation, then id) that is not: an assignment of another
// compilation is never joined to this module.
absl::Status ResolveXlaBufferAssignment(const XlaBufferAssignment& assignment,
                                        const Module& module);

// The assignment with its values named on `module`: a value (and a heap-simulator event) of an
// async-wrapped instruction that `module` does not have (it prints the async op in XLA's short
// form) becomes the value at {1, index...} of the async-start around it, when `module` has
// that async-start; every other value keeps its name. Then checked as by
// ResolveXlaBufferAssignment: a value with no counterpart is that error, never dropped.
absl::StatusOr<XlaBufferAssignment> MapXlaBufferAssignmentOntoModule(
    const XlaBufferAssignment& assignment, const Module& module);

// "name" or "name{1,0}" (XLA's HloValue short form without id and color).
std::string XlaValueName(const XlaAssignedValue& value);

}  // namespace hloscope
