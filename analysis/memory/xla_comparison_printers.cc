#include <algorithm>
#include <cctype>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
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

// A byte figure of the HTML tables: the exact count and, beside it, in human units, as the
// memory report's own tables (memory_report_html.cc) write theirs.
std::string BytesCell(int64_t bytes) {
  return fmt::format("{} ({})", bytes, HtmlEscape(HumanBytes(bytes)));
}

// A difference of bytes in the same way, its sign on both: "+4096 (+4.0 KiB)", "-2 (-2 B)".
std::string SignedBytesCell(int64_t delta) {
  const char* plus = delta > 0 ? "+" : "";
  return fmt::format("{}{} ({}{})", plus, delta, plus, HtmlEscape(HumanBytes(delta)));
}

// A pair whose two sides differ in size or kind, or that has one side only: it stands out.
bool PairDiffers(const XlaAllocationPair& a) {
  return a.xla_index < 0 || a.ours_index < 0 || a.xla_bytes != a.ours_bytes ||
         a.xla_kind != a.ours_kind;
}

// A difference's name as an HTML class: "other allocation" -> "other-allocation".
std::string ClassName(std::string_view name) {
  std::string out;
  for (char ch : name) {
    if (std::isalnum(static_cast<unsigned char>(ch)))
      out += ch;
    else if (ch == ' ')
      out += '-';
  }
  return out;
}

}  // namespace

void AppendXlaComparisonText(const XlaAssignmentComparison& c, std::string& out) {
  out += fmt::format("XLA's buffer assignment ({}) beside ours: module {}\n", c.source, c.module);
  out += fmt::format("  {:<20} {:>16} {:>16} {:>16} {:>9}\n", "kind", "ours", "XLA's", "difference",
                     "%");
  for (const XlaKindTotal& t : c.totals) {
    out += fmt::format("  {:<20} {:>16} {:>16} {:>16} {:>9}\n", t.kind, t.ours, t.xla,
                       t.difference(), Percent(t.difference(), t.xla));
  }
  if (c.xla_peak_bytes) {
    out += fmt::format("  XLA's peak (from its heap-simulator traces): {} bytes padded, {}\n",
                       *c.xla_peak_bytes,
                       c.xla_peak_unpadded_bytes
                           ? fmt::format("{} bytes unpadded", *c.xla_peak_unpadded_bytes)
                           : fmt::format("unpadded not known ({})", c.xla_peak_unpadded_unknown));
  }
  if (c.modeled_xla_peak_bytes) {
    out += fmt::format(
        "  our model's peak (XLA's measure, on the model's heap trace): {} bytes padded, {} "
        "live throughout{}\n",
        *c.modeled_xla_peak_bytes, c.modeled_xla_peak_static_bytes.value_or(0),
        c.xla_peak_bytes ? fmt::format("; {:+} bytes beside XLA's",
                                       *c.modeled_xla_peak_bytes - *c.xla_peak_bytes)
                         : std::string());
  }
  for (const XlaMemorySpaceTotals& m : c.xla_memory_spaces) {
    out += fmt::format(
        "  XLA's memory space S({}): {} bytes in {} allocation{}, {} bytes live throughout\n",
        m.memory_space, m.total_bytes, m.allocations, m.allocations == 1 ? "" : "s",
        m.indefinite_bytes);
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
  p->set_has_xla_peak(c.xla_peak_bytes.has_value());
  p->set_xla_peak_bytes(c.xla_peak_bytes.value_or(0));
  p->set_has_xla_peak_unpadded(c.xla_peak_unpadded_bytes.has_value());
  p->set_xla_peak_unpadded_bytes(c.xla_peak_unpadded_bytes.value_or(0));
  p->set_xla_peak_unpadded_unknown(c.xla_peak_unpadded_unknown);
  p->set_has_modeled_xla_peak(c.modeled_xla_peak_bytes.has_value());
  p->set_modeled_xla_peak_bytes(c.modeled_xla_peak_bytes.value_or(0));
  p->set_modeled_xla_peak_static_bytes(c.modeled_xla_peak_static_bytes.value_or(0));
  for (const XlaMemorySpaceTotals& m : c.xla_memory_spaces) {
    report::XlaMemorySpaceTotal* o = p->add_xla_memory_spaces();
    o->set_memory_space(m.memory_space);
    o->set_total_bytes(m.total_bytes);
    o->set_indefinite_bytes(m.indefinite_bytes);
    o->set_allocations(m.allocations);
  }
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
  // The peaks (XLA's from its traces; ours by the same measure on the model) and XLA's bytes
  // per memory space, as the text and JSON give them.
  std::string peaks;
  if (c.xla_peak_bytes) {
    peaks += fmt::format("{},xla_peak,{}\n", CsvField(c.module), *c.xla_peak_bytes);
  }
  if (c.xla_peak_unpadded_bytes) {
    peaks +=
        fmt::format("{},xla_peak_unpadded,{}\n", CsvField(c.module), *c.xla_peak_unpadded_bytes);
  }
  if (c.modeled_xla_peak_bytes) {
    peaks += fmt::format("{},modeled_xla_peak,{}\n", CsvField(c.module), *c.modeled_xla_peak_bytes);
    peaks += fmt::format("{},modeled_xla_peak_static,{}\n", CsvField(c.module),
                         c.modeled_xla_peak_static_bytes.value_or(0));
  }
  if (!peaks.empty()) out += "\nmodule,peak,bytes\n" + peaks;
  if (!c.xla_memory_spaces.empty()) {
    out += "\nmodule,xla_memory_space,total_bytes,allocations,live_throughout_bytes\n";
    for (const XlaMemorySpaceTotals& m : c.xla_memory_spaces) {
      out += fmt::format("{},{},{},{},{}\n", CsvField(c.module), m.memory_space, m.total_bytes,
                         m.allocations, m.indefinite_bytes);
    }
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

// One heap as boxes (x: time, y: offset, height: bytes) in an SVG of its own; `heap` bytes
// reach the top (both sides' drawings share a scale, so their heights compare).
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

// Each pair of the side-by-side as two bars on one scale, XLA's above ours, the largest pairs
// first: where the model's allocations differ from XLA's in size or are missing on one side.
// An allocation of ours beside several of XLA's (the temp one, beside XLA's small outputs
// whose values it holds) is drawn once, in its pair with the largest of XLA's; the others name
// it.
void AppendAllocationBars(const XlaAssignmentComparison& c, std::string& out) {
  if (c.allocations.empty()) return;
  constexpr size_t kMaxPairs = 64;
  constexpr int kBar = 9, kRow = 2 * kBar + 6, kLabel = 90, kBars = 520, kWidth = 960;
  absl::flat_hash_map<int64_t, const XlaAllocationPair*> drawn;  // by our index
  for (const XlaAllocationPair& a : c.allocations) {
    if (a.ours_index < 0) continue;
    auto [it, first] = drawn.try_emplace(a.ours_index, &a);
    if (!first && a.xla_bytes > it->second->xla_bytes) it->second = &a;
  }
  const auto draws_ours = [&](const XlaAllocationPair* a) {
    return a->ours_index >= 0 && drawn.at(a->ours_index) == a;
  };
  const auto larger = [&](const XlaAllocationPair* a) {
    return std::max(a->xla_bytes, draws_ours(a) ? a->ours_bytes : 0);
  };
  std::vector<const XlaAllocationPair*> pairs;
  for (const XlaAllocationPair& a : c.allocations) pairs.push_back(&a);
  std::stable_sort(pairs.begin(), pairs.end(),
                   [&](const XlaAllocationPair* x, const XlaAllocationPair* y) {
                     return larger(x) > larger(y);
                   });
  const size_t shown = std::min(pairs.size(), kMaxPairs);
  const double max_bytes = static_cast<double>(std::max<int64_t>(1, larger(pairs.front())));
  const int height = static_cast<int>(shown) * kRow + 30;
  out += fmt::format(
      "<figure class=\"xla-allocation-bars\"><figcaption>allocations side by side ({}; "
      "XLA's above, ours ({}) below, one scale)</figcaption>\n"
      "<svg id=\"xla-allocation-bars\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" "
      "height=\"{}\" viewBox=\"0 0 {} {}\">\n",
      shown < pairs.size() ? fmt::format("the largest {} of {}", shown, pairs.size())
                           : fmt::format("all {}", pairs.size()),
      HtmlEscape(c.ours_model.empty() ? "ours" : c.ours_model + " model"), kWidth, height, kWidth,
      height);
  int y = 10;
  for (size_t k = 0; k < shown; ++k) {
    const XlaAllocationPair& a = *pairs[k];
    const bool differs = PairDiffers(a);
    out += fmt::format(
        "<text x=\"{}\" y=\"{}\" font-size=\"11\" text-anchor=\"end\"{}>{} | {}</text>\n",
        kLabel - 6, y + kBar + 3, differs ? " fill=\"#d62728\"" : "", Index(a.xla_index),
        Index(a.ours_index));
    const auto bar = [&](std::string_view side, int64_t index, const std::string& kind,
                         int64_t bytes, int64_t values, int at, const char* colour) {
      if (index < 0) return;
      const double w = std::max(1.0, kBars * static_cast<double>(bytes) / max_bytes);
      out += fmt::format(
          "<rect class=\"allocation-bar {}\" x=\"{}\" y=\"{}\" width=\"{:.1f}\" "
          "height=\"{}\" fill=\"{}\"><title>{} allocation {}: {} bytes ({}), {}, {}</title>"
          "</rect><text x=\"{:.1f}\" y=\"{}\" font-size=\"9\">{} {}</text>\n",
          side, kLabel, at, w, kBar, colour, side, index, bytes, HtmlEscape(HumanBytes(bytes)),
          Values(values), HtmlEscape(kind), kLabel + w + 4, at + kBar - 1,
          HtmlEscape(HumanBytes(bytes)), HtmlEscape(kind));
    };
    bar("xla", a.xla_index, a.xla_kind, a.xla_bytes, a.xla_values, y, "#ff7f0e");
    if (draws_ours(&a)) {
      bar("ours", a.ours_index, a.ours_kind, a.ours_bytes, a.ours_values, y + kBar, "#1f77b4");
    } else if (a.ours_index >= 0) {
      out += fmt::format(
          "<text class=\"allocation-again\" x=\"{}\" y=\"{}\" font-size=\"9\">our {} "
          "({}), drawn beside XLA's {}</text>\n",
          kLabel, y + 2 * kBar - 1, a.ours_index, HtmlEscape(HumanBytes(a.ours_bytes)),
          Index(drawn.at(a.ours_index)->xla_index));
    }
    y += kRow;
  }
  out += "</svg></figure>\n";
}

}  // namespace

void AppendXlaComparisonHtml(const XlaAssignmentComparison& c, const ModuleMemory* ours,
                             const OptionSpelling& option_spelling, std::string& out) {
  out += fmt::format("<h2>XLA's buffer assignment beside ours: module {}</h2>\n<p>from {}</p>\n",
                     HtmlEscape(c.module), HtmlEscape(c.source));
  if (c.ours_model == "xla") {
    out += fmt::format(
        "<p class=\"ours-model\">ours: the xla model (<code>{}=xla</code>), our model "
        "of XLA's buffer assignment: its allocations, kinds and offsets</p>\n",
        HtmlEscape(SpellOption(option_spelling, "memory_model")));
  } else if (c.ours_model == "liveness") {
    out += fmt::format(
        "<p class=\"ours-model\">ours: the liveness profile (<code>{}=liveness</code>"
        "): its simulated allocations; a callee's buffers are one block at its call</p>\n",
        HtmlEscape(SpellOption(option_spelling, "memory_model")));
  }
  out +=
      "<table class=\"xla-totals\"><caption>bytes per kind</caption>\n"
      "<tr><th>kind</th><th>ours</th><th>XLA's</th><th>difference</th><th>%</th></tr>\n";
  for (const XlaKindTotal& t : c.totals) {
    out += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n", t.kind,
                       BytesCell(t.ours), BytesCell(t.xla), SignedBytesCell(t.difference()),
                       Percent(t.difference(), t.xla));
  }
  out += "</table>\n";
  if (c.xla_peak_bytes) {
    out += fmt::format(
        "<p class=\"xla-peak\">XLA's peak (from its heap-simulator traces): {} padded, {}</p>\n",
        BytesCell(*c.xla_peak_bytes),
        c.xla_peak_unpadded_bytes
            ? BytesCell(*c.xla_peak_unpadded_bytes) + " unpadded"
            : "unpadded not known (" + HtmlEscape(c.xla_peak_unpadded_unknown) + ")");
  }
  if (c.modeled_xla_peak_bytes) {
    out += fmt::format(
        "<p class=\"modeled-xla-peak\">our model's peak (XLA's measure, on the model's heap "
        "trace): {} padded, {} live throughout{}</p>\n",
        BytesCell(*c.modeled_xla_peak_bytes),
        BytesCell(c.modeled_xla_peak_static_bytes.value_or(0)),
        c.xla_peak_bytes ? "; " + SignedBytesCell(*c.modeled_xla_peak_bytes - *c.xla_peak_bytes) +
                               " beside XLA's"
                         : std::string());
  }
  if (!c.xla_memory_spaces.empty()) {
    out +=
        "<table class=\"xla-memory-spaces\"><caption>XLA's allocations per memory space"
        "</caption>\n<tr><th>memory space</th><th>bytes</th><th>allocations</th>"
        "<th>live throughout</th></tr>\n";
    for (const XlaMemorySpaceTotals& m : c.xla_memory_spaces) {
      out +=
          fmt::format("<tr><td>S({})</td><td>{}</td><td>{}</td><td>{}</td></tr>\n", m.memory_space,
                      BytesCell(m.total_bytes), m.allocations, BytesCell(m.indefinite_bytes));
    }
    out += "</table>\n";
  }
  out +=
      "<table class=\"xla-allocations\"><caption>allocations side by side</caption>\n"
      "<tr><th>XLA's</th><th>kind</th><th>bytes</th><th>values</th><th>ours</th><th>kind</th>"
      "<th>bytes</th><th>values</th><th>e.g.</th></tr>\n";
  for (const XlaAllocationPair& a : c.allocations) {
    const bool differs = PairDiffers(a);
    out += fmt::format(
        "<tr{}><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "<td>{}</td><td>{}</td></tr>\n",
        differs ? " class=\"differs\"" : "", Index(a.xla_index), HtmlEscape(a.xla_kind),
        BytesCell(a.xla_bytes), a.xla_values, Index(a.ours_index), HtmlEscape(a.ours_kind),
        BytesCell(a.ours_bytes), a.ours_values, HtmlEscape(a.example_value));
  }
  out += "</table>\n";
  out += fmt::format(
      "<table class=\"xla-differences\"><caption>values that differ: {} ({} bytes, {}), largest "
      "first</caption>\n<tr><th>bytes</th><th>difference</th><th>value</th><th>XLA's</th>"
      "<th>ours</th></tr>\n",
      c.differing_values, c.differing_bytes, HtmlEscape(HumanBytes(c.differing_bytes)));
  for (const XlaValueDifference& d : c.differences) {
    std::string kind(XlaValueDifferenceName(d.kind));
    out += fmt::format(
        "<tr class=\"{}\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
        ClassName(kind), BytesCell(d.bytes), kind, HtmlEscape(d.value), HtmlEscape(d.xla),
        HtmlEscape(d.ours));
  }
  out += "</table>\n";
  AppendAllocationBars(c, out);
  // The preallocated temp allocation on both sides: XLA's values where its trace had them, and
  // ours: under the xla model its temp allocation(s) laid end to end as XLA's, each value over
  // the whole-module timeline (XLA's trace is on the same kind of timeline); under liveness
  // where the profile's simulation put them (our boxes above the own allocations of
  // parameters, constants and outputs, moved down to start at 0 like XLA's).
  out += "<div class=\"xla-heaps\" style=\"display:flex;gap:12px\">\n";
  const bool model = c.ours_model == "xla";
  const int64_t scale = model ? std::max(c.xla_heap_bytes, c.ours_heap_bytes) : c.xla_heap_bytes;
  if (c.has_heap_trace) {
    AppendHeapSvg("xla-heap", "XLA's preallocated temp (its heap-simulator trace)",
                  "XLA's trace order", c.xla_heap, c.xla_heap_steps, scale, out);
  } else {
    out += "<p>XLA's dump has no heap-simulator trace: its heap cannot be drawn.</p>\n";
  }
  if (model) {
    AppendHeapSvg("our-heap",
                  c.ours_heap_bytes > 0
                      ? fmt::format("ours: the xla model's preallocated temp ({} bytes, {})",
                                    c.ours_heap_bytes, HumanBytes(c.ours_heap_bytes))
                      : std::string("ours: the xla model has no preallocated temp allocation"),
                  "whole-module timeline", c.ours_heap, c.ours_heap_steps, scale, out);
  } else if (ours != nullptr) {
    const int64_t fixed = ours->heap_bytes - ours->allocations.temp_bytes;
    std::vector<XlaHeapBox> boxes;
    for (const HeapBox& b : ours->heap_boxes) {
      if (b.offset < fixed) continue;
      boxes.push_back({b.first, b.last, b.offset - fixed, b.bytes, b.name});
    }
    AppendHeapSvg("our-heap", "ours: the liveness profile's preallocated temp (simulated)",
                  "entry steps", boxes, ours->instructions, ours->allocations.temp_bytes, out);
  }
  out += "</div>\n";
}

}  // namespace hloscope
