#include "passes/copy_opportunities.h"

#include <charconv>
#include <set>

#include "fmt/format.h"
#include "hlo/computation.h"
#include "hlo/instruction.h"
#include "hlo/opcode.h"
#include "support/bytes.h"
#include "support/checked_int.h"

namespace hloscope {

int64_t CopyOpportunities::count() const {
  return (donation ? 1 : 0) + static_cast<int64_t>(bitcast_hidden.size());
}

int64_t CopyOpportunities::bytes_per_step() const {
  int64_t sum = donation ? donation->bytes_per_step : 0;
  for (const BitcastHiddenCopy& b : bitcast_hidden) sum = SaturatingAdd(sum, b.bytes_per_step);
  return sum;
}

bool CopyOpportunities::known() const {
  bool all = !donation || donation->known;
  for (const BitcastHiddenCopy& b : bitcast_hidden) all = all && b.copy.executions_known;
  return all;
}

std::optional<int64_t> NotDonatedParameter(std::string_view reason) {
  // copy-elision says "(entry parameter N, not donated)" (Elider::ReadOnlyWhat).
  static constexpr std::string_view kBefore = "entry parameter ";
  static constexpr std::string_view kAfter = ", not donated";
  for (size_t at = reason.find(kBefore); at != std::string_view::npos;
       at = reason.find(kBefore, at + 1)) {
    const size_t digits = at + kBefore.size();
    size_t end = digits;
    while (end < reason.size() && reason[end] >= '0' && reason[end] <= '9') ++end;
    int64_t parameter = 0;
    if (end > digits && reason.substr(end, kAfter.size()) == kAfter &&
        std::from_chars(reason.data() + digits, reason.data() + end, parameter).ec == std::errc()) {
      return parameter;
    }
  }
  return std::nullopt;
}

std::optional<DonationOpportunity> FindDonationOpportunity(const CopyElisionReport& report) {
  DonationOpportunity found;
  std::set<int64_t> parameters;
  for (const CopyDecision& d : report.copies) {
    if (d.removed) continue;
    std::optional<int64_t> parameter = NotDonatedParameter(d.reason);
    if (!parameter) continue;
    parameters.insert(*parameter);
    found.copies.push_back(d.name);
    found.known = found.known && d.executions_known;
    found.bytes_per_step =
        SaturatingAdd(found.bytes_per_step, SaturatingMul(d.bytes, d.executions_per_step));
  }
  if (found.copies.empty()) return std::nullopt;
  found.parameters.assign(parameters.begin(), parameters.end());
  return found;
}

bool HasBitcast(const Module& module) {
  for (const Computation* c : module.computations()) {
    for (const Instruction* i : c->instructions()) {
      if (i->opcode() == Opcode::kBitcast) return true;
    }
  }
  return false;
}

std::vector<BitcastHiddenCopy> FindBitcastHiddenCopies(Module& module,
                                                       CopyElisionReport* default_run) {
  if (default_run != nullptr) *default_run = CopyElisionReport{};
  CopyElisionOptions with_bitcasts;
  with_bitcasts.dataflow.bitcast_defines_value = true;
  CopyElision bitcast_view(with_bitcasts);
  std::vector<CopyDecision> kept_for_bitcasts;
  // Without a bitcast the view is the default's: a run saved (copy-elision dominates a report).
  if (HasBitcast(module) && bitcast_view.Run(module).ok() && bitcast_view.report().buffer_safe) {
    for (const CopyDecision& d : bitcast_view.report().copies) {
      // copy-elision's reason for a copy only a bitcast keeps (passes/copy_elision.cc).
      if (!d.removed && d.reason.find("defines a new value") != std::string::npos) {
        kept_for_bitcasts.push_back(d);
      }
    }
  }
  std::vector<BitcastHiddenCopy> found;
  CopyElision elision;
  if (!elision.Run(module).ok()) return found;
  if (default_run != nullptr) *default_run = elision.report();
  if (!elision.report().buffer_safe) return found;
  for (const CopyDecision& d : elision.report().copies) {
    if (!d.removed) continue;
    for (const CopyDecision& b : kept_for_bitcasts) {
      if (b.name != d.name || b.computation != d.computation) continue;
      found.push_back({d, b.reason, SaturatingMul(d.bytes, d.executions_per_step)});
    }
  }
  return found;
}

std::string OpportunitiesHintText(const CopyOpportunities& found,
                                  const OptionSpelling& option_spelling) {
  const int64_t n = found.count();
  if (n == 0) return "";
  return fmt::format("{} {} ({}{} of copies per step): {} lists {}", n,
                     n == 1 ? "opportunity" : "opportunities", found.known() ? "" : "at least ",
                     HumanBytes(found.bytes_per_step()),
                     SpellOption(option_spelling, "opportunities"), n == 1 ? "it" : "them");
}

std::string ParameterList(const std::vector<int64_t>& parameters) {
  return fmt::format("{}", fmt::join(parameters, ","));
}

std::string DonationOpportunityText(const DonationOpportunity& donation, std::string_view then) {
  const bool one_copy = donation.copies.size() == 1;
  const bool one_parameter = donation.parameters.size() == 1;
  return fmt::format(
      "{} {} kept because entry {} {} {} not donated: {}{} bytes ({}) of copies per step; "
      "donating {} (JAX: donate_argnums / donate_argnames for the arguments {} from; "
      "PyTorch/XLA: buffer donation) lets copy-elision remove {}{}",
      donation.copies.size(), one_copy ? "copy" : "copies",
      one_parameter ? "parameter" : "parameters", ParameterList(donation.parameters),
      one_parameter ? "is" : "are", donation.known ? "" : "at least ", donation.bytes_per_step,
      HumanBytes(donation.bytes_per_step), one_parameter ? "it" : "them",
      one_parameter ? "it comes" : "they come", one_copy ? "it" : "them", then);
}

std::string BitcastHiddenCopyText(const BitcastHiddenCopy& b,
                                  const OptionSpelling& option_spelling) {
  const CopyDecision& d = b.copy;
  const char* at_least = d.executions_known ? "" : "at least ";
  return fmt::format(
      "copy %{} in {} ({} bytes ({}) x {}{} per step) only looks needed: {}; the update is in "
      "place (a bitcast reinterprets its operand's buffer), and {}=copy-elision removes "
      "it, saving {}{} bytes ({}) of copy traffic per step (the bitcast-hidden stash copy of "
      "google/paxml issue 17)",
      d.name, d.computation, d.bytes, HumanBytes(d.bytes), at_least, d.executions_per_step,
      b.reason, SpellOption(option_spelling, "passes"), at_least, b.bytes_per_step,
      HumanBytes(b.bytes_per_step));
}

}  // namespace hloscope
