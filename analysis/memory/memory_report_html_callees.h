// The memory report's HTML page (memory_report_html.cc), its parts beyond the entry's own
// buffers (issue 33): what a callee holds at its peak when the module's peak is inside it
// (ModuleMemory::callee_peaks, as the text and JSON reports list them), as folding sections, one
// inside the other down through nested callees. Private to analysis/memory.
#pragma once

#include <string>

#include "analysis/memory/memory_profile.h"

namespace hloscope::memory_report_internal {

// Nothing when the module's peak is not inside a callee.
void AppendCalleePeaksHtml(const ModuleMemory& m, std::string& out);

}  // namespace hloscope::memory_report_internal
