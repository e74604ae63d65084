// hlo-opt's `--report` (a summary per module on stderr) and `--report=FILE.json` (every copy's
// decision as JSON, schema passes/copy_elision_report.proto, protobuf's JSON printer with the
// proto field names). The reports themselves are the passes' (Pass::LastReport(),
// passes/copy_elision_report.h); this file parses the flag, prints and writes the file.
//
//   CopyReportFlags flags;                          // filled by AddCopyReportFlags' row
//   CheckCopyReportPasses(pipeline, flags);          // before any module
//   CopyReportCollector reports(flags);
//   std::optional<CopyOpportunities> found =         // after the pipeline ran on each module
//       FindCopyReportOpportunities(pipeline, module, as_given);
//   reports.Collect(pipeline, module, found ? &*found : nullptr);
//   reports.Finish();                               // writes FILE.json
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "hlo/module.h"
#include "passes/copy_report_opportunities.h"
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
// report, or with --opportunities when copy-elision is not one of them; empty otherwise.
std::string CheckCopyReportPasses(const PassPipeline* pipeline, const CopyReportFlags& flags);

class CopyReportCollector {
 public:
  explicit CopyReportCollector(const CopyReportFlags& flags);
  ~CopyReportCollector();
  // Reads the reports of the passes of `pipeline` after it ran on `module`; prints their
  // summaries to stderr in summary mode. A report's warning (copy-elision left a module that
  // is not buffer-safe alone) gets a `hlo-opt: warning:` line on stderr in every other mode
  // (the exit status stays 0: the output is the input, valid and unchanged).
  // `opportunities` (may be null): what FindCopyReportOpportunities (passes/copy_report_
  // opportunities.h) found for the module.
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
