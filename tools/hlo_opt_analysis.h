// The analysis printers of hlo-opt: `--print-dataflow` and `--print-buffers`, as text or as
// JSON (schema: analysis/dataflow_report.proto, printed by protobuf's JSON printer with the
// proto field names). Kept out of hlo_opt.cc so the tool's main stays a thin flag handler.
//
//   absl::StatusOr<std::string> text = PrintDataflow(module, {.format = ReportFormat::kJson});
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "analysis/dataflow.h"
#include "hlo/module.h"

namespace hloscope {

enum class ReportFormat { kText, kJson };

struct AnalysisPrintOptions {
  ReportFormat format = ReportFormat::kText;
  bool bitcast_defines_value = false;
};

// For each computation, instruction and shape index: the values that may be there, as
// `name{index}: def{index}, def{index} (phi)`.
absl::StatusOr<std::string> PrintDataflow(const Module& module,
                                          const AnalysisPrintOptions& options);

// Each buffer with its bytes, live-out mark and values:
// `buffer 3: 64 bytes, live-out: p{}, dus{}`.
absl::StatusOr<std::string> PrintBuffers(const Module& module, const AnalysisPrintOptions& options);

// --- flag handling, so hlo_opt.cc needs only a few lines to offer the printers ---

struct AnalysisFlags {
  bool print_dataflow = false;
  bool print_buffers = false;
  AnalysisPrintOptions print;
  bool any() const { return print_dataflow || print_buffers; }
};

// Lines for hlo-opt's --help OPTIONS section.
extern const char kAnalysisFlagsHelp[];

enum class AnalysisFlagResult { kNotAnalysisFlag, kTaken, kBadValue };

// Handles `--print-dataflow`, `--print-buffers`, `--bitcast-defines-value=true|false` and
// `--format=text|json` (`value` is what followed '=' or nullopt). kBadValue sets *error to a
// usage message.
AnalysisFlagResult ParseAnalysisFlag(std::string_view name, std::optional<std::string_view> value,
                                     AnalysisFlags& flags, std::string* error);

// Appends the requested reports (dataflow first) to `out`.
absl::Status AppendAnalysisReports(const Module& module, const AnalysisFlags& flags,
                                   std::string& out);

}  // namespace hloscope
