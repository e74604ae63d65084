// The memory diff as HTML (`hlo-opt --memory-diff A B --format=html`): one self-contained page
// in the memory report's manner (memory_report_html.cc: inline SVG and CSS, no scripts, fonts or
// links): the two peaks side by side, live bytes over each module's entry schedule (before
// dashed, after solid), then the buffers at the peak by kind of change, the copies added and
// removed, and the opcodes whose count changed.
#include <algorithm>
#include <string>

#include "analysis/memory/memory_diff_internal.h"
#include "analysis/memory/memory_report_internal.h"
#include "fmt/format.h"
#include "support/bytes.h"
#include "support/escapes.h"
#include "support/option_spelling.h"
#include "support/str_util.h"

namespace hloscope::memory_diff_internal {
namespace {

constexpr int kWidth = 960, kHeight = 300;
constexpr int kLeft = 90, kRight = 20, kTop = 20, kBottom = 40;
constexpr size_t kMaxPoints = 1500;  // a polyline stays light whatever the module's size

constexpr auto& Escape = hloscope::HtmlEscape;

// A byte figure as the text report writes it: the exact count, and in human units.
std::string Bytes(int64_t bytes) {
  return fmt::format("{} ({})", bytes, Escape(HumanBytes(bytes)));
}

// A change of bytes in human units: "+16.0 MiB", "-2 B", "0 B".
std::string SignedHuman(int64_t delta) {
  return (delta > 0 ? "+" : "") + Escape(HumanBytes(delta));
}

// A change of bytes: "+16777216 (+16.0 MiB)", "-2 (-2 B)", "0 (0 B)".
std::string SignedBytes(int64_t delta) {
  return fmt::format("{} ({})", Signed(delta), SignedHuman(delta));
}

std::vector<int64_t> LiveBytes(const MemoryReport& r) {
  std::vector<int64_t> v;
  if (r.modules.empty()) return v;
  for (const TimelinePoint& p : r.modules.front().timeline) v.push_back(p.live_bytes);
  return v;
}

// Both modules' live bytes on one scale; x is the fraction of each schedule, since the two may
// differ in length. Each line keeps the maximum of every bucket, so peaks survive.
void AppendPlot(const MemoryDiff& d, std::string& out) {
  const std::vector<int64_t> before = LiveBytes(d.before), after = LiveBytes(d.after);
  if (before.empty() && after.empty()) return;
  int64_t max_bytes = 1;
  for (int64_t b : before) max_bytes = std::max(max_bytes, b);
  for (int64_t b : after) max_bytes = std::max(max_bytes, b);
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  auto y = [&](int64_t b) {
    return kTop + plot_h - plot_h * static_cast<double>(b) / static_cast<double>(max_bytes);
  };
  out += fmt::format(
      "<svg class=\"plot\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
      "viewBox=\"0 0 {} {}\" role=\"img\">\n<title>live bytes per entry instruction, before "
      "and after</title>\n<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#fafafa\" "
      "stroke=\"#999\"/>\n",
      kWidth, kHeight, kWidth, kHeight, kLeft, kTop, plot_w, plot_h);
  for (int k = 0; k <= 4; ++k) {
    const int64_t b = max_bytes * k / 4;
    out += fmt::format(
        "<line x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#ddd\"/><text x=\"{}\" "
        "y=\"{:.1f}\" font-size=\"11\" text-anchor=\"end\">{}</text>\n",
        kLeft, kWidth - kRight, y(b), y(b), kLeft - 6, y(b) + 4, Escape(HumanBytes(b)));
  }
  out += fmt::format(
      "<text x=\"{}\" y=\"{}\" font-size=\"12\" text-anchor=\"middle\">entry instruction "
      "(fraction of each schedule)</text>\n",
      kLeft + plot_w / 2, kHeight - 10);
  auto line = [&](const std::vector<int64_t>& v, const char* cls, const char* color, bool dashed,
                  std::string_view label) {
    if (v.empty()) return;
    const size_t bucket = (v.size() + kMaxPoints - 1) / kMaxPoints;
    auto x = [&](size_t t) {
      return kLeft + (v.size() <= 1 ? 0.0 : plot_w * static_cast<double>(t) / (v.size() - 1));
    };
    out += fmt::format(
        "<polyline class=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"{} points=\"", cls,
        color, dashed ? " stroke-dasharray=\"6 3\"" : "");
    for (size_t start = 0; start < v.size(); start += bucket) {
      size_t best = start;
      for (size_t t = start; t < std::min(v.size(), start + bucket); ++t) {
        if (v[t] > v[best]) best = t;
      }
      out += fmt::format("{:.1f},{:.1f} ", x(best), y(v[best]));
    }
    out += fmt::format("\"><title>{}</title></polyline>\n", Escape(label));
  };
  line(before, "before", "#888", true, "before");
  line(after, "after", "#1f77b4", false, "after");
  out +=
      "</svg>\n<p class=\"legend\"><span style=\"color:#888\">&#9632;</span> before (dashed) "
      "&nbsp; <span style=\"color:#1f77b4\">&#9632;</span> after</p>\n";
}

void AppendChanges(std::string_view title, const std::vector<PeakBufferDiff>& list,
                   const PeakChangeTotal& total, const OptionSpelling& spelling, std::string& out) {
  if (total.buffers == 0) return;  // the line above the tables counts it
  out += fmt::format(
      "<table class=\"changes\"><caption>{}: {} buffer{}, {} bytes ({})</caption>\n<tr><th>delta "
      "bytes</th><th>before</th><th>after</th><th>kind</th><th>instruction</th><th>shape</th>"
      "<th>op_name</th><th>matched by</th></tr>\n",
      Escape(title), total.buffers, total.buffers == 1 ? "" : "s", Signed(total.delta_bytes),
      SignedHuman(total.delta_bytes));
  for (const PeakBufferDiff& d : list) {
    const LiveBuffer& b = d.change == PeakBufferChange::kGone ? d.before : d.after;
    std::string name = b.instruction;
    if (d.matched_by == "op_name and shape" && d.before.instruction != d.after.instruction) {
      name += " (was " + d.before.instruction + ")";
    }
    out += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "<td>{}</td></tr>\n",
        SignedBytes(d.delta_bytes()), Bytes(d.before.bytes), Bytes(d.after.bytes),
        Escape(LiveBufferKindName(b.kind)), Escape(name), Escape(b.shape), Escape(b.op_name),
        Escape(d.matched_by));
  }
  if (total.buffers > static_cast<int64_t>(list.size())) {
    out += fmt::format("<tr><td colspan=\"8\">and {} more ({}=N lists more)</td></tr>\n",
                       total.buffers - static_cast<int64_t>(list.size()),
                       Escape(SpellOption(spelling, "top")));
  }
  out += "</table>\n";
}

void AppendCopies(std::string_view title, const std::vector<CopyChange>& copies,
                  const CopyChangeTotal& total, const OptionSpelling& spelling, std::string& out) {
  out += fmt::format(
      "<table class=\"copies\"><caption>{}: {}, {} bytes "
      "({})</caption>\n<tr><th>bytes</th><th>instruction"
      "</th><th>shape</th><th>computation</th><th>in a loop</th><th>op_name</th></tr>\n",
      Escape(title), total.copies, total.bytes, Escape(HumanBytes(total.bytes)));
  for (const CopyChange& c : copies) {
    out +=
        fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                    Bytes(c.bytes), Escape(c.instruction), Escape(c.shape), Escape(c.computation),
                    c.in_loop ? "yes" : "no", Escape(c.op_name));
  }
  if (total.copies > static_cast<int64_t>(copies.size())) {
    out += fmt::format("<tr><td colspan=\"6\">and {} more ({}=N lists more)</td></tr>\n",
                       total.copies - static_cast<int64_t>(copies.size()),
                       Escape(SpellOption(spelling, "top")));
  }
  out += "</table>\n";
}

}  // namespace

std::string MemoryDiffHtml(const MemoryDiff& d, const MemoryDiffPrintOptions& options) {
  const std::string before = SideLabel(options.before_label, d.before);
  const std::string after = SideLabel(options.after_label, d.after);
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
      "<title>hloscope memory diff</title>\n<style>\n"
      "body{font-family:sans-serif;margin:20px;color:#222;background:#fff}\n"
      "table{border-collapse:collapse;margin:12px 0}td,th{border:1px solid #bbb;"
      "padding:2px 8px;text-align:right}caption{text-align:left;font-weight:bold}\n"
      ".legend{font-size:13px}\n</style></head><body>\n<h1>Memory diff</h1>\n";
  const int64_t delta = d.peak_delta_bytes();
  out += fmt::format(
      "<p id=\"summary\">{} &#8594; {}: peak {} bytes ({}) &#8594; {} bytes ({}), {} bytes "
      "({:+.2f}%)</p>\n",
      Escape(before), Escape(after), d.before.peak_bytes, Escape(HumanBytes(d.before.peak_bytes)),
      d.after.peak_bytes, Escape(HumanBytes(d.after.peak_bytes)), Signed(delta),
      memory_report_internal::SavingPercent(delta, d.before.peak_bytes));
  if (d.saturated()) {
    out +=
        "<p class=\"warning\">Sizes past int64: the numbers that reached 9223372036854775807 "
        "are lower bounds.</p>\n";
  }
  auto row = [&](std::string_view what, auto b, auto a, std::string_view change) {
    out += fmt::format("<tr><th>{}</th><td>{}</td><td>{}</td><td>{}</td></tr>\n", Escape(what),
                       Escape(fmt::format("{}", b)), Escape(fmt::format("{}", a)), Escape(change));
  };
  out += fmt::format(
      "<table class=\"sides\"><caption>before and after</caption>\n<tr><th></th><th>{}</th>"
      "<th>{}</th><th>delta</th></tr>\n",
      Escape(before), Escape(after));
  out += fmt::format("<tr><th>peak bytes</th><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                     Bytes(d.before.peak_bytes), Bytes(d.after.peak_bytes), SignedBytes(delta));
  row("peak at", d.before.peak_instruction, d.after.peak_instruction, "");
  row("buffers live at the peak", d.peak_buffers_before, d.peak_buffers_after,
      Signed(d.peak_buffers_after - d.peak_buffers_before));
  row("copies", d.copies_before, d.copies_after, Signed(d.copies_after - d.copies_before));
  row("instructions", d.instructions_before, d.instructions_after,
      Signed(d.instructions_after - d.instructions_before));
  if (!d.before.modules.empty() && !d.after.modules.empty()) {
    row("module", d.before.modules.front().module, d.after.modules.front().module, "");
    row("schedule", d.before.modules.front().schedule, d.after.modules.front().schedule, "");
    row("memory model", d.before.modules.front().model, d.after.modules.front().model, "");
  }
  out += "</table>\n<h2>live bytes</h2>\n";
  AppendPlot(d, out);
  out += fmt::format(
      "<h2>buffers at the peak</h2>\n<p>{} new, {} gone, {} grown, {} shrunk, {} unchanged "
      "(matched by op_name and shape, then by name)</p>\n",
      d.new_total.buffers, d.gone_total.buffers, d.grown_total.buffers, d.shrunk_total.buffers,
      d.unchanged_buffers);
  AppendChanges("new at the peak", d.new_buffers, d.new_total, options.option_spelling, out);
  AppendChanges("gone from the peak", d.gone_buffers, d.gone_total, options.option_spelling, out);
  AppendChanges("grown", d.grown_buffers, d.grown_total, options.option_spelling, out);
  AppendChanges("shrunk", d.shrunk_buffers, d.shrunk_total, options.option_spelling, out);
  out += "<h2>copies</h2>\n";
  AppendCopies("copies added", d.copies_added, d.copies_added_total, options.option_spelling, out);
  AppendCopies("copies removed", d.copies_removed, d.copies_removed_total, options.option_spelling,
               out);
  out +=
      "<h2>instructions per opcode</h2>\n<table class=\"opcodes\"><caption>where the count "
      "changed</caption>\n<tr><th>opcode</th><th>before</th><th>after</th><th>delta</th></tr>\n";
  for (const OpcodeCountChange& c : d.opcodes) {
    out += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n", Escape(c.opcode),
                       c.before, c.after, Signed(c.after - c.before));
  }
  out += "</table>\n</body></html>\n";
  return out;
}

}  // namespace hloscope::memory_diff_internal
