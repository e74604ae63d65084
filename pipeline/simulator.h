// Runs a schedule against a cost model and reports when every action starts and ends, how long
// each rank idles, and how much activation memory each rank holds over time.
//
// Model. Each rank runs its row in program order, one action at a time; an action starts when
// the rank is free and its inputs are there:
//   F(s,m)    after F(s-1,m)   — on another rank: after its RECV_F, or, in a compute-only
//                                schedule, comm_time after F(s-1,m) ends
//   B/I(s,m)  after F(s,m) and after B/I(s+1,m) (same rules across ranks)
//   W(s,m)    after I(s,m)
//   SEND      after the compute that produced its data
//   RECV      comm_time after its SEND starts (so with no hop time a RECV may share its SEND's
//   step)
//   UNSHARD, RESHARD, REDUCE_GRAD: no inputs; they take the cost model's time (0 unless given)
// An OVERLAP_F_B group starts when the inputs of all its parts are there (PyTorch places it only
// then), its parts run one after the other, as PyTorch's runtime runs them, and their results
// are there for other actions when the group ends (PyTorch sends after the cell).
// Memory: F(s,m) makes bytes(s,m) live when it starts; B(s,m) or W(s,m) frees them when it ends;
// I frees nothing (its weight backward still needs the activations).
// Not modelled: link bandwidth and contention (every hop costs comm_time however many transfers
// share it), compute/communication overlap limits, memory other than the activations named above
// (weights, optimizer state, gradients, workspace), and recomputation.
//
// The walk is a dataflow fixpoint over ranks with a waiter list per blocked input, so it costs
// O(actions): 10^6 actions take well under a second. A rank that waits for something that never
// comes is a deadlock; the error marks each blocked rank's step in the grid.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "pipeline/cost_model.h"
#include "pipeline/schedule.h"

namespace hloscope::pipeline {

struct ActionTiming {
  double start = 0;
  double end = 0;
};

// Live activation bytes on a rank from `time` on.
struct MemoryPoint {
  double time = 0;
  double bytes = 0;
};

struct RankStats {
  double busy_time = 0;        // F, B, I and W; not SEND/RECV, which are waiting or copying
  double end_time = 0;         // when the rank's last action ends
  double bubble_fraction = 0;  // 1 - busy_time / makespan
  double peak_bytes = 0;
  double peak_time = 0;   // first time the peak is reached
  int64_t peak_live = 0;  // most (stage, microbatch) activations live at once
};

struct Simulation {
  // timing[rank][k] for schedule.rows[rank][k]; an idle cell gets a zero-length interval.
  std::vector<std::vector<ActionTiming>> timing;
  // Per rank, one point per change of live bytes, in time order.
  std::vector<std::vector<MemoryPoint>> memory;
  std::vector<RankStats> ranks;
  double makespan = 0;
  double bubble_fraction = 0;  // idle share of ranks x makespan
};

// Validates the schedule (validate.h), checks the cost model covers it, and simulates. Errors:
// invalid schedule, uncovered stages, deadlock — each with the marked grid.
absl::StatusOr<Simulation> Simulate(const Schedule& schedule, const CostModel& costs);

// The schedule with each action moved to the step it runs at under CostModel::UnitSteps, idle
// cells in between: the grid PyTorch's simulator prints. Rows of a deadlocked schedule fail.
absl::StatusOr<Schedule> AlignToSteps(const Schedule& schedule);

}  // namespace hloscope::pipeline
