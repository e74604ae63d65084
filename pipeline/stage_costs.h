// Per-stage costs of one microbatch, measured in HLO: the FLOPs and durations of each stage's
// forward, input- and weight-backward, and the activation bytes it leaves alive. hlo-opt
// --stage-costs measures them (it reads the HLO; this library does not) and writes them as JSON
// (schema pipeline/stage_costs.proto); hlo-pipeline reads that JSON, from --stage-costs=FILE or
// from the hlo-opt that --from-hlo runs, prints the table and simulates with the numbers.
//
//   absl::StatusOr<StageCosts> costs = ParseStageCostsJson(text, "costs.json");
//   fmt::print("{}", FormatStageCosts(*costs));
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace hloscope::pipeline {

struct StageCost {
  std::string path;  // the HLO file it was measured in
  double forward_flops = 0;
  double backward_input_flops = 0;
  double backward_weight_flops = 0;
  double dots = 0;                 // dots and convolutions counted
  double unknown_trip_counts = 0;  // nested loops counted once for want of a trip count
  double forward_us = 0;
  double backward_input_us = 0;
  double backward_weight_us = 0;
  double activation_bytes = 0;    // one microbatch's, live until its backward
  std::string activation_source;  // how the profiler found them: "stash", "op_name", "none"
  // The module's entry parameters' bytes (weights, optimizer state, inputs), held all step;
  // nullopt when a costs file does not give them.
  std::optional<double> static_bytes = std::nullopt;
};

struct StageCosts {
  double device_tflops = 0;    // what turned FLOPs into microseconds
  std::string backward_regex;  // what marked the backward pass
  std::vector<StageCost> stages;
};

// One line of JSON (protobuf's printer) and "\n".
std::string StageCostsJson(const StageCosts& costs);

// The writer a "not stage costs JSON" error names, as an option of support/option_error.h: the
// library says "(StageCostsJson writes them)", a tool names its own writer (hlo-pipeline:
// "hlo-opt --stage-costs").
inline constexpr std::string_view kStageCostsWriter = "StageCostsJson";

// Reads what StageCostsJson wrote. Errors start with `source` and say what is wrong: not JSON
// of this schema (an unknown field included), no stages, a field left out ("stage 1:
// \"forward_us\" is missing"), a number that is negative or not finite, or device_tflops <= 0.
// The optional fields are backward_regex, dots, unknown_trip_counts and static_bytes (absent:
// not known).
absl::StatusOr<StageCosts> ParseStageCostsJson(std::string_view json, std::string_view source);

// The table hlo-pipeline prints before its report: "per-stage costs from HLO (400 TFLOP/s; one
// microbatch):", then one row per stage.
std::string FormatStageCosts(const StageCosts& costs);

}  // namespace hloscope::pipeline
