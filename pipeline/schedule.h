// A pipeline schedule: for each rank, the sequence of actions it runs in program order.
// (Not an HLO order: analysis/ordering.h's ExecutionOrdering is a partial order of a module's
// instructions, analysis/memory/instruction_sequence.h one computation's instructions in turn.)
//
// A row may contain idle cells; they carry no meaning for execution (a rank runs its next action
// as soon as its inputs are there) and exist so that a schedule can be written as the aligned
// step grid people draw. Two kinds of schedule share this type:
//   - compute-only: F/B/I/W only, as generators and most hand-written CSVs produce. A stage on
//     another rank is reached implicitly (the simulator adds the hop time).
//   - lowered: every cross-rank edge has an explicit SEND/RECV pair (see lowering.h).
//
// Usage:
//   Schedule s = MakeSchedule("mine", {{ParseAction("0F0").value(), ...}, ...});
//   if (absl::Status st = ValidateSchedule(s); !st.ok()) ...   // validate.h
//   absl::StatusOr<Simulation> sim = Simulate(s, costs);       // simulator.h
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pipeline/action.h"

namespace hloscope::pipeline {

struct Schedule {
  std::string name;
  int32_t num_stages = 0;
  int32_t num_microbatches = 0;
  // rows[rank] in program order.
  std::vector<std::vector<Action>> rows;
  // stage_rank[stage]: the rank that runs the stage, or -1 when no action names it.
  std::vector<int32_t> stage_rank;

  int32_t num_ranks() const { return static_cast<int32_t>(rows.size()); }
  // True when any cell is a SEND or RECV.
  bool HasComms() const;
  // Non-idle cells.
  int64_t CountActions() const;
  // Longest row, idle cells included.
  int64_t MaxRowLength() const;
};

// Builds a schedule from rows, deriving num_stages and num_microbatches (largest index + 1) and
// stage_rank (the rank of the first compute action naming each stage). Conflicting placements
// are left for ValidateSchedule to report with the grid. stage_rank is sized by the largest
// stage index, so rows from users go through ParseScheduleCsv, which bounds the indices.
Schedule MakeSchedule(std::string name, std::vector<std::vector<Action>> rows);

// The same schedule without idle cells.
Schedule DropIdle(const Schedule& schedule);

}  // namespace hloscope::pipeline
