// CSV form of a schedule, as PyTorch's pipelining writes and reads it: one row per rank, one cell
// per step, each cell an action in text form (action.h) and an empty cell an idle step. Rows may
// differ in length. Rank r is row r, so an empty line is a rank with nothing to do.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "pipeline/schedule.h"

namespace hloscope::pipeline {

// Parses CSV text. Errors name the line and column, and show what cannot be seen in a cell
// escaped (visible_text.h). A UTF-8 byte-order mark at the start is skipped. The result is not
// validated (validate.h), so that a broken schedule can still be loaded, printed and
// diagnosed.
absl::StatusOr<Schedule> ParseScheduleCsv(std::string_view text, std::string name = "csv");

// Writes one line per rank; trailing idle cells are left out.
std::string DumpScheduleCsv(const Schedule& schedule);

// File variants of the two above; errors name the path.
absl::StatusOr<Schedule> ReadScheduleCsvFile(const std::string& path);
absl::Status WriteScheduleCsvFile(const Schedule& schedule, const std::string& path);

}  // namespace hloscope::pipeline
