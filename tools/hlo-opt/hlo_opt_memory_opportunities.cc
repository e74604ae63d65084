#include "tools/hlo-opt/hlo_opt_memory_opportunities.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <set>
#include <vector>

#include "analysis/memory/memory_comparison.h"
#include "fmt/format.h"
#include "passes/assumed_donation.h"
#include "passes/copy_elision.h"
#include "re2/re2.h"
#include "support/bytes.h"
#include "support/checked_int.h"
#include "support/str_util.h"

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
  // Copies that only a bitcast stands in the way of (google/paxml issue 17: a
  // dynamic-update-slice behind a bitcast inside a fusion). Run with bitcasts as new values
  // first: it removes a subset of what the default removes and keeps those copies, naming the
  // bitcast; the default run after it removes exactly them.
  CopyElisionOptions with_bitcasts;
  with_bitcasts.dataflow.bitcast_defines_value = true;
  CopyElision bitcast_view(with_bitcasts);
  std::vector<CopyDecision> kept_for_bitcasts;
  if (bitcast_view.Run(module).ok() && bitcast_view.report().buffer_safe) {
    for (const CopyDecision& d : bitcast_view.report().copies) {
      if (!d.removed && d.reason.find("defines a new value") != std::string::npos) {
        kept_for_bitcasts.push_back(d);
      }
    }
  }
  CopyElision elision;
  if (elision.Run(module).ok() && elision.report().buffer_safe) {
    for (const CopyDecision& d : elision.report().copies) {
      if (!d.removed) continue;
      for (const CopyDecision& b : kept_for_bitcasts) {
        if (b.name != d.name || b.computation != d.computation) continue;
        const int64_t per_step = SaturatingMul(d.bytes, d.executions_per_step);
        out += fmt::format(
            "  copy %{} in {} ({} bytes ({}) x {}{} per step) only looks needed: {}; the update "
            "is in place (a bitcast reinterprets its operand's buffer), and --passes=copy-elision "
            "removes it, saving {}{} bytes ({}) of copy traffic per step (the bitcast-hidden "
            "stash copy of google/paxml issue 17)\n",
            d.name, d.computation, d.bytes, HumanBytes(d.bytes),
            d.executions_known ? "" : "at least ", d.executions_per_step, b.reason,
            d.executions_known ? "" : "at least ", per_step, HumanBytes(per_step));
      }
    }
    // copy-elision's reason for such a copy names the parameter (passes/copy_elision.cc).
    static const RE2 kNotDonated(R"(entry parameter (\d+), not donated)");
    std::set<int64_t> parameters;
    int64_t copies = 0, bytes = 0;
    bool known = true;
    for (const CopyDecision& d : elision.report().copies) {
      int64_t parameter = 0;
      if (d.removed || !RE2::PartialMatch(d.reason, kNotDonated, &parameter)) continue;
      parameters.insert(parameter);
      ++copies;
      known = known && d.executions_known;
      __int128 traffic = static_cast<__int128>(d.bytes) * d.executions_per_step + bytes;
      bytes = traffic > std::numeric_limits<int64_t>::max() ? std::numeric_limits<int64_t>::max()
                                                            : static_cast<int64_t>(traffic);
    }
    if (copies > 0) {
      std::vector<std::string> numbers;
      for (int64_t p : parameters) numbers.push_back(std::to_string(p));
      const std::string list = fmt::format("{}", fmt::join(numbers, ","));
      out += fmt::format(
          "  {} copies kept because entry parameters {} are not donated: {}{} bytes ({}) of "
          "copies per step; donating them (JAX: donate_argnums / donate_argnames for the "
          "arguments they come from; PyTorch/XLA: buffer donation) lets copy-elision remove "
          "them (--passes=copy-elision --report lists each)\n",
          copies, list, known ? "" : "at least ", bytes, HumanBytes(bytes));
      const std::optional<int64_t> peak = PeakIfDonated(module, parameters, options);
      out += peak ? fmt::format(
                        "  with them donated the peak is {} bytes ({}) instead of {} bytes ({}): "
                        "rerun with --assume-donated={} --passes=copy-elision to see it\n",
                        *peak, HumanBytes(*peak), memory.peak_bytes, HumanBytes(memory.peak_bytes),
                        list)
                  : fmt::format(
                        "  rerun with --assume-donated={} --passes=copy-elision to see what "
                        "donating them saves\n",
                        list);
    }
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
