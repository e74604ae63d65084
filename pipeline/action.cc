#include "pipeline/action.h"

#include <array>
#include <cctype>
#include <charconv>

#include "absl/status/status.h"
#include "pipeline/visible_text.h"
#include "support/status_text.h"
#include "support/str_util.h"

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
    {ActionKind::kUnshard, "UNSHARD", "unshard"},
    {ActionKind::kReshard, "RESHARD", "reshard"},
    {ActionKind::kReduceGrad, "REDUCE_GRAD", "gradient reduction"},
}};

constexpr std::string_view kOverlapToken = "OVERLAP_F_B";

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
  if (IsStageAction(action.kind)) return StrCat(action.stage, KindToken(action.kind));
  return StrCat(action.stage, KindToken(action.kind), action.microbatch);
}

absl::StatusOr<Action> ParseAction(std::string_view text) {
  text = StripWhitespace(text);
  if (text.empty()) return Action::Idle();
  size_t head = 0;
  while (head < text.size() && std::isdigit(text[head])) ++head;
  size_t tail = text.size();
  while (tail > head && std::isdigit(text[tail - 1])) --tail;
  std::string_view token = text.substr(head, tail - head);
  // A stage action has no microbatch, and its token does not end in a digit, so `tail` stops at
  // the end of the text.
  Action action;
  bool known = false;
  for (const KindInfo& info : kKinds) {
    if (info.kind != ActionKind::kIdle && info.token == token) {
      action.kind = info.kind;
      known = true;
    }
  }
  if (known && IsStageAction(action.kind)) {
    if (!ParseIndex(text.substr(0, head), &action.stage) || tail != text.size()) {
      return absl::InvalidArgumentError(StrCat("action '", VisibleText(text), "': expected <stage>",
                                               token, " (no microbatch), e.g. 0", token));
    }
    return action;
  }
  if (!known) {
    return absl::InvalidArgumentError(
        StrCat("action '", VisibleText(text), "': unknown kind '", VisibleText(token),
               "' (expected F, B, I, W, SEND_F, RECV_F, SEND_B, RECV_B, UNSHARD, RESHARD, "
               "REDUCE_GRAD or an OVERLAP_F_B cell)"));
  }
  if (!ParseIndex(text.substr(0, head), &action.stage) ||
      !ParseIndex(text.substr(tail), &action.microbatch)) {
    return absl::InvalidArgumentError(
        StrCat("action '", VisibleText(text),
               "': expected <stage><kind><microbatch>, e.g. 0F0 or 1RECV_B2"));
  }
  return action;
}

absl::StatusOr<std::vector<Action>> ParseCell(std::string_view text) {
  text = StripWhitespace(text);
  if (text.empty() || text.front() != '(') {
    absl::StatusOr<Action> action = ParseAction(text);
    if (!action.ok()) return action.status();
    return std::vector<Action>{*action};
  }
  const size_t close = text.find(')');
  if (close == std::string_view::npos || text.substr(close + 1) != kOverlapToken) {
    return absl::InvalidArgumentError(
        StrCat("cell '", VisibleText(text), "': expected (<action>;<action>)", kOverlapToken));
  }
  std::vector<Action> parts;
  for (std::string_view piece : Split(text.substr(1, close - 1), ';')) {
    absl::StatusOr<Action> part = ParseAction(piece);
    if (!part.ok()) {
      return absl::InvalidArgumentError(
          StrCat("cell '", VisibleText(text), "': ", StatusText(part.status())));
    }
    if (!IsCompute(part->kind)) {
      return absl::InvalidArgumentError(StrCat("cell '", VisibleText(text), "': an ", kOverlapToken,
                                               " part must be F, B, I or W, not '",
                                               VisibleText(StripWhitespace(piece)), "'"));
    }
    parts.push_back(*part);
  }
  if (parts.size() < 2) {
    return absl::InvalidArgumentError(StrCat("cell '", VisibleText(text), "': an ", kOverlapToken,
                                             " cell needs at least two actions"));
  }
  for (size_t i = 0; i + 1 < parts.size(); ++i) parts[i].overlaps_next = true;
  return parts;
}

std::vector<std::string> RowCells(const std::vector<Action>& row) {
  std::vector<std::string> cells;
  cells.reserve(row.size());
  for (size_t k = 0; k < row.size(); ++k) {
    if (!row[k].overlaps_next) {
      cells.push_back(ToString(row[k]));
      continue;
    }
    std::string cell = "(";
    for (; k < row.size(); ++k) {
      cell += ToString(row[k]);
      if (!row[k].overlaps_next || k + 1 == row.size()) break;
      cell += ';';
    }
    cells.push_back(StrCat(cell, ")", kOverlapToken));
  }
  return cells;
}

}  // namespace hloscope::pipeline
