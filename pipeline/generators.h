// Compute-only schedules (F/B/I/W, no SEND/RECV, no idle cells) of the published families. Each
// returns per-rank program order; timing comes from the simulator. `p` is the number of ranks,
// `m` the number of microbatches, `v` the number of stages per rank. Every family but zb-h1 is
// the PyTorch schedule class of that name (torch.distributed.pipelining), order for order, with
// PyTorch's limits on p and m (tests/pipeline/pytorch_golden_test.cc; docs/pipeline.md lists the
// deliberate differences).
//
//   gpipe          p stages. All forwards, then all backwards (B). Every rank holds m
//                  microbatches of activations at its peak.
//   1f1b           p stages. Rank r runs p-r-1 warm-up forwards, then alternates F and B, then
//                  drains its backwards (PipeDream-flush / Megatron). Rank r holds p-r.
//   interleaved:v  p*v stages, stage s on rank s mod p (loop placement). Forwards go round by
//                  round, chunk by chunk, with max(1, m/p) rounds of equal size (which must
//                  divide m; PyTorch's rule); rank r runs 2(p-r-1)+(v-1)*round warm-up forwards
//                  (Megatron's count), then alternates. With m a multiple of p, rank 0 holds
//                  p+(p-1)/v stage-equivalents.
//   interleaved-zb:v  the same rounds with the backward split into I and W (PyTorch's
//                  ScheduleInterleavedZeroBubble, the paper's ZB1P): (v-1)*round + (p-1-r)
//                  warm-up forwards; rank r defers each W by r operations.
//   looped-bfs:v   p*v stages in loop placement; each rank runs all forwards of its first stage,
//                  then its next, ..., then all backwards, stages and microbatches in reverse
//                  (breadth first).
//   zb-h1          p stages; backward split into I and W (zero-bubble paper, handcrafted H1).
//                  Step x of rank r runs F(x), I(x-(p-1-r)), W(x-(p-1)) where they exist: W is
//                  delayed to fill the drain, which leaves a bubble of (p-1)(T_F+T_I-T_W).
//   zb-v           2p stages in V placement: rank r holds stages r and 2p-1-r, so the last rank
//                  holds two adjacent stages that pass activations directly. Handcrafted ZB-V
//                  phases, laid out for max(m, 2p-1) microbatches; with fewer, the missing
//                  microbatches' actions are left out.
//   dualpipev      2p stages in V placement; DeepSeek's DualPipe as a V (PyTorch's
//                  ScheduleDualPipeV), with overlapped F+B cells (Action::overlaps_next);
//                  needs m >= 2p.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "pipeline/schedule.h"

namespace hloscope::pipeline {

enum class ScheduleFamily {
  kGPipe,
  kOneFOneB,
  kInterleaved1F1B,
  kLoopedBfs,
  kZeroBubbleH1,
  kZeroBubbleV,
  kInterleavedZeroBubble,
  kDualPipeV,
};

struct ScheduleSpec {
  ScheduleFamily family = ScheduleFamily::kOneFOneB;
  // v; fixed at 1 for gpipe/1f1b/zb-h1 and 2 for zb-v.
  int32_t stages_per_rank = 1;
};

// Accepts "gpipe", "1f1b", "interleaved[:v]" (v defaults to 2), "looped-bfs[:v]" (default 2),
// "zb-h1", "zb-v"; case-insensitive, '_' and '-' interchangeable.
absl::StatusOr<ScheduleSpec> ParseScheduleSpec(std::string_view name);
// The canonical name: "interleaved:2".
std::string SpecName(const ScheduleSpec& spec);
// Comma-separated names of all families, for help text.
std::string_view KnownScheduleNames();

// The schedule in program order, without idle cells.
absl::StatusOr<Schedule> GenerateSchedule(const ScheduleSpec& spec, int32_t ranks,
                                          int32_t microbatches);

// The same actions in PyTorch's pipeline_order layout: with the idle cells PyTorch's generator
// places (a display choice; they do not change what runs). GPipe, 1F1B and ZB-H1 have none here:
// PyTorch drops them from its single-stage orders (see AddReduceGrad for the rest of that form).
absl::StatusOr<Schedule> GeneratePytorchOrder(const ScheduleSpec& spec, int32_t ranks,
                                              int32_t microbatches);

// PyTorch's `_add_bubbles_to_actions` (used for interleaved-zb): steps all ranks in lockstep and
// holds back, with an idle cell, a forward whose previous stage's forward has not run in an
// earlier step. Error when every remaining rank waits (PyTorch would loop forever).
absl::Status AddForwardBubbles(std::vector<std::vector<Action>>& rows, int32_t stages,
                               int32_t microbatches);

}  // namespace hloscope::pipeline
