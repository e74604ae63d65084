// hlo-opt's `--report` (a summary per module on stderr) and `--report=FILE.json` (every copy's
// decision as JSON, schema passes/copy_elision_report.proto, protobuf's JSON printer with the
// proto field names). The reports themselves are the passes' (Pass::LastReport(),
// passes/copy_elision_report.h); this file parses the flag, prints and writes the file.
//
//   CopyReportFlags flags;                          // filled by AddCopyReportFlags' row
//   CheckCopyReportPasses(pipeline, flags);          // before any module
//   CopyReportCollector reports(flags);
//   std::optional<CopyOpportunities> found =         // after the pipeline ran on each module
//       FindCopyReportOpportunities(pipeline, as_given);
//   reports.Collect(pipeline, module, found ? &*found : nullptr);
//   reports.Finish();                               // writes FILE.json
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "hlo/module.h"
#include "passes/copy_opportunities.h"
#include "passes/pass_pipeline.h"
#include "tools/common/flag_table.h"

namespace hloscope {

struct CopyReportFlags {
  bool report = false;
  std::string file;  // empty: summary on stderr
  // --opportunities (with --report): the summary lists them (passes/copy_opportunities.h);
  // without it, a module that has some ends with a one-line hint. JSON lists them always.
  bool opportunities = false;
};

// Adds `--report` and `--report=FILE` to hlo-opt's table.
void AddCopyReportFlags(FlagTable& table, CopyReportFlags& flags);

// A usage message when --report was asked for but no pass of `pipeline` (may be null) writes a
// report; empty otherwise.
std::string CheckCopyReportPasses(const PassPipeline* pipeline, const CopyReportFlags& flags);

// A fresh copy of the module as the pipeline got it (parsed again, with --assume-donated
// applied), or an error.
using ModuleAsGiven = std::function<absl::StatusOr<std::unique_ptr<Module>>()>;

// After `pipeline` ran: the opportunities its last copy-elision pass leaves (nullopt without
// one). The donation what-if is read from that pass's report; the bitcast-hidden copies need
// copy-elision run twice on the module as given (`as_given`), which happens only when the run
// removed a copy or kept one for a bitcast (otherwise there can be none), and not at all
// when `as_given` is empty or fails.
std::optional<CopyOpportunities> FindCopyReportOpportunities(const PassPipeline* pipeline,
                                                             const ModuleAsGiven& as_given);

class CopyReportCollector {
 public:
  explicit CopyReportCollector(const CopyReportFlags& flags);
  ~CopyReportCollector();
  // Reads the reports of the passes of `pipeline` after it ran on `module`; prints their
  // summaries to stderr in summary mode. A report's warning (copy-elision left a module that
  // is not buffer-safe alone) gets a `hlo-opt: warning:` line on stderr in every other mode
  // (the exit status stays 0: the output is the input, valid and unchanged).
  // `opportunities` (may be null): what FindCopyReportOpportunities found for the module.
  void Collect(const PassPipeline* pipeline, const Module& module,
               const CopyOpportunities* opportunities = nullptr);
  // Writes the JSON file (JSON mode); the error names the file.
  absl::Status Finish();

 private:
  struct State;
  const CopyReportFlags& flags_;
  std::unique_ptr<State> state_;
};

}  // namespace hloscope
