// Per pipeline stage, the activations one microbatch leaves alive (from the memory report) and
// what a pipeline schedule makes of them: the microbatches each rank holds in flight at its
// peak and the activation bytes that peak holds, simulated by hlo-pipeline's simulator
// (pipeline/simulator.h) on the report's stages, one per part, with its default
// times. `hlo-opt --memory-report --pipeline-schedule=1f1b --microbatches=8` prints and draws
// them; the same figures come from
// `hlo-pipeline --schedule=1f1b --ranks=P --microbatches=8 --activation-bytes=A0,A1,...`.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "analysis/memory/memory_profile.h"

namespace hloscope {

struct StagePipelineRow {
  std::string stage;
  int32_t rank = 0;
  int64_t activation_bytes_per_microbatch = 0;
};

struct RankPipelineRow {
  int32_t rank = 0;
  int64_t peak_in_flight = 0;         // (stage, microbatch) activations live at the peak
  int64_t peak_activation_bytes = 0;  // their bytes
};

struct PipelineFigures {
  std::string schedule;  // canonical name, e.g. "interleaved:2"
  int32_t ranks = 0;
  int32_t microbatches = 0;
  std::vector<StagePipelineRow> stages;  // in the report's stage order
  std::vector<RankPipelineRow> ranks_peak;
  std::string hlo_pipeline_command;  // the hlo-pipeline call that gives the same figures
};

// Stages are the report's, by name in its order (a stage in several modules sums them); the
// schedule puts ScheduleSpec::stages_per_rank of them on each rank (1 for gpipe and 1f1b, v
// for interleaved:v, 2 for zb-v). Errors: an unknown schedule name, a stage
// count the schedule cannot hold, microbatches it cannot run (as GenerateSchedule says); the
// last two name the schedule as the option `pipeline_schedule` (support/option_error.h).
absl::StatusOr<PipelineFigures> SimulateStagePipeline(const MemoryReport& report,
                                                      std::string_view schedule,
                                                      int32_t microbatches);

// Text lines for the memory report.
std::string PipelineFiguresText(const PipelineFigures& figures);

}  // namespace hloscope
