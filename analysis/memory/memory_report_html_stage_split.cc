#include "analysis/memory/memory_report_html_stage_split.h"

#include <algorithm>

#include "analysis/memory/memory_limit.h"
#include "fmt/format.h"
#include "support/bytes.h"
#include "support/escapes.h"

namespace hloscope::memory_report_internal {
namespace {

constexpr int kWidth = 960, kTop = 20, kBottom = 24;
constexpr int kBar = 16, kGap = 12, kLabel = 230, kBarsWidth = 420;
constexpr const char* kDeviceColor = "#1f77b4";
constexpr const char* kHostColor = "#ff7f0e";

}  // namespace

bool StagesHoldHostMemory(const MemoryReport& r) {
  return std::any_of(r.stages.begin(), r.stages.end(),
                     [](const StageMemory& s) { return s.host_peak_bytes > 0; });
}

void AppendStageDeviceAndHostHtml(const MemoryReport& r, std::optional<int64_t> limit,
                                  std::string_view title, std::string& out) {
  if (!StagesHoldHostMemory(r)) return;
  // One scale for every bar and the limit, so a device bar reaching past the line is over.
  int64_t scale = std::max<int64_t>(1, limit.value_or(1));
  for (const StageMemory& s : r.stages) {
    scale = std::max({scale, DevicePeakBytes(s), s.host_peak_bytes});
  }
  const auto width = [&](int64_t bytes) {
    return std::max(1.0, kBarsWidth * static_cast<double>(bytes) / static_cast<double>(scale));
  };
  const int height = kTop + kBottom + static_cast<int>(r.stages.size()) * (2 * kBar + kGap);
  out += fmt::format(
      "<h2>{}</h2>\n"
      "<svg class=\"stage-host-memory\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" "
      "height=\"{}\" viewBox=\"0 0 {} {}\" role=\"img\">\n"
      "<title>each stage's peak of device memory and of host memory (offloaded, S(5))</title>\n",
      HtmlEscape(title), kWidth, height, kWidth, height);
  int y = kTop;
  for (const StageMemory& s : r.stages) {
    std::string module = s.module;
    if (module.size() > 36) module = module.substr(0, 33) + "...";
    out += fmt::format(
        "<text x=\"{}\" y=\"{}\" font-size=\"12\" text-anchor=\"end\">stage {}</text>"
        "<text x=\"{}\" y=\"{}\" font-size=\"10\" text-anchor=\"end\" fill=\"#555\">{}</text>\n",
        kLabel - 6, y + kBar - 4, HtmlEscape(s.stage), kLabel - 6, y + 2 * kBar - 4,
        HtmlEscape(module));
    const int64_t device = DevicePeakBytes(s);
    const std::string& device_at =
        s.host_peak_bytes > 0 ? s.device_peak_instruction : s.peak_instruction;
    std::string device_text = fmt::format("device: {} at {}", HumanBytes(device), device_at);
    if (limit) device_text += "; " + LimitVerdict(device, *limit);
    const bool over = limit && device > *limit;
    out += fmt::format(
        "<rect class=\"stage-device{}\" data-stage=\"{}\" x=\"{}\" y=\"{}\" width=\"{:.1f}\" "
        "height=\"{}\" fill=\"{}\"><title>stage {} device peak: {} bytes at {}</title></rect>"
        "<text x=\"{:.1f}\" y=\"{}\" font-size=\"11\"{}>{}</text>\n",
        over ? " over" : "", HtmlEscape(s.stage), kLabel, y + 1, width(device), kBar - 2,
        kDeviceColor, HtmlEscape(s.stage), device, HtmlEscape(device_at),
        kLabel + width(device) + 4, y + kBar - 4, over ? " fill=\"#d62728\"" : "",
        HtmlEscape(device_text));
    y += kBar;
    const std::string host_text =
        s.host_peak_bytes > 0 ? fmt::format("host (offloaded, S(5)): {} at {}",
                                            HumanBytes(s.host_peak_bytes), s.host_peak_instruction)
                              : std::string("host (offloaded, S(5)): none");
    out += fmt::format(
        "<rect class=\"stage-host\" data-stage=\"{}\" x=\"{}\" y=\"{}\" width=\"{:.1f}\" "
        "height=\"{}\" fill=\"{}\" fill-opacity=\"0.6\" stroke=\"{}\" "
        "stroke-dasharray=\"4 2\"><title>stage {} host peak (offloaded, S(5)): {} bytes{}"
        "</title></rect><text x=\"{:.1f}\" y=\"{}\" font-size=\"11\">{}</text>\n",
        HtmlEscape(s.stage), kLabel, y + 1, s.host_peak_bytes > 0 ? width(s.host_peak_bytes) : 0.0,
        kBar - 2, kHostColor, kHostColor, HtmlEscape(s.stage), s.host_peak_bytes,
        s.host_peak_bytes > 0 ? " at " + HtmlEscape(s.host_peak_instruction) : std::string(),
        kLabel + (s.host_peak_bytes > 0 ? width(s.host_peak_bytes) : 0.0) + 4, y + kBar - 4,
        HtmlEscape(host_text));
    y += kBar + kGap;
  }
  if (limit) {
    // The device's memory: held against the device bars, never the host's.
    const double x = kLabel + width(*limit);
    out += fmt::format(
        "<line class=\"memory-limit\" x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{}\" y2=\"{}\" "
        "stroke=\"#d62728\" stroke-width=\"2\" stroke-dasharray=\"8 4\"><title>the device's "
        "memory limit {} bytes ({})</title></line>"
        "<text x=\"{:.1f}\" y=\"{}\" font-size=\"11\" fill=\"#d62728\" "
        "text-anchor=\"middle\">the device's limit</text>\n",
        x, x, kTop - 6, y, *limit, HtmlEscape(HumanBytes(*limit)), x, y + 14);
  }
  out += fmt::format(
      "</svg>\n<p class=\"legend\"><span style=\"color:{}\">&#9632;</span> device &nbsp; "
      "<span style=\"color:{}\">&#9632;</span> host (offloaded, S(5)){}</p>\n",
      kDeviceColor, kHostColor, limit ? " &nbsp; the dashed line: the device's memory limit" : "");
}

}  // namespace hloscope::memory_report_internal
