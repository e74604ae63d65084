#include "tools/hlo-opt/hlo_opt_analysis.h"

#include <optional>
#include <string_view>

#include "absl/status/status.h"
#include "analysis/ordering_report.h"
#include "fmt/format.h"
#include "support/status_text.h"
#include "tools/hlo-opt/hlo_opt_option_flags.h"

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
  table.Add(SwitchFlag({"--print-ordering"}, &flags.print_ordering,
                       "Print, for every pair of instructions, executes-before; for every\n"
                       "value its uses; for every pair of values defined-before,\n"
                       "live-range-strictly-before (with the reason when false) and\n"
                       "may-interfere. Quadratic: for small modules (text only)."));
  table.Add(SwitchFlag({"--print-sharing"}, &flags.print_sharing,
                       "Print each instruction's in-place pairs and, for every operand and\n"
                       "output index, can-share-operand-buffer (text only)."));
  table.Add({.names = {"--ordering-of"},
             .value = FlagValue::kRequired,
             .placeholder = "NAME,...",
             .help = "Ask --print-ordering / --print-sharing about these instructions\n"
                     "only (and the values they define).",
             .handler = [&flags](std::optional<std::string_view> value) {
               if (!value || value->empty()) {
                 return FlagError(
                     "option '--ordering-of' needs a comma-separated list of instruction names");
               }
               for (std::string_view rest = *value; !rest.empty();) {
                 const size_t comma = rest.find(',');
                 std::string_view name_part = rest.substr(0, comma);
                 if (name_part.empty()) {
                   return FlagError(
                       fmt::format("option '--ordering-of' has an empty name in '{}'", *value));
                 }
                 flags.ordering_of.emplace_back(name_part);
                 rest =
                     comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
                 if (comma != std::string_view::npos && rest.empty()) {
                   return FlagError(
                       fmt::format("option '--ordering-of' has an empty name in '{}'", *value));
                 }
               }
               return absl::OkStatus();
             }});
  table.Add({.names = {"--ordering-query"},
             .value = FlagValue::kRequired,
             .placeholder = "QUERY:ARGS",
             .help = "Answer one ordering question, one line (repeat the flag for more;\n"
                     "text only). A, B name instructions; a value V is NAME or\n"
                     "NAME{INDEX} (the one value there); a use is NAME:OPERAND or\n"
                     "NAME:OPERAND{INDEX}. A NAME two computations share is\n"
                     "written COMPUTATION/NAME. Quote it: a shell expands {0,1}.\n"
                     "  executes-before:A,B         A finishes before B starts\n"
                     "  execution-constraint:A,B    XLA's word for them: is-same (an\n"
                     "                              async op and the op it wraps),\n"
                     "                              run-before-start, run-before-end,\n"
                     "                              run-exclusive-before/-after\n"
                     "                              (conditional branches), run-after,\n"
                     "                              unordered\n"
                     "  defined-before:V,W\n"
                     "  live-range-strictly-before:V,W\n"
                     "                              (with the reason when false)\n"
                     "  may-interfere:V,W           whether V and W need storage at once\n"
                     "  uses:V                      the uses of V\n"
                     "  uses-before-def:V,USE,...   whether every USE is read before V\n"
                     "                              is defined (the first one that is not)",
             .handler = [&flags](std::optional<std::string_view> value) {
               if (!value || value->empty()) {
                 return FlagError(
                     "option '--ordering-query' needs QUERY:ARGS, e.g. "
                     "executes-before:a,b");
               }
               absl::StatusOr<OrderingQuery> query = ParseOrderingQuery(*value);
               if (!query.ok()) return FlagError(StatusText(WithHloOptFlag(query.status())));
               flags.ordering_queries.push_back(*std::move(query));
               return absl::OkStatus();
             }});
  table.Add({.names = {"--ssa-form"},
             .value = FlagValue::kRequired,
             .placeholder = "true|false",
             .help = "Dataflow of --print-dataflow, --print-ordering and\n"
                     "--ordering-query: phi values at merge points (default true), or\n"
                     "the union of what reaches them.",
             .handler = [&flags](std::optional<std::string_view> value) {
               if (value != "true" && value != "false") {
                 return FlagError("option '--ssa-form' needs 'true' or 'false'");
               }
               flags.ssa_form = value == "true";
               return absl::OkStatus();
             }});
}

namespace {

// --ordering-query's lines, after the printers' reports.
absl::Status AppendOrderingQueries(AnalysisCache& analyses, const AnalysisFlags& flags,
                                   const DataflowOptions& dataflow, std::string& out) {
  if (flags.ordering_queries.empty()) return absl::OkStatus();
  if (flags.print.format == ReportFormat::kJson) {
    return absl::InvalidArgumentError("--ordering-query prints text only; drop --format=json");
  }
  absl::StatusOr<const DataflowAnalysis*> flow = analyses.Dataflow(dataflow);
  if (!flow.ok()) return flow.status();
  absl::StatusOr<const ExecutionOrdering*> ordering = analyses.Ordering();
  if (!ordering.ok()) return ordering.status();
  absl::StatusOr<std::string> text =
      AnswerOrderingQueries(**flow, **ordering, flags.ordering_queries);
  if (!text.ok()) return WithHloOptFlag(text.status());
  out += *text;
  return absl::OkStatus();
}

}  // namespace

absl::Status AppendAnalysisReports(const Module& module, const AnalysisFlags& flags,
                                   std::string& out) {
  AnalysisCache analyses(module);
  return AppendAnalysisReports(analyses, flags, out);
}

absl::Status AppendAnalysisReports(AnalysisCache& analyses, const AnalysisFlags& flags,
                                   std::string& out) {
  if (!flags.ssa_form && (flags.print_buffers || (!flags.print_dataflow && !flags.print_ordering &&
                                                  flags.ordering_queries.empty()))) {
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
    return AppendOrderingQueries(analyses, flags, flow_print.dataflow, out);
  }
  if (flags.print.format == ReportFormat::kJson) {
    return absl::InvalidArgumentError(
        "--print-ordering and --print-sharing print text only; drop --format=json");
  }
  OrderingPrintOptions ordering_options;
  ordering_options.dataflow = flow_print.dataflow;
  ordering_options.instructions = flags.ordering_of;
  const Module& module = analyses.module();
  // A name the module lacks is the printers' one NotFound: it came from --ordering-of.
  auto with_flag = [](const absl::Status& s) {
    return absl::IsNotFound(s)
               ? absl::InvalidArgumentError(fmt::format("--ordering-of: {}", StatusText(s)))
               : s;
  };
  if (flags.print_ordering) {
    absl::StatusOr<std::string> text = PrintOrdering(module, ordering_options);
    if (!text.ok()) return with_flag(text.status());
    out += *text;
  }
  if (flags.print_sharing) {
    absl::StatusOr<std::string> text = PrintSharing(module, ordering_options);
    if (!text.ok()) return with_flag(text.status());
    out += *text;
  }
  return AppendOrderingQueries(analyses, flags, flow_print.dataflow, out);
}

}  // namespace hloscope
