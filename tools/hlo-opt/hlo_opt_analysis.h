// hlo-opt's flags for the analysis printers, `--print-dataflow` and `--print-buffers`, whose
// printing is analysis/dataflow_report.h. Kept out of hlo_opt.cc so the tool's main stays a thin
// flag handler.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "analysis/analysis_cache.h"
#include "analysis/dataflow_report.h"
#include "analysis/ordering_query.h"
#include "hlo/module.h"
#include "tools/common/flag_table.h"

namespace hloscope {

// --- flag handling, so hlo_opt.cc needs only a few lines to offer the printers ---

struct AnalysisFlags {
  bool print_dataflow = false;
  bool print_buffers = false;
  bool print_ordering = false;  // analysis/ordering_report.h
  bool print_sharing = false;
  std::vector<std::string> ordering_of;         // --ordering-of=a,b: the instructions asked about
  std::vector<OrderingQuery> ordering_queries;  // --ordering-query=QUERY:ARGS, each one line
  // --ssa-form=false: the union form, for --print-dataflow and --print-ordering only (the alias
  // analysis and the memory profiler always build on the SSA form).
  bool ssa_form = true;
  AnalysisPrintOptions print;
  bool any() const {
    return print_dataflow || print_buffers || print_ordering || print_sharing ||
           !ordering_queries.empty();
  }
};

// Adds `--print-dataflow`, `--print-buffers`, `--print-ordering`, `--print-sharing`,
// `--ordering-of=NAME,...`, `--ordering-query=QUERY:ARGS` (analysis/ordering_query.h),
// `--ssa-form=true|false` and `--bitcast-defines-value=true|false` to
// hlo-opt's table. Their `--format=text|json` is the memory report's --format row
// (AddMemoryFlags), which sets both.
void AddAnalysisFlags(FlagTable& table, AnalysisFlags& flags);

// Appends the requested reports (dataflow, buffers, ordering, sharing) to `out`.
absl::Status AppendAnalysisReports(const Module& module, const AnalysisFlags& flags,
                                   std::string& out);
// The same from the analyses of `analyses` (those the passes left, when the options agree).
absl::Status AppendAnalysisReports(AnalysisCache& analyses, const AnalysisFlags& flags,
                                   std::string& out);

}  // namespace hloscope
