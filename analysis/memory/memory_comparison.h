// The memory report of a set of modules, and of the same modules after a pass pipeline: what
// `hlo-opt --memory-report [--passes=...]` prints. The caller parses, verifies, flattens the
// call graph and runs the passes (the pass layer is above this one); this profiles and prints.
//
//   absl::StatusOr<MemoryComparison> c = ProfileBeforeAfter(before, &after, "copy-elision", {});
//   absl::StatusOr<std::string> text = PrintMemoryComparison(*c, {.format = MemoryFormat::kJson});
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "analysis/memory/memory_profile.h"
#include "analysis/memory/memory_report_pipeline.h"
#include "analysis/memory/xla_assignment_comparison.h"
#include "analysis/memory/xla_model_json.h"
#include "hlo/module.h"
#include "support/option_spelling.h"

namespace hloscope {

struct MemoryComparison {
  MemoryReport before;
  std::optional<MemoryReport> after;  // the modules after `passes`, when passes ran
  std::string passes;                 // the pipeline as given, for the report's title
  // Per stage under a pipeline schedule, of the modules as given (before any passes).
  std::optional<PipelineFigures> pipeline;
  // XLA's own buffer assignment beside ours, for modules (as given) that come with one.
  std::vector<XlaAssignmentComparison> xla;
  // --buffer-assignment: XLA's assignment as modeled, of the modules as given and after the
  // passes; JSON carries them in each module's xla_model_assignment (the text listing is
  // printed by the caller).
  std::vector<XlaModelListing> xla_models;
  std::vector<XlaModelListing> xla_models_after;

  const MemoryReport* after_or_null() const { return after ? &*after : nullptr; }
  // Some sum passed int64 bytes, before or after: the report's numbers are lower bounds.
  bool saturated() const { return before.saturated || (after && after->saturated); }
};

// Profiles `before` (ProfileModules) and, when `after` is set, the modules the passes made.
// With a non-empty `pipeline_schedule`, also runs the before report's stages under that
// schedule with `microbatches` (SimulateStagePipeline). Errors: the profiler's, or the
// schedule's.
absl::StatusOr<MemoryComparison> ProfileBeforeAfter(const std::vector<const Module*>& before,
                                                    const std::vector<const Module*>* after,
                                                    std::string_view passes,
                                                    const MemoryOptions& options,
                                                    std::string_view pipeline_schedule = {},
                                                    int32_t microbatches = 0);

// XLA's own buffer assignment of `module` beside our profile of it, appended to c.xla:
// `contents` is an HloProto's bytes (a `.hlo.pb` dump) or XLA's `-buffer-assignment.txt`
// (chosen by content; `filename` names it in messages). The profile (c.before, a module of the
// same name) must have been made with MemoryOptions::list_allocations. Errors: the reader's
// (file:line:col or byte offset), an assignment of another module (the first instruction it
// names that `module` lacks), a module not in the profile. `top`: differences listed.
// `with_model`: our side is our model of XLA's assignment (CompareModelWithXla: AssignLikeXla of
// `module` at `alignment`, or, at 0, at XlaAlignmentOf(XLA's assignment)) instead of the
// profile's simulated allocations (CompareWithXla). hlo-opt sets it under --memory-model=xla.
absl::Status AddXlaBufferAssignment(MemoryComparison& c, const Module& module,
                                    std::string_view contents, std::string_view filename, int top,
                                    bool with_model = false, int64_t alignment = 0);

// The chunk alignment XLA used, read from its own assignment: the largest power of two up to
// 256 (current XLA:GPU's; older XLA:GPU used 128) that divides the offset of every value in
// its temp allocations (1 when there are none).
int64_t XlaAlignmentOf(const XlaBufferAssignment& xla);

enum class MemoryFormat { kText, kJson, kCsv, kHtml };

struct MemoryPrintOptions {
  MemoryFormat format = MemoryFormat::kText;
  bool buffer_assignment = false;  // text: XLA's BufferAssignment stats per module
  // text, json and html: the device's memory (--memory-limit): "over by X" / "fits with X to
  // spare" per module and stage (memory_limit.h); json: each report's `memory_limit`.
  std::optional<int64_t> memory_limit = std::nullopt;
  // text and html: one line each before the numbers (memory_context.h); json: `warnings`.
  std::vector<std::string> warnings = {};
  // text and html: how the caller names the options a line points at ("passes", "top"),
  // support/option_spelling.h.
  OptionSpelling option_spelling = {};
};

// The comparison in one format (memory_report_printers.h); the pipeline figures go to text,
// JSON and HTML. Fails only if protobuf's JSON printer does.
absl::StatusOr<std::string> PrintMemoryComparison(const MemoryComparison& comparison,
                                                  const MemoryPrintOptions& options);

}  // namespace hloscope
