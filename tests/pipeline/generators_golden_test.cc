// Golden values of issue 8, each computed here from its published formula.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <string_view>
#include <vector>

#include "pipeline/generators.h"
#include "pipeline/lowering.h"
#include "pipeline/simulator.h"
#include "pipeline/validate.h"
#include "gtest/gtest.h"
#include "tests/pipeline/pipeline_test_util.h"

namespace hloscope::pipeline {
namespace {

using ::hloscope::pipeline::testing::Costs;
using ::hloscope::pipeline::testing::Generate;
using ::hloscope::pipeline::testing::Sim;

TEST(Golden, GPipeHoldsEveryMicrobatchOnEveryRank) {
  const int p = 4, m = 8;
  const Schedule s = Generate("gpipe", p, m);
  const Simulation sim = Sim(s, Costs(s, 1, 1, 1));
  for (int r = 0; r < p; ++r) {
    EXPECT_EQ(sim.ranks[r].peak_live, m) << "rank " << r;
    EXPECT_DOUBLE_EQ(sim.ranks[r].peak_bytes, m) << "rank " << r;
  }
}

TEST(Golden, OneFOneBHoldsPMinusRankMicrobatches) {
  const int p = 4, m = 8;
  const Schedule s = Generate("1f1b", p, m);
  const Simulation sim = Sim(s, Costs(s, 1, 1, 1));
  std::vector<int64_t> live;
  for (const RankStats& st : sim.ranks) live.push_back(st.peak_live);
  EXPECT_EQ(live, (std::vector<int64_t>{4, 3, 2, 1}));
  for (int r = 0; r < p; ++r) EXPECT_DOUBLE_EQ(sim.ranks[r].peak_bytes, p - r);
}

TEST(Golden, InterleavedRankZeroPeaksAtPPlusPMinusOneOverV) {
  for (int p : {2, 4, 8}) {
    for (int v : {2, 3, 4}) {
      const int m = 2 * p;
      const Schedule s = Generate("interleaved:" + std::to_string(v), p, m);
      ASSERT_EQ(s.num_stages, p * v);
      // Sizes in stage-equivalents: each of the v stages on a rank holds 1/v of its share.
      const Simulation sim = Sim(s, Costs(s, 1, 1, 1));
      EXPECT_NEAR(sim.ranks[0].peak_bytes, p + double(p - 1) / v, 1e-9) << "p=" << p << " v=" << v;
    }
  }
  // The example, spelled out: p=4, v=2, m=8 peaks at 5.5.
  const Schedule s = Generate("interleaved:2", 4, 8);
  EXPECT_DOUBLE_EQ(Sim(s, Costs(s, 1, 1, 1)).ranks[0].peak_bytes, 5.5);
}

// (p-1)/(m+p-1) for GPipe and 1F1B with equal stages, for any F:B ratio and on every rank.
TEST(Golden, GPipeAndOneFOneBBubbleFraction) {
  for (const char* name : {"gpipe", "1f1b"}) {
    for (int p : {1, 2, 4, 8}) {
      for (int m : {1, 3, 8, 32}) {
        for (double backward : {1.0, 2.0}) {
          const Schedule s = Generate(name, p, m);
          // B = I + W; split it evenly so that a full backward takes `backward`.
          const Simulation sim = Sim(s, Costs(s, 1, backward / 2, backward / 2));
          const double expect = double(p - 1) / (m + p - 1);
          EXPECT_NEAR(sim.bubble_fraction, expect, 1e-12) << name << " p=" << p << " m=" << m;
          for (const RankStats& st : sim.ranks) EXPECT_NEAR(st.bubble_fraction, expect, 1e-12);
        }
      }
    }
  }
}

// Interleaving divides the bubble by v: (p-1)/(v*m + p-1) of the makespan.
TEST(Golden, InterleavedBubbleShrinksByV) {
  for (int p : {2, 4}) {
    for (int v : {2, 4}) {
      for (int m : {p, 2 * p, 4 * p}) {
        const Schedule s = Generate("interleaved:" + std::to_string(v), p, m);
        const Simulation sim = Sim(s, Costs(s, 1, 1, 1));
        EXPECT_NEAR(sim.bubble_fraction, double(p - 1) / (v * m + p - 1), 1e-12)
            << "p=" << p << " v=" << v << " m=" << m;
      }
    }
  }
}

// ZB-H1 idles (p-1)(T_F + T_I - T_W) per rank (the zero-bubble paper's T_B is our I), under the
// paper's conditions: enough microbatches to fill the pipe and W no longer than F or I.
TEST(Golden, ZeroBubbleH1Bubble) {
  const struct {
    double f, i, w;
  } times[] = {{1, 1, 1}, {2, 1, 1}, {1, 2, 1}, {2, 2, 1}, {1.5, 1, 0.5}, {1, 1, 0.25}};
  for (const auto& t : times) {
    for (int p : {2, 4, 8}) {
      for (int m : {p, 2 * p, 16}) {
        const Schedule s = Generate("zb-h1", p, m);
        const Simulation sim = Sim(s, Costs(s, t.f, t.i, t.w));
        const double bubble = (p - 1) * (t.f + t.i - t.w);
        for (int r = 0; r < p; ++r) {
          EXPECT_NEAR(sim.makespan - sim.ranks[r].busy_time, bubble, 1e-9)
              << "F=" << t.f << " I=" << t.i << " W=" << t.w << " p=" << p << " m=" << m << " rank "
              << r;
        }
        // And it beats 1F1B, whose bubble is (p-1)(T_F + T_I + T_W).
        const Schedule ofob = Generate("1f1b", p, m);
        const Simulation base = Sim(ofob, Costs(ofob, t.f, t.i, t.w));
        if (p > 1) {
          EXPECT_LT(sim.makespan, base.makespan);
        }
        EXPECT_NEAR(base.makespan - base.ranks[0].busy_time, (p - 1) * (t.f + t.i + t.w), 1e-9);
      }
    }
  }
}

// ZB-V keeps 1F1B's peak (p stage-equivalents: 2p half-size stages) with a smaller bubble.
TEST(Golden, ZeroBubbleVPeakMatchesOneFOneB) {
  for (int p : {2, 4, 8}) {
    for (int m : {2 * p, 4 * p}) {
      const Schedule s = Generate("zb-v", p, m);
      ASSERT_EQ(s.num_stages, 2 * p);
      const Simulation sim = Sim(s, Costs(s, 1, 1, 1));
      EXPECT_DOUBLE_EQ(sim.ranks[0].peak_bytes, p);
      for (const RankStats& st : sim.ranks) EXPECT_LE(st.peak_bytes, p + 1e-9);
      const Schedule h1 = Generate("zb-h1", p, m);
      EXPECT_LT(sim.makespan, Sim(h1, Costs(h1, 1, 1, 1)).makespan) << "p=" << p << " m=" << m;
    }
  }
}

TEST(Golden, ZeroBubbleVPlacesTwoStagesPerRankInAV) {
  const int p = 4;
  const Schedule s = Generate("zb-v", p, 8);
  for (int r = 0; r < p; ++r) {
    EXPECT_EQ(s.stage_rank[r], r);
    EXPECT_EQ(s.stage_rank[2 * p - 1 - r], r);
  }
}

// Unequal microbatches: every peak is the byte sum of the microbatches live at that moment.
TEST(Golden, ByteWeightedPeaksWithUnequalMicrobatches) {
  const int p = 4, m = 8;
  const std::vector<int64_t> tokens = {2048, 1024, 512, 2048, 256, 2048, 1024, 128};
  const double bytes = 1 << 20;  // of the largest microbatch, per rank's share
  const double largest = *std::max_element(tokens.begin(), tokens.end());
  auto size = [&](int k) { return bytes * tokens[k] / largest; };

  // GPipe: all forwards first, so every rank holds the sum of all microbatches.
  const Schedule gpipe = Generate("gpipe", p, m);
  const Simulation g = Sim(gpipe, Costs(gpipe, 1, 1, 1, {bytes}, tokens));
  double total = 0;
  for (int k = 0; k < m; ++k) total += size(k);
  for (const RankStats& st : g.ranks) EXPECT_DOUBLE_EQ(st.peak_bytes, total);

  // 1F1B: rank r holds a window of p-r consecutive microbatches (warm-up, then one in, one
  // out), so its peak is the heaviest such window.
  const Schedule ofob = Generate("1f1b", p, m);
  const Simulation o = Sim(ofob, Costs(ofob, 1, 1, 1, {bytes}, tokens));
  for (int r = 0; r < p; ++r) {
    const int window = p - r;
    double best = 0;
    for (int first = 0; first + window <= m; ++first) {
      double sum = 0;
      for (int k = first; k < first + window; ++k) sum += size(k);
      best = std::max(best, sum);
    }
    EXPECT_DOUBLE_EQ(o.ranks[r].peak_bytes, best) << "rank " << r;
  }
}

TEST(Golden, EveryGeneratorLowersWithoutDeadlockAndKeepsItsTiming) {
  for (const char* name : {"gpipe", "1f1b", "interleaved:2", "interleaved:3", "looped-bfs:2",
                           "zb-h1", "zb-v", "interleaved-zb:2", "dualpipev"}) {
    for (int p : {1, 2, 3, 4, 8}) {
      for (int m : {2 * p, 2 * p + 2, 3 * p, 4 * p}) {
        const Schedule s = Generate(name, p, m);
        absl::StatusOr<Schedule> lowered = AddSendRecv(s);
        ASSERT_TRUE(lowered.ok()) << name << ": " << lowered.status();
        const Simulation compute = Sim(s, Costs(s, 1, 1, 1, {1}, {}, /*comm=*/0.25));
        const Simulation with_comms = Sim(*lowered, Costs(*lowered, 1, 1, 1, {1}, {}, 0.25));
        // An OVERLAP_F_B group waits for all its parts' inputs in both, so dualpipev too.
        EXPECT_DOUBLE_EQ(compute.makespan, with_comms.makespan) << name << " p=" << p << " m=" << m;
        for (int r = 0; r < p; ++r) {
          EXPECT_DOUBLE_EQ(compute.ranks[r].peak_bytes, with_comms.ranks[r].peak_bytes);
        }
      }
    }
  }
}

// Beyond the golden grid: every generator, many sizes and stage counts, either refuses the sizes
// with a message or gives a valid schedule; the simulator then runs it or reports its deadlock
// (PyTorch's orders are not designed for every size). Nothing hangs or crashes.
TEST(Generators, EverySizeIsAScheduleOrAnError) {
  int runnable = 0, refused = 0, deadlocked = 0;
  for (const char* base : {"gpipe", "1f1b", "zb-h1", "zb-v", "dualpipev",
                           "interleaved:", "looped-bfs:", "interleaved-zb:"}) {
    const std::string b = base;
    for (int v = 1; v <= (b.back() == ':' ? 4 : 1); ++v) {
      const std::string name = b.back() == ':' ? b + std::to_string(v) : b;
      for (int p = 1; p <= 6; ++p) {
        for (int m = 1; m <= 3 * p + 2; ++m) {
          absl::StatusOr<Schedule> s = GenerateSchedule(*ParseScheduleSpec(name), p, m);
          if (!s.ok()) {
            EXPECT_FALSE(s.status().message().empty());
            ++refused;
            continue;
          }
          ASSERT_TRUE(ValidateSchedule(*s).ok()) << name << " p=" << p << " m=" << m << "\n"
                                                 << ValidateSchedule(*s);
          absl::StatusOr<Simulation> sim = Simulate(*s, CostModel::UnitSteps(*s));
          if (sim.ok()) {
            ++runnable;
          } else {
            EXPECT_NE(sim.status().message().find("deadlocks"), absl::string_view::npos)
                << name << " p=" << p << " m=" << m << ": " << sim.status();
            ++deadlocked;
          }
        }
      }
    }
  }
  std::printf("%d runnable, %d refused, %d deadlocking\n", runnable, refused, deadlocked);
  EXPECT_GT(runnable, 500);
}

TEST(Generators, ForwardBubblesHoldBackAForwardAndReportAWaitThatNeverEnds) {
  const Action f00{0, 0, ActionKind::kForward}, f10{1, 0, ActionKind::kForward};
  std::vector<std::vector<Action>> rows = {{f00}, {f10}};
  ASSERT_TRUE(AddForwardBubbles(rows, 2, 1).ok());
  EXPECT_EQ(rows, (std::vector<std::vector<Action>>{{f00}, {Action::Idle(), f10}}));
  // Stage 1's forward waits for stage 0's, which nobody runs.
  std::vector<std::vector<Action>> stuck = {{f10}};
  absl::Status st = AddForwardBubbles(stuck, 2, 1);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("never runs"), absl::string_view::npos) << st;
}

TEST(Generators, ParseNamesAndReportBadOnes) {
  absl::StatusOr<ScheduleSpec> spec = ParseScheduleSpec("Interleaved:3");
  ASSERT_TRUE(spec.ok());
  EXPECT_EQ(spec->family, ScheduleFamily::kInterleaved1F1B);
  EXPECT_EQ(spec->stages_per_rank, 3);
  EXPECT_EQ(SpecName(*spec), "interleaved:3");
  EXPECT_EQ(SpecName(*ParseScheduleSpec("zb_h1")), "zb-h1");
  EXPECT_EQ(ParseScheduleSpec("interleaved")->stages_per_rank, 2);
  EXPECT_FALSE(ParseScheduleSpec("1f1b:2").ok());
  EXPECT_FALSE(ParseScheduleSpec("interleaved:0").ok());
  EXPECT_FALSE(ParseScheduleSpec("pipedream").ok());
}

TEST(Generators, RefuseParametersTheyCannotSchedule) {
  // PyTorch's limits: DualPipeV needs m >= 2p; the interleaved rounds (max(1, m/p)) must divide m.
  absl::StatusOr<Schedule> dpv = GenerateSchedule(*ParseScheduleSpec("dualpipev"), 4, 7);
  ASSERT_FALSE(dpv.ok());
  EXPECT_NE(dpv.status().message().find("= 8; got 7"), absl::string_view::npos) << dpv.status();
  for (const char* name : {"interleaved:2", "interleaved-zb:2"}) {
    absl::StatusOr<Schedule> inter = GenerateSchedule(*ParseScheduleSpec(name), 4, 9);
    ASSERT_FALSE(inter.ok()) << name;
    EXPECT_NE(inter.status().message().find("number of rounds (2"), absl::string_view::npos)
        << inter.status();
  }
  // Accepted as PyTorch accepts them: ZB-V below 2p-1 microbatches, interleaved with m not a
  // multiple of p.
  EXPECT_TRUE(GenerateSchedule(*ParseScheduleSpec("zb-v"), 4, 6).ok());
  EXPECT_TRUE(GenerateSchedule(*ParseScheduleSpec("interleaved:2"), 4, 6).ok());
  EXPECT_FALSE(GenerateSchedule(*ParseScheduleSpec("1f1b"), 0, 4).ok());
}

}  // namespace
}  // namespace hloscope::pipeline
