// One cell of a pipeline schedule: a rank runs `kind` for (stage, microbatch), or idles.
//
// The text form is PyTorch's (torch.distributed.pipelining `_Action`): stage index, kind token,
// microbatch index, with no separators — `0F0`, `2I1`, `1RECV_B0`, `3SEND_F12` — and the empty
// string for an idle step. Keeping the exact spelling lets schedules move between the two tools
// through CSV without a converter.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace hloscope::pipeline {

enum class ActionKind : uint8_t {
  kIdle,
  kForward,         // F: forward of one stage for one microbatch.
  kBackward,        // B: full backward (input and weight gradients together).
  kBackwardInput,   // I: backward for the stage's inputs only (the critical path).
  kBackwardWeight,  // W: backward for the stage's weights (deferrable).
  kSendForward,     // SEND_F: stage sends its forward output to the next stage.
  kRecvForward,     // RECV_F: stage receives its forward input from the previous stage.
  kSendBackward,    // SEND_B: stage sends its input gradient to the previous stage.
  kRecvBackward,    // RECV_B: stage receives its output gradient from the next stage.
  // PyTorch's FSDP actions, per stage and without a microbatch (text `0UNSHARD`): they take no
  // time unless costs are given and have no inputs in the model; they are kept so that PyTorch's
  // lowered schedules load, simulate and write back unchanged.
  kUnshard,     // UNSHARD: all-gather the stage's sharded parameters.
  kReshard,     // RESHARD: free the gathered parameters.
  kReduceGrad,  // REDUCE_GRAD: reduce the stage's gradients across data-parallel ranks.
};

inline constexpr int kNumActionKinds = 12;

// F, B, I, W.
constexpr bool IsCompute(ActionKind k) {
  return k == ActionKind::kForward || k == ActionKind::kBackward ||
         k == ActionKind::kBackwardInput || k == ActionKind::kBackwardWeight;
}
constexpr bool IsSend(ActionKind k) {
  return k == ActionKind::kSendForward || k == ActionKind::kSendBackward;
}
constexpr bool IsRecv(ActionKind k) {
  return k == ActionKind::kRecvForward || k == ActionKind::kRecvBackward;
}
constexpr bool IsComm(ActionKind k) { return IsSend(k) || IsRecv(k); }
// UNSHARD, RESHARD, REDUCE_GRAD: per stage, no microbatch.
constexpr bool IsStageAction(ActionKind k) {
  return k == ActionKind::kUnshard || k == ActionKind::kReshard || k == ActionKind::kReduceGrad;
}
// B or I: the action that produces the gradient the previous stage waits for.
constexpr bool IsInputGradient(ActionKind k) {
  return k == ActionKind::kBackward || k == ActionKind::kBackwardInput;
}

struct Action {
  int32_t stage = -1;
  int32_t microbatch = -1;  // -1 for the stage actions (IsStageAction)
  ActionKind kind = ActionKind::kIdle;
  // This action and the next cell of the row form one PyTorch OVERLAP_F_B cell, written
  // `(0F7;7B3)OVERLAP_F_B`. PyTorch's runtime runs the parts one after the other, and so does the
  // simulator; the flag only keeps the cell together when a schedule is written back.
  bool overlaps_next = false;

  static constexpr Action Idle() { return Action{}; }
  constexpr bool is_idle() const { return kind == ActionKind::kIdle; }
  friend constexpr bool operator==(const Action&, const Action&) = default;
};

// The token between the two numbers: "F", "B", "I", "W", "SEND_F", ... ("" for idle).
std::string_view KindToken(ActionKind kind);
// Human words for error messages: "forward", "input backward", ...
std::string_view KindWords(ActionKind kind);

// `0F0`, `1RECV_B3`; "" for idle.
std::string ToString(const Action& action);

// Parses the PyTorch text form of one action. Surrounding spaces are ignored; an empty (or
// all-space) string is an idle step. `0UNSHARD`, `0RESHARD`, `0REDUCE_GRAD` take no microbatch.
absl::StatusOr<Action> ParseAction(std::string_view text);

// Parses one CSV cell: an action as above, or PyTorch's `(0F7;7B3)OVERLAP_F_B` — its parts (F, B,
// I or W, at least two) in order, every part but the last with overlaps_next set.
absl::StatusOr<std::vector<Action>> ParseCell(std::string_view text);

// A row as PyTorch writes it: one string per cell, an OVERLAP_F_B group joined into one cell.
std::vector<std::string> RowCells(const std::vector<Action>& row);

}  // namespace hloscope::pipeline
