// hlo-opt's command line: its flags (one table, tools/common/flag_table.h, to which the analysis,
// memory-report, copy-report and stage-costs groups add their rows), the combination checks and
// the help text. Kept out of hlo_opt.cc so tests can parse exactly what the tool parses.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "hlo/printer.h"
#include "tools/common/flag_table.h"
#include "tools/hlo-opt/hlo_opt_analysis.h"
#include "tools/hlo-opt/hlo_opt_copy_report.h"
#include "tools/hlo-opt/hlo_opt_memory.h"
#include "tools/hlo-opt/hlo_opt_memory_diff.h"
#include "tools/hlo-opt/hlo_opt_output_format.h"
#include "tools/hlo-opt/hlo_opt_stage_costs.h"
#include "tools/hlo-opt/hlo_opt_xla_dump.h"
#include "tools/common/load_input.h"

namespace hloscope {

struct HloOptFlags {
  std::string input = "-";
  std::string output = "-";
  std::string passes;
  bool list_passes = false;
  bool split_input_file = false;
  bool verify_each = false;
  bool no_metadata = false;
  bool stats = false;
  bool check_in_place = false;
  bool help = false;
  int jobs = 0;  // 0: one per core
  PrintStyle style = PrintStyle::kCanonical;
  // --input-format (tools/common/load_input.h); unset: by content, then by extension.
  std::optional<InputFormat> input_format;
  // --output-format (tools/hlo-opt/hlo_opt_output_format.h); unset: by -o's extension.
  std::optional<OutputFormat> output_format;
  AnalysisFlags analysis;                // --print-dataflow, --print-buffers and their options
  MemoryFlags memory;                    // --memory-report and its options
  MemoryDiffFlags memory_diff;           // --memory-diff A B (tools/hlo-opt/hlo_opt_memory_diff.h)
  CopyReportFlags copy_report;           // --report[=FILE.json] of copy-elision
  StageCostsFlags stage_costs;           // --stage-costs[=FILE] and --tflops
  XlaDumpFlags xla_dump;                 // --xla-dump=DIR and --module
  bool input_seen = false;               // FILE was given (not the default '-')
  std::vector<std::string> more_inputs;  // --memory-report --stage-by=module: one per stage
};

// The table whose handlers fill `flags` (which must outlive it).
FlagTable HloOptFlagTable(HloOptFlags& flags);

// Parses argv into *flags and checks the flags together. The error's message is the usage
// error as hlo-opt prints it.
absl::Status ParseHloOptFlags(int argc, char** argv, HloOptFlags* flags);

// What --memory-diff is checked against and reads: the positional files (the first only when
// `input_seen`), -o, and a flag that asks for another output of hlo-opt.
MemoryDiffContext MemoryDiffContextOf(const HloOptFlags& f, bool input_seen);

// The whole --help text.
std::string HloOptHelp();

}  // namespace hloscope
