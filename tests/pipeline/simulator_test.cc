#include "pipeline/simulator.h"

#include <chrono>
#include <cstdio>
#include <string>

#include "pipeline/grid_text.h"
#include "pipeline/lowering.h"
#include "pipeline/pytorch_lowering.h"
#include "gtest/gtest.h"
#include "tests/pipeline/pipeline_test_util.h"

namespace hloscope::pipeline {
namespace {

using ::hloscope::pipeline::testing::Costs;
using ::hloscope::pipeline::testing::FromText;
using ::hloscope::pipeline::testing::Generate;
using ::hloscope::pipeline::testing::Sim;

// The example of pytorch/pytorch#138928: a RECV may run in the step of its SEND, never before.
TEST(StepGrid, MatchesPyTorchSimulatorOutput) {
  const Schedule s = FromText({
      {"0F0", "0SEND_F0", "0F1", "0SEND_F1", "0RECV_B0", "0B0", "0RECV_B1", "0B1"},
      {"1RECV_F0", "1RECV_F1", "1F0", "1B0", "1SEND_B0", "1F1", "1B1", "1SEND_B1"},
  });
  absl::StatusOr<Schedule> aligned = AlignToSteps(s);
  ASSERT_TRUE(aligned.ok()) << aligned.status();
  EXPECT_EQ(FormatStepGrid(*aligned),
            "         Rank 0   Rank 1\n"
            "Step 00: 0F0\n"
            "Step 01: 0SEND_F0 1RECV_F0\n"
            "Step 02: 0F1\n"
            "Step 03: 0SEND_F1 1RECV_F1\n"
            "Step 04:          1F0\n"
            "Step 05:          1B0\n"
            "Step 06: 0RECV_B0 1SEND_B0\n"
            "Step 07: 0B0      1F1\n"
            "Step 08:          1B1\n"
            "Step 09: 0RECV_B1 1SEND_B1\n"
            "Step 10: 0B1\n");
}

TEST(Deadlock, CrossRankCycleIsReportedWithMarkedSteps) {
  // Rank 0 wants 1B0 before running 0F1; rank 1 wants 0F1 before running 1F0 (and so 1B0).
  const Schedule s = FromText({{"0F0", "0B0", "0F1", "0B1"}, {"1F1", "1B1", "1F0", "1B0"}});
  absl::StatusOr<Simulation> sim = Simulate(s, Costs(s, 1, 1, 1));
  ASSERT_FALSE(sim.ok());
  const std::string msg(sim.status().message());
  EXPECT_NE(msg.find("deadlocks"), std::string::npos) << msg;
  EXPECT_NE(msg.find("rank 0, step 01: 0B0 waits for 1B0 (rank 1, step 03, not reached yet)"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("rank 1, step 00: 1F1 waits for 0F1 (rank 0, step 02, not reached yet)"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("Step 00: 0F0    >1F1<"), std::string::npos) << msg;
  EXPECT_NE(msg.find("Step 01: >0B0<  1B1"), std::string::npos) << msg;
}

TEST(Deadlock, RecvsPostedInTheWrongOrder) {
  // Each rank waits in a RECV for data the other sends only after its own RECV.
  const Schedule s =
      FromText({{"0F0", "0RECV_B0", "0SEND_F0", "0B0"}, {"1RECV_F0", "1F0", "1B0", "1SEND_B0"}});
  absl::StatusOr<Simulation> sim = Simulate(s, CostModel::UnitSteps(s));
  ASSERT_FALSE(sim.ok());
  const std::string msg(sim.status().message());
  EXPECT_NE(msg.find("2 of 2 ranks"), std::string::npos) << msg;
  EXPECT_NE(msg.find("0RECV_B0 waits for 1SEND_B0"), std::string::npos) << msg;
  EXPECT_NE(msg.find("1RECV_F0 waits for 0SEND_F0"), std::string::npos) << msg;
}

TEST(Simulator, HopTimeAddsTwiceAlongTheCriticalPathPerBoundary) {
  // GPipe: the forward wave and the backward wave each cross p-1 boundaries.
  for (int p : {2, 4}) {
    for (int m : {1, 4}) {
      const double f = 3, b = 5, c = 0.5;
      const Schedule s = Generate("gpipe", p, m);
      const Simulation compute = Sim(s, Costs(s, f, b / 2, b / 2, {1}, {}, c));
      EXPECT_DOUBLE_EQ(compute.makespan, (m + p - 1) * (f + b) + 2 * (p - 1) * c);
      absl::StatusOr<Schedule> low = AddSendRecv(s);
      ASSERT_TRUE(low.ok());
      EXPECT_DOUBLE_EQ(Sim(*low, Costs(*low, f, b / 2, b / 2, {1}, {}, c)).makespan,
                       compute.makespan);
    }
  }
}

TEST(Simulator, InputBackwardKeepsActivationsUntilWeightBackward) {
  // With a full backward each microbatch is freed before the next forward: one live at a time.
  const Schedule full = FromText({{"0F0", "0B0", "0F1", "0B1"}});
  EXPECT_EQ(Sim(full, Costs(full, 1, 1, 1)).ranks[0].peak_live, 1);
  // Splitting it, I frees nothing; W does. Here 0F1 runs while microbatch 0 awaits its W.
  const Schedule split = FromText({{"0F0", "0I0", "0F1", "0W0", "0I1", "0W1"}});
  const Simulation sim = Sim(split, Costs(split, 1, 1, 1));
  EXPECT_EQ(sim.ranks[0].peak_live, 2);
  EXPECT_DOUBLE_EQ(sim.ranks[0].peak_bytes, 2);
  EXPECT_DOUBLE_EQ(sim.ranks[0].peak_time, 2);  // 0F1 starts after F and I of microbatch 0
  ASSERT_FALSE(sim.memory[0].empty());
  EXPECT_DOUBLE_EQ(sim.memory[0].back().bytes, 0);
}

TEST(Simulator, TimingOfEachAction) {
  const Schedule s = FromText({{"0F0", "0B0"}, {"1F0", "1B0"}});
  const Simulation sim = Sim(s, Costs(s, 2, 1, 2));  // B = 3
  EXPECT_DOUBLE_EQ(sim.timing[1][0].start, 2);
  EXPECT_DOUBLE_EQ(sim.timing[1][1].end, 7);
  EXPECT_DOUBLE_EQ(sim.timing[0][1].start, 7);
  EXPECT_DOUBLE_EQ(sim.makespan, 10);
  EXPECT_DOUBLE_EQ(sim.ranks[0].busy_time, 5);
  EXPECT_DOUBLE_EQ(sim.ranks[0].bubble_fraction, 0.5);
}

TEST(Simulator, IdleCellsDoNotDelay) {
  const Schedule s = FromText({{"", "", "0F0", "", "0B0"}});
  const Simulation sim = Sim(s, Costs(s, 1, 1, 1));
  EXPECT_DOUBLE_EQ(sim.makespan, 3);
}

TEST(Simulator, InvalidScheduleIsRejectedBeforeRunning) {
  const Schedule s = FromText({{"0F0"}});
  EXPECT_FALSE(Simulate(s, Costs(s, 1, 1, 1)).ok());
}

// Issue 8's performance row: 128 ranks x 1,024 microbatches, >= 10^6 actions with comms. The
// bound here only catches an accidental quadratic walk; bench/ measures the real time.
TEST(Simulator, MillionActionScheduleLowersAndSimulates) {
  const int p = 128, m = 1024, v = 2;
  const Schedule s = Generate("interleaved:2", p, m);
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<Schedule> low = AddSendRecv(s);
  ASSERT_TRUE(low.ok());
  absl::StatusOr<CostModel> costs = BuildCostModel(CostInputs{}, *low);
  ASSERT_TRUE(costs.ok());
  absl::StatusOr<Simulation> sim = Simulate(*low, *costs);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(sim.ok()) << sim.status();
  EXPECT_GE(low->CountActions(), 1'000'000);
  EXPECT_NEAR(sim->bubble_fraction, double(p - 1) / (v * m + p - 1), 1e-9);
  EXPECT_LT(seconds, 20.0);
  std::printf("lowered + simulated %lld actions in %.3f s\n",
              static_cast<long long>(low->CountActions()), seconds);
}

// Issue 21: the same size for every schedule, with both lowerings (ours, and PyTorch's with
// FSDP actions and eager RECVs). Again the bound only catches a quadratic pass (bench/
// pipeline_bench measures: each well under a second).
TEST(Simulator, EveryScheduleAtTheLargestSizeSimulates) {
  const int p = 128, m = 1024;
  for (const char* name : {"gpipe", "1f1b", "interleaved:2", "looped-bfs:2", "interleaved-zb:2",
                           "zb-h1", "zb-v", "dualpipev"}) {
    for (bool pytorch : {false, true}) {
      const auto start = std::chrono::steady_clock::now();
      const Schedule s = Generate(name, p, m);
      absl::StatusOr<Schedule> low =
          pytorch ? AddSendRecvEager(AddReduceGrad(AddUnshardReshard(s))) : AddSendRecv(s);
      ASSERT_TRUE(low.ok()) << name << ": " << low.status();
      absl::StatusOr<Simulation> sim = Simulate(*low, CostModel::UnitSteps(*low));
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      ASSERT_TRUE(sim.ok()) << name << ": " << sim.status();
      EXPECT_LT(seconds, 20.0) << name;
      std::printf("%s (%s lowering): %lld actions in %.3f s\n", name,
                  pytorch ? "pytorch" : "before-use", static_cast<long long>(low->CountActions()),
                  seconds);
    }
  }
}

}  // namespace
}  // namespace hloscope::pipeline
