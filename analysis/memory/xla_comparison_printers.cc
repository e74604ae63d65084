#include <algorithm>

#include "analysis/memory/memory_report.pb.h"
#include "analysis/memory/xla_comparison_printers_internal.h"
#include "fmt/format.h"
#include "support/bytes.h"
#include "support/escapes.h"
#include "support/str_util.h"

namespace hloscope {
namespace {

std::string Percent(int64_t difference, int64_t base) {
  if (base == 0) return difference == 0 ? "0.00%" : "-";
  return fmt::format("{:+.2f}%",
                     100.0 * static_cast<double>(difference) / static_cast<double>(base));
}

std::string Values(int64_t n) { return fmt::format("{} value{}", n, n == 1 ? "" : "s"); }

std::string Index(int64_t i) { return i < 0 ? "-" : std::to_string(i); }

}  // namespace

void AppendXlaComparisonText(const XlaAssignmentComparison& c, std::string& out) {
  out += fmt::format("XLA's buffer assignment ({}) beside ours: module {}\n", c.source, c.module);
  out += fmt::format("  {:<20} {:>16} {:>16} {:>16} {:>9}\n", "kind", "ours", "XLA's", "difference",
                     "%");
  for (const XlaKindTotal& t : c.totals) {
    out += fmt::format("  {:<20} {:>16} {:>16} {:>16} {:>9}\n", t.kind, t.ours, t.xla,
                       t.difference(), Percent(t.difference(), t.xla));
  }
  out += "  allocations (XLA's | ours):\n";
  for (const XlaAllocationPair& a : c.allocations) {
    const std::string xla = a.xla_index < 0
                                ? "-"
                                : fmt::format("{}: {} bytes, {}, {}", a.xla_index, a.xla_bytes,
                                              Values(a.xla_values), a.xla_kind);
    const std::string ours = a.ours_index < 0
                                 ? "-"
                                 : fmt::format("{}: {} bytes, {}, {}", a.ours_index, a.ours_bytes,
                                               Values(a.ours_values), a.ours_kind);
    out += fmt::format("    {} | {}{}\n", xla, ours,
                       a.example_value.empty() ? "" : fmt::format(" (e.g. {})", a.example_value));
  }
  out +=
      fmt::format("  values that differ: {} ({} bytes){}\n", c.differing_values, c.differing_bytes,
                  c.has_heap_trace ? "" : "; live ranges not compared (no heap trace)");
  for (const XlaValueDifference& d : c.differences) {
    out += fmt::format("    {:>14} {:<17} {}: XLA's {}; ours {}\n", d.bytes,
                       XlaValueDifferenceName(d.kind), d.value, d.xla, d.ours);
  }
}

void FillXlaComparisonProto(const XlaAssignmentComparison& c, report::XlaAssignmentComparison* p) {
  p->set_source(c.source);
  for (const XlaKindTotal& t : c.totals) {
    report::XlaKindTotal* o = p->add_totals();
    o->set_kind(t.kind);
    o->set_ours_bytes(t.ours);
    o->set_xla_bytes(t.xla);
    o->set_difference_bytes(t.difference());
  }
  for (const XlaAllocationPair& a : c.allocations) {
    report::XlaAllocationPair* o = p->add_allocations();
    o->set_xla_index(a.xla_index);
    o->set_xla_kind(a.xla_kind);
    o->set_xla_bytes(a.xla_bytes);
    o->set_xla_values(a.xla_values);
    o->set_ours_index(a.ours_index);
    o->set_ours_kind(a.ours_kind);
    o->set_ours_bytes(a.ours_bytes);
    o->set_ours_values(a.ours_values);
    o->set_example_value(a.example_value);
  }
  for (const XlaValueDifference& d : c.differences) {
    report::XlaValueDifference* o = p->add_differences();
    o->set_kind(std::string(XlaValueDifferenceName(d.kind)));
    o->set_value(d.value);
    o->set_bytes(d.bytes);
    o->set_xla(d.xla);
    o->set_ours(d.ours);
  }
  p->set_differing_values(c.differing_values);
  p->set_differing_bytes(c.differing_bytes);
  p->set_has_heap_trace(c.has_heap_trace);
  p->set_xla_heap_bytes(c.xla_heap_bytes);
  p->set_xla_heap_steps(c.xla_heap_steps);
}

void AppendXlaComparisonCsv(const XlaAssignmentComparison& c, std::string& out) {
  out += "\nmodule,kind,ours_bytes,xla_bytes,difference_bytes\n";
  for (const XlaKindTotal& t : c.totals) {
    out +=
        fmt::format("{},{},{},{},{}\n", CsvField(c.module), t.kind, t.ours, t.xla, t.difference());
  }
  out +=
      "\nmodule,xla_index,xla_kind,xla_bytes,xla_values,ours_index,ours_kind,ours_bytes,"
      "ours_values,example_value\n";
  for (const XlaAllocationPair& a : c.allocations) {
    out +=
        fmt::format("{},{},{},{},{},{},{},{},{},{}\n", CsvField(c.module), a.xla_index,
                    CsvField(a.xla_kind), a.xla_bytes, a.xla_values, a.ours_index,
                    CsvField(a.ours_kind), a.ours_bytes, a.ours_values, CsvField(a.example_value));
  }
  out += "\nmodule,difference,value,bytes,xla,ours\n";
  for (const XlaValueDifference& d : c.differences) {
    out += fmt::format("{},{},{},{},{},{}\n", CsvField(c.module), XlaValueDifferenceName(d.kind),
                       CsvField(d.value), d.bytes, CsvField(d.xla), CsvField(d.ours));
  }
}

namespace {

constexpr int kHeapWidth = 470, kHeapHeight = 300;
constexpr int kHeapLeft = 70, kHeapRight = 10, kHeapTop = 20, kHeapBottom = 40;
constexpr const char* kColors[] = {"#d62728", "#2ca02c", "#9467bd", "#ff7f0e",
                                   "#17becf", "#8c564b", "#e377c2", "#bcbd22"};

// One heap as boxes (x: time, y: offset, height: bytes) in an SVG of its own.
void AppendHeapSvg(std::string_view id, std::string_view title, std::string_view time_axis,
                   const std::vector<XlaHeapBox>& boxes, int64_t steps, int64_t heap,
                   std::string& out) {
  const double plot_w = kHeapWidth - kHeapLeft - kHeapRight;
  const double plot_h = kHeapHeight - kHeapTop - kHeapBottom;
  out += fmt::format(
      "<figure class=\"xla-heap\"><figcaption>{}</figcaption>\n"
      "<svg id=\"{}\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
      "viewBox=\"0 0 {} {}\">\n"
      "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#f8f8f8\" stroke=\"#bbb\"/>\n",
      HtmlEscape(title), id, kHeapWidth, kHeapHeight, kHeapWidth, kHeapHeight, kHeapLeft, kHeapTop,
      plot_w, plot_h);
  if (steps > 0 && heap > 0) {
    size_t color = 0;
    for (const XlaHeapBox& b : boxes) {
      const double x = kHeapLeft + plot_w * b.first / static_cast<double>(steps);
      const double w = std::max(1.0, plot_w * (b.last - b.first + 1) / static_cast<double>(steps));
      const double h = std::max(1.0, plot_h * static_cast<double>(b.bytes) / heap);
      const double y = kHeapTop + plot_h - plot_h * static_cast<double>(b.offset) / heap - h;
      out += fmt::format(
          "<rect class=\"buffer\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" "
          "fill=\"{}\" fill-opacity=\"0.7\" stroke=\"#333\" stroke-width=\"0.3\"><title>{} {} "
          "bytes at offset {}</title></rect>\n",
          x, y, w, h, kColors[color++ % 8], HtmlEscape(b.name), b.bytes, b.offset);
    }
  }
  out += fmt::format(
      "<text x=\"{}\" y=\"{}\" font-size=\"12\" text-anchor=\"end\">{}</text>\n"
      "<text x=\"{}\" y=\"{}\" font-size=\"12\">{} &#8594;</text>\n</svg></figure>\n",
      kHeapLeft - 4, kHeapTop + 10, HtmlEscape(HumanBytes(heap)), kHeapLeft, kHeapHeight - 12,
      HtmlEscape(time_axis));
}

}  // namespace

void AppendXlaComparisonHtml(const XlaAssignmentComparison& c, const ModuleMemory* ours,
                             std::string& out) {
  out += fmt::format("<h2>XLA's buffer assignment beside ours: module {}</h2>\n<p>from {}</p>\n",
                     HtmlEscape(c.module), HtmlEscape(c.source));
  out +=
      "<table class=\"xla-totals\"><caption>bytes per kind</caption>\n"
      "<tr><th>kind</th><th>ours</th><th>XLA's</th><th>difference</th><th>%</th></tr>\n";
  for (const XlaKindTotal& t : c.totals) {
    out += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n", t.kind,
                       t.ours, t.xla, t.difference(), Percent(t.difference(), t.xla));
  }
  out += "</table>\n";
  out +=
      "<table class=\"xla-allocations\"><caption>allocations side by side</caption>\n"
      "<tr><th>XLA's</th><th>kind</th><th>bytes</th><th>values</th><th>ours</th><th>kind</th>"
      "<th>bytes</th><th>values</th><th>e.g.</th></tr>\n";
  for (const XlaAllocationPair& a : c.allocations) {
    out += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "<td>{}</td><td>{}</td></tr>\n",
        Index(a.xla_index), HtmlEscape(a.xla_kind), a.xla_bytes, a.xla_values, Index(a.ours_index),
        HtmlEscape(a.ours_kind), a.ours_bytes, a.ours_values, HtmlEscape(a.example_value));
  }
  out += "</table>\n";
  out += fmt::format(
      "<table class=\"xla-differences\"><caption>values that differ: {} ({} bytes), largest "
      "first</caption>\n<tr><th>bytes</th><th>difference</th><th>value</th><th>XLA's</th>"
      "<th>ours</th></tr>\n",
      c.differing_values, c.differing_bytes);
  for (const XlaValueDifference& d : c.differences) {
    out += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                       d.bytes, XlaValueDifferenceName(d.kind), HtmlEscape(d.value),
                       HtmlEscape(d.xla), HtmlEscape(d.ours));
  }
  out += "</table>\n";
  // The preallocated temp allocation on both sides: XLA's values where its trace had them,
  // ours where the simulation put them (our boxes above the own allocations of parameters,
  // constants and outputs, moved down to start at 0 like XLA's).
  out += "<div class=\"xla-heaps\" style=\"display:flex;gap:12px\">\n";
  if (c.has_heap_trace) {
    AppendHeapSvg("xla-heap", "XLA's preallocated temp (its heap-simulator trace)",
                  "XLA's trace order", c.xla_heap, c.xla_heap_steps, c.xla_heap_bytes, out);
  } else {
    out += "<p>XLA's dump has no heap-simulator trace: its heap cannot be drawn.</p>\n";
  }
  if (ours != nullptr) {
    const int64_t fixed = ours->heap_bytes - ours->allocations.temp_bytes;
    std::vector<XlaHeapBox> boxes;
    for (const HeapBox& b : ours->heap_boxes) {
      if (b.offset < fixed) continue;
      boxes.push_back({b.first, b.last, b.offset - fixed, b.bytes, b.name});
    }
    AppendHeapSvg("our-heap", "our preallocated temp (simulated)", "entry steps", boxes,
                  ours->instructions, ours->allocations.temp_bytes, out);
  }
  out += "</div>\n";
}

}  // namespace hloscope
