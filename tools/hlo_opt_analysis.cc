#include "tools/hlo_opt_analysis.h"

#include "analysis/ordering_report.h"
#include "fmt/format.h"

namespace hloscope {

const char kAnalysisFlagsHelp[] =
    "  --print-dataflow       Print, for each instruction and shape index, the values it may hold\n"
    "                         (defining instruction and index, '(phi)' for merge values).\n"
    "  --print-buffers        Print each buffer (values that must share storage) with its bytes.\n"
    "  --bitcast-defines-value=true|false\n"
    "                         Whether a bitcast defines a new value (default false: an alias).\n"
    "  --format=text|json     Output of the two printers; JSON follows\n"
    "                         analysis/dataflow_report.proto with its field names.\n"
    "  --print-ordering       Print, for every pair of instructions, executes-before; for every\n"
    "                         value its uses; for every pair of values defined-before,\n"
    "                         live-range-strictly-before (with the reason when false) and\n"
    "                         may-interfere. Quadratic: for small modules (text only).\n"
    "  --print-sharing        Print each instruction's in-place pairs and, for every operand and\n"
    "                         output index, can-share-operand-buffer (text only).\n"
    "  --ordering-of=NAME,... Ask --print-ordering / --print-sharing about these instructions\n"
    "                         only (and the values they define).\n"
    "  --ssa-form=true|false  Dataflow of --print-dataflow and --print-ordering: phi values at\n"
    "                         merge points (default true), or the union of what reaches them.\n";

AnalysisFlagResult ParseAnalysisFlag(std::string_view name, std::optional<std::string_view> value,
                                     AnalysisFlags& flags, std::string* error) {
  auto no_value = [&](bool* out) {
    if (value) {
      *error = fmt::format("option '{}' takes no value", name);
      return AnalysisFlagResult::kBadValue;
    }
    *out = true;
    return AnalysisFlagResult::kTaken;
  };
  if (name == "--print-dataflow") return no_value(&flags.print_dataflow);
  if (name == "--print-buffers") return no_value(&flags.print_buffers);
  if (name == "--print-ordering") return no_value(&flags.print_ordering);
  if (name == "--print-sharing") return no_value(&flags.print_sharing);
  if (name == "--ordering-of") {
    if (!value || value->empty()) {
      *error = "option '--ordering-of' needs a comma-separated list of instruction names";
      return AnalysisFlagResult::kBadValue;
    }
    for (std::string_view rest = *value; !rest.empty();) {
      const size_t comma = rest.find(',');
      std::string_view name_part = rest.substr(0, comma);
      if (name_part.empty()) {
        *error = fmt::format("option '--ordering-of' has an empty name in '{}'", *value);
        return AnalysisFlagResult::kBadValue;
      }
      flags.ordering_of.emplace_back(name_part);
      rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
      if (comma != std::string_view::npos && rest.empty()) {
        *error = fmt::format("option '--ordering-of' has an empty name in '{}'", *value);
        return AnalysisFlagResult::kBadValue;
      }
    }
    return AnalysisFlagResult::kTaken;
  }
  if (name == "--ssa-form") {
    if (value == "true") {
      flags.ssa_form = true;
    } else if (value == "false") {
      flags.ssa_form = false;
    } else {
      *error = "option '--ssa-form' needs 'true' or 'false'";
      return AnalysisFlagResult::kBadValue;
    }
    return AnalysisFlagResult::kTaken;
  }
  if (name == "--bitcast-defines-value") {
    if (value == "true") {
      flags.print.dataflow.bitcast_defines_value = true;
    } else if (value == "false") {
      flags.print.dataflow.bitcast_defines_value = false;
    } else {
      *error = "option '--bitcast-defines-value' needs 'true' or 'false'";
      return AnalysisFlagResult::kBadValue;
    }
    return AnalysisFlagResult::kTaken;
  }
  if (name == "--format") {
    if (value == "text") {
      flags.print.format = ReportFormat::kText;
    } else if (value == "json") {
      flags.print.format = ReportFormat::kJson;
    } else {
      *error = "option '--format' needs 'text' or 'json'";
      return AnalysisFlagResult::kBadValue;
    }
    return AnalysisFlagResult::kTaken;
  }
  return AnalysisFlagResult::kNotAnalysisFlag;
}

absl::Status AppendAnalysisReports(const Module& module, const AnalysisFlags& flags,
                                   std::string& out) {
  AnalysisCache analyses(module);
  return AppendAnalysisReports(analyses, flags, out);
}

absl::Status AppendAnalysisReports(AnalysisCache& analyses, const AnalysisFlags& flags,
                                   std::string& out) {
  if (!flags.ssa_form &&
      (flags.print_buffers || (!flags.print_dataflow && !flags.print_ordering))) {
    return absl::InvalidArgumentError(
        "--ssa-form=false applies to --print-dataflow and --print-ordering only (buffers are "
        "always built from the SSA form)");
  }
  // The dataflow those two print: the union form when asked.
  AnalysisPrintOptions flow_print = flags.print;
  flow_print.dataflow.ssa_form = flags.ssa_form;
  // The alias analysis first: its dataflow is the one --print-dataflow prints when the options
  // agree, so both reports cost one analysis.
  const AliasAnalysis* alias = nullptr;
  if (flags.print_buffers) {
    absl::StatusOr<const AliasAnalysis*> a = analyses.Alias(flags.print.dataflow);
    if (!a.ok()) return a.status();
    alias = *a;
  }
  if (flags.print_dataflow) {
    absl::StatusOr<const DataflowAnalysis*> flow = analyses.Dataflow(flow_print.dataflow);
    if (!flow.ok()) return flow.status();
    absl::StatusOr<std::string> text = PrintDataflow(**flow, flow_print);
    if (!text.ok()) return text.status();
    out += *text;
  }
  if (alias != nullptr) {
    absl::StatusOr<std::string> text = PrintBuffers(*alias, flags.print);
    if (!text.ok()) return text.status();
    out += *text;
  }
  if (!flags.print_ordering && !flags.print_sharing) {
    if (!flags.ordering_of.empty()) {
      return absl::InvalidArgumentError(
          "--ordering-of names the instructions of --print-ordering or --print-sharing; give one");
    }
    return absl::OkStatus();
  }
  if (flags.print.format == ReportFormat::kJson) {
    return absl::InvalidArgumentError(
        "--print-ordering and --print-sharing print text only; drop --format=json");
  }
  OrderingPrintOptions ordering_options;
  ordering_options.dataflow = flow_print.dataflow;
  ordering_options.instructions = flags.ordering_of;
  const Module& module = analyses.module();
  if (flags.print_ordering) {
    absl::StatusOr<std::string> text = PrintOrdering(module, ordering_options);
    if (!text.ok()) return text.status();
    out += *text;
  }
  if (flags.print_sharing) {
    absl::StatusOr<std::string> text = PrintSharing(module, ordering_options);
    if (!text.ok()) return text.status();
    out += *text;
  }
  return absl::OkStatus();
}

}  // namespace hloscope
