#include "analysis/pipeline/action.h"

#include "gtest/gtest.h"

namespace hloscope::pipeline {
namespace {

TEST(ActionText, RoundTripsEveryKindInPyTorchSpelling) {
  // The strings PyTorch's _Action prints for each computation type.
  const struct {
    const char* text;
    Action action;
  } cases[] = {
      {"0F0", {0, 0, ActionKind::kForward}},
      {"2I1", {2, 1, ActionKind::kBackwardInput}},
      {"3W12", {3, 12, ActionKind::kBackwardWeight}},
      {"1B7", {1, 7, ActionKind::kBackward}},
      {"1RECV_B0", {1, 0, ActionKind::kRecvBackward}},
      {"0SEND_F3", {0, 3, ActionKind::kSendForward}},
      {"5RECV_F4", {5, 4, ActionKind::kRecvForward}},
      {"10SEND_B100", {10, 100, ActionKind::kSendBackward}},
  };
  for (const auto& c : cases) {
    absl::StatusOr<Action> parsed = ParseAction(c.text);
    ASSERT_TRUE(parsed.ok()) << c.text << ": " << parsed.status();
    EXPECT_EQ(*parsed, c.action) << c.text;
    EXPECT_EQ(ToString(*parsed), c.text);
  }
}

TEST(ActionText, EmptyIsIdle) {
  for (const char* text : {"", "   ", "\t"}) {
    absl::StatusOr<Action> a = ParseAction(text);
    ASSERT_TRUE(a.ok());
    EXPECT_TRUE(a->is_idle());
  }
  EXPECT_EQ(ToString(Action::Idle()), "");
}

TEST(ActionText, SurroundingSpacesAreIgnored) {
  absl::StatusOr<Action> a = ParseAction(" 2F3 ");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(ToString(*a), "2F3");
}

TEST(ActionText, RejectsMalformedWithTheText) {
  for (const char* text : {"F0", "0F", "0X0", "0f0", "-1F0", "0F0x", "0SEND0"}) {
    absl::StatusOr<Action> a = ParseAction(text);
    ASSERT_FALSE(a.ok()) << text;
    EXPECT_NE(a.status().message().find(text), absl::string_view::npos) << a.status();
  }
}

TEST(ActionText, FsdpActionsAreNamedAsUnsupported) {
  absl::StatusOr<Action> a = ParseAction("0UNSHARD");
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.status().message().find("FSDP"), absl::string_view::npos) << a.status();
}

}  // namespace
}  // namespace hloscope::pipeline
