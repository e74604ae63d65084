#include "tools/hlo_opt_analysis.h"

#include <optional>
#include <string_view>

#include "absl/status/status.h"

namespace hloscope {

void AddAnalysisFlags(FlagTable& table, AnalysisFlags& flags) {
  table.Add(SwitchFlag({"--print-dataflow"}, &flags.print_dataflow,
                       "Print, for each instruction and shape index, the values it may hold\n"
                       "(defining instruction and index, '(phi)' for merge values)."));
  table.Add(SwitchFlag({"--print-buffers"}, &flags.print_buffers,
                       "Print each buffer (values that must share storage) with its bytes."));
  table.Add({.names = {"--bitcast-defines-value"},
             .value = FlagValue::kRequired,
             .placeholder = "true|false",
             .help = "Whether a bitcast defines a new value (default false: an alias).",
             .handler = [&flags](std::optional<std::string_view> value) {
               if (value != "true" && value != "false") {
                 return FlagError("option '--bitcast-defines-value' needs 'true' or 'false'");
               }
               flags.print.dataflow.bitcast_defines_value = value == "true";
               return absl::OkStatus();
             }});
}

absl::Status AppendAnalysisReports(const Module& module, const AnalysisFlags& flags,
                                   std::string& out) {
  AnalysisCache analyses(module);
  return AppendAnalysisReports(analyses, flags, out);
}

absl::Status AppendAnalysisReports(AnalysisCache& analyses, const AnalysisFlags& flags,
                                   std::string& out) {
  // The alias analysis first: its dataflow is the one --print-dataflow prints when the options
  // agree, so both reports cost one analysis.
  const AliasAnalysis* alias = nullptr;
  if (flags.print_buffers) {
    absl::StatusOr<const AliasAnalysis*> a = analyses.Alias(flags.print.dataflow);
    if (!a.ok()) return a.status();
    alias = *a;
  }
  if (flags.print_dataflow) {
    absl::StatusOr<const DataflowAnalysis*> flow = analyses.Dataflow(flags.print.dataflow);
    if (!flow.ok()) return flow.status();
    absl::StatusOr<std::string> text = PrintDataflow(**flow, flags.print);
    if (!text.ok()) return text.status();
    out += *text;
  }
  if (alias != nullptr) {
    absl::StatusOr<std::string> text = PrintBuffers(*alias, flags.print);
    if (!text.ok()) return text.status();
    out += *text;
  }
  return absl::OkStatus();
}

}  // namespace hloscope
