#include "tools/hlo-opt/hlo_opt_copy_report.h"

#include <optional>
#include <string_view>
#include <vector>

#include "fmt/format.h"
#include "passes/copy_elision.h"
#include "passes/copy_elision_report.pb.h"
#include "passes/pass_report.h"
#include "support/proto_json.h"
#include "tools/common/file_io.h"
#include "tools/hlo-opt/hlo_opt_option_flags.h"

namespace hloscope {

struct CopyReportCollector::State {
  report::CopyElisionReport all;
};

void AddCopyReportFlags(FlagTable& table, CopyReportFlags& flags) {
  table.Add({.names = {"--report"},
             .value = FlagValue::kOptional,
             .placeholder = "FILE.json",
             .output_file = true,
             .help = "With copy-elision in --passes: what happened to every copy.\n"
                     "'--report' prints a summary to stderr; '--report=FILE.json'\n"
                     "writes each copy's decision, reason, bytes and executions per\n"
                     "step (schema passes/copy_elision_report.proto). copy-elision\n"
                     "reads --bitcast-defines-value too. With copy-insertion: the\n"
                     "copies it added, each with its rule (decision 'inserted').\n"
                     "Both list the control edges they add (control_edges).",
             .handler = [&flags](std::optional<std::string_view> value) {
               if (value && value->empty()) {
                 return FlagError(
                     "option '--report=' needs a file name (or use '--report' for a summary)");
               }
               flags.report = true;
               flags.file = value ? std::string(*value) : std::string();
               return absl::OkStatus();
             }});
}

std::string CheckCopyReportPasses(const PassPipeline* pipeline, const CopyReportFlags& flags) {
  if (!flags.report) return "";
  // The copy report's opportunities are copy-elision's (copy-insertion's report has none).
  bool elision = false;
  for (size_t i = 0; pipeline != nullptr && i < pipeline->size(); ++i) {
    elision = elision || dynamic_cast<const CopyElision*>(pipeline->pass(i)) != nullptr;
  }
  if (flags.opportunities && !elision) {
    return "option '--opportunities' with --report needs the copy-elision pass in --passes";
  }
  for (size_t i = 0; pipeline != nullptr && i < pipeline->size(); ++i) {
    if (pipeline->pass(i)->LastReport() != nullptr) return "";
  }
  // The passes that write a report, from the registry: a new one is named without an edit here.
  std::vector<std::string> reporting;
  for (const PassRegistry::Entry* e : PassRegistry::Global().Entries()) {
    if (e->factory()->LastReport() != nullptr) reporting.push_back(e->name);
  }
  std::string names;
  for (size_t i = 0; i < reporting.size(); ++i) {
    names += i == 0 ? "" : i + 1 == reporting.size() ? " or " : ", ";
    names += reporting[i];
  }
  return fmt::format("option '--report' needs the {} pass in --passes (e.g. --passes={})", names,
                     reporting.empty() ? std::string() : reporting.front());
}

CopyReportCollector::CopyReportCollector(const CopyReportFlags& flags)
    : flags_(flags), state_(std::make_unique<State>()) {}

CopyReportCollector::~CopyReportCollector() = default;

void CopyReportCollector::Collect(const PassPipeline* pipeline, const Module& module,
                                  const CopyOpportunities* opportunities) {
  if (pipeline == nullptr) return;
  const bool summary = flags_.report && flags_.file.empty();
  for (size_t i = 0; i < pipeline->size(); ++i) {
    std::unique_ptr<PassReport> r = pipeline->pass(i)->LastReport();
    if (r == nullptr) continue;
    if (summary) {
      fmt::print(stderr, "{}", r->Summary(module.name()));
      continue;
    }
    // Said whether or not a report was asked for: the pass did nothing, and the reason is
    // something to fix in the input.
    if (std::string warning = r->Warning(module.name()); !warning.empty()) {
      fmt::print(stderr, "hlo-opt: warning: {}", warning);
    }
    if (flags_.report) r->AddTo(module.name(), state_->all);
  }
  if (opportunities == nullptr || !flags_.report) return;
  if (summary) {
    fmt::print(stderr, "{}",
               CopyReportOpportunitiesText(module.name(), *opportunities, flags_.opportunities,
                                           HloOptFlagOf));
  } else {
    AddCopyReportOpportunities(module.name(), *opportunities, state_->all, HloOptFlagOf);
  }
}

absl::Status CopyReportCollector::Finish() {
  if (!flags_.report || flags_.file.empty()) return absl::OkStatus();
  absl::StatusOr<std::string> json = ProtoToJson(state_->all);
  if (!json.ok()) return json.status();
  std::string error;
  if (!WriteOutput(flags_.file, *json, &error)) return absl::InvalidArgumentError(error);
  return absl::OkStatus();
}

}  // namespace hloscope
