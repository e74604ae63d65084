// hlo-pipeline: generates or loads pipeline schedules, lowers them to SEND/RECV, simulates them
// with per-stage costs and prints bubble, timing and per-rank activation memory (see --help and
// docs/pipeline.md). A thin main: the work is in pipeline.
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "fmt/format.h"
#include "pipeline/cost_model.h"
#include "pipeline/generators.h"
#include "pipeline/lowering.h"
#include "pipeline/report.h"
#include "pipeline/schedule_csv.h"
#include "pipeline/simulator.h"
#include "pipeline/stage_costs.h"
#include "pipeline/trace_json.h"
#include "support/status_text.h"
#include "support/str_util.h"
#include "tools/common/error_line.h"
#include "tools/common/file_io.h"
#include "tools/common/output_paths.h"
#include "tools/hlo-pipeline/hlo_pipeline_flags.h"
#include "tools/hlo-pipeline/hlo_pipeline_hlo_opt.h"
#include "tools/hlo-pipeline/hlo_pipeline_run.h"  // the simulation of one schedule

namespace hloscope::pipeline {
namespace {

constexpr int kOk = 0;
constexpr int kBadInput = 1;
constexpr int kBadUsage = 2;

// An error with the exit code it maps to.
struct Failure {
  int code;
  std::string message;
};

int Fail(const Failure& f) {
  std::string_view message = f.message;
  while (!message.empty() && message.back() == '\n') message.remove_suffix(1);  // grids end in one
  fmt::print(stderr, "hlo-pipeline: error: {}\n", TerminalSafe(message));
  if (f.code == kBadUsage) fmt::print(stderr, "(see hlo-pipeline --help)\n");
  return f.code;
}

// One schedule, simulated (tools/hlo-pipeline/hlo_pipeline_run.h).
using Run = ScheduleRun;

// The files of --trace and --dump-csv: each is written to its temporary first, and none
// replaces its target until all are complete (a failed second file leaves the first's target
// as it was too).
std::optional<Failure> WriteFiles(const std::vector<std::pair<std::string, std::string>>& files) {
  std::vector<std::unique_ptr<AtomicFileWriter>> writers;
  std::string error;
  for (const auto& [path, text] : files) {
    writers.push_back(std::make_unique<AtomicFileWriter>());
    AtomicFileWriter& w = *writers.back();
    if (!w.Open(path, &error) || !w.Write(text, &error) || !w.Close(&error)) {
      return Failure{kBadInput, error};
    }
  }
  for (auto& w : writers) {
    if (!w->Publish(&error)) return Failure{kBadInput, error};
  }
  return std::nullopt;
}

// Every file this run reads, for CheckOutputPaths.
std::vector<std::string> InputsOf(const PipelineFlags& f) {
  std::vector<std::string> inputs = f.from_hlo;
  if (!f.stage_costs_path.empty()) inputs.push_back(f.stage_costs_path);
  std::vector<std::string> names = f.compare;
  names.push_back(f.schedule);
  for (const std::string& name : names) {
    if (name.rfind("csv:", 0) == 0) inputs.push_back(name.substr(4));
  }
  return inputs;
}

// Every file this run may write, with the flag that names it.
std::vector<OutputPath> OutputsOf(const PipelineFlags& f) {
  return {{"--trace", f.trace_path}, {"--dump-csv", f.dump_csv_path}};
}

std::optional<Failure> PrintGrid(const PipelineFlags& f, const Run& run) {
  absl::StatusOr<std::string> grid = ScheduleGridText(run, f.grid_pytorch);
  if (!grid.ok()) return Failure{kBadInput, StatusText(grid.status())};
  fmt::print("{}", *grid);
  return std::nullopt;
}

// --stage-costs=FILE.json: what hlo-opt --stage-costs wrote.
absl::StatusOr<StageCosts> ReadStageCosts(const std::string& path) {
  std::string text, error;
  if (!ReadInput(path, &text, &error)) {
    return absl::NotFoundError(StrCat("--stage-costs: ", error));
  }
  return ParseStageCostsJson(text, StrCat("--stage-costs: ", path == "-" ? "<stdin>" : path));
}

int Main(int argc, char** argv) {
  absl::StatusOr<PipelineFlags> parsed = ParsePipelineFlags(argc, argv);
  if (!parsed.ok()) return Fail({kBadUsage, StatusText(parsed.status())});
  const PipelineFlags& f = *parsed;
  if (f.help) {
    // Said here, not in PipelineHelp's exit codes, which list what the flags decide.
    fmt::print("{}\n{}\nRunning out of memory exits 1, like bad input.\n", PipelineHelp(),
               kOutputPathsHelp);
    return kOk;
  }
  // An output that names an input (--trace=S with --schedule=csv:S), or two outputs one file,
  // would lose data: refused before anything runs (tools/common/output_paths.h).
  if (std::string e = CheckOutputPaths(OutputsOf(f), InputsOf(f)); !e.empty()) {
    return Fail({kBadUsage, e});
  }
  if (f.schedule.empty() == f.compare.empty()) {
    return Fail({kBadUsage, "give exactly one of --schedule=NAME or --compare=NAME,NAME,..."});
  }
  if (!f.compare.empty() && (!f.trace_path.empty() || !f.dump_csv_path.empty())) {
    return Fail({kBadUsage, "--trace and --dump-csv write one schedule: use them with --schedule"});
  }
  const std::vector<std::string> names =
      f.compare.empty() ? std::vector<std::string>{f.schedule} : f.compare;
  if (std::optional<std::string> bad = CheckScheduleNames(f, names)) {
    return Fail({kBadUsage, *bad});
  }

  if (!f.stage_costs_path.empty() && !f.from_hlo.empty()) {
    return Fail({kBadUsage, "give one of --from-hlo and --stage-costs"});
  }
  if (!f.stage_costs_path.empty() && f.hlo_measure_flags_given) {
    return Fail({kBadUsage,
                 "--device-tflops and --backward-regex go with --from-hlo: a --stage-costs file "
                 "holds durations measured already (hlo-opt --stage-costs --tflops=T "
                 "--backward-regex=RE)"});
  }
  std::vector<StageCost> hlo;
  if (!f.from_hlo.empty() || !f.stage_costs_path.empty()) {
    absl::StatusOr<StageCosts> costs =
        !f.from_hlo.empty() ? StageCostsFromHlo(f.from_hlo, f.device_tflops, f.backward_regex)
                            : ReadStageCosts(f.stage_costs_path);
    if (!costs.ok()) return Fail({kBadInput, StatusText(WithHloPipelineFlag(costs.status()))});
    if (!f.json) fmt::print("{}\n", FormatStageCosts(*costs));
    hlo = std::move(costs->stages);
  }

  const ReportOptions report = PipelineReportOptions(f, !hlo.empty());

  if (f.compare.empty()) {
    absl::StatusOr<Run> run = SimulateSchedule(f, hlo, f.schedule);
    if (!run.ok()) return Fail({kBadInput, StatusText(WithHloPipelineFlag(run.status()))});
    const ReportOptions own = ScheduleReportOptions(f, hlo, run->schedule);
    if (f.grid) {
      if (std::optional<Failure> bad = PrintGrid(f, *run)) return Fail(*bad);
    }
    fmt::print("{}", f.json ? SummaryJson(run->schedule, run->sim, own)
                            : FormatSummary(run->schedule, run->sim, own));
    std::vector<std::pair<std::string, std::string>> files;
    if (!f.trace_path.empty()) {
      TraceOptions trace;
      trace.size_unit = report.sizes_in_bytes ? "bytes" : "stage-equivalents";
      files.emplace_back(f.trace_path, ChromeTraceJson(run->schedule, run->sim, trace));
    }
    if (!f.dump_csv_path.empty()) {
      // Without idle cells: PyTorch's compute_comms loader refuses them, and a rank runs its
      // row in order anyway, so the file simulates the same.
      files.emplace_back(f.dump_csv_path, DumpScheduleCsv(DropIdle(run->schedule)));
    }
    if (auto bad = WriteFiles(files)) return Fail(*bad);
    return kOk;
  }

  const ScheduleComparison c = CompareSchedules(f, hlo, names);
  for (size_t i = 0; i < c.entries.size(); ++i) {
    if (!f.grid || !c.runs[i]) continue;
    fmt::print("{}:\n", c.entries[i].name);
    if (std::optional<Failure> bad = PrintGrid(f, *c.runs[i])) return Fail(*bad);
    fmt::print("\n");
  }
  fmt::print("{}", f.json ? CompareJson(c.entries, report) : FormatCompare(c.entries, report));
  return c.any_failed ? kBadInput : kOk;
}

}  // namespace
}  // namespace hloscope::pipeline

int main(int argc, char** argv) {
  return hloscope::RunToolMain("hlo-pipeline", hloscope::pipeline::Main, argc, argv,
                               hloscope::pipeline::kBadInput, hloscope::pipeline::kBadInput);
}
