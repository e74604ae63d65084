// hlo-pipeline's performance row (issues 8 and 21): every schedule at 128 ranks x 1,024
// microbatches, generated, lowered to SEND/RECV and simulated, must take under a second.
//   build/bench/pipeline_bench [--benchmark_filter=dualpipev]
// One benchmark per schedule and lowering: "before-use" is the default lowering, "pytorch" is
// --recv=eager --fsdp-actions (PyTorch's runtime lowering: UNSHARD/RESHARD, REDUCE_GRAD, eager
// RECVs). Counters: actions simulated, and actions per second.
#include <cstdio>
#include <string>

#include "absl/status/statusor.h"
#include "benchmark/benchmark.h"
#include "pipeline/cost_model.h"
#include "pipeline/generators.h"
#include "pipeline/lowering.h"
#include "pipeline/pytorch_lowering.h"
#include "pipeline/simulator.h"
#include "support/status_text.h"

namespace hloscope::pipeline {
namespace {

constexpr int kRanks = 128;
constexpr int kMicrobatches = 1024;

void Run(benchmark::State& state, const std::string& name, bool pytorch_lowering) {
  const ScheduleSpec spec = *ParseScheduleSpec(name);
  int64_t actions = 0;
  for (auto _ : state) {
    absl::StatusOr<Schedule> s = GenerateSchedule(spec, kRanks, kMicrobatches);
    if (!s.ok()) {
      state.SkipWithError(StatusText(s.status()).c_str());
      return;
    }
    absl::StatusOr<Schedule> low =
        pytorch_lowering ? AddSendRecvEager(AddReduceGrad(AddUnshardReshard(*s))) : AddSendRecv(*s);
    if (!low.ok()) {
      state.SkipWithError(StatusText(low.status()).c_str());
      return;
    }
    absl::StatusOr<CostModel> costs = BuildCostModel(CostInputs{}, *low);
    absl::StatusOr<Simulation> sim =
        costs.ok() ? Simulate(*low, *costs) : absl::StatusOr<Simulation>(costs.status());
    if (!sim.ok()) {
      state.SkipWithError(StatusText(sim.status()).c_str());
      return;
    }
    actions = low->CountActions();
    benchmark::DoNotOptimize(sim->makespan);
  }
  state.counters["actions"] = static_cast<double>(actions);
  state.counters["actions/s"] = benchmark::Counter(static_cast<double>(actions),
                                                   benchmark::Counter::kIsIterationInvariantRate);
}

int Register() {
  for (const char* name : {"gpipe", "1f1b", "interleaved:2", "looped-bfs:2", "interleaved-zb:2",
                           "zb-h1", "zb-v", "dualpipev"}) {
    for (bool pytorch : {false, true}) {
      const std::string label =
          std::string("pipeline_128x1024/") + name + (pytorch ? "/pytorch" : "/before-use");
      benchmark::RegisterBenchmark(
          label.c_str(),
          [name = std::string(name), pytorch](benchmark::State& st) { Run(st, name, pytorch); })
          ->Unit(benchmark::kMillisecond)
          ->MeasureProcessCPUTime()
          ->Iterations(1)
          ->Repetitions(3)
          ->ReportAggregatesOnly(true);
    }
  }
  return 0;
}

const int registered = Register();

}  // namespace
}  // namespace hloscope::pipeline

BENCHMARK_MAIN();
