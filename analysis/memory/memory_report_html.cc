// The memory report as HTML (`hlo-opt --memory-report --format=html`): one self-contained page
// (inline SVG, CSS and one small script; no fonts, links or anything fetched) plotting live bytes
// over each module's entry schedule, one line per stage when stages are named inside the module,
// before and after when passes ran; with host-offloaded buffers, the device's and the host's
// apart (the limit line against the device's); when the peak is inside a callee, what the
// callee holds at its peak (memory_report_html_callees.h); the live bytes stacked by category;
// the buffers live at the peak grouped by category and op_name scope (collapsible); the
// simulated heap, each buffer a box over the steps it lives at its offset, with the layout at
// the peak and a table of its buffers (sortable, hover for a tooltip and the box highlighted:
// memory_report_html_buffers.h); and, for pipelined modules only, the stage table (with a
// limit, each stage's verdict; with host memory in a stage, its device and host parts, drawn too:
// memory_report_html_stage_split.h) and per stage the activations per microbatch, with each
// rank's peak under a pipeline schedule when one is given.
#include <algorithm>
#include <iterator>
#include <limits>
#include <string>
#include <unordered_map>

#include "analysis/memory/memory_limit.h"
#include "analysis/memory/memory_report_html_buffers.h"
#include "analysis/memory/memory_report_html_callees.h"
#include "analysis/memory/memory_report_html_stage_split.h"
#include "analysis/memory/memory_report_internal.h"
#include "analysis/memory/memory_report_printers.h"
#include "analysis/memory/xla_comparison_printers_internal.h"
#include "fmt/format.h"
#include "support/bytes.h"
#include "support/checked_int.h"
#include "support/escapes.h"
#include "support/str_util.h"

namespace hloscope {
namespace {

constexpr int kWidth = 960, kHeight = 300;
constexpr int kLeft = 90, kRight = 20, kTop = 20, kBottom = 40;
constexpr size_t kMaxPoints = 1500;  // a polyline stays light whatever the module's size
constexpr const char* kPalette[] = {"#d62728", "#2ca02c", "#9467bd", "#ff7f0e",
                                    "#17becf", "#8c564b", "#e377c2", "#bcbd22"};

constexpr auto& Escape = hloscope::HtmlEscape;

// A byte figure of a table cell: the exact count, and in human units (as the text report's).
std::string BytesCell(int64_t bytes) {
  return fmt::format("{} ({})", bytes, Escape(HumanBytes(bytes)));
}

struct Series {
  std::string label;
  std::string color;
  bool dashed = false;
  std::vector<int64_t> values;
};

// At most kMaxPoints (step, bytes) pairs: the maximum of each bucket, so peaks survive.
std::vector<std::pair<size_t, int64_t>> Downsample(const std::vector<int64_t>& v) {
  std::vector<std::pair<size_t, int64_t>> out;
  if (v.empty()) return out;
  const size_t bucket = (v.size() + kMaxPoints - 1) / kMaxPoints;
  for (size_t start = 0; start < v.size(); start += bucket) {
    size_t best = start;
    for (size_t t = start; t < std::min(v.size(), start + bucket); ++t) {
      if (v[t] > v[best]) best = t;
    }
    out.push_back({best, v[best]});
  }
  return out;
}

// `svg_class`: the drawing's classes ("plot", and what tells it apart); `limit_title` names
// the limit line (whose memory it is, where the plot holds more than one).
void AppendPlot(const std::string& title, const std::vector<Series>& series,
                std::optional<int64_t> limit, std::string& out, std::string_view svg_class = "plot",
                std::string_view limit_title = "memory limit") {
  size_t steps = 1;
  int64_t max_bytes = std::max<int64_t>(1, limit.value_or(1));
  for (const Series& s : series) {
    steps = std::max(steps, s.values.size());
    for (int64_t b : s.values) max_bytes = std::max(max_bytes, b);
  }
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  auto x = [&](size_t t) {
    return kLeft + (steps <= 1 ? 0.0 : plot_w * static_cast<double>(t) / (steps - 1));
  };
  auto y = [&](int64_t b) {
    return kTop + plot_h - plot_h * static_cast<double>(b) / static_cast<double>(max_bytes);
  };
  out += fmt::format("<h2>{}</h2>\n", Escape(title));
  out += fmt::format(
      "<svg class=\"{}\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
      "viewBox=\"0 0 {} {}\" role=\"img\">\n",
      svg_class, kWidth, kHeight, kWidth, kHeight);
  out += fmt::format("<title>{}: live bytes per entry instruction</title>\n", Escape(title));
  out += fmt::format(
      "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#fafafa\" "
      "stroke=\"#999\"/>\n",
      kLeft, kTop, plot_w, plot_h);
  for (int k = 0; k <= 4; ++k) {
    const int64_t b = max_bytes * k / 4;
    out += fmt::format(
        "<line x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#ddd\"/>"
        "<text x=\"{}\" y=\"{:.1f}\" font-size=\"11\" text-anchor=\"end\">{}"
        "</text>\n",
        kLeft, kWidth - kRight, y(b), y(b), kLeft - 6, y(b) + 4, Escape(HumanBytes(b)));
  }
  out += fmt::format(
      "<text x=\"{}\" y=\"{}\" font-size=\"12\" text-anchor=\"middle\">entry "
      "instruction (schedule order, {} steps)</text>\n",
      kLeft + plot_w / 2, kHeight - 10, steps);
  if (limit) {
    // The device's memory: what the series must stay under.
    out += fmt::format(
        "<line class=\"memory-limit\" x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\" "
        "stroke=\"#d62728\" stroke-width=\"2\" stroke-dasharray=\"8 4\"><title>{} "
        "{} bytes ({})</title></line>\n",
        kLeft, kWidth - kRight, y(*limit), y(*limit), Escape(limit_title), *limit,
        Escape(HumanBytes(*limit)));
  }
  for (const Series& s : series) {
    if (s.values.empty()) continue;
    out += fmt::format(
        "<polyline class=\"series\" fill=\"none\" stroke=\"{}\" "
        "stroke-width=\"2\"{} points=\"",
        s.color, s.dashed ? " stroke-dasharray=\"6 3\"" : "");
    for (const auto& [t, b] : Downsample(s.values)) {
      out += fmt::format("{:.1f},{:.1f} ", x(t), y(b));
    }
    out += "\"><title>" + Escape(s.label) + "</title></polyline>\n";
    auto peak = std::max_element(s.values.begin(), s.values.end());
    const size_t t = static_cast<size_t>(peak - s.values.begin());
    out += fmt::format(
        "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4\" fill=\"{}\"><title>{} peak: "
        "{} bytes at step {}</title></circle>\n",
        x(t), y(*peak), s.color, Escape(s.label), *peak, t);
  }
  out += "</svg>\n<p class=\"legend\">";
  for (const Series& s : series) {
    out +=
        fmt::format("<span style=\"color:{}\">&#9632;</span> {} &nbsp; ", s.color, Escape(s.label));
  }
  out += "</p>\n";
}

std::vector<int64_t> Totals(const ModuleMemory& m) {
  std::vector<int64_t> v;
  v.reserve(m.timeline.size());
  for (const TimelinePoint& p : m.timeline) v.push_back(p.live_bytes);
  return v;
}

// Device and host memory apart, when some buffer is on the host (S(5), MoveToHost,
// annotate_device_placement: host_placement.h): each step's device bytes (its live bytes less
// their host part) and host bytes, and the memory limit, which is the device's, held against
// the device's line only.
void AppendHostMemory(const ModuleMemory& m, std::optional<int64_t> limit, std::string& out) {
  if (m.host_peak_bytes <= 0) return;
  std::vector<int64_t> device, host;
  device.reserve(m.timeline.size());
  host.reserve(m.timeline.size());
  for (const TimelinePoint& p : m.timeline) {
    device.push_back(p.live_bytes - p.host_bytes);
    host.push_back(p.host_bytes);
  }
  AppendPlot(fmt::format("device and host memory of {}", m.module),
             {{"device", "#1f77b4", false, std::move(device)},
              {"host (offloaded, S(5))", "#ff7f0e", true, std::move(host)}},
             limit, out, "plot host-memory", "the device's memory limit");
  out += fmt::format(
      "<p class=\"host-peaks\">device peak {} bytes ({}) at {}; host peak (offloaded, S(5)) {} "
      "bytes ({}) at {}{}</p>\n",
      m.device_peak_bytes, Escape(HumanBytes(m.device_peak_bytes)),
      Escape(m.device_peak_instruction), m.host_peak_bytes, Escape(HumanBytes(m.host_peak_bytes)),
      Escape(m.host_peak_instruction),
      limit ? "; the memory limit is the device's: " +
                  Escape(LimitVerdict(m.device_peak_bytes, *limit))
            : std::string());
}

// With host memory in some stage (host_placement.h), each row says after the stage's peak
// (device and host together, as its timeline) the device's part and the host's, each with where
// it is, as the text report's device_bytes and host_bytes columns; with a memory limit, each
// row's verdict, held against the device's part as the text's "stage N: device peak" lines.
// Byte figures read in human units too.
void AppendStageTable(const MemoryReport& r, std::string_view caption, std::optional<int64_t> limit,
                      std::string& out) {
  const bool host = memory_report_internal::StagesHoldHostMemory(r);
  out += fmt::format(
      "<table class=\"stages\"><caption>{}</caption>\n<tr><th>stage</th><th>module</th>"
      "<th>peak bytes</th><th>peak at</th>{}<th>activation bytes / microbatch</th>"
      "<th>peak activation bytes</th><th>stash slots</th><th>source</th>{}</tr>\n",
      Escape(caption),
      host ? "<th>device bytes</th><th>device peak at</th><th>host bytes (offloaded, "
             "S(5))</th><th>host peak at</th>"
           : "",
      limit ? fmt::format("<th>memory limit {} ({}){}</th>", *limit, Escape(HumanBytes(*limit)),
                          host ? ", the device's" : "")
            : std::string());
  for (const StageMemory& s : r.stages) {
    const int64_t device = DevicePeakBytes(s);
    out += fmt::format(
        "<tr data-stage=\"{}\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td>{}<td>{}</td>"
        "<td>{}</td><td>{}</td><td>{}</td>{}</tr>\n",
        Escape(s.stage), Escape(s.stage), Escape(s.module), BytesCell(s.peak_bytes),
        Escape(s.peak_instruction),
        host ? fmt::format(
                   "<td class=\"device-bytes\">{}</td><td>{}</td>"
                   "<td class=\"host-bytes\">{}</td><td>{}</td>",
                   BytesCell(device),
                   Escape(s.host_peak_bytes > 0 ? s.device_peak_instruction : s.peak_instruction),
                   BytesCell(s.host_peak_bytes), Escape(s.host_peak_instruction))
             : std::string(),
        BytesCell(s.activation_bytes_per_microbatch), BytesCell(s.peak_activation_bytes),
        s.microbatch_slots, Escape(s.activation_source),
        limit ? fmt::format("<td class=\"verdict {}\">{}{}</td>", device > *limit ? "over" : "fits",
                            s.host_peak_bytes > 0 ? "device: " : "",
                            Escape(LimitVerdict(device, *limit)))
              : std::string());
  }
  out += "</table>\n";
}

// ` data-buffer="ID"` when `name` is a box of the heap drawing (hovering the row highlights it).
std::string BufferRef(const std::unordered_map<std::string, std::string>& ids,
                      const std::string& name) {
  auto it = ids.find(name);
  return it == ids.end() ? std::string() : fmt::format(" data-buffer=\"{}\"", it->second);
}

void AppendTopBuffers(const ModuleMemory& m,
                      const std::unordered_map<std::string, std::string>& ids, std::string& out) {
  out += fmt::format(
      "<table><caption>live at the peak of {} ({} bytes ({}) at {})</caption>\n"
      "<tr><th>bytes</th><th>kind</th><th>instruction</th><th>shape</th>"
      "<th>stage</th><th>op_name</th></tr>\n",
      Escape(m.module), m.peak_bytes, Escape(HumanBytes(m.peak_bytes)), Escape(m.peak_instruction));
  for (const LiveBuffer& b : m.top_buffers) {
    out += fmt::format(
        "<tr{}><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "</tr>\n",
        b.kind == LiveBufferKind::kCopy || b.kind == LiveBufferKind::kCallee
            ? std::string()
            : BufferRef(ids, b.instruction),
        BytesCell(b.bytes), Escape(LiveBufferKindName(b.kind)), Escape(b.instruction),
        Escape(b.shape), Escape(b.stage), Escape(b.op_name));
  }
  out += "</table>\n";
}

// Every buffer live at the peak, grouped: one collapsible block per category (its bytes,
// buffer count and share of the peak as a bar), inside it one per op_name scope, inside that
// the scope's largest buffers. <details> folds without a script.
void AppendPeakGroups(const ModuleMemory& m, const OptionSpelling& option_spelling,
                      std::string& out) {
  if (m.peak_groups.empty()) return;
  int64_t total = 0, buffers = 0;
  for (const PeakGroup& g : m.peak_groups) {
    total = SaturatingAdd(total, g.bytes);
    buffers += g.buffers;
  }
  auto bar = [&](int64_t bytes) {
    const double share = total <= 0 ? 0.0 : static_cast<double>(bytes) / total;
    return fmt::format(
        "<span class=\"share\"><span class=\"bar\" style=\"width:{:.0f}px\"></span></span> "
        "{:.1f}%",
        std::max(1.0, 200 * share), 100 * share);
  };
  out += fmt::format(
      "<div class=\"peak-groups\"><h3>live at the peak of {} by category and op_name scope: "
      "{} bytes ({}) in {} buffers</h3>\n",
      Escape(m.module), total, Escape(HumanBytes(total)), buffers);
  for (size_t i = 0; i < m.peak_groups.size();) {
    const std::string& category = m.peak_groups[i].category;
    size_t end = i;
    int64_t bytes = 0, count = 0;
    for (; end < m.peak_groups.size() && m.peak_groups[end].category == category; ++end) {
      bytes = SaturatingAdd(bytes, m.peak_groups[end].bytes);
      count += m.peak_groups[end].buffers;
    }
    out += fmt::format(
        "<details class=\"peak-category\" open><summary><b>{}</b>: {} bytes ({}) in {} "
        "buffers {}</summary>\n",
        Escape(category), bytes, Escape(HumanBytes(bytes)), count, bar(bytes));
    for (; i < end; ++i) {
      const PeakGroup& g = m.peak_groups[i];
      out += fmt::format(
          "<details class=\"peak-group\"><summary>{}: {} bytes ({}) in {} buffers {}"
          "</summary>\n<table><tr><th>bytes</th><th>instruction</th><th>shape</th>"
          "<th>stage</th><th>op_name</th></tr>\n",
          g.scope.empty() ? "(no op_name)" : Escape(g.scope), g.bytes, Escape(HumanBytes(g.bytes)),
          g.buffers, bar(g.bytes));
      for (const LiveBuffer& b : g.largest) {
        out += fmt::format(
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
            BytesCell(b.bytes),
            Escape(b.kind == LiveBufferKind::kBuffer
                       ? b.instruction
                       : b.instruction + " (" + std::string(LiveBufferKindName(b.kind)) + ")"),
            Escape(b.shape), Escape(b.stage), Escape(b.op_name));
      }
      if (g.buffers > static_cast<int64_t>(g.largest.size())) {
        out += fmt::format("<tr><td colspan=\"5\">and {} smaller ({}=N lists more)</td></tr>\n",
                           g.buffers - static_cast<int64_t>(g.largest.size()),
                           Escape(SpellOption(option_spelling, "top")));
      }
      out += "</table></details>\n";
    }
    out += "</details>\n";
  }
  out += "</div>\n";
}

// Live bytes stacked by category (parameters at the bottom, outputs on top), one filled band
// per category, sampled at the same kMaxPoints buckets for every band (each bucket's step is
// where the total is highest, so the peak survives).
void AppendCategories(const ModuleMemory& m, std::string& out) {
  if (m.categories.empty() || m.categories[0].live_bytes.empty()) return;
  const size_t n = m.categories[0].live_bytes.size();
  std::vector<int64_t> total(n, 0);
  for (const CategorySeries& c : m.categories) {
    for (size_t t = 0; t < n && t < c.live_bytes.size(); ++t) total[t] += c.live_bytes[t];
  }
  std::vector<size_t> steps;
  for (const auto& [t, bytes] : Downsample(total)) steps.push_back(t);
  int64_t max_bytes = 1;
  for (int64_t b : total) max_bytes = std::max(max_bytes, b);
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  auto x = [&](size_t t) {
    return kLeft + (n <= 1 ? 0.0 : plot_w * static_cast<double>(t) / static_cast<double>(n - 1));
  };
  auto y = [&](int64_t b) {
    return kTop + plot_h - plot_h * static_cast<double>(b) / static_cast<double>(max_bytes);
  };
  out += fmt::format(
      "<h2>live bytes of {} by category</h2>\n"
      "<svg class=\"categories\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" "
      "height=\"{}\" viewBox=\"0 0 {} {}\">\n",
      Escape(m.module), kWidth, kHeight, kWidth, kHeight);
  std::vector<int64_t> below(steps.size(), 0);
  std::string legend;
  for (size_t k = 0; k < m.categories.size(); ++k) {
    const CategorySeries& c = m.categories[k];
    std::string points;
    std::vector<int64_t> above(steps.size());
    for (size_t i = 0; i < steps.size(); ++i) {
      above[i] = below[i] + (steps[i] < c.live_bytes.size() ? c.live_bytes[steps[i]] : 0);
      fmt::format_to(std::back_inserter(points), "{:.1f},{:.1f} ", x(steps[i]), y(above[i]));
    }
    for (size_t i = steps.size(); i-- > 0;) {
      fmt::format_to(std::back_inserter(points), "{:.1f},{:.1f} ", x(steps[i]), y(below[i]));
    }
    const char* color = kPalette[k % 8];
    out += fmt::format(
        "<polygon class=\"area\" fill=\"{}\" fill-opacity=\"0.75\" points=\"{}\">"
        "<title>{}</title></polygon>\n",
        color, points, Escape(c.category));
    legend += fmt::format("<span style=\"color:{}\">&#9632;</span> {} &nbsp; ", color,
                          Escape(c.category));
    below = std::move(above);
  }
  out += fmt::format(
      "<text x=\"{}\" y=\"{}\" font-size=\"12\" text-anchor=\"end\">{}</text>\n</svg>\n"
      "<p class=\"legend\">{}</p>\n",
      kLeft - 6, kTop + 10, Escape(HumanBytes(max_bytes)), legend);
}

// The simulated heap: each buffer a box over the steps it lives (x) at its offset (y), its
// height its size; a line marks the live peak's step.
// With a memory limit the scale reaches it, and a line marks it.
void AppendHeap(const ModuleMemory& m, size_t module_index, std::optional<int64_t> limit,
                std::string& out) {
  if (m.heap_boxes.empty() || m.heap_bytes <= 0 || m.instructions <= 0) return;
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  const double steps = static_cast<double>(m.instructions);
  const int64_t scale = std::max(m.heap_bytes, limit.value_or(0));
  const double heap = static_cast<double>(scale);
  out += fmt::format(
      "<h2>heap of {} ({} model): {} bytes ({}) for {} bytes ({}) live at the peak</h2>\n"
      "<svg class=\"heap\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
      "viewBox=\"0 0 {} {}\">\n"
      "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#f8f8f8\" "
      "stroke=\"#bbb\"/>\n",
      Escape(m.module), Escape(m.model), m.heap_bytes, Escape(HumanBytes(m.heap_bytes)),
      m.peak_bytes, Escape(HumanBytes(m.peak_bytes)), kWidth, kHeight, kWidth, kHeight, kLeft, kTop,
      plot_w, plot_h);
  for (size_t k = 0; k < m.heap_boxes.size(); ++k) {
    const HeapBox& b = m.heap_boxes[k];
    const double x = kLeft + plot_w * b.first / steps;
    const double w = std::max(1.0, plot_w * (b.last - b.first + 1) / steps);
    const double h = std::max(1.0, plot_h * static_cast<double>(b.bytes) / heap);
    const double y = kTop + plot_h - plot_h * static_cast<double>(b.offset) / heap - h;
    out += fmt::format(
        "<rect class=\"buffer\" data-buffer=\"{}\" x=\"{:.1f}\" y=\"{:.1f}\" "
        "width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\" fill-opacity=\"0.7\" "
        "stroke=\"#333\" stroke-width=\"0.3\"><title>{}</title></rect>\n",
        memory_report_internal::HeapBoxId(module_index, k), x, y, w, h, kPalette[k % 8],
        Escape(memory_report_internal::HeapBoxTooltipText(b)));
  }
  if (limit) {
    const double y = kTop + plot_h - plot_h * static_cast<double>(*limit) / heap;
    out += fmt::format(
        "<line class=\"memory-limit\" x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\" "
        "stroke=\"#d62728\" stroke-width=\"2\" stroke-dasharray=\"8 4\"><title>memory limit "
        "{} bytes ({})</title></line>\n",
        kLeft, kWidth - kRight, y, y, *limit, Escape(HumanBytes(*limit)));
  }
  out += fmt::format(
      "<text x=\"{}\" y=\"{}\" font-size=\"12\" text-anchor=\"end\">{}</text>\n"
      "<text x=\"{}\" y=\"{}\" font-size=\"12\">program order (entry steps) &#8594;</text>\n"
      "</svg>\n",
      kLeft - 6, kTop + 10, Escape(HumanBytes(scale)), kLeft, kHeight - 12);
  out += fmt::format(
      "<table class=\"layout\"><caption>heap layout at the peak of {}</caption>\n"
      "<tr><th>offset</th><th>bytes</th><th>buffer</th></tr>\n",
      Escape(m.module));
  for (const HeapSlot& h : m.peak_layout) {
    out += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td></tr>\n", h.offset, BytesCell(h.bytes),
                       Escape(h.name));
  }
  out += "</table>\n";
  memory_report_internal::AppendBufferTable(m, module_index, out);
}

// Per stage, horizontal bars on one scale: the activation bytes one microbatch leaves alive,
// the peak of activations the module itself holds, and, with a pipeline schedule, the peak of
// the stage's rank under it (all the microbatches it holds in flight); then the ranks' table.
void AppendStageActivations(const MemoryReport& r, const PipelineFigures* pipeline,
                            std::string& out) {
  if (r.stages.empty()) return;
  struct Bar {
    std::string label;
    int64_t bytes;
    const char* color;
  };
  std::vector<std::pair<std::string, std::vector<Bar>>> rows;  // by stage
  int64_t max_bytes = 1;
  for (const StageMemory& s : r.stages) {
    std::vector<Bar> bars = {
        {"per microbatch", s.activation_bytes_per_microbatch, "#2ca02c"},
        {"peak in the module", s.peak_activation_bytes, "#9467bd"},
    };
    if (pipeline != nullptr) {
      for (const StagePipelineRow& p : pipeline->stages) {
        if (p.stage != s.stage || p.rank < 0 ||
            p.rank >= static_cast<int32_t>(pipeline->ranks_peak.size())) {
          continue;
        }
        const RankPipelineRow& rank = pipeline->ranks_peak[p.rank];
        bars.push_back({fmt::format("peak of rank {} under {} ({} in flight)", rank.rank,
                                    pipeline->schedule, rank.peak_in_flight),
                        rank.peak_activation_bytes, "#d62728"});
      }
    }
    for (const Bar& b : bars) max_bytes = std::max(max_bytes, b.bytes);
    rows.push_back({s.stage, std::move(bars)});
  }
  constexpr int kBar = 14, kGap = 10, kLabel = 230, kBarsWidth = 440;
  int height = kTop;
  for (const auto& row : rows) height += static_cast<int>(row.second.size()) * kBar + kGap;
  out += fmt::format(
      "<h2>activations per stage{}</h2>\n"
      "<svg class=\"stage-activations\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" "
      "height=\"{}\" viewBox=\"0 0 {} {}\">\n",
      pipeline == nullptr ? std::string()
                          : fmt::format(" under {}, {} microbatches", Escape(pipeline->schedule),
                                        pipeline->microbatches),
      kWidth, height, kWidth, height);
  int y = kTop;
  for (size_t k = 0; k < rows.size(); ++k) {
    const auto& [stage, bars] = rows[k];
    // The stage, and under it its module (long names are cut: the stage table has them whole).
    std::string module = r.stages[k].module;
    if (module.size() > 36) module = module.substr(0, 33) + "...";
    out += fmt::format(
        "<text x=\"{}\" y=\"{}\" font-size=\"12\" text-anchor=\"end\">stage {}</text>"
        "<text x=\"{}\" y=\"{}\" font-size=\"10\" text-anchor=\"end\" fill=\"#555\">{}</text>\n",
        kLabel - 6, y + kBar - 3, Escape(stage), kLabel - 6, y + 2 * kBar - 3, Escape(module));
    for (const Bar& b : bars) {
      const double w =
          std::max(1.0, kBarsWidth * static_cast<double>(b.bytes) / static_cast<double>(max_bytes));
      out += fmt::format(
          "<rect class=\"stage-bar\" x=\"{}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" "
          "fill=\"{}\"><title>{}: {} bytes</title></rect>"
          "<text x=\"{:.1f}\" y=\"{}\" font-size=\"11\">{}: {}</text>\n",
          kLabel, y + 1, w, kBar - 2, b.color, Escape(b.label), b.bytes, kLabel + w + 4,
          y + kBar - 3, Escape(b.label), Escape(HumanBytes(b.bytes)));
      y += kBar;
    }
    y += kGap;
  }
  out += "</svg>\n";
  if (pipeline == nullptr) return;
  out += fmt::format(
      "<table class=\"pipeline\"><caption>ranks under {}, {} microbatches (as <code>{}</code> "
      "gives)</caption>\n<tr><th>rank</th><th>stages</th><th>microbatches in flight at the "
      "peak</th><th>peak activation bytes</th></tr>\n",
      Escape(pipeline->schedule), pipeline->microbatches, Escape(pipeline->hlo_pipeline_command));
  for (const RankPipelineRow& rank : pipeline->ranks_peak) {
    std::string stages;
    for (const StagePipelineRow& p : pipeline->stages) {
      if (p.rank == rank.rank) stages += (stages.empty() ? "" : ", ") + p.stage;
    }
    out += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{} ({})</td></tr>\n", rank.rank,
                       Escape(stages), rank.peak_in_flight, rank.peak_activation_bytes,
                       Escape(HumanBytes(rank.peak_activation_bytes)));
  }
  out += "</table>\n";
}

}  // namespace

std::string MemoryReportHtml(const MemoryReport& report, const MemoryReport* after,
                             std::string_view passes, const PipelineFigures* pipeline,
                             const XlaComparisons* xla, std::optional<int64_t> memory_limit,
                             std::span<const std::string> warnings,
                             const OptionSpelling& option_spelling) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
      "<title>hloscope memory report</title>\n<style>\n"
      "body{font-family:sans-serif;margin:20px;color:#222;background:#fff}\n"
      "table{border-collapse:collapse;margin:12px 0}td,th{border:1px solid #bbb;"
      "padding:2px 8px;text-align:right}caption{text-align:left;font-weight:bold}\n"
      ".legend{font-size:13px}\n"
      "details{margin:4px 0 4px 16px}summary{cursor:pointer;text-align:left}\n"
      ".share{display:inline-block;width:200px;background:#eee;vertical-align:middle}\n"
      ".bar{display:inline-block;height:10px;background:#6a51a3}\n" +
      std::string(memory_report_internal::kBufferCss) +
      "</style></head><body>\n<h1>Memory report</h1>\n";
  for (const std::string& w : warnings) {
    out += fmt::format("<p class=\"warning\"><b>warning:</b> {}</p>\n", Escape(w));
  }
  out += fmt::format("<p id=\"summary\">peak {} bytes ({}) in {} at {}", report.peak_bytes,
                     Escape(HumanBytes(report.peak_bytes)), Escape(report.peak_module),
                     Escape(report.peak_instruction));
  if (after != nullptr) {
    const int64_t saving = report.peak_bytes - after->peak_bytes;
    // The saving's human units in brackets, as the text report's layout lines have them.
    out += fmt::format("; after {}={}: {} bytes ({}), saving {} bytes ({:.2f}%) [{}]",
                       Escape(SpellOption(option_spelling, "passes")), Escape(passes),
                       after->peak_bytes, Escape(HumanBytes(after->peak_bytes)), saving,
                       report.peak_bytes == 0 ? 0.0 : 100.0 * saving / report.peak_bytes,
                       Escape(HumanBytes(saving)));
  }
  out += "</p>\n";
  // Under the xla model, beside the timeline's peak: the peak as XLA counts it.
  std::string modeled;
  for (const ModuleMemory& m : report.modules) {
    if (!m.modeled_xla_peak_bytes) continue;
    modeled += fmt::format(
        "{}{}: {} bytes ({}), {} bytes ({}) of it live throughout", modeled.empty() ? "" : "; ",
        Escape(m.module), *m.modeled_xla_peak_bytes, Escape(HumanBytes(*m.modeled_xla_peak_bytes)),
        m.modeled_xla_peak_static_bytes, Escape(HumanBytes(m.modeled_xla_peak_static_bytes)));
  }
  if (!modeled.empty()) {
    out += fmt::format(
        "<p id=\"modeled-xla-peak\">peak as XLA counts it (its ComputePeakMemory on our model of "
        "its buffer assignment, event by event; the peak above is the timeline's, by entry "
        "step): {}</p>\n",
        modeled);
  }
  if (memory_limit) {
    out += fmt::format("<p id=\"memory-limit\">memory limit {} bytes ({})", *memory_limit,
                       Escape(HumanBytes(*memory_limit)));
    for (const ModuleMemory& m : (after != nullptr ? *after : report).modules) {
      // Held against the device's peak: host-offloaded buffers are not in its memory.
      out += fmt::format("; {}: {}", Escape(m.module),
                         Escape(LimitVerdict(DevicePeakBytes(m), *memory_limit)));
    }
    out += "</p>\n";
  }
  // The stages first: what a pipeline user compares across stages and schedules. A module
  // without pipeline stages has one stage "0" with no activations: no stage sections then.
  const bool staged = memory_report_internal::HasPipelineStages(report) || pipeline != nullptr;
  if (staged) {
    AppendStageTable(report, after ? "stages before" : "stages", memory_limit, out);
    memory_report_internal::AppendStageDeviceAndHostHtml(
        report, memory_limit,
        after ? "device and host memory per stage, before" : "device and host memory per stage",
        out);
    AppendStageActivations(report, pipeline, out);
  }
  for (size_t i = 0; i < report.modules.size(); ++i) {
    const ModuleMemory& m = report.modules[i];
    std::vector<Series> series;
    series.push_back({after ? "before: all buffers" : "all buffers", after ? "#888" : "#1f77b4",
                      after != nullptr, Totals(m)});
    if (after != nullptr && i < after->modules.size()) {
      series.push_back({"after: all buffers", "#1f77b4", false, Totals(after->modules[i])});
    }
    // Stages named inside the module: one line each. With host memory in some stage, a stage's
    // device part and its host part are two lines in its colour (the host's dashed), as the
    // stage table splits them: the device's line is the one the memory limit is held against.
    if (!report.stage_names.empty()) {
      const bool host = memory_report_internal::StagesHoldHostMemory(report);
      size_t color = 0;
      for (const StageMemory& s : report.stages) {
        if (s.module_index != static_cast<int>(i)) continue;
        const std::string stage_color = kPalette[color++ % 8];
        if (!host) {
          series.push_back({"stage " + s.stage, stage_color, false, s.timeline});
          continue;
        }
        // A stage without host buffers is all device memory: its timeline is the device's.
        const bool split = !s.host_timeline.empty();
        series.push_back({"stage " + s.stage + ": device", stage_color, false,
                          split ? s.device_timeline : s.timeline});
        if (split) {
          series.push_back({"stage " + s.stage + ": host (offloaded, S(5))", stage_color, true,
                            s.host_timeline});
        }
      }
    }
    std::string title = fmt::format("module {}", m.module);
    for (const StageMemory& s : report.stages) {
      if (staged && report.stage_names.empty() && s.module_index == static_cast<int>(i)) {
        title += fmt::format(" (stage {})", s.stage);
        break;
      }
    }
    const auto ids = memory_report_internal::HeapBoxIdsByName(m, i);
    AppendPlot(title, series, memory_limit, out);
    AppendHostMemory(m, memory_limit, out);
    AppendTopBuffers(m, ids, out);
    memory_report_internal::AppendCalleePeaksHtml(m, out);
    AppendPeakGroups(m, option_spelling, out);
    AppendCategories(m, out);
    AppendHeap(m, i, memory_limit, out);
  }
  if (after != nullptr && staged) {
    AppendStageTable(*after, "stages after", memory_limit, out);
    memory_report_internal::AppendStageDeviceAndHostHtml(
        *after, memory_limit, "device and host memory per stage, after", out);
  }
  for (const XlaAssignmentComparison& c : xla ? *xla : XlaComparisons()) {
    const ModuleMemory* ours = nullptr;
    for (const ModuleMemory& m : report.modules) {
      if (m.module == c.module) ours = &m;
    }
    AppendXlaComparisonHtml(c, ours, option_spelling, out);
  }
  memory_report_internal::AppendBufferScript(out);
  out += "</body></html>\n";
  return out;
}

}  // namespace hloscope
