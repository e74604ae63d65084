// The buffers of the memory report's HTML page (memory_report_html.cc), as XProf's memory viewer
// shows them: every buffer of the heap drawing in a table sortable by size and by lifetime, each
// with the facts a tooltip gives (shape, op, op_name, source line, [start, end], bytes and,
// where a tiled layout pads, the unpadded bytes beside them); hovering a buffer in the table or
// in the heap drawing shows its tooltip and highlights it in both. The page stays one file that
// works offline: the sorting and hovering are a small inline script, and without scripts every
// box keeps its SVG <title> and the table its rows. Private to analysis/memory.
#pragma once

#include <cstddef>
#include <string>
#include <unordered_map>

#include "analysis/memory/memory_profile.h"

namespace hloscope::memory_report_internal {

// The id that ties a heap box's <rect>, its table row and other rows naming it together
// (`data-buffer`): "m<module>-b<box>".
std::string HeapBoxId(size_t module_index, size_t box);

// The ids of module `module_index`'s heap boxes by buffer name, for rows that name a buffer
// (the buffers live at the peak, the layout at the peak).
std::unordered_map<std::string, std::string> HeapBoxIdsByName(const ModuleMemory& m,
                                                              size_t module_index);

// What the tooltip says of a box, one "field: value" per line: the box's SVG <title>.
std::string HeapBoxTooltipText(const HeapBox& b);

// The table of the heap's buffers, largest first, with sort buttons for size and lifetime.
void AppendBufferTable(const ModuleMemory& m, size_t module_index, std::string& out);

// The page's style rules for highlighted buffers, the tooltip and the table.
extern const char kBufferCss[];

// The tooltip element and the script that sorts, shows tooltips and highlights: once, at the
// end of the page's body.
void AppendBufferScript(std::string& out);

}  // namespace hloscope::memory_report_internal
