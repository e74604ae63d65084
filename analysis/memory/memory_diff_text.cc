// The memory diff as text: the two peaks side by side with the counts that explain them, then
// the buffers at the peak by kind of change, the copies added and removed, and the opcodes
// whose count changed.
#include <limits>
#include <string>

#include "analysis/memory/memory_diff_internal.h"
#include "analysis/memory/memory_report_internal.h"
#include "fmt/format.h"
#include "support/option_spelling.h"
#include "support/str_util.h"

namespace hloscope::memory_diff_internal {
namespace {

using memory_report_internal::SavingPercent;

const ModuleMemory* First(const MemoryReport& r) {
  return r.modules.empty() ? nullptr : &r.modules.front();
}

void AppendRow(std::string_view what, int64_t before, int64_t after, std::string& out) {
  out += fmt::format("{:<26} {:>16} {:>16} {:>16}\n", what, before, after, Signed(after - before));
}

void AppendBuffer(const PeakBufferDiff& d, std::string& out) {
  // The buffer as it is where it exists: after, unless it is gone.
  const LiveBuffer& b = d.change == PeakBufferChange::kGone ? d.before : d.after;
  out += fmt::format("  {:>16} {:<10} {}{}{}", Signed(d.delta_bytes()), LiveBufferKindName(b.kind),
                     b.instruction, b.shape.empty() ? "" : " " + b.shape,
                     b.op_name.empty() ? "" : " (" + b.op_name + ")");
  if (d.change == PeakBufferChange::kGrown || d.change == PeakBufferChange::kShrunk) {
    out += fmt::format(" [{} -> {} bytes, matched by {}{}]", d.before.bytes, d.after.bytes,
                       d.matched_by,
                       d.before.instruction == d.after.instruction
                           ? ""
                           : fmt::format(", was {}", d.before.instruction));
  }
  out += "\n";
}

void AppendChanges(std::string_view title, const std::vector<PeakBufferDiff>& list,
                   const PeakChangeTotal& total, const OptionSpelling& spelling, std::string& out) {
  if (total.buffers == 0) return;
  out += fmt::format("{} ({} buffer{}, {} bytes):\n", title, total.buffers,
                     total.buffers == 1 ? "" : "s", Signed(total.delta_bytes));
  for (const PeakBufferDiff& d : list) AppendBuffer(d, out);
  if (total.buffers > static_cast<int64_t>(list.size())) {
    out += fmt::format("  and {} more ({}=N lists more)\n",
                       total.buffers - static_cast<int64_t>(list.size()),
                       SpellOption(spelling, "top"));
  }
}

void AppendCopies(std::string_view title, const std::vector<CopyChange>& copies,
                  const CopyChangeTotal& total, const OptionSpelling& spelling, std::string& out) {
  if (total.copies == 0) {
    out += fmt::format("{}: none\n", title);
    return;
  }
  out += fmt::format("{} ({}, {} bytes):\n", title, total.copies, total.bytes);
  for (const CopyChange& c : copies) {
    out += fmt::format("  {:>16} {} {} in {}{}{}\n", c.bytes, c.instruction, c.shape, c.computation,
                       c.in_loop ? " (in a loop)" : "",
                       c.op_name.empty() ? "" : " (" + c.op_name + ")");
  }
  if (total.copies > static_cast<int64_t>(copies.size())) {
    out += fmt::format("  and {} more ({}=N lists more)\n",
                       total.copies - static_cast<int64_t>(copies.size()),
                       SpellOption(spelling, "top"));
  }
}

}  // namespace

std::string MemoryDiffText(const MemoryDiff& d, const MemoryDiffPrintOptions& options) {
  std::string out;
  const ModuleMemory* before = First(d.before);
  const ModuleMemory* after = First(d.after);
  out += fmt::format("memory diff: {} -> {}\n", SideLabel(options.before_label, d.before),
                     SideLabel(options.after_label, d.after));
  out += fmt::format("{:<26} {:>16} {:>16} {:>16}\n", "", "before", "after", "delta");
  out += fmt::format("{:<26} {:>16} {:>16} {:>16} {:>+.2f}%\n", "peak bytes", d.before.peak_bytes,
                     d.after.peak_bytes, Signed(d.peak_delta_bytes()),
                     SavingPercent(d.peak_delta_bytes(), d.before.peak_bytes));
  out += fmt::format("{:<26} {:>16} {:>16}\n", "peak at", d.before.peak_instruction,
                     d.after.peak_instruction);
  AppendRow("buffers live at the peak", d.peak_buffers_before, d.peak_buffers_after, out);
  AppendRow("copies", d.copies_before, d.copies_after, out);
  AppendRow("instructions", d.instructions_before, d.instructions_after, out);
  if (before != nullptr && after != nullptr) {
    out += fmt::format("modules {} -> {}; {} model; schedule {}{}\n", before->module, after->module,
                       before->model, before->schedule,
                       before->schedule == after->schedule ? "" : " -> " + after->schedule);
  }
  if (d.saturated()) {
    out += fmt::format("sizes past int64: numbers shown as {} are lower bounds\n",
                       std::numeric_limits<int64_t>::max());
  }
  out += fmt::format("\nbuffers at the peak: {} new, {} gone, {} grown, {} shrunk, {} unchanged\n",
                     d.new_total.buffers, d.gone_total.buffers, d.grown_total.buffers,
                     d.shrunk_total.buffers, d.unchanged_buffers);
  AppendChanges("new at the peak", d.new_buffers, d.new_total, options.option_spelling, out);
  AppendChanges("gone from the peak", d.gone_buffers, d.gone_total, options.option_spelling, out);
  AppendChanges("grown", d.grown_buffers, d.grown_total, options.option_spelling, out);
  AppendChanges("shrunk", d.shrunk_buffers, d.shrunk_total, options.option_spelling, out);
  out += "\n";
  AppendCopies("copies added", d.copies_added, d.copies_added_total, options.option_spelling, out);
  AppendCopies("copies removed", d.copies_removed, d.copies_removed_total, options.option_spelling,
               out);
  out += "\n";
  if (d.opcodes.empty()) {
    out += "instructions per opcode: no change\n";
  } else {
    out += "instructions per opcode, where the count changed:\n";
    out += fmt::format("  {:<28} {:>8} {:>8} {:>8}\n", "opcode", "before", "after", "delta");
    for (const OpcodeCountChange& c : d.opcodes) {
      out += fmt::format("  {:<28} {:>8} {:>8} {:>8}\n", c.opcode, c.before, c.after,
                         Signed(c.after - c.before));
    }
  }
  return out;
}

}  // namespace hloscope::memory_diff_internal
