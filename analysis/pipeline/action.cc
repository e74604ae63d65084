#include "analysis/pipeline/action.h"

#include <array>
#include <cctype>
#include <charconv>

#include "absl/status/status.h"
#include "analysis/pipeline/string_pieces.h"
#include "hlo/str_util.h"

namespace hloscope::pipeline {
namespace {

struct KindInfo {
  ActionKind kind;
  std::string_view token;
  std::string_view words;
};

// Longest tokens first is not needed: a token is matched against the whole middle part.
constexpr std::array<KindInfo, kNumActionKinds> kKinds = {{
    {ActionKind::kIdle, "", "idle"},
    {ActionKind::kForward, "F", "forward"},
    {ActionKind::kBackward, "B", "full backward"},
    {ActionKind::kBackwardInput, "I", "input backward"},
    {ActionKind::kBackwardWeight, "W", "weight backward"},
    {ActionKind::kSendForward, "SEND_F", "forward send"},
    {ActionKind::kRecvForward, "RECV_F", "forward receive"},
    {ActionKind::kSendBackward, "SEND_B", "backward send"},
    {ActionKind::kRecvBackward, "RECV_B", "backward receive"},
}};

bool ParseIndex(std::string_view digits, int32_t* out) {
  if (digits.empty()) return false;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), *out);
  return ec == std::errc() && end == digits.data() + digits.size() && *out >= 0;
}

}  // namespace

std::string_view KindToken(ActionKind kind) { return kKinds[static_cast<int>(kind)].token; }
std::string_view KindWords(ActionKind kind) { return kKinds[static_cast<int>(kind)].words; }

std::string ToString(const Action& action) {
  if (action.is_idle()) return "";
  return StrCat(action.stage, KindToken(action.kind), action.microbatch);
}

absl::StatusOr<Action> ParseAction(std::string_view text) {
  text = StripWhitespace(text);
  if (text.empty()) return Action::Idle();
  size_t head = 0;
  while (head < text.size() && std::isdigit(text[head])) ++head;
  size_t tail = text.size();
  while (tail > head && std::isdigit(text[tail - 1])) --tail;
  const std::string_view token = text.substr(head, tail - head);
  for (std::string_view fsdp : {"UNSHARD", "RESHARD", "REDUCE_GRAD"}) {
    if (token == fsdp) {
      return absl::InvalidArgumentError(
          StrCat("action '", text, "': ", fsdp,
                 " is a PyTorch FSDP action, which hloscope does not model"));
    }
  }
  Action action;
  bool known = false;
  for (const KindInfo& info : kKinds) {
    if (info.kind != ActionKind::kIdle && info.token == token) {
      action.kind = info.kind;
      known = true;
    }
  }
  if (!known) {
    return absl::InvalidArgumentError(
        StrCat("action '", text, "': unknown kind '", token,
               "' (expected F, B, I, W, SEND_F, RECV_F, SEND_B or RECV_B)"));
  }
  if (!ParseIndex(text.substr(0, head), &action.stage) ||
      !ParseIndex(text.substr(tail), &action.microbatch)) {
    return absl::InvalidArgumentError(
        StrCat("action '", text, "': expected <stage><kind><microbatch>, e.g. 0F0 or 1RECV_B2"));
  }
  return action;
}

}  // namespace hloscope::pipeline
