// The dataflow and buffer reports (`hlo-opt --print-dataflow`, `--print-buffers`): as text, or
// as JSON through analysis/dataflow_report.proto (this library's schema) and protobuf's JSON
// printer with the proto field names. The proto is filled straight from the analyses: there is
// no C++ struct of the report to keep in step with it.
//
//   absl::StatusOr<std::string> text = PrintDataflow(module, {.format = ReportFormat::kJson});
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "analysis/dataflow_options.h"
#include "hlo/module.h"

namespace hloscope {

class AliasAnalysis;
class DataflowAnalysis;

enum class ReportFormat { kText, kJson };

struct AnalysisPrintOptions {
  ReportFormat format = ReportFormat::kText;
  // Of the analyses printed (dataflow_options.h); the JSON says bitcast_defines_value.
  DataflowOptions dataflow = {};
};

// For each computation, instruction and shape index: the values that may be there, as
// `name{index}: def{index}, def{index} (phi)`.
absl::StatusOr<std::string> PrintDataflow(const Module& module,
                                          const AnalysisPrintOptions& options);

// Each buffer with its bytes, live-out mark and values:
// `buffer 3: 64 bytes, live-out: p{}, dus{}`.
absl::StatusOr<std::string> PrintBuffers(const Module& module, const AnalysisPrintOptions& options);

// The same reports of analyses already built (e.g. taken from an AnalysisCache shared with the
// passes, analysis_cache.h), built with `options.dataflow`; they print the analysis's module.
absl::StatusOr<std::string> PrintDataflow(const DataflowAnalysis& flow,
                                          const AnalysisPrintOptions& options);
absl::StatusOr<std::string> PrintBuffers(const AliasAnalysis& alias,
                                         const AnalysisPrintOptions& options);

}  // namespace hloscope
