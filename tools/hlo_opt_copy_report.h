// hlo-opt's copy-elision flags: `--report` (a summary per module on stderr) and
// `--report=FILE.json` (every copy's decision as JSON, schema passes/copy_elision_report.proto,
// protobuf's JSON printer with the proto field names). Kept out of hlo_opt.cc so the tool's
// main stays a thin flag handler.
//
//   CopyReportFlags flags;                          // filled by ParseCopyReportFlag
//   ConfigureCopyElision(*pipeline, bitcast_defines_value, flags);   // before any module
//   CopyReportCollector reports(flags);
//   reports.Collect(*pipeline, module);             // after the pipeline ran on each module
//   reports.Finish();                               // writes FILE.json
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "hlo/module.h"
#include "passes/copy_elision.h"
#include "passes/copy_insertion.h"
#include "passes/pass_pipeline.h"

namespace hloscope {

struct CopyReportFlags {
  bool report = false;
  std::string file;  // empty: summary on stderr
};

// Lines for hlo-opt's --help OPTIONS section.
extern const char kCopyReportFlagsHelp[];

enum class CopyReportFlagResult { kNotCopyReportFlag, kTaken, kBadValue };

// Handles `--report` and `--report=FILE` (`value` is what followed '=' or nullopt). kBadValue
// sets *error to a usage message.
CopyReportFlagResult ParseCopyReportFlag(std::string_view name,
                                         std::optional<std::string_view> value,
                                         CopyReportFlags& flags, std::string* error);

// Gives every copy-elision pass of `pipeline` (may be null) the bitcast mode. Returns a usage
// message when --report was asked for but no copy-elision pass will run; empty otherwise.
std::string ConfigureCopyElision(PassPipeline* pipeline, bool bitcast_defines_value,
                                 const CopyReportFlags& flags);

// "copy-elision on M: 5 of 6 copies removed, 80.0 MiB of copy traffic saved per step" and one
// line per copy; for a module that is not buffer-safe as given, one line saying so, with the
// first conflict and the passes to run instead.
std::string CopyReportSummary(const CopyElisionReport& report, std::string_view module);
// "copy-insertion on M: 3 copies inserted" and one line per copy with its rule and why.
std::string CopyInsertionSummary(const CopyInsertionReport& report, std::string_view module);

class CopyReportCollector {
 public:
  explicit CopyReportCollector(const CopyReportFlags& flags);
  ~CopyReportCollector();
  // Reads the reports of the copy-elision passes of `pipeline` after it ran on `module`;
  // prints the summary to stderr in summary mode. A module copy-elision left alone because it
  // is not buffer-safe gets a `hlo-opt: warning:` line on stderr in every mode (the exit
  // status stays 0: the output is the input, valid and unchanged).
  void Collect(const PassPipeline* pipeline, const Module& module);
  // Writes the JSON file (JSON mode); the error names the file.
  absl::Status Finish();

 private:
  struct State;
  void CollectInsertion(const CopyInsertionReport& r, const Module& module);
  const CopyReportFlags& flags_;
  std::unique_ptr<State> state_;
};

}  // namespace hloscope
