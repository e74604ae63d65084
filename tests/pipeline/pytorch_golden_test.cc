// hlo-pipeline's schedules against PyTorch's, class by class: testdata/pipeline/pytorch_golden
// holds what torch/distributed/pipelining/schedules.py (pytorch/pytorch commit
// 00722e648b740f91d0e71494baa17891749fd291) generates for P in {2,4,8}, M in {P-1, P, P+1, 2P,
// 2P+2, 3P} and 1-2 stages per rank (see the README there for how it was made). For every
// configuration PyTorch accepts: the compute order of every rank, the peak of live microbatches
// per rank, the pipeline_order grid (--grid-style=pytorch), the lowered schedule PyTorch's
// runtime executes (FSDP actions, REDUCE_GRAD and eager RECVs) and PyTorch's lockstep grid of it
// (_simulate_comms_compute) are identical; the lowered one also loads, simulates and writes back
// unchanged.
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "pipeline/generators.h"
#include "pipeline/lowering.h"
#include "pipeline/pytorch_lowering.h"
#include "pipeline/schedule_csv.h"
#include "pipeline/simulator.h"
#include "gtest/gtest.h"

namespace hloscope::pipeline {
namespace {

struct GoldenConfig {
  int p = 0, m = 0, v = 0;
  bool rejected = false;
  std::string reject_reason;
  // Per rank.
  std::vector<std::string> order, grid, comms, lockstep;
  std::vector<int64_t> peak;
};

std::vector<GoldenConfig> ReadGolden(const std::string& cls) {
  const std::string path =
      std::string(HLOSCOPE_TESTDATA_DIR) + "/pipeline/pytorch_golden/" + cls + ".golden";
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  std::vector<GoldenConfig> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    std::string tag;
    words >> tag;
    if (tag == "config" || tag == "reject") {
      GoldenConfig c;
      words >> c.p >> c.m >> c.v;
      c.rejected = tag == "reject";
      if (c.rejected) c.reject_reason = line;
      c.order.resize(c.p);
      c.grid.resize(c.p);
      c.comms.resize(c.p);
      c.lockstep.resize(c.p);
      c.peak.resize(c.p);
      out.push_back(std::move(c));
      continue;
    }
    if (tag == "end") continue;
    int rank = 0;
    words >> rank;
    const size_t colon = line.find(": ");
    const std::string rest = colon == std::string::npos ? "" : line.substr(colon + 2);
    GoldenConfig& c = out.back();
    if (tag == "order") c.order[rank] = rest;
    if (tag == "grid") c.grid[rank] = rest;
    if (tag == "comms") c.comms[rank] = rest;
    if (tag == "sim") c.lockstep[rank] = rest;
    if (tag == "peak") c.peak[rank] = std::stoll(rest);
  }
  return out;
}

std::string Join(const std::vector<std::string>& cells, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < cells.size(); ++i) {
    if (i > 0) out += sep;
    out += cells[i];
  }
  return out;
}

std::string OrderText(const std::vector<Action>& row) {
  std::vector<std::string> cells;
  for (const Action& a : row) {
    if (IsCompute(a.kind)) cells.push_back(ToString(a));
  }
  return Join(cells, " ");
}

std::string SpecFor(const std::string& cls, int v) {
  const std::map<std::string, std::string> names = {
      {"GPipe", "gpipe"},
      {"1F1B", "1f1b"},
      {"Interleaved1F1B", "interleaved:"},
      {"LoopedBFS", "looped-bfs:"},
      {"InterleavedZeroBubble", "interleaved-zb:"},
      {"ZBVZeroBubble", "zb-v"},
      {"DualPipeV", "dualpipev"},
  };
  std::string name = names.at(cls);
  if (name.back() == ':') name += std::to_string(v);
  return name;
}

bool SingleStage(const std::string& cls) { return cls == "GPipe" || cls == "1F1B"; }

// Checks one class; returns the number of accepted configurations compared.
int CheckClass(const std::string& cls) {
  int compared = 0;
  for (const GoldenConfig& c : ReadGolden(cls)) {
    const std::string where = cls + " P=" + std::to_string(c.p) + " M=" + std::to_string(c.m) +
                              " V=" + std::to_string(c.v);
    absl::StatusOr<ScheduleSpec> spec = ParseScheduleSpec(SpecFor(cls, c.v));
    EXPECT_TRUE(spec.ok()) << where;
    if (!spec.ok()) continue;
    absl::StatusOr<Schedule> ours = GenerateSchedule(*spec, c.p, c.m);
    if (c.rejected) {
      if (cls == "1F1B") {
        // Deliberate difference (docs/pipeline.md): 1F1B with fewer microbatches than ranks is a
        // valid, runnable schedule here.
        EXPECT_TRUE(ours.ok()) << where;
        if (ours.ok()) {
          EXPECT_TRUE(Simulate(*ours, CostModel::UnitSteps(*ours)).ok()) << where;
        }
      } else {
        EXPECT_FALSE(ours.ok()) << where << " (PyTorch: " << c.reject_reason << ")";
      }
      continue;
    }
    ++compared;
    EXPECT_TRUE(ours.ok()) << where << ": " << ours.status();
    if (!ours.ok()) continue;
    EXPECT_EQ(ours->num_ranks(), c.p) << where;
    if (ours->num_ranks() != c.p) continue;

    // Per-rank compute order, and peaks under unit costs.
    absl::StatusOr<Simulation> sim = Simulate(*ours, CostModel::UnitSteps(*ours));
    EXPECT_TRUE(sim.ok()) << where << ": " << sim.status();
    for (int r = 0; r < c.p; ++r) {
      EXPECT_EQ(OrderText(ours->rows[r]), c.order[r]) << where << " rank " << r;
      if (sim.ok()) {
        EXPECT_EQ(sim->ranks[r].peak_live, c.peak[r]) << where << " rank " << r;
      }
    }

    // pipeline_order as PyTorch lays it out.
    absl::StatusOr<Schedule> layout = GeneratePytorchOrder(*spec, c.p, c.m);
    EXPECT_TRUE(layout.ok()) << where;
    if (!layout.ok()) continue;
    Schedule grid = SingleStage(cls) ? AddReduceGrad(*layout) : *layout;
    for (int r = 0; r < c.p; ++r) {
      std::vector<Action> row = grid.rows[r];
      if (cls == "1F1B" && r == c.p - 1) {
        // PyTorch's Schedule1F1B.pipeline_order numbers the last rank's forwards from 1 (it never
        // emits F0); what it executes starts at F0 (checked above). The grid is otherwise ours.
        for (Action& a : row) a.microbatch += a.kind == ActionKind::kForward;
      }
      EXPECT_EQ(Join(RowCells(row), ","), c.grid[r]) << where << " rank " << r;
    }

    if (SingleStage(cls)) continue;
    // What PyTorch's runtime executes: FSDP actions, REDUCE_GRAD, eager SEND/RECV.
    absl::StatusOr<Schedule> lowered = AddSendRecvEager(AddReduceGrad(AddUnshardReshard(*ours)));
    EXPECT_TRUE(lowered.ok()) << where << ": " << lowered.status();
    if (!lowered.ok()) continue;
    std::string csv;
    for (int r = 0; r < c.p; ++r) {
      EXPECT_EQ(Join(RowCells(lowered->rows[r]), ","), c.comms[r]) << where << " rank " << r;
      csv += c.comms[r] + "\n";
    }
    // PyTorch's own lowered CSV loads, simulates without a deadlock, keeps the peaks, and is
    // written back byte for byte.
    absl::StatusOr<Schedule> loaded = ParseScheduleCsv(csv, where);
    EXPECT_TRUE(loaded.ok()) << where << ": " << loaded.status();
    if (!loaded.ok()) continue;
    absl::StatusOr<Simulation> lsim = Simulate(*loaded, CostModel::UnitSteps(*loaded));
    EXPECT_TRUE(lsim.ok()) << where << ": " << lsim.status();
    if (lsim.ok()) {
      for (int r = 0; r < c.p; ++r) EXPECT_EQ(lsim->ranks[r].peak_live, c.peak[r]) << where;
    }
    EXPECT_EQ(DumpScheduleCsv(*loaded), csv) << where;
    // PyTorch's lockstep grid (_simulate_comms_compute) of the send/recv-only eager lowering.
    if (cls != "DualPipeV") {
      absl::StatusOr<Schedule> eager = AddSendRecvEager(*ours);
      EXPECT_TRUE(eager.ok()) << where;
      absl::StatusOr<Schedule> lockstep =
          eager.ok() ? LockstepGrid(*eager) : absl::StatusOr<Schedule>(eager.status());
      EXPECT_TRUE(lockstep.ok()) << where << ": " << lockstep.status();
      for (int r = 0; lockstep.ok() && r < c.p; ++r) {
        EXPECT_EQ(Join(RowCells(lockstep->rows[r]), ","), c.lockstep[r]) << where << " rank " << r;
      }
    }
    // Our default lowering of the same order runs too.
    absl::StatusOr<Schedule> ours_lowered = AddSendRecv(*ours);
    EXPECT_TRUE(ours_lowered.ok()) << where;
    if (ours_lowered.ok()) {
      EXPECT_TRUE(Simulate(*ours_lowered, CostModel::UnitSteps(*ours_lowered)).ok()) << where;
    }
  }
  return compared;
}

// The number of accepted configurations per class is PyTorch's (from the golden files); the
// total, 158, is the count.
TEST(PytorchGolden, GPipe) { EXPECT_EQ(CheckClass("GPipe"), 17); }
TEST(PytorchGolden, OneFOneB) { EXPECT_EQ(CheckClass("1F1B"), 14); }
TEST(PytorchGolden, Interleaved1F1B) { EXPECT_EQ(CheckClass("Interleaved1F1B"), 34); }
TEST(PytorchGolden, LoopedBFS) { EXPECT_EQ(CheckClass("LoopedBFS"), 34); }
TEST(PytorchGolden, InterleavedZeroBubble) { EXPECT_EQ(CheckClass("InterleavedZeroBubble"), 34); }
TEST(PytorchGolden, ZBVZeroBubble) { EXPECT_EQ(CheckClass("ZBVZeroBubble"), 17); }
TEST(PytorchGolden, DualPipeV) { EXPECT_EQ(CheckClass("DualPipeV"), 8); }

}  // namespace
}  // namespace hloscope::pipeline
