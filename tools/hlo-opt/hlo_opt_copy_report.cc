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

namespace {

// After the copy report's own list, the donation what-if says how to see it done.
std::string DonationLine(const DonationOpportunity& donation) {
  return DonationOpportunityText(donation,
                                 fmt::format(" (--assume-donated={} --passes=copy-elision does it)",
                                             ParameterList(donation.parameters)));
}

void AddOpportunities(std::string_view module, const CopyOpportunities& found,
                      report::CopyElisionReport& document) {
  if (found.donation) {
    const DonationOpportunity& d = *found.donation;
    report::CopyOpportunity* out = document.add_opportunities();
    out->set_module(std::string(module));
    out->set_kind("donation");
    for (int64_t p : d.parameters) out->add_parameters(p);
    for (const std::string& c : d.copies) out->add_copies(c);
    out->set_bytes_per_step(d.bytes_per_step);
    out->set_bytes_known(d.known);
    out->set_text(DonationLine(d));
  }
  for (const BitcastHiddenCopy& b : found.bitcast_hidden) {
    report::CopyOpportunity* out = document.add_opportunities();
    out->set_module(std::string(module));
    out->set_kind("bitcast_hidden_copy");
    out->add_copies(b.copy.name);
    out->set_bytes_per_step(b.bytes_per_step);
    out->set_bytes_known(b.copy.executions_known);
    out->set_computation(b.copy.computation);
    out->set_reason(b.reason);
    out->set_text(BitcastHiddenCopyText(b));
  }
}

std::string OpportunitiesText(std::string_view module, const CopyOpportunities& found, bool list) {
  if (found.count() == 0) return "";
  if (!list) return fmt::format("  {}\n", OpportunitiesHintText(found));
  std::string out = fmt::format("opportunities in {}:\n", module);
  if (found.donation) out += fmt::format("  {}\n", DonationLine(*found.donation));
  for (const BitcastHiddenCopy& b : found.bitcast_hidden) {
    out += fmt::format("  {}\n", BitcastHiddenCopyText(b));
  }
  return out;
}

}  // namespace

std::optional<CopyOpportunities> FindCopyReportOpportunities(const PassPipeline* pipeline,
                                                             const ModuleAsGiven& as_given) {
  const CopyElision* last = nullptr;
  for (size_t i = 0; pipeline != nullptr && i < pipeline->size(); ++i) {
    if (const auto* elision = dynamic_cast<const CopyElision*>(pipeline->pass(i))) last = elision;
  }
  if (last == nullptr) return std::nullopt;
  const CopyElisionReport& ran = last->report();
  CopyOpportunities found;
  found.donation = FindDonationOpportunity(ran);
  // A bitcast-hidden copy is one the default run removes and the bitcast view keeps for a
  // bitcast: without such a decision in this run there is none to look for.
  bool maybe_hidden = false;
  for (const CopyDecision& d : ran.copies) {
    maybe_hidden = maybe_hidden ||
                   (ran.bitcast_defines_value
                        ? !d.removed && d.reason.find("defines a new value") != std::string::npos
                        : d.removed);
  }
  if (maybe_hidden && as_given) {
    if (absl::StatusOr<std::unique_ptr<Module>> module = as_given(); module.ok()) {
      found.bitcast_hidden = FindBitcastHiddenCopies(**module, nullptr);
    }
  }
  return found;
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
               OpportunitiesText(module.name(), *opportunities, flags_.opportunities));
  } else {
    AddOpportunities(module.name(), *opportunities, state_->all);
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
