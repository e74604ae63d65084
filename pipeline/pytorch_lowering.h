// PyTorch's lowering passes (torch.distributed.pipelining `_PipelineScheduleRuntime`), written
// for this IR so that a schedule lowered here is the one PyTorch would run, cell for cell:
//
//   AddUnshardReshard   FSDP: before each cell, RESHARD the active stages that are not among
//                       the next `max_active` distinct stages the rank computes, then UNSHARD
//                       those that are not active yet (in the order they will be needed); at the
//                       end RESHARD what is still active. Several at once go in stage order.
//   AddReduceGrad       after the cell that completes a stage's last B or W, `sREDUCE_GRAD`.
//   AddSendRecvEager    SEND right after the producing cell; the matching RECV appended to the
//                       receiving rank at the moment the sender's cell is placed. Cells are placed
//                       round-robin over the ranks, a rank's next cell when its inputs have been
//                       placed on the rank (a RECV, or the neighbouring stage on the same rank).
//
// Our own lowering (lowering.h) puts each RECV just before the action that needs it instead,
// which is the default: the RECV then waits exactly where the compute waits. The eager form
// posts receives earlier in program order, as PyTorch does, so a rank may block on a RECV whose
// data it does not need yet (see docs/pipeline.md).
//
// All three drop idle cells and keep OVERLAP_F_B groups together (sends and REDUCE_GRAD after the
// whole group).
#pragma once

#include <cstdint>

#include "absl/status/statusor.h"
#include "pipeline/schedule.h"

namespace hloscope::pipeline {

Schedule AddUnshardReshard(const Schedule& schedule, int32_t max_active = 3);

Schedule AddReduceGrad(const Schedule& schedule);

// The input must be valid and compute-only (stage actions allowed); an input whose cells cannot
// all be placed is reported as PyTorch reports it: a malformed schedule.
absl::StatusOr<Schedule> AddSendRecvEager(const Schedule& compute);

// The step grid of PyTorch's `_simulate_comms_compute` for a lowered schedule: steps in lockstep;
// in each, every rank in turn runs its next action if its input is already placed (earlier
// ranks' actions of the same step count), else idles; then each idling rank gets a second try.
// PyTorch raises on UNSHARD/RESHARD/REDUCE_GRAD and OVERLAP_F_B; here the stage actions are
// always ready and an OVERLAP_F_B's parts are placed one per step. A schedule that stops
// progressing is an error, as in PyTorch.
absl::StatusOr<Schedule> LockstepGrid(const Schedule& lowered);

}  // namespace hloscope::pipeline
