#include "tools/hlo-opt/hlo_opt_memory_opportunities.h"

#include <cstdint>
#include <optional>
#include <set>

#include "analysis/memory/memory_comparison.h"
#include "fmt/format.h"
#include "passes/assumed_donation.h"
#include "passes/copy_elision.h"
#include "passes/copy_opportunities.h"
#include "support/bytes.h"
#include "tools/hlo-opt/hlo_opt_option_flags.h"

namespace hloscope {

namespace {

// The module's peak with `parameters` donated and copy-elision run again on it (it ran once
// already); nullopt when the pairing leaves the module not buffer-safe (a donated parameter
// paired with an output it does not become: XLA's pairing is by shape and order).
std::optional<int64_t> PeakIfDonated(Module& module, const std::set<int64_t>& parameters,
                                     const MemoryOptions& options) {
  DonationAssumption assumption;
  for (int64_t p : parameters) assumption.parameters.push_back({p, std::nullopt});
  if (!AssumeDonated(module, assumption).ok()) return std::nullopt;
  CopyElision elision;
  if (!elision.Run(module).ok() || !elision.report().buffer_safe) return std::nullopt;
  absl::StatusOr<MemoryComparison> profile = ProfileBeforeAfter({&module}, nullptr, "", options);
  if (!profile.ok() || profile->before.modules.empty()) return std::nullopt;
  return profile->before.modules.front().peak_bytes;
}

}  // namespace

std::string MemoryOpportunitiesText(Module& module, const ModuleMemory& memory,
                                    const MemoryOptions& options) {
  std::string out;
  // The copy opportunities, as the copy report finds them (passes/copy_opportunities.h).
  CopyElisionReport default_run;
  for (const BitcastHiddenCopy& b : FindBitcastHiddenCopies(module, &default_run)) {
    out += fmt::format("  {}\n", BitcastHiddenCopyText(b, HloOptFlagOf));
  }
  if (std::optional<DonationOpportunity> donation = FindDonationOpportunity(default_run)) {
    const std::string list = ParameterList(donation->parameters);
    out += fmt::format("  {}\n", DonationOpportunityText(
                                     *donation, " (--passes=copy-elision --report lists each)"));
    const std::set<int64_t> parameters(donation->parameters.begin(), donation->parameters.end());
    const std::optional<int64_t> peak = PeakIfDonated(module, parameters, options);
    out +=
        peak ? fmt::format(
                   "  with them donated the peak is {} bytes ({}) instead of {} bytes ({}): "
                   "rerun with --assume-donated={} --passes=copy-elision to see it\n",
                   *peak, HumanBytes(*peak), memory.peak_bytes, HumanBytes(memory.peak_bytes), list)
             : fmt::format(
                   "  rerun with --assume-donated={} --passes=copy-elision to see what "
                   "donating them saves\n",
                   list);
  }
  // The largest temporaries at the peak: what to rematerialize, shard or fuse first.
  int shown = 0;
  for (const LiveBuffer& b : memory.top_buffers) {
    if (b.kind != LiveBufferKind::kBuffer || b.category != "temporaries") continue;
    if (shown++ == 3) break;
    out += fmt::format("  large temporary at the peak: {} {} = {} bytes ({}), made by {}{}{}\n",
                       b.instruction, b.shape, b.bytes, HumanBytes(b.bytes), b.opcode,
                       b.op_name.empty() ? "" : " (" + b.op_name + ")",
                       b.source.empty() ? "" : " at " + b.source);
  }
  return out.empty() ? out : fmt::format("opportunities in {}:\n{}", memory.module, out);
}

}  // namespace hloscope
