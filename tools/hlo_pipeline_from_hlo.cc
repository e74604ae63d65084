#include "tools/hlo_pipeline_from_hlo.h"

#include <memory>

#include "analysis/memory/memory_profile.h"
#include "pipeline/units.h"
#include "fmt/format.h"
#include "hlo/parser.h"
#include "hlo/str_util.h"
#include "hlo/verifier.h"
#include "tools/file_io.h"

namespace hloscope::pipeline {
namespace {

absl::StatusOr<std::unique_ptr<Module>> LoadModule(const std::string& path) {
  std::string text, error;
  if (!ReadInput(path, &text, &error)) return absl::NotFoundError(StrCat("--from-hlo: ", error));
  ParseOptions options;
  options.filename = path;
  absl::StatusOr<std::unique_ptr<Module>> module = ParseModule(text, options);
  if (!module.ok()) return module.status();
  VerifierOptions verifier_options;
  verifier_options.source_text = text;  // errors then point into the file
  if (absl::Status s = VerifyModule(**module, verifier_options); !s.ok()) return s;
  return module;
}

}  // namespace

absl::StatusOr<std::vector<HloStage>> StagesFromHlo(const std::vector<std::string>& paths,
                                                    double device_tflops,
                                                    const std::string& backward_regex) {
  std::vector<std::unique_ptr<Module>> modules;
  std::vector<const Module*> views;
  for (const std::string& path : paths) {
    absl::StatusOr<std::unique_ptr<Module>> m = LoadModule(path);
    if (!m.ok()) return m.status();
    views.push_back(m->get());
    modules.push_back(*std::move(m));
  }
  MemoryOptions memory;
  memory.stage_by = MemoryOptions::StageBy::kModule;
  memory.backward_regex = backward_regex;
  memory.timeline = false;
  absl::StatusOr<MemoryReport> report = ProfileModules(views, memory);
  if (!report.ok()) return report.status();
  if (report->stages.size() != paths.size()) {
    return absl::InternalError(StrCat("the memory profiler gave ", report->stages.size(),
                                      " stages for ", paths.size(), " modules"));
  }
  FlopOptions flop_options;
  flop_options.backward_regex = backward_regex;
  const double flops_per_us = device_tflops * 1e6;  // 1e12 FLOP/s = 1e6 FLOP/us
  std::vector<HloStage> stages;
  for (size_t i = 0; i < paths.size(); ++i) {
    absl::StatusOr<StageFlops> flops = CountStageFlops(*views[i], flop_options);
    if (!flops.ok()) return flops.status();
    HloStage s;
    s.path = paths[i];
    s.flops = *flops;
    s.forward_us = flops->forward / flops_per_us;
    s.backward_input_us = flops->backward_input / flops_per_us;
    s.backward_weight_us = flops->backward_weight / flops_per_us;
    s.activation_bytes = static_cast<double>(report->stages[i].activation_bytes_per_microbatch);
    s.activation_source = report->stages[i].activation_source;
    stages.push_back(std::move(s));
  }
  return stages;
}

std::string FormatHloStages(const std::vector<HloStage>& stages, double device_tflops) {
  std::string out = fmt::format(
      "per-stage costs from HLO ({} TFLOP/s; one microbatch):\n"
      "  {:<5} {:>12} {:>12} {:>12} {:>12} {:>12} {:>12}  {:<8} {}\n",
      device_tflops, "stage", "F GFLOP", "I GFLOP", "W GFLOP", "F us", "I+W us", "act/mb",
      "act from", "file");
  for (size_t i = 0; i < stages.size(); ++i) {
    const HloStage& s = stages[i];
    out += fmt::format(
        "  {:<5} {:>12.3f} {:>12.3f} {:>12.3f} {:>12.2f} {:>12.2f} {:>12}  {:<8} {}\n", i,
        s.flops.forward / 1e9, s.flops.backward_input / 1e9, s.flops.backward_weight / 1e9,
        s.forward_us, s.backward_input_us + s.backward_weight_us, FormatBytes(s.activation_bytes),
        s.activation_source, s.path);
  }
  return out;
}

}  // namespace hloscope::pipeline
