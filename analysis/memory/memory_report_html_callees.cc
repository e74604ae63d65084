#include "analysis/memory/memory_report_html_callees.h"

#include "fmt/format.h"
#include "support/bytes.h"
#include "support/escapes.h"

namespace hloscope::memory_report_internal {

void AppendCalleePeaksHtml(const ModuleMemory& m, std::string& out) {
  if (m.callee_peaks.empty()) return;
  out += fmt::format(
      "<div class=\"callee-peaks\"><h3>the peak of {} is inside {}: what it holds there</h3>\n",
      HtmlEscape(m.module), HtmlEscape(m.callee_peaks.front().computation));
  // Outermost first, each nested callee's section inside its caller's: <details> folds without
  // a script, and every level opens so the innermost is in view.
  for (const CalleePeak& c : m.callee_peaks) {
    out += fmt::format(
        "<details class=\"callee-peak\" open><summary>inside <b>{}</b> (called by {}) at its "
        "peak, {} bytes ({}) at {}</summary>\n<table class=\"callee-buffers\"><tr><th>bytes</th>"
        "<th>kind</th><th>instruction</th><th>shape</th><th>op_name</th><th>source</th>"
        "<th>live</th></tr>\n",
        HtmlEscape(c.computation), HtmlEscape(c.caller), c.peak_bytes,
        HtmlEscape(HumanBytes(c.peak_bytes)), HtmlEscape(c.peak_instruction));
    for (const LiveBuffer& b : c.top_buffers) {
      out += fmt::format(
          "<tr><td>{} ({})</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
          "<td>[{}, {}]</td></tr>\n",
          b.bytes, HtmlEscape(HumanBytes(b.bytes)), HtmlEscape(LiveBufferKindName(b.kind)),
          HtmlEscape(b.instruction), HtmlEscape(b.shape), HtmlEscape(b.op_name),
          HtmlEscape(b.source), b.start, b.end);
    }
    out += "</table>\n";
  }
  for (size_t i = 0; i < m.callee_peaks.size(); ++i) out += "</details>\n";
  out += "</div>\n";
}

}  // namespace hloscope::memory_report_internal
