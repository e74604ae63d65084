// Command-line flags of hlo-pipeline: one table (tools/common/flag_table.h; --name=value or --name
// value, bare --switch) and the help text. Parse errors are usage errors (exit 2); whether the
// values make a runnable schedule is decided later (exit 1).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tools/common/flag_table.h"

namespace hloscope::pipeline {

struct PipelineFlags {
  bool help = false;
  std::string schedule;              // --schedule: a generator name or csv:PATH
  std::vector<std::string> compare;  // --compare: several of those
  std::optional<int32_t> ranks;
  std::optional<int32_t> microbatches;
  // Per part (see pipeline/cost_model.h); unset keeps the cost model's defaults.
  std::optional<std::vector<double>> activation_bytes;
  std::optional<std::vector<double>> forward_time;
  std::optional<std::vector<double>> backward_time;
  std::optional<std::vector<double>> backward_input_time;
  std::optional<std::vector<double>> backward_weight_time;
  std::vector<int64_t> microbatch_tokens;
  double comm_time = 0;
  std::vector<double> static_bytes;
  std::optional<double> memory_limit;
  bool no_comms = false;
  bool grid = false;
  // --grid-style=pytorch: PyTorch's layouts (pipeline_order, _simulate_comms_compute).
  bool grid_pytorch = false;
  // --recv=eager: PyTorch's _add_send_recv placement instead of RECV just before its consumer.
  bool recv_eager = false;
  // --fsdp-actions: lower as PyTorch's runtime does, with UNSHARD/RESHARD and REDUCE_GRAD.
  bool fsdp_actions = false;
  double unshard_time = 0;
  double reshard_time = 0;
  double reduce_grad_time = 0;
  bool json = false;
  std::string trace_path;
  std::string dump_csv_path;
  std::vector<std::string> from_hlo;  // one HLO file per stage (measured by hlo-opt)
  double device_tflops = 400;
  std::string backward_regex = R"(transpose\()";
  bool hlo_measure_flags_given = false;  // --device-tflops or --backward-regex
  std::string stage_costs_path;          // --stage-costs=FILE.json (hlo-opt --stage-costs)
};

// The table whose handlers fill `flags` (which must outlive it).
FlagTable PipelineFlagTable(PipelineFlags& flags);

// argv[0] is skipped.
absl::StatusOr<PipelineFlags> ParsePipelineFlags(int argc, const char* const* argv);

std::string PipelineHelp();

}  // namespace hloscope::pipeline
