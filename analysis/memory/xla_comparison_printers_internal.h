// XLA's buffer assignment beside ours (xla_assignment_comparison.h) in each of the memory
// report's formats; memory_report_{text,json,csv,html}.cc call these for the modules that come
// with one. Private to analysis/memory.
#pragma once

#include <string>

#include "analysis/memory/memory_profile.h"
#include "analysis/memory/xla_assignment_comparison.h"
#include "support/option_spelling.h"

namespace hloscope {

namespace report {
class XlaAssignmentComparison;
}  // namespace report

void AppendXlaComparisonText(const XlaAssignmentComparison& c, std::string& out);
void FillXlaComparisonProto(const XlaAssignmentComparison& c, report::XlaAssignmentComparison* p);
// The three tables (totals, allocations, differences), each after a blank line.
void AppendXlaComparisonCsv(const XlaAssignmentComparison& c, std::string& out);
// The tables, the allocations side by side as bars, and XLA's temp heap over its trace beside
// ours: under the xla model the comparison's own (XlaAssignmentComparison::ours_heap); under
// liveness the profile's simulated heap (`ours`: the module's memory, for its heap boxes; null
// draws XLA's alone).
void AppendXlaComparisonHtml(const XlaAssignmentComparison& c, const ModuleMemory* ours,
                             const OptionSpelling& option_spelling, std::string& out);

}  // namespace hloscope
