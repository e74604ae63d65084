// The memory report as text: per module the peak, the heap, what is live at the peak and its
// layout (and XLA's BufferAssignment stats on request), then the stages; with passes, the
// before/after table with the saving first.
#include <algorithm>
#include <limits>
#include <string>

#include "analysis/memory/memory_limit.h"
#include "analysis/memory/memory_report_internal.h"
#include "analysis/memory/memory_report_printers.h"
#include "analysis/memory/xla_comparison_printers_internal.h"
#include "fmt/format.h"
#include "support/bytes.h"
#include "support/str_util.h"

namespace hloscope {
namespace {

using memory_report_internal::DynamicSizes;
using memory_report_internal::ForEachStagePair;
using memory_report_internal::HasPipelineStages;
using memory_report_internal::SavingPercent;

// Bytes as text; a saturated sum is no size, so it prints as what it is.
std::string BytesText(int64_t bytes) {
  if (bytes == std::numeric_limits<int64_t>::max()) return std::string(kSaturatedText);
  return fmt::format("{} bytes ({})", bytes, HumanBytes(bytes));
}

// What holds the peak, grouped (peak_groups.h): one line per group, largest categories first,
// each with its bytes in human units and the source line of its largest buffer. Buffers
// without an op_name read "N x OPCODE SHAPE", which is what one can look for in the module.
void AppendPeakGroupsText(const ModuleMemory& m, std::string& out) {
  if (m.peak_groups.empty()) return;
  // The text is read by a person: the largest groups only; JSON and HTML keep every group.
  constexpr size_t kShown = 12;
  out += "  what holds the peak (by category, then op_name scope or opcode x shape):\n";
  for (size_t i = 0; i < m.peak_groups.size() && i < kShown; ++i) {
    const PeakGroup& g = m.peak_groups[i];
    std::string what;
    if (!g.scope.empty()) {
      what = fmt::format("{} ({} buffers)", g.scope, g.buffers);
    } else if (!g.largest.empty() && g.largest.front().kind == LiveBufferKind::kCallee) {
      what = fmt::format("{} x callee peak of {}", g.buffers, g.largest.front().instruction);
    } else {
      what = fmt::format("{} x {}{}", g.buffers, g.opcode.empty() ? "(no opcode)" : g.opcode,
                         g.shape.empty() ? "" : " " + g.shape);
    }
    std::string source;
    for (const LiveBuffer& b : g.largest) {
      if (!b.source.empty()) {
        source = " at " + b.source;
        break;
      }
    }
    out += fmt::format("    {:<20} {} = {}{}\n", g.category, what, BytesText(g.bytes), source);
  }
  if (m.peak_groups.size() > kShown) {
    out += fmt::format("    and {} smaller groups (json and html list every group)\n",
                       m.peak_groups.size() - kShown);
  }
}

void AppendText(const MemoryReport& r, bool buffer_assignment, std::string& out) {
  for (const ModuleMemory& m : r.modules) {
    // The timeline's peak first (what the rest of the block explains), then, under the xla
    // model, the peak as XLA counts it: the figure to hold against XLA's own.
    out += fmt::format(
        "module {}: peak {} at {}{}{}\n", m.module, BytesText(m.peak_bytes), m.peak_instruction,
        m.peak_op_name.empty() ? "" : fmt::format(" ({})", m.peak_op_name),
        m.modeled_xla_peak_bytes
            ? fmt::format("; as XLA counts it: {}", BytesText(*m.modeled_xla_peak_bytes))
            : std::string());
    out += fmt::format("  schedule: {}, {} entry instructions\n", m.schedule, m.instructions);
    out += fmt::format("  heap ({} model, best fit): {} for {} live at the peak\n", m.model,
                       BytesText(m.heap_bytes), BytesText(m.peak_bytes));
    if (m.modeled_xla_peak_bytes) {
      out += fmt::format(
          "  peaks: as XLA counts it (its ComputePeakMemory on our model of its buffer "
          "assignment, event by event) {}, {} of it live throughout; the timeline's counts "
          "whole entry steps, a callee's peak as a block at its call\n",
          BytesText(*m.modeled_xla_peak_bytes), BytesText(m.modeled_xla_peak_static_bytes));
    } else if (!m.modeled_xla_peak_unknown.empty()) {
      out += fmt::format("  XLA's measure of the peak not known: {}\n", m.modeled_xla_peak_unknown);
    }
    for (const MemorySpacePeak& sp : m.memory_spaces) {
      out += fmt::format("  memory space S({}): peak {} at {}\n", sp.space,
                         BytesText(sp.peak_bytes), sp.peak_instruction);
    }
    if (m.host_peak_bytes > 0) {  // host_placement.h
      out += fmt::format("  device peak: {} at {}\n", BytesText(m.device_peak_bytes),
                         m.device_peak_instruction);
      out += fmt::format("  host peak (offloaded, S(5)): {} at {}\n", BytesText(m.host_peak_bytes),
                         m.host_peak_instruction);
    }
    const auto append_buffer = [&](const LiveBuffer& b, std::string_view indent) {
      out += fmt::format("{}{:>14} {:<10} {}{}{}{} [{}]{}\n", indent, b.bytes,
                         LiveBufferKindName(b.kind), b.instruction,
                         b.shape.empty() ? "" : " " + b.shape,
                         b.stage.empty() ? "" : " stage=" + b.stage,
                         b.op_name.empty() ? "" : " (" + b.op_name + ")", HumanBytes(b.bytes),
                         b.source.empty() ? "" : " at " + b.source);
    };
    if (!m.top_buffers.empty()) out += "  live at the peak:\n";
    for (const LiveBuffer& b : m.top_buffers) append_buffer(b, "    ");
    // The peak is inside a callee: what the callee holds then (memory_profile.h CalleePeak).
    for (const CalleePeak& c : m.callee_peaks) {
      out += fmt::format("  inside {} (called by {}) at its peak, {} at {}:\n", c.computation,
                         c.caller, BytesText(c.peak_bytes), c.peak_instruction);
      for (const LiveBuffer& b : c.top_buffers) append_buffer(b, "      ");
    }
    AppendPeakGroupsText(m, out);
    if (!m.peak_layout.empty()) out += "  heap layout at the peak (offset, bytes, buffer):\n";
    for (const HeapSlot& h : m.peak_layout) {
      out += fmt::format("    {:>14} {:>14} {} [{}]\n", h.offset, h.bytes, h.name,
                         HumanBytes(h.bytes));
    }
    if (buffer_assignment) {
      // XLA's words, so the numbers can be held against an out-of-memory message.
      const AllocationSummary& a = m.allocations;
      out += "  BufferAssignment stats:\n";
      out += fmt::format("    {:>33}: {}\n", "parameter allocation", BytesText(a.parameter_bytes));
      out += fmt::format("    {:>33}: {}\n", "constant allocation", BytesText(a.constant_bytes));
      out += fmt::format("    {:>33}: {}\n", "maybe_live_out allocation",
                         BytesText(a.maybe_live_out_bytes));
      out +=
          fmt::format("    {:>33}: {}\n", "preallocated temp allocation", BytesText(a.temp_bytes));
      out += fmt::format("    {:>33}: {}\n", "total allocation", BytesText(a.total_bytes));
    }
  }
  if (r.modules.size() > 1) {
    out += fmt::format("peak: {} in {} at {}\n", BytesText(r.peak_bytes), r.peak_module,
                       r.peak_instruction);
  }
  if (r.saturated) {
    out += fmt::format("sizes past int64: numbers shown as {} are lower bounds\n",
                       std::numeric_limits<int64_t>::max());
  }
  if (r.has_dynamic_dims) {
    out += fmt::format("dynamic dimensions sized at: {}\n", DynamicSizes(r));
  }
  if (HasPipelineStages(r)) {
    // With host memory in some stage (host_placement.h), each row says the device's part and
    // the host's after the stage's peak.
    const bool host = std::any_of(r.stages.begin(), r.stages.end(),
                                  [](const StageMemory& s) { return s.host_peak_bytes > 0; });
    const auto device_and_host = [&](std::string_view device, std::string_view host_part) {
      return host ? fmt::format(" {:>14} {:>14}", device, host_part) : std::string();
    };
    out += fmt::format("{:<10} {:>14}{} {:>16} {:>16} {:>6} {:>7}  {}\n", "stage", "peak_bytes",
                       device_and_host("device_bytes", "host_bytes"), "act_bytes/mb",
                       "peak_act_bytes", "slots", "source", "peak at");
    for (const StageMemory& s : r.stages) {
      out += fmt::format(
          "{:<10} {:>14}{} {:>16} {:>16} {:>6} {:>7}  {}\n", s.stage, s.peak_bytes,
          device_and_host(std::to_string(DevicePeakBytes(s)), std::to_string(s.host_peak_bytes)),
          s.activation_bytes_per_microbatch, s.peak_activation_bytes, s.microbatch_slots,
          s.activation_source, s.peak_instruction);
    }
  }
}

}  // namespace

std::string MemoryReportText(const MemoryReport& report, const MemoryReport* after,
                             std::string_view passes, bool buffer_assignment,
                             const XlaComparisons* xla, const OptionSpelling& option_spelling) {
  std::string out;
  auto append_xla = [&] {
    if (xla == nullptr) return;
    for (const XlaAssignmentComparison& c : *xla) AppendXlaComparisonText(c, out);
  };
  if (after == nullptr) {
    AppendText(report, buffer_assignment, out);
    append_xla();
    return out;
  }
  const int64_t saving = report.peak_bytes - after->peak_bytes;
  // A title that is flags already (--assume-donated=..., tools/hlo-opt/hlo_opt_memory.cc) reads as
  // is.
  out += passes.starts_with("--") ? fmt::format("memory before and after {}\n", passes)
                                  : fmt::format("memory before and after {}={}\n",
                                                SpellOption(option_spelling, "passes"), passes);
  out += fmt::format("{:<28} {:>14} {:>14} {:>14} {:>8}\n", "", "before", "after", "saving", "%");
  out += fmt::format("{:<28} {:>14} {:>14} {:>14} {:>7.2f}%\n", "peak bytes", report.peak_bytes,
                     after->peak_bytes, saving, SavingPercent(saving, report.peak_bytes));
  out += fmt::format("{:<28} {:>14} {:>14}\n", "peak at", report.peak_instruction,
                     after->peak_instruction);
  // Stage rows only where there are pipeline stages (a module without them is one "stage 0",
  // which would repeat the peak and say 0 activation bytes).
  const bool stages = HasPipelineStages(report) || HasPipelineStages(*after);
  ForEachStagePair(report, *after, [&](const StageMemory& b, const StageMemory& a) {
    if (!stages) return;
    const int64_t s = b.peak_bytes - a.peak_bytes;
    out += fmt::format("{:<28} {:>14} {:>14} {:>14} {:>7.2f}%\n",
                       fmt::format("stage {} peak bytes", b.stage), b.peak_bytes, a.peak_bytes, s,
                       SavingPercent(s, b.peak_bytes));
    out += fmt::format("{:<28} {:>14} {:>14}\n", fmt::format("stage {} act bytes/mb", b.stage),
                       b.activation_bytes_per_microbatch, a.activation_bytes_per_microbatch);
  });
  out += "\n--- before\n";
  AppendText(report, buffer_assignment, out);
  out += "\n--- after\n";
  AppendText(*after, buffer_assignment, out);
  if (xla != nullptr && !xla->empty()) out += "\n--- before, beside XLA's\n";
  append_xla();
  return out;
}

}  // namespace hloscope
