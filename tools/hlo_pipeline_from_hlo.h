// hlo-pipeline --from-hlo: per-stage costs read from one HLO module per stage. Durations come
// from the FLOPs of each stage's dots and convolutions (analysis/stage_flops.h) at
// a given device throughput; activation bytes per microbatch from the memory profiler
// (analysis/memory/memory_profile.h, one module per stage).
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "analysis/stage_flops.h"

namespace hloscope::pipeline {

struct HloStage {
  std::string path;
  StageFlops flops;
  double forward_us = 0;
  double backward_input_us = 0;
  double backward_weight_us = 0;
  double activation_bytes = 0;    // one microbatch's, live until its backward
  std::string activation_source;  // how the profiler found them: "stash", "op_name", "none"
                                  // (printed, so that 0 bytes from "none" is not misread)
};

// Reads, parses and verifies each file (errors name file:line:col), then measures it.
absl::StatusOr<std::vector<HloStage>> StagesFromHlo(const std::vector<std::string>& paths,
                                                    double device_tflops,
                                                    const std::string& backward_regex);

// A table of the stages, for the text report.
std::string FormatHloStages(const std::vector<HloStage>& stages, double device_tflops);

}  // namespace hloscope::pipeline
