// What each action costs: its duration on the rank and, for a forward, the bytes of activations
// it leaves alive until its backward (B) or weight backward (W) frees them.
//
// Costs are per stage, times a per-microbatch scale for variable-length microbatches. They are
// usually built from per-part inputs (BuildCostModel): the model is cut into L contiguous parts of
// known cost (one per rank, or one per HLO stage once the memory profiler supplies them), and a
// schedule with S stages spreads them: S = k*L splits each part into k equal stages, L = k*S
// merges k parts into a stage. A single value means "each rank's share", spread evenly over all
// stages, so interleaved:2 gives each of a rank's two stages half of it. This keeps schedules with
// different stage counts comparable: the model, not the stage, is what is held fixed.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "pipeline/schedule.h"

namespace hloscope::pipeline {

struct CostModel {
  // Per stage.
  std::vector<double> forward_time;
  std::vector<double> backward_time;         // B
  std::vector<double> backward_input_time;   // I
  std::vector<double> backward_weight_time;  // W
  std::vector<double> activation_bytes;
  // Per microbatch; multiplies every time and size above. Empty means all 1.
  std::vector<double> microbatch_scale;
  // From the start of a SEND until its data can complete the matching RECV (one hop). In a
  // compute-only schedule, the delay between a stage and the next stage on another rank.
  double comm_time = 0;
  // Time the rank itself spends in a SEND or RECV (0: asynchronous, the copy engine's work).
  double send_time = 0;
  double recv_time = 0;
  // PyTorch's FSDP actions (UNSHARD, RESHARD, REDUCE_GRAD): time on the rank, 0 unless given.
  double unshard_time = 0;
  double reshard_time = 0;
  double reduce_grad_time = 0;

  double Duration(const Action& action) const;
  double Bytes(int32_t stage, int32_t microbatch) const;
  // Error unless every vector covers the schedule's stages and microbatches.
  absl::Status CheckCovers(const Schedule& schedule) const;

  // Every action, SEND and RECV included, takes one step; no hop delay. Simulating with it puts
  // each action on a step, with a RECV allowed in the step of its SEND (PyTorch's convention).
  static CostModel UnitSteps(const Schedule& schedule);
};

struct CostInputs {
  // Per part, or one value for each rank's share (see the file comment). Times in microseconds.
  std::vector<double> forward_time = {1000};
  std::vector<double> backward_input_time = {1000};
  std::vector<double> backward_weight_time = {1000};
  // Empty: input + weight backward, part by part.
  std::vector<double> backward_time;
  // Default 1: sizes come out in stage-equivalents (one microbatch's activations of one rank's
  // share of the model), the unit the published memory formulas use.
  std::vector<double> activation_bytes = {1};
  // One per microbatch. Costs given above are those of the largest microbatch (the compiled,
  // padded shape); the others scale linearly with their token count. Empty: all equal.
  std::vector<int64_t> microbatch_tokens;
  double comm_time = 0;
  // PyTorch's UNSHARD, RESHARD and REDUCE_GRAD; 0 unless given.
  double unshard_time = 0;
  double reshard_time = 0;
  double reduce_grad_time = 0;
};

// Spreads per-part values over `stages` stages as described above; `ranks` is the number of
// shares a single value stands for.
absl::StatusOr<std::vector<double>> SpreadOverStages(std::span<const double> per_part,
                                                     int32_t ranks, int32_t stages);

absl::StatusOr<CostModel> BuildCostModel(const CostInputs& inputs, const Schedule& schedule);

}  // namespace hloscope::pipeline
