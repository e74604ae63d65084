// hlo-opt --stage-costs[=FILE]: per-stage costs of one microbatch, one input module per stage
// (as MPMD pipelining compiles them), as JSON for hlo-pipeline (schema
// pipeline/stage_costs.proto). Durations come from the FLOPs of each stage's dots and
// convolutions (analysis/stage_flops.h) at --tflops; activation bytes per microbatch from the
// memory profiler (analysis/memory/memory_profile.h, one module per stage). hlo-pipeline
// --from-hlo runs this, so that hlo-pipeline itself reads no HLO.
//
//   hlo-opt --stage-costs=costs.json --tflops=400 s0.hlo s1.hlo s2.hlo s3.hlo
//   hlo-pipeline --schedule=1f1b --ranks=4 --microbatches=8 --stage-costs=costs.json
//
// This file holds the flags and the measurement; hlo_opt.cc reads the files (its messages for
// an unreadable one) and writes the output.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tools/common/flag_table.h"

namespace hloscope {

// The device throughput that --tflops defaults to: hlo-pipeline --device-tflops's default.
inline constexpr double kDefaultStageCostsTflops = 400;

struct StageCostsFlags {
  bool enabled = false;
  std::string output = "-";  // --stage-costs=FILE; '-' = standard output
  double tflops = kDefaultStageCostsTflops;
  bool tflops_given = false;
};

// Adds --stage-costs[=FILE] and --tflops=X (a finite number > 0) to hlo-opt's table.
void AddStageCostsFlags(FlagTable& table, StageCostsFlags& flags);

// Checks the flags together once all are parsed: an empty string, or the usage error.
// `other_mode` is true when hlo-opt was asked for anything else (-o, --passes, a report, --stats,
// --split-input-file...), which --stage-costs does not combine with.
std::string CheckStageCostsFlags(const StageCostsFlags& flags, bool other_mode);

struct StageCostsInput {
  std::string path;  // as named on the command line ("<stdin>" for '-'); names the stage
  std::string text;
};

// Parses and verifies each module (errors name file:line:col), measures it and returns the
// JSON (pipeline::StageCostsJson). `backward_regex` is hlo-opt's --backward-regex. Each input's
// text is released once its module is parsed, so that texts and modules are not all held at
// once.
absl::StatusOr<std::string> StageCostsJsonOf(std::vector<StageCostsInput>& inputs,
                                             const StageCostsFlags& flags,
                                             const std::string& backward_regex);

}  // namespace hloscope
