// PyTorch's lowering passes on small hand-checked cases and their error paths; the golden test
// (pytorch_golden_test.cc) checks them against PyTorch on every configuration of the issue.
#include "pipeline/pytorch_lowering.h"

#include <string>
#include <vector>

#include "pipeline/lowering.h"
#include "pipeline/schedule_csv.h"
#include "pipeline/simulator.h"
#include "pipeline/validate.h"
#include "gtest/gtest.h"
#include "tests/pipeline/pipeline_test_util.h"

namespace hloscope::pipeline {
namespace {

using ::hloscope::pipeline::testing::FromText;

std::string Csv(const Schedule& s) { return DumpScheduleCsv(s); }

Schedule FromCsv(std::string_view text) {
  absl::StatusOr<Schedule> s = ParseScheduleCsv(text);
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? *std::move(s) : Schedule{};
}

TEST(PytorchLowering, ReduceGradFollowsTheLastBackwardOfEachStage) {
  const Schedule s =
      FromText({{"0F0", "", "0F1", "0B0", "0I1", "0W1"}, {"1F0", "1F1", "1B0", "1B1"}});
  EXPECT_EQ(Csv(AddReduceGrad(s)),
            "0F0,0F1,0B0,0I1,0W1,0REDUCE_GRAD\n1F0,1F1,1B0,1B1,1REDUCE_GRAD\n");
}

TEST(PytorchLowering, ReduceGradComesAfterAWholeOverlapGroup) {
  const Schedule s = FromCsv("0F0,0F1,(1F0;0B0)OVERLAP_F_B,(1F1;0B1)OVERLAP_F_B,1B0,1B1\n");
  EXPECT_EQ(Csv(AddReduceGrad(s)),
            "0F0,0F1,(1F0;0B0)OVERLAP_F_B,(1F1;0B1)OVERLAP_F_B,0REDUCE_GRAD,1B0,1B1,"
            "1REDUCE_GRAD\n");
}

// With a window of 1, every change of stage reshards the old one and unshards the new one; at
// the end what is still active is resharded.
TEST(PytorchLowering, UnshardReshardKeepsAWindowOfUpcomingStages) {
  const Schedule s = FromText({{"0F0", "2F0", "2B0", "0B0"}});
  EXPECT_EQ(Csv(AddUnshardReshard(s, 1)),
            "0UNSHARD,0F0,0RESHARD,2UNSHARD,2F0,2B0,2RESHARD,0UNSHARD,0B0,0RESHARD\n");
  // With 3, both stay until stage 2 has nothing left: it goes before the last cell.
  EXPECT_EQ(Csv(AddUnshardReshard(s, 3)), "0UNSHARD,2UNSHARD,0F0,2F0,2B0,2RESHARD,0B0,0RESHARD\n");
}

// PyTorch's _add_send_recv: the RECV lands on the receiver when the sender's action is placed.
TEST(PytorchLowering, EagerRecvIsPlacedWhenTheSenderRuns) {
  const Schedule s = FromText({{"0F0", "0F1", "0B0", "0B1"}, {"1F0", "1B0", "1F1", "1B1"}});
  absl::StatusOr<Schedule> eager = AddSendRecvEager(s);
  ASSERT_TRUE(eager.ok()) << eager.status();
  EXPECT_EQ(Csv(*eager),
            "0F0,0SEND_F0,0F1,0SEND_F1,0RECV_B0,0B0,0RECV_B1,0B1\n"
            "1RECV_F0,1F0,1RECV_F1,1B0,1SEND_B0,1F1,1B1,1SEND_B1\n");
  // Ours puts 1RECV_F1 just before 1F1 instead.
  absl::StatusOr<Schedule> ours = AddSendRecv(s);
  ASSERT_TRUE(ours.ok());
  EXPECT_EQ(Csv(*ours),
            "0F0,0SEND_F0,0F1,0SEND_F1,0RECV_B0,0B0,0RECV_B1,0B1\n"
            "1RECV_F0,1F0,1B0,1SEND_B0,1RECV_F1,1F1,1B1,1SEND_B1\n");
  absl::StatusOr<Schedule> grid = LockstepGrid(*eager);
  ASSERT_TRUE(grid.ok()) << grid.status();
  EXPECT_EQ(Csv(*grid),
            "0F0,0SEND_F0,0F1,0SEND_F1,,0RECV_B0,0B0,,0RECV_B1,0B1\n"
            ",1RECV_F0,1F0,1RECV_F1,1B0,1SEND_B0,1F1,1B1,1SEND_B1\n");
}

TEST(PytorchLowering, EagerRefusesLoweredAndDeadlockedSchedules) {
  const Schedule s = FromText({{"0F0", "0B0"}, {"1F0", "1B0"}});
  absl::StatusOr<Schedule> lowered = AddSendRecv(s);
  ASSERT_TRUE(lowered.ok());
  absl::StatusOr<Schedule> twice = AddSendRecvEager(*lowered);
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.status().message().find("already has SEND/RECV"), absl::string_view::npos);
  // Each rank first waits for the other's second microbatch.
  const Schedule cycle = FromText({{"0F0", "0B0", "0F1", "0B1"}, {"1F1", "1B1", "1F0", "1B0"}});
  absl::StatusOr<Schedule> stuck = AddSendRecvEager(cycle);
  ASSERT_FALSE(stuck.ok());
  EXPECT_NE(stuck.status().message().find("cannot place its sends and receives"),
            absl::string_view::npos)
      << stuck.status();
}

TEST(PytorchLowering, LockstepGridReportsAScheduleThatStops) {
  // Lowered by hand so that each rank's first RECV waits for a SEND the other never reaches.
  const Schedule s = FromCsv(
      "0RECV_B1,0F0,0SEND_F0,0F1,0SEND_F1,0RECV_B0,0B0,0B1\n"
      "1RECV_F1,1RECV_F0,1F0,1B0,1SEND_B0,1F1,1B1,1SEND_B1\n");
  ASSERT_TRUE(ValidateSchedule(s).ok()) << ValidateSchedule(s);
  absl::StatusOr<Schedule> grid = LockstepGrid(s);
  ASSERT_FALSE(grid.ok());
  EXPECT_NE(grid.status().message().find("not progressing"), absl::string_view::npos)
      << grid.status();
  EXPECT_FALSE(LockstepGrid(FromText({{"0B0"}})).ok());  // invalid: refused before stepping
}

// PyTorch places an OVERLAP_F_B cell when the inputs of all its parts are there: the group
// starts then (here 0F1 waits for 1B0, which 0B0 needs), its results leave when it ends (1F1
// waits for the group, not just 0F1), and a part may not need another part.
TEST(PytorchLowering, OverlapGroupStartsWhenAllItsInputsAreThere) {
  const Schedule s = FromCsv("0F0,(0F1;0B0)OVERLAP_F_B,0B1\n1F0,1B0,1F1,1B1\n");
  absl::StatusOr<Simulation> sim = Simulate(s, CostModel::UnitSteps(s));
  ASSERT_TRUE(sim.ok()) << sim.status();
  EXPECT_DOUBLE_EQ(sim->timing[0][1].start, 3);  // 0F1, after 1B0 ends at 3
  EXPECT_DOUBLE_EQ(sim->timing[0][2].start, 4);  // 0B0
  EXPECT_DOUBLE_EQ(sim->timing[1][2].start, 5);  // 1F1, after the group ends
  EXPECT_DOUBLE_EQ(sim->makespan, 8);
  // Lowered, the RECV the backward part needs comes before the group: the same timing.
  absl::StatusOr<Schedule> low = AddSendRecv(s);
  ASSERT_TRUE(low.ok());
  EXPECT_EQ(Csv(*low),
            "0F0,0SEND_F0,0RECV_B0,(0F1;0B0)OVERLAP_F_B,0SEND_F1,0RECV_B1,0B1\n"
            "1RECV_F0,1F0,1B0,1SEND_B0,1RECV_F1,1F1,1B1,1SEND_B1\n");
  CostModel costs = CostModel::UnitSteps(*low);
  costs.send_time = costs.recv_time = 0;
  absl::StatusOr<Simulation> lowered = Simulate(*low, costs);
  ASSERT_TRUE(lowered.ok()) << lowered.status();
  EXPECT_DOUBLE_EQ(lowered->makespan, 8);

  const Schedule inner = FromCsv("(0F0;0B0)OVERLAP_F_B\n");
  absl::Status st = ValidateSchedule(inner);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("needs 0F0 (its forward) from its own OVERLAP_F_B group"),
            absl::string_view::npos)
      << st;
}

TEST(PytorchLowering, StageActionsAreCheckedAndCostTime) {
  // A stage action must name a stage of its own rank.
  const Schedule wrong = FromCsv("0F0,1UNSHARD,0B0\n1F0,1B0\n");
  absl::Status st = ValidateSchedule(wrong);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("names stage 1, which has no compute action on this rank"),
            absl::string_view::npos)
      << st;
  // An OVERLAP_F_B flag needs a compute action after it.
  Schedule dangling = FromText({{"0F0", "0B0"}});
  dangling.rows[0][1].overlaps_next = true;
  st = ValidateSchedule(dangling);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("OVERLAP_F_B group that has no compute action after it"),
            absl::string_view::npos)
      << st;
  // Zero time by default; the cost model's time when given.
  const Schedule fsdp = FromCsv("0UNSHARD,0F0,0B0,0REDUCE_GRAD,0RESHARD\n");
  CostModel costs = CostModel::UnitSteps(fsdp);
  costs.unshard_time = costs.reshard_time = costs.reduce_grad_time = 0;
  absl::StatusOr<Simulation> plain = Simulate(fsdp, costs);
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_DOUBLE_EQ(plain->makespan, 2);
  costs.unshard_time = 5;
  costs.reduce_grad_time = 7;
  absl::StatusOr<Simulation> timed = Simulate(fsdp, costs);
  ASSERT_TRUE(timed.ok());
  EXPECT_DOUBLE_EQ(timed->makespan, 14);
  EXPECT_DOUBLE_EQ(timed->ranks[0].busy_time, 2);  // FSDP time is not compute
}

}  // namespace
}  // namespace hloscope::pipeline
