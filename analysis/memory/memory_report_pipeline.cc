#include "analysis/memory/memory_report_pipeline.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "fmt/format.h"
#include "pipeline/cost_model.h"
#include "pipeline/generators.h"
#include "pipeline/simulator.h"
#include "support/checked_int.h"
#include "support/option_error.h"
#include "support/status_text.h"

namespace hloscope {

absl::StatusOr<PipelineFigures> SimulateStagePipeline(const MemoryReport& report,
                                                      std::string_view schedule,
                                                      int32_t microbatches) {
  absl::StatusOr<pipeline::ScheduleSpec> spec = pipeline::ParseScheduleSpec(schedule);
  if (!spec.ok()) return spec.status();
  PipelineFigures out;
  out.schedule = pipeline::SpecName(*spec);
  out.microbatches = microbatches;
  for (const StageMemory& s : report.stages) {
    auto it = std::find_if(out.stages.begin(), out.stages.end(),
                           [&](const StagePipelineRow& r) { return r.stage == s.stage; });
    if (it == out.stages.end()) {
      out.stages.push_back({s.stage, 0, 0});
      it = out.stages.end() - 1;
    }
    it->activation_bytes_per_microbatch =
        SaturatingAdd(it->activation_bytes_per_microbatch, s.activation_bytes_per_microbatch);
  }
  const int32_t stages = static_cast<int32_t>(out.stages.size());
  // The stages each rank holds: 1, or v of interleaved / looped-bfs, or zb-v's two.
  const int32_t per_rank = spec->stages_per_rank;
  if (stages == 0 || stages % per_rank != 0) {
    return InvalidOptionError(
        "", "pipeline_schedule",
        fmt::format("={} places {} stage(s) per rank, and the memory report has {} stage(s)",
                    out.schedule, per_rank, stages));
  }
  out.ranks = stages / per_rank;
  absl::StatusOr<pipeline::Schedule> s = pipeline::GenerateSchedule(*spec, out.ranks, microbatches);
  if (!s.ok()) {
    return InvalidOptionError("", "pipeline_schedule",
                              fmt::format("={} with {} ranks and {} microbatches: {}", out.schedule,
                                          out.ranks, microbatches, StatusText(s.status())));
  }
  pipeline::CostInputs inputs;
  inputs.activation_bytes.clear();
  for (const StagePipelineRow& r : out.stages) {
    inputs.activation_bytes.push_back(static_cast<double>(r.activation_bytes_per_microbatch));
  }
  absl::StatusOr<pipeline::CostModel> costs = pipeline::BuildCostModel(inputs, *s);
  if (!costs.ok()) return costs.status();
  absl::StatusOr<pipeline::Simulation> sim = pipeline::Simulate(*s, *costs);
  if (!sim.ok()) return sim.status();
  for (int32_t k = 0; k < stages; ++k) {
    out.stages[k].rank = k < static_cast<int32_t>(s->stage_rank.size()) ? s->stage_rank[k] : -1;
  }
  for (int32_t r = 0; r < out.ranks; ++r) {
    const pipeline::RankStats& stats = sim->ranks[r];
    // Sums of int64 sizes: exact below 2^53, and a saturated stage stays saturated.
    const double bytes = std::min(std::round(stats.peak_bytes), 9.2e18);
    out.ranks_peak.push_back({r, stats.peak_live, static_cast<int64_t>(bytes)});
  }
  std::string sizes;
  for (const StagePipelineRow& r : out.stages) {
    sizes += fmt::format("{}{}", sizes.empty() ? "" : ",", r.activation_bytes_per_microbatch);
  }
  out.hlo_pipeline_command =
      fmt::format("hlo-pipeline --schedule={} --ranks={} --microbatches={} --activation-bytes={}",
                  out.schedule, out.ranks, microbatches, sizes);
  return out;
}

std::string PipelineFiguresText(const PipelineFigures& f) {
  std::string out = fmt::format("pipeline {}: {} ranks, {} microbatches ({})\n", f.schedule,
                                f.ranks, f.microbatches, f.hlo_pipeline_command);
  out += fmt::format("{:<10} {:>5} {:>16}\n", "stage", "rank", "act_bytes/mb");
  for (const StagePipelineRow& s : f.stages) {
    out += fmt::format("{:<10} {:>5} {:>16}\n", s.stage, s.rank, s.activation_bytes_per_microbatch);
  }
  out += fmt::format("{:<10} {:>16} {:>16}\n", "rank", "peak_in_flight", "peak_act_bytes");
  for (const RankPipelineRow& r : f.ranks_peak) {
    out += fmt::format("{:<10} {:>16} {:>16}\n", r.rank, r.peak_in_flight, r.peak_activation_bytes);
  }
  return out;
}

}  // namespace hloscope
