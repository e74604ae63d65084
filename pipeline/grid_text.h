// Writes a schedule as the step grid used in PyTorch's pipelining discussions: one line per step,
// one column per rank, a "Rank r" header, idle cells blank, trailing blanks trimmed:
//
//            Rank 0   Rank 1
//   Step 00: 0F0
//   Step 01: 0SEND_F0 1RECV_F0
//
// Step k is the k-th cell of each row, so the grid shows real timing only for a schedule aligned
// to steps (step_grid.h); for any other schedule it shows program order.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "pipeline/schedule.h"

namespace hloscope::pipeline {

// A cell to point at in an error: drawn as >0B0< with `note` appended to its line.
struct GridMark {
  int32_t rank = 0;
  int64_t step = 0;
  std::string note;
};

std::string FormatStepGrid(const Schedule& schedule);

// The same layout from cells already written as text, e.g. RowCells (action.h), which keeps an
// OVERLAP_F_B group in one cell the way PyTorch prints it.
std::string FormatCellGrid(const std::vector<std::vector<std::string>>& rows);

// The grid with marked cells. Long schedules are cut to the steps within `context` of a mark
// (gaps shown as "..."), so an error about step 900 of a 2,000-step schedule stays readable.
// Marks outside the grid are ignored; with none inside, the first steps are shown.
std::string FormatMarkedGrid(const Schedule& schedule, std::span<const GridMark> marks,
                             int64_t context = 3);

// An InvalidArgument status: `headline`, one line per mark ("rank 1, step 03: 1F1 <note>"), then
// the marked grid. Every schedule error goes through here so that all of them show where.
absl::Status GridError(const Schedule& schedule, std::string_view headline,
                       std::span<const GridMark> marks);

}  // namespace hloscope::pipeline
