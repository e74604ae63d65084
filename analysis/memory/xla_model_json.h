// The modeled XLA buffer assignment (xla_assignment_model.h) in the memory report's JSON: each
// module's listing as memory_report.proto's XlaModelAssignment, in the module's
// `xla_model_assignment`. What `hlo-opt --memory-report --buffer-assignment --format=json` adds.
//
//   std::vector<XlaModelListing> before = {{"m", *AssignLikeXla(m, {.alignment = 128}), 128}};
//   absl::StatusOr<std::string> json = AddXlaModelsToJson(report_json, false, before, {});
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "analysis/memory/xla_assignment_model.h"

namespace hloscope {

struct XlaModelListing {
  std::string module;
  XlaModelAssignment assignment;
  int64_t alignment = 1;
};

// `json`: a memory report (memory_report.proto's MemoryReport, or its MemoryComparison when
// `comparison`) as MemoryReportJson printed it. Each listing goes into the module of its name
// (`before` into the report, or the comparison's before; `after` into the comparison's after).
// Errors: JSON that is not such a report.
absl::StatusOr<std::string> AddXlaModelsToJson(std::string_view json, bool comparison,
                                               const std::vector<XlaModelListing>& before,
                                               const std::vector<XlaModelListing>& after);

}  // namespace hloscope
