#include "tools/hlo-opt/hlo_opt_stage_costs.h"

#include <charconv>
#include <cmath>
#include <memory>
#include <optional>
#include <string_view>

#include "absl/status/status.h"
#include "analysis/memory/memory_profile.h"
#include "analysis/stage_flops.h"
#include "fmt/format.h"
#include "pipeline/stage_costs.h"
#include "tools/common/load_module.h"
#include "tools/hlo-opt/hlo_opt_option_flags.h"

namespace hloscope {

void AddStageCostsFlags(FlagTable& table, StageCostsFlags& flags) {
  table.Add({.names = {"--stage-costs"},
             .value = FlagValue::kOptional,
             .placeholder = "FILE",
             .output_file = true,
             .help = "Print per-stage costs of one microbatch as JSON (to FILE when\n"
                     "given; schema pipeline/stage_costs.proto) instead of the module,\n"
                     "one FILE per stage in pipeline order (files only, not the parts\n"
                     "of --split-input-file): forward, input- and weight-backward FLOPs\n"
                     "of the dots and convolutions and their time at --tflops, and the\n"
                     "activation bytes one microbatch leaves alive and the bytes of\n"
                     "the entry parameters, held all step (memory profiler).\n"
                     "--backward-regex marks the backward. hlo-pipeline reads it with\n"
                     "--stage-costs=FILE; its --from-hlo runs this.",
             .handler = [&flags](std::optional<std::string_view> value) {
               if (value && value->empty()) {
                 return FlagError(
                     "option '--stage-costs=FILE' needs a file name ('-' for standard output)");
               }
               flags.enabled = true;
               flags.output = value ? std::string(*value) : "-";
               return absl::OkStatus();
             }});
  table.Add({.names = {"--tflops"},
             .value = FlagValue::kRequired,
             .placeholder = "X",
             .help = "Sustained TFLOP/s that turns --stage-costs FLOPs into time\n(default 400).",
             .handler = [&flags](std::optional<std::string_view> value) {
               double v = 0;
               const std::string_view text = value.value_or("");
               auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
               if (text.empty() || ec != std::errc() || end != text.data() + text.size() ||
                   !(v > 0) || !std::isfinite(v)) {
                 return FlagError(fmt::format(
                     "option '--tflops' needs a positive number of TFLOP/s, not '{}'", text));
               }
               flags.tflops = v;
               flags.tflops_given = true;
               return absl::OkStatus();
             }});
}

std::string CheckStageCostsFlags(const StageCostsFlags& flags, bool other_mode) {
  if (flags.tflops_given && !flags.enabled) return "--tflops needs --stage-costs";
  if (flags.enabled && other_mode) {
    return "--stage-costs cannot be combined with -o, --passes, --split-input-file, --stats, "
           "--check-in-place or another report";
  }
  return "";
}

absl::StatusOr<std::string> StageCostsJsonOf(std::vector<StageCostsInput>& inputs,
                                             const StageCostsFlags& flags,
                                             const std::string& backward_regex) {
  std::vector<std::unique_ptr<Module>> modules;
  std::vector<const Module*> views;
  for (StageCostsInput& input : inputs) {
    absl::StatusOr<std::unique_ptr<Module>> m =
        ParseAndVerify({.text = input.text, .filename = input.path});
    if (!m.ok()) return m.status();
    std::string().swap(input.text);  // the module keeps no view of it
    views.push_back(m->get());
    modules.push_back(*std::move(m));
  }
  MemoryOptions memory;
  memory.stage_by = MemoryOptions::StageBy::kModule;
  memory.backward_regex = backward_regex;
  memory.timeline = false;
  absl::StatusOr<MemoryReport> report = ProfileModules(views, memory);
  if (!report.ok()) return WithHloOptFlag(report.status());
  if (report->stages.size() != inputs.size()) {
    return absl::InternalError(fmt::format("the memory profiler gave {} stages for {} modules",
                                           report->stages.size(), inputs.size()));
  }
  FlopOptions flop_options;
  flop_options.backward_regex = backward_regex;
  const double flops_per_us = flags.tflops * 1e6;  // 1e12 FLOP/s = 1e6 FLOP/us
  pipeline::StageCosts costs;
  costs.device_tflops = flags.tflops;
  costs.backward_regex = backward_regex;
  for (size_t i = 0; i < inputs.size(); ++i) {
    absl::StatusOr<StageFlops> flops = CountStageFlops(*views[i], flop_options);
    if (!flops.ok()) return flops.status();
    pipeline::StageCost& s = costs.stages.emplace_back();
    s.path = inputs[i].path;
    s.forward_flops = flops->forward;
    s.backward_input_flops = flops->backward_input;
    s.backward_weight_flops = flops->backward_weight;
    s.dots = static_cast<double>(flops->dots);
    s.unknown_trip_counts = static_cast<double>(flops->unknown_trip_counts);
    s.forward_us = flops->forward / flops_per_us;
    s.backward_input_us = flops->backward_input / flops_per_us;
    s.backward_weight_us = flops->backward_weight / flops_per_us;
    s.activation_bytes = static_cast<double>(report->stages[i].activation_bytes_per_microbatch);
    s.activation_source = report->stages[i].activation_source;
    // What the stage holds all step besides activations: its entry parameters (weights,
    // optimizer state, inputs), as the memory report counts them.
    const ModuleMemory& module = report->modules.at(report->stages[i].module_index);
    s.static_bytes = static_cast<double>(module.allocations.parameter_bytes);
  }
  return pipeline::StageCostsJson(costs);
}

}  // namespace hloscope
