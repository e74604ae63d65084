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
};

inline constexpr int kNumActionKinds = 9;

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
// B or I: the action that produces the gradient the previous stage waits for.
constexpr bool IsInputGradient(ActionKind k) {
  return k == ActionKind::kBackward || k == ActionKind::kBackwardInput;
}

struct Action {
  int32_t stage = -1;
  int32_t microbatch = -1;
  ActionKind kind = ActionKind::kIdle;

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

// Parses the PyTorch text form. Surrounding spaces are ignored; an empty (or all-space) string is
// an idle step. PyTorch's FSDP actions (UNSHARD, RESHARD, REDUCE_GRAD) are rejected with a message
// that says they are not modelled.
absl::StatusOr<Action> ParseAction(std::string_view text);

}  // namespace hloscope::pipeline
