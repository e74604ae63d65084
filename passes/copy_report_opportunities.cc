#include "passes/copy_report_opportunities.h"

#include "fmt/format.h"
#include "passes/copy_elision.h"
#include "passes/copy_elision_report.pb.h"

namespace hloscope {

namespace {

// After the copy report's own list, the donation what-if says how to see it done.
std::string DonationLine(const DonationOpportunity& donation,
                         const OptionSpelling& option_spelling) {
  return DonationOpportunityText(
      donation,
      fmt::format(" ({}={} {}=copy-elision does it)",
                  SpellOption(option_spelling, "assume_donated"),
                  ParameterList(donation.parameters), SpellOption(option_spelling, "passes")));
}

}  // namespace

void AddCopyReportOpportunities(std::string_view module, const CopyOpportunities& found,
                                report::CopyElisionReport& document,
                                const OptionSpelling& option_spelling) {
  if (found.donation) {
    const DonationOpportunity& d = *found.donation;
    report::CopyOpportunity* out = document.add_opportunities();
    out->set_module(std::string(module));
    out->set_kind("donation");
    for (int64_t p : d.parameters) out->add_parameters(p);
    for (const std::string& c : d.copies) out->add_copies(c);
    out->set_bytes_per_step(d.bytes_per_step);
    out->set_bytes_known(d.known);
    out->set_text(DonationLine(d, option_spelling));
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
    out->set_text(BitcastHiddenCopyText(b, option_spelling));
  }
}

std::string CopyReportOpportunitiesText(std::string_view module, const CopyOpportunities& found,
                                        bool list, const OptionSpelling& option_spelling) {
  if (found.count() == 0) return "";
  if (!list) return fmt::format("  {}\n", OpportunitiesHintText(found, option_spelling));
  std::string out = fmt::format("opportunities in {}:\n", module);
  if (found.donation) {
    out += fmt::format("  {}\n", DonationLine(*found.donation, option_spelling));
  }
  for (const BitcastHiddenCopy& b : found.bitcast_hidden) {
    out += fmt::format("  {}\n", BitcastHiddenCopyText(b, option_spelling));
  }
  return out;
}

std::optional<CopyOpportunities> FindCopyReportOpportunities(const PassPipeline* pipeline,
                                                             const Module& module,
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
  if (maybe_hidden && as_given && HasBitcast(module)) {
    if (absl::StatusOr<std::unique_ptr<Module>> module = as_given(); module.ok()) {
      found.bitcast_hidden = FindBitcastHiddenCopies(**module, nullptr);
    }
  }
  return found;
}

}  // namespace hloscope
