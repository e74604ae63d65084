#include "analysis/memory/memory_report_html_buffers.h"

#include <algorithm>
#include <numeric>
#include <utility>
#include <vector>

#include "analysis/memory/memory_report_internal.h"
#include "fmt/format.h"
#include "support/bytes.h"
#include "support/escapes.h"
#include "support/str_util.h"

namespace hloscope::memory_report_internal {
namespace {

// One line of a tooltip and one cell of the table: the table's cells are where the script
// reads the tooltip from, so the two cannot disagree.
struct Field {
  const char* name;
  std::string value;  // "" leaves the line out of the tooltip (an unpadded buffer's "unpadded")
};

std::string OrNone(const std::string& s) { return s.empty() ? "(none)" : s; }

int64_t Lifetime(const HeapBox& b) { return static_cast<int64_t>(b.last) - b.first + 1; }

std::vector<Field> BoxFields(const HeapBox& b) {
  std::string unpadded;
  if (b.unpadded_bytes != b.bytes) {
    unpadded = fmt::format("{} bytes ({}); the tiled layout pads {} bytes", b.unpadded_bytes,
                           HumanBytes(b.unpadded_bytes), b.bytes - b.unpadded_bytes);
  }
  return {
      {"buffer", b.name},
      {"bytes", fmt::format("{} ({})", b.bytes, HumanBytes(b.bytes))},
      {"unpadded", std::move(unpadded)},
      {"shape", OrNone(b.shape)},
      {"op", OrNone(b.opcode)},
      {"op_name", OrNone(b.op_name)},
      {"source", OrNone(b.source)},
      {"live", fmt::format("[{}, {}]", b.first, b.last)},
      {"lifetime", fmt::format("{} steps", Lifetime(b))},
      {"category", OrNone(b.category)},
      {"offset", fmt::format("{}", b.offset)},
  };
}

}  // namespace

const char kBufferCss[] =
    "rect.buffer.highlight{fill-opacity:1;stroke:#000;stroke-width:2}\n"
    "tr.highlight td{background:#ffe38a}\n"
    "table.buffers td{text-align:left}table.buffers td.num{text-align:right}\n"
    "button.sort{font:inherit;cursor:pointer}\n"
    // Long shapes and op_names scroll inside the box instead of widening the page, and a
    // module's thousands of buffers scroll there instead of lengthening it.
    ".buffers-box{max-width:100%;max-height:520px;overflow:auto;margin:12px 0}\n"
    "table.buffers{margin:0}table.buffers thead th{position:sticky;top:0;background:#fff}\n"
    "#tooltip{position:fixed;z-index:10;background:#fffbe6;border:1px solid #888;"
    "padding:4px 8px;font-size:12px;max-width:640px;pointer-events:none;text-align:left;"
    "box-shadow:2px 2px 4px rgba(0,0,0,.2)}\n";

std::string HeapBoxId(size_t module_index, size_t box) {
  return fmt::format("m{}-b{}", module_index, box);
}

std::unordered_map<std::string, std::string> HeapBoxIdsByName(const ModuleMemory& m,
                                                              size_t module_index) {
  std::unordered_map<std::string, std::string> ids;
  for (size_t k = 0; k < m.heap_boxes.size(); ++k) {
    ids.emplace(m.heap_boxes[k].name, HeapBoxId(module_index, k));
  }
  return ids;
}

std::string HeapBoxTooltipText(const HeapBox& b) {
  std::string text;
  for (const Field& f : BoxFields(b)) {
    if (!f.value.empty())
      text += fmt::format("{}{}: {}", text.empty() ? "" : "\n", f.name, f.value);
  }
  return text;
}

void AppendBufferTable(const ModuleMemory& m, size_t module_index, std::string& out) {
  if (m.heap_boxes.empty()) return;
  // Largest first (the order the page opens with); ties in schedule order.
  std::vector<size_t> order(m.heap_boxes.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    return m.heap_boxes[x].bytes > m.heap_boxes[y].bytes;
  });
  out += fmt::format(
      "<p class=\"buffers-caption\"><b>buffers of the heap of {} ({}; hover one to see it in the "
      "heap above; sort by <button class=\"sort\" data-key=\"bytes\" data-table=\"buffers-{}\">"
      "size</button> or <button class=\"sort\" data-key=\"lifetime\" "
      "data-table=\"buffers-{}\">lifetime</button>)</b></p>\n<div class=\"buffers-box\">"
      "<table class=\"buffers\" id=\"buffers-{}\" data-sort=\"bytes-desc\">\n<thead><tr>",
      HtmlEscape(m.module),
      m.heap_boxes.size() == 1 ? std::string("1 buffer")
                               : fmt::format("{} buffers", m.heap_boxes.size()),
      module_index, module_index, module_index);
  for (const Field& f : BoxFields(HeapBox{})) out += fmt::format("<th>{}</th>", f.name);
  out += "</tr></thead>\n<tbody>\n";
  for (size_t rank = 0; rank < order.size(); ++rank) {
    const HeapBox& b = m.heap_boxes[order[rank]];
    out += fmt::format(
        "<tr class=\"buffer-row\" data-buffer=\"{}\" data-bytes=\"{}\" data-lifetime=\"{}\" "
        "data-index=\"{}\">",
        HeapBoxId(module_index, order[rank]), b.bytes, Lifetime(b), rank);
    for (const Field& f : BoxFields(b)) {
      const std::string_view name = f.name;
      const bool number = name == "bytes" || name == "lifetime" || name == "offset";
      out += fmt::format("<td data-field=\"{}\"{}>{}</td>", f.name, number ? " class=\"num\"" : "",
                         HtmlEscape(f.value));
    }
    out += "</tr>\n";
  }
  out += "</tbody></table></div>\n";
}

void AppendBufferScript(std::string& out) {
  // Inline, no libraries and nothing fetched: the page works from a file, offline.
  out += R"(<div id="tooltip" role="tooltip" hidden></div>
<script>
(function () {
  'use strict';
  var tip = document.getElementById('tooltip');
  function marked(id) { return document.querySelectorAll('[data-buffer="' + id + '"]'); }
  // The tooltip is written from the buffer's table row, field by field.
  function show(id, x, y) {
    marked(id).forEach(function (e) { e.classList.add('highlight'); });
    var row = document.querySelector('tr.buffer-row[data-buffer="' + id + '"]');
    if (!row) return;
    tip.textContent = '';
    row.querySelectorAll('td[data-field]').forEach(function (td) {
      if (!td.textContent) return;
      var line = document.createElement('div');
      line.className = 'field-' + td.getAttribute('data-field');
      var name = document.createElement('b');
      name.textContent = td.getAttribute('data-field') + ': ';
      line.appendChild(name);
      line.appendChild(document.createTextNode(td.textContent));
      tip.appendChild(line);
    });
    tip.hidden = false;
    var left = Math.min(x + 14, window.innerWidth - tip.offsetWidth - 4);
    var top = y + 14 + tip.offsetHeight > window.innerHeight ? y - tip.offsetHeight - 8 : y + 14;
    tip.style.left = Math.max(0, left) + 'px';
    tip.style.top = Math.max(0, top) + 'px';
  }
  function hide(id) {
    marked(id).forEach(function (e) { e.classList.remove('highlight'); });
    tip.hidden = true;
  }
  function owner(node) {
    return node && node.closest ? node.closest('[data-buffer]') : null;
  }
  // The script's tooltip replaces the browser's (the <title> that works without scripts).
  document.querySelectorAll('svg.heap rect.buffer[data-buffer] > title').forEach(function (t) {
    t.remove();
  });
  document.addEventListener('mouseover', function (ev) {
    var e = owner(ev.target);
    if (e) show(e.getAttribute('data-buffer'), ev.clientX, ev.clientY);
  });
  document.addEventListener('mouseout', function (ev) {
    var e = owner(ev.target);
    if (e && owner(ev.relatedTarget) !== e) hide(e.getAttribute('data-buffer'));
  });
  // Sorting: largest first; a second click on the same key reverses.
  document.querySelectorAll('button.sort[data-table]').forEach(function (button) {
    button.addEventListener('click', function () {
      var table = document.getElementById(button.getAttribute('data-table'));
      var key = button.getAttribute('data-key');
      var desc = table.getAttribute('data-sort') !== key + '-desc';
      var body = table.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (a, b) {
        var d = Number(a.getAttribute('data-' + key)) - Number(b.getAttribute('data-' + key));
        if (desc) d = -d;
        return d !== 0 ? d : Number(a.getAttribute('data-index')) -
                             Number(b.getAttribute('data-index'));
      });
      rows.forEach(function (r) { body.appendChild(r); });
      table.setAttribute('data-sort', key + (desc ? '-desc' : '-asc'));
    });
  });
})();
</script>
)";
}

}  // namespace hloscope::memory_report_internal
