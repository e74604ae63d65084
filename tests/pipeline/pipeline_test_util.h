// Helpers shared by the pipeline tests: building schedules from text and simulating them.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "pipeline/action.h"
#include "pipeline/cost_model.h"
#include "pipeline/generators.h"
#include "pipeline/schedule.h"
#include "pipeline/simulator.h"
#include "gtest/gtest.h"

namespace hloscope::pipeline::testing {

// Rows of action text ("" = idle) to a schedule; fails the test on a bad action.
inline Schedule FromText(std::initializer_list<std::initializer_list<std::string_view>> rows,
                         std::string name = "test") {
  std::vector<std::vector<Action>> out;
  for (const auto& row : rows) {
    out.emplace_back();
    for (std::string_view cell : row) {
      absl::StatusOr<Action> a = ParseAction(cell);
      EXPECT_TRUE(a.ok()) << cell;
      out.back().push_back(a.ok() ? *a : Action::Idle());
    }
  }
  return MakeSchedule(std::move(name), std::move(out));
}

inline Schedule Generate(std::string_view name, int32_t p, int32_t m) {
  absl::StatusOr<ScheduleSpec> spec = ParseScheduleSpec(name);
  EXPECT_TRUE(spec.ok()) << name;
  absl::StatusOr<Schedule> s = GenerateSchedule(*spec, p, m);
  EXPECT_TRUE(s.ok()) << name << ": " << s.status();
  return s.ok() ? *std::move(s) : Schedule{};
}

// Costs with the given per-rank-share times; sizes default to stage-equivalents.
inline CostModel Costs(const Schedule& s, double f, double b_input, double b_weight,
                       std::vector<double> bytes = {1}, std::vector<int64_t> tokens = {},
                       double comm = 0) {
  CostInputs in;
  in.forward_time = {f};
  in.backward_input_time = {b_input};
  in.backward_weight_time = {b_weight};
  in.activation_bytes = std::move(bytes);
  in.microbatch_tokens = std::move(tokens);
  in.comm_time = comm;
  absl::StatusOr<CostModel> c = BuildCostModel(in, s);
  EXPECT_TRUE(c.ok()) << c.status();
  return c.ok() ? *std::move(c) : CostModel{};
}

inline Simulation Sim(const Schedule& s, const CostModel& c) {
  absl::StatusOr<Simulation> sim = Simulate(s, c);
  EXPECT_TRUE(sim.ok()) << sim.status();
  return sim.ok() ? *std::move(sim) : Simulation{};
}

}  // namespace hloscope::pipeline::testing
