// hlo-opt's flags for the analysis printers, `--print-dataflow` and `--print-buffers`, whose
// printing is analysis/dataflow_report.h. Kept out of hlo_opt.cc so the tool's main stays a thin
// flag handler.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "analysis/analysis_cache.h"
#include "analysis/dataflow_report.h"
#include "hlo/module.h"
#include "tools/flag_table.h"

namespace hloscope {

// --- flag handling, so hlo_opt.cc needs only a few lines to offer the printers ---

struct AnalysisFlags {
  bool print_dataflow = false;
  bool print_buffers = false;
  AnalysisPrintOptions print;
  bool any() const { return print_dataflow || print_buffers; }
};

// Adds `--print-dataflow`, `--print-buffers` and `--bitcast-defines-value=true|false` to
// hlo-opt's table. Their `--format=text|json` is the memory report's --format row
// (AddMemoryFlags), which sets both.
void AddAnalysisFlags(FlagTable& table, AnalysisFlags& flags);

// Appends the requested reports (dataflow first) to `out`.
absl::Status AppendAnalysisReports(const Module& module, const AnalysisFlags& flags,
                                   std::string& out);
// The same from the analyses of `analyses` (those the passes left, when the options agree).
absl::Status AppendAnalysisReports(AnalysisCache& analyses, const AnalysisFlags& flags,
                                   std::string& out);

}  // namespace hloscope
