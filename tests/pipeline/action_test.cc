#include "pipeline/action.h"

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

// PyTorch's FSDP and gradient-reduction actions name a stage and no microbatch.
TEST(ActionText, StageActionsRoundTrip) {
  for (const char* text : {"0UNSHARD", "12RESHARD", "3REDUCE_GRAD"}) {
    absl::StatusOr<Action> a = ParseAction(text);
    ASSERT_TRUE(a.ok()) << text << ": " << a.status();
    EXPECT_TRUE(IsStageAction(a->kind)) << text;
    EXPECT_EQ(a->microbatch, -1) << text;
    EXPECT_EQ(ToString(*a), text);
  }
  EXPECT_EQ(ParseAction("3REDUCE_GRAD")->stage, 3);
  for (const char* text : {"0UNSHARD3", "UNSHARD", "-1RESHARD"}) {
    absl::StatusOr<Action> a = ParseAction(text);
    ASSERT_FALSE(a.ok()) << text;
    EXPECT_NE(a.status().message().find(text), absl::string_view::npos) << a.status();
  }
}

// DualPipeV's `(0F7;7B3)OVERLAP_F_B`: parts in order, all but the last flagged; written back as
// one cell.
TEST(ActionText, OverlapCellRoundTrip) {
  absl::StatusOr<std::vector<Action>> cell = ParseCell(" (0F7;7B3)OVERLAP_F_B ");
  ASSERT_TRUE(cell.ok()) << cell.status();
  ASSERT_EQ(cell->size(), 2u);
  EXPECT_EQ(ToString((*cell)[0]), "0F7");
  EXPECT_TRUE((*cell)[0].overlaps_next);
  EXPECT_EQ(ToString((*cell)[1]), "7B3");
  EXPECT_FALSE((*cell)[1].overlaps_next);
  std::vector<Action> row = *cell;
  row.push_back(*ParseAction("0I1"));
  EXPECT_EQ(RowCells(row), (std::vector<std::string>{"(0F7;7B3)OVERLAP_F_B", "0I1"}));
  absl::StatusOr<std::vector<Action>> single = ParseCell("0W2");
  ASSERT_TRUE(single.ok());
  EXPECT_EQ(single->size(), 1u);
  for (const char* bad : {"(0F1)OVERLAP_F_B", "(0F1;1SEND_F1)OVERLAP_F_B", "(0F1;1B0)FOO",
                          "(0F1;1B0", "(0F1;X)OVERLAP_F_B"}) {
    absl::StatusOr<std::vector<Action>> c = ParseCell(bad);
    EXPECT_FALSE(c.ok()) << bad;
  }
}

}  // namespace
}  // namespace hloscope::pipeline
