// hlo-opt's memory report: `--memory-report[=FILE]` with `--format=text|json|csv|html`, the
// stage flags, and the before/after comparison when `--passes` is given. The profiler is
// analysis/memory/memory_profile.h and the comparison and its printers are
// analysis/memory/memory_comparison.h; this file holds the flags and what only a tool does:
// reading the inputs, preparing and transforming the modules (the pass layer is above
// analysis/), writing the output and choosing the exit code, so hlo_opt.cc only forwards to it.
//
//   hlo-opt s0.hlo s1.hlo s2.hlo s3.hlo --memory-report --stage-by=module --format=json
//   hlo-opt model.hlo --passes=copy-elision --memory-report=report.html --format=html
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "analysis/memory/memory_comparison.h"
#include "analysis/memory/memory_profile.h"
#include "passes/assumed_donation.h"
#include "tools/common/flag_table.h"
#include "tools/hlo-opt/hlo_opt_analysis.h"

namespace hloscope {

class PassPipeline;

struct MemoryFlags {
  bool enabled = false;
  std::string output = "-";  // --memory-report=FILE; '-' = standard output
  MemoryFormat format = MemoryFormat::kText;
  bool format_is_memory_only = false;  // csv or html: not a format of the analysis printers
  bool buffer_assignment = false;      // --buffer-assignment: XLA's allocation categories
  // --alignment=N: chunk alignment of the modeled XLA assignment's temp allocation, which
  // --buffer-assignment lists after the report (text format).
  int64_t alignment = 1;
  bool alignment_given = false;  // else XLA's assignment beside ours uses the alignment it shows
  // --multiheap-size-constraint-per-heap=N: XLA's --xla_multiheap_size_constraint_per_heap for
  // the modeled assignment --buffer-assignment lists (-1: no limit, XLA's default).
  int64_t multiheap_size_constraint_per_heap = -1;
  // --pipeline-schedule=NAME --microbatches=M: per stage, what the schedule makes of the
  // activations (analysis/memory/memory_report_pipeline.h); empty: none.
  std::string pipeline_schedule;
  int32_t microbatches = 0;
  // --xla-buffer-assignment=FILE: XLA's own assignment of the module, shown beside ours.
  std::string xla_buffer_assignment;
  // --memory-limit=SIZE: the device's memory, held against each module's and stage's peak.
  std::optional<int64_t> memory_limit;
  // --opportunities: the text report ends with what could lower the peak
  // (tools/hlo-opt/hlo_opt_memory_opportunities.h).
  bool opportunities = false;
  // --assume-donated=all|LIST: entry parameters taken as donated by the caller, for the passes
  // and the memory report (passes/assumed_donation.h); the value as given, for the report.
  std::optional<DonationAssumption> assume_donated;
  std::string assume_donated_text;
  MemoryOptions options;
};

// Adds --memory-report[=FILE], --format=text|json|csv|html (text and json also set the analysis
// printers' format, which --format shares), --stage-by=module|attr:NAME, --stage-regex=RE,
// --forward-regex=RE, --backward-regex=RE, --dim-value=N, --top=N, --count-tuple-tables,
// --memory-model=liveness|xla, --schedule=text|dfs|list|post-order|min,
// --timeline=entry|whole-program, --buffer-assignment, --alignment=N,
// --multiheap-size-constraint-per-heap=N, --pipeline-schedule=NAME,
// --microbatches=M, --memory-limit=SIZE, --opportunities and --assume-donated=all|LIST to
// hlo-opt's table.
void AddMemoryFlags(FlagTable& table, MemoryFlags& flags, AnalysisFlags& analysis);

// The warnings for donated elements that no output could take (none for `all`), to stderr.
void PrintUnusedDonations(const DonationAssumption& assumption, const DonationResult& result);

// Checks the flags together once all are parsed: an empty string, or the usage error.
std::string CheckMemoryFlags(const MemoryFlags& flags, const AnalysisFlags& analysis, bool stats,
                             size_t input_files);

struct MemoryInput {
  std::string filename;   // for messages
  std::string_view text;  // kept by the caller (an InputFile: mapped, tools/common/file_io.h)
};

// Parses and verifies every module (every `// -----` part with split_input_file), runs
// flatten-call-graph on it (the analyses need one call site per control-flow callee), profiles
// it, and when `pipeline` is set runs the passes on a second copy and profiles that too
// (ProfileBeforeAfter). Writes the report to flags.output. Returns hlo-opt's exit code (0, 1 bad
// input, 2 usage). `after_passes`, when set, sees each module after the pipeline ran on it (hlo-opt
// collects copy-elision's --report there), with a way to parse that module again as given
// (--assume-donated applied, call graph flattened) for the copy report's opportunities.
// XLA's own buffer assignment to show beside ours: a `-buffer-assignment.txt` or the bytes of
// an HloProto (`.hlo.pb`), chosen by content. hlo-opt reads --xla-buffer-assignment=FILE into
// one; a caller that read the module itself from an HloProto passes the same bytes.
struct XlaAssignmentSource {
  std::string filename;       // for messages
  std::string_view contents;  // kept by the caller
  // Found inside the module's own dump rather than asked for: an assignment that cannot be
  // shown beside the module is a warning on stderr and the report goes on without it.
  bool from_module_dump = false;
};

// With `xla` (or flags.xla_buffer_assignment, read here when `xla` is null), the one module
// given is profiled with its simulated allocations and XLA's assignment is shown beside it
// (AddXlaBufferAssignment); an assignment of another module is refused (exit 1).
// Where a report whose sizes saturated goes instead of --memory-report=FILE: `FILE.partial`.
std::string PartialMemoryReportPath(const std::string& output);
// Where a report goes: `output` itself, or, when its sizes saturated and `output` names a file
// to keep (not '-', a device, a FIFO), PartialMemoryReportPath(output), so that FILE stays as it
// was. The memory report and the memory diff (hlo_opt_memory_diff.h) follow this one rule.
std::string ReportPathFor(const std::string& output, bool saturated);
// Writes a report to ReportPathFor(output, saturated); a report whose sizes saturated is written
// (it says which numbers are bounds) but is no success. The exit code: 0, 1 when saturated, 2
// when the file cannot be written (errors printed).
int WriteMemoryReport(const std::string& output, bool saturated, const std::string& text);

using AfterPasses = std::function<void(
    const Module& after, const std::function<absl::StatusOr<std::unique_ptr<Module>>()>& as_given)>;

int RunMemoryReport(const std::vector<MemoryInput>& inputs, bool split_input_file,
                    PassPipeline* pipeline, std::string_view passes, const MemoryFlags& flags,
                    const AfterPasses& after_passes = {}, const XlaAssignmentSource* xla = nullptr);

}  // namespace hloscope
