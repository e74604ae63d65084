// What changed in memory between two versions of a module (`hlo-opt --memory-diff A B`): the
// peak before and after; the buffers live at the peak that are new, gone, grown or shrunk; the
// copies added and removed; and the instruction count per opcode where it changed.
//
//   absl::StatusOr<MemoryDiff> d = DiffModules(before, after, options);
//   absl::StatusOr<std::string> json = PrintMemoryDiff(*d, {.format = MemoryFormat::kJson});
//
// The two modules are profiled alike (memory_profile.h ProfileModule with the same options; the
// caller flattens their call graphs first, as for the memory report). A buffer at one peak is
// matched with one at the other peak first by op_name and shape (a pass renames instructions
// but rarely their metadata), then by instruction name; a match of another size is grown or
// shrunk, an unmatched buffer at the after peak is new and one at the before peak gone. Both
// rules need the same kind (a second copy is not the buffer it copies; memory_profile.h
// LiveBufferKind). Copies are `copy` instructions outside fusions, matched by the same rules.
// Each rule pairs buffers one to one: among several candidates, the one of the same name first,
// then in order of size.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "analysis/memory/memory_comparison.h"
#include "analysis/memory/memory_profile.h"
#include "hlo/module.h"
#include "support/option_spelling.h"

namespace hloscope {

enum class PeakBufferChange { kNew, kGone, kGrown, kShrunk };

// "new", "gone", "grown" or "shrunk": the reports' words (text, JSON, HTML).
std::string_view PeakBufferChangeName(PeakBufferChange change);

// One buffer live at a peak that differs between the two modules.
struct PeakBufferDiff {
  PeakBufferChange change = PeakBufferChange::kNew;
  LiveBuffer before;       // empty (bytes 0) when new
  LiveBuffer after;        // empty (bytes 0) when gone
  std::string matched_by;  // "op_name and shape" or "name"; empty when new or gone
  int64_t delta_bytes() const { return after.bytes - before.bytes; }
};

// A `copy` instruction of one module and not of the other.
struct CopyChange {
  std::string instruction;
  std::string computation;
  std::string shape;
  std::string op_name;
  int64_t bytes = 0;     // of the copy's result
  bool in_loop = false;  // in a while body or condition, or in something they call
};

// An opcode whose instruction count changed (every computation, fusions' included).
struct OpcodeCountChange {
  std::string opcode;
  int64_t before = 0;
  int64_t after = 0;
};

// Copies added or removed, every one and not only the ones listed.
struct CopyChangeTotal {
  int64_t copies = 0;
  int64_t bytes = 0;  // of their results, summed
};

// Totals of one kind of change, of every buffer and not only the ones listed.
struct PeakChangeTotal {
  int64_t buffers = 0;
  int64_t delta_bytes = 0;  // after - before, summed
};

struct MemoryDiff {
  // The memory report of each module (ProfileModule), for the peaks and the HTML page's plot.
  MemoryReport before;
  MemoryReport after;
  // Buffers live at the peak, by kind of change, largest change first; each list at most
  // MemoryOptions::top_buffers long (the totals count them all).
  std::vector<PeakBufferDiff> new_buffers;
  std::vector<PeakBufferDiff> gone_buffers;
  std::vector<PeakBufferDiff> grown_buffers;
  std::vector<PeakBufferDiff> shrunk_buffers;
  PeakChangeTotal new_total, gone_total, grown_total, shrunk_total;
  int64_t unchanged_buffers = 0;  // matched, same size
  int64_t peak_buffers_before = 0;
  int64_t peak_buffers_after = 0;
  // Copies (outside fusions) added and removed, largest first, each list at most
  // MemoryOptions::top_buffers long (the totals count them all).
  int64_t copies_before = 0;
  int64_t copies_after = 0;
  std::vector<CopyChange> copies_added;
  std::vector<CopyChange> copies_removed;
  CopyChangeTotal copies_added_total, copies_removed_total;
  // Instructions in all computations, and per opcode where the count changed (by opcode).
  int64_t instructions_before = 0;
  int64_t instructions_after = 0;
  std::vector<OpcodeCountChange> opcodes;

  int64_t peak_delta_bytes() const { return after.peak_bytes - before.peak_bytes; }
  bool saturated() const { return before.saturated || after.saturated; }
};

// Matches the buffers live at two peaks by the rules above and fills the buffer lists, totals
// and counts of *diff (keeping at most `top` per list). Used by DiffModules; public for tests.
void DiffPeakBuffers(const std::vector<LiveBuffer>& before, const std::vector<LiveBuffer>& after,
                     int top, MemoryDiff* diff);

// Profiles both modules with `options` (every buffer at the peak is compared; top_buffers only
// bounds the lists) and compares them. Errors: the profiler's, for either module, after
// "NAME: " with `before_name` or `after_name` (a tool passes the files).
absl::StatusOr<MemoryDiff> DiffModules(const Module& before, const Module& after,
                                       const MemoryOptions& options,
                                       std::string_view before_name = "before",
                                       std::string_view after_name = "after");

struct MemoryDiffPrintOptions {
  MemoryFormat format = MemoryFormat::kText;  // text, JSON or HTML; CSV is refused
  // What the two modules are called in the report (their files); the module names when empty.
  std::string before_label = {};
  std::string after_label = {};
  // How the caller names the options a hint points at ("top"), e.g. as its flags.
  OptionSpelling option_spelling = {};
};

// The diff in one format: text, JSON (analysis/memory/memory_diff.proto) or a self-contained
// HTML page. Errors: CSV, or protobuf's JSON printer failing.
absl::StatusOr<std::string> PrintMemoryDiff(const MemoryDiff& diff,
                                            const MemoryDiffPrintOptions& options);

}  // namespace hloscope
