// hlo-pipeline: generates or loads pipeline schedules, lowers them to SEND/RECV, simulates them
// with per-stage costs and prints bubble, timing and per-rank activation memory (see --help and
// docs/pipeline.md). A thin main: the work is in pipeline.
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "fmt/format.h"
#include "hlo/str_util.h"
#include "pipeline/cost_model.h"
#include "pipeline/generators.h"
#include "pipeline/grid_text.h"
#include "pipeline/lowering.h"
#include "pipeline/pytorch_lowering.h"
#include "pipeline/report.h"
#include "pipeline/schedule_csv.h"
#include "pipeline/simulator.h"
#include "pipeline/stage_costs.h"
#include "pipeline/string_pieces.h"
#include "pipeline/trace_json.h"
#include "tools/file_io.h"
#include "tools/hlo_pipeline_flags.h"
#include "tools/hlo_pipeline_hlo_opt.h"
#include "tools/hlo_pipeline_run.h"  // the simulation of one schedule

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
  fmt::print(stderr, "hlo-pipeline: error: {}\n", message);
  if (f.code == kBadUsage) fmt::print(stderr, "(see hlo-pipeline --help)\n");
  return f.code;
}

// One schedule, simulated (tools/hlo_pipeline_run.h).
using Run = ScheduleRun;

std::optional<Failure> WriteFile(const std::string& path, const std::string& text) {
  std::string error;
  if (!WriteOutput(path, text, &error)) return Failure{kBadInput, error};
  return std::nullopt;
}

std::optional<Failure> PrintGrid(const PipelineFlags& f, const Run& run) {
  if (f.grid_pytorch) {
    absl::StatusOr<Schedule> grid =
        run.schedule.HasComms() ? LockstepGrid(run.schedule) : run.pytorch_order;
    if (!grid.ok()) return Failure{kBadInput, std::string(StdView(grid.status().message()))};
    std::vector<std::vector<std::string>> cells;
    for (const auto& row : grid->rows) cells.push_back(RowCells(row));
    fmt::print("{}", FormatCellGrid(cells));
    return std::nullopt;
  }
  absl::StatusOr<Schedule> aligned = AlignToSteps(run.schedule);
  if (!aligned.ok()) return Failure{kBadInput, std::string(StdView(aligned.status().message()))};
  fmt::print("{}", FormatStepGrid(*aligned));
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
  if (!parsed.ok()) return Fail({kBadUsage, std::string(StdView(parsed.status().message()))});
  const PipelineFlags& f = *parsed;
  if (f.help) {
    fmt::print("{}", PipelineHelp());
    return kOk;
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
    if (!costs.ok()) return Fail({kBadInput, std::string(StdView(costs.status().message()))});
    if (!f.json) fmt::print("{}\n", FormatStageCosts(*costs));
    hlo = std::move(costs->stages);
  }

  const ReportOptions report = PipelineReportOptions(f, !hlo.empty());

  if (f.compare.empty()) {
    absl::StatusOr<Run> run = SimulateSchedule(f, hlo, f.schedule);
    if (!run.ok()) return Fail({kBadInput, std::string(StdView(run.status().message()))});
    if (f.grid) {
      if (std::optional<Failure> bad = PrintGrid(f, *run)) return Fail(*bad);
    }
    fmt::print("{}", f.json ? SummaryJson(run->schedule, run->sim, report)
                            : FormatSummary(run->schedule, run->sim, report));
    if (!f.trace_path.empty()) {
      TraceOptions trace;
      trace.size_unit = report.sizes_in_bytes ? "bytes" : "stage-equivalents";
      if (auto bad = WriteFile(f.trace_path, ChromeTraceJson(run->schedule, run->sim, trace))) {
        return Fail(*bad);
      }
    }
    if (!f.dump_csv_path.empty()) {
      // Without idle cells: PyTorch's compute_comms loader refuses them, and a rank runs its
      // row in order anyway, so the file simulates the same.
      if (auto bad = WriteFile(f.dump_csv_path, DumpScheduleCsv(DropIdle(run->schedule)))) {
        return Fail(*bad);
      }
    }
    return kOk;
  }

  std::vector<std::optional<Run>> runs;
  std::vector<CompareEntry> entries;
  runs.reserve(names.size());
  bool any_failed = false;
  for (const std::string& name : names) {
    absl::StatusOr<Run> run = SimulateSchedule(f, hlo, name);
    CompareEntry e;
    e.name = name;
    if (run.ok()) {
      runs.emplace_back(*std::move(run));
      if (name.rfind("csv:", 0) != 0) e.name = runs.back()->schedule.name;  // canonical spelling
      e.schedule = &runs.back()->schedule;
      e.sim = &runs.back()->sim;
      if (f.grid) {
        fmt::print("{}:\n", e.name);
        if (std::optional<Failure> bad = PrintGrid(f, *runs.back())) return Fail(*bad);
        fmt::print("\n");
      }
    } else {
      runs.emplace_back(std::nullopt);
      any_failed = true;
      // The first line; a deadlock's grid would not fit in a table cell.
      std::string_view message = StdView(run.status().message());
      e.error = std::string(message.substr(0, message.find('\n')));
    }
    entries.push_back(std::move(e));
  }
  fmt::print("{}", f.json ? CompareJson(entries, report) : FormatCompare(entries, report));
  return any_failed ? kBadInput : kOk;
}

}  // namespace
}  // namespace hloscope::pipeline

int main(int argc, char** argv) {
  return hloscope::RunToolMain("hlo-pipeline", hloscope::pipeline::Main, argc, argv,
                               hloscope::pipeline::kBadInput);
}
