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
#include "tools/error_line.h"
#include "tools/file_io.h"
#include "tools/hlo_pipeline_flags.h"
#include "tools/hlo_pipeline_hlo_opt.h"
#include "tools/output_paths.h"

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

// One schedule, ready to report.
struct Run {
  std::string name;
  Schedule schedule;  // as simulated (lowered unless --no-comms)
  Simulation sim;
  Schedule pytorch_order;  // the compute-only schedule in PyTorch's pipeline_order layout
};

// Generator names are checked before anything runs, so that a typo is a usage error even when
// another schedule in --compare would fail for a different reason.
std::optional<Failure> CheckNames(const PipelineFlags& f, const std::vector<std::string>& names) {
  bool generated = false;
  for (const std::string& name : names) {
    if (name.rfind("csv:", 0) == 0) {
      if (name.size() == 4) return Failure{kBadUsage, "csv: needs a path (csv:PATH)"};
      continue;
    }
    generated = true;
    if (absl::StatusOr<ScheduleSpec> spec = ParseScheduleSpec(name); !spec.ok()) {
      return Failure{kBadUsage, std::string(StdView(spec.status().message()))};
    }
  }
  if (generated && !f.ranks)
    return Failure{kBadUsage, "--ranks is required to generate a schedule"};
  if (generated && !f.microbatches && f.microbatch_tokens.empty()) {
    return Failure{kBadUsage, "--microbatches is required to generate a schedule"};
  }
  return std::nullopt;
}

absl::StatusOr<Schedule> LoadOrGenerate(const PipelineFlags& f, const std::string& name) {
  if (name.rfind("csv:", 0) == 0) {
    absl::StatusOr<Schedule> s = ReadScheduleCsvFile(name.substr(4));
    if (!s.ok()) return s.status();
    if (f.ranks && *f.ranks != s->num_ranks()) {
      return absl::InvalidArgumentError(
          StrCat(name, " has ", s->num_ranks(), " ranks, but --ranks=", *f.ranks));
    }
    if (f.microbatches && *f.microbatches != s->num_microbatches) {
      return absl::InvalidArgumentError(
          StrCat(name, " has ", s->num_microbatches,
                 " microbatches, but --microbatches=", *f.microbatches));
    }
    return s;
  }
  const int32_t m =
      f.microbatches ? *f.microbatches : static_cast<int32_t>(f.microbatch_tokens.size());
  return GeneratePytorchOrder(*ParseScheduleSpec(name), *f.ranks, m);
}

// PyTorch's single-stage schedules end each rank's pipeline_order with REDUCE_GRAD.
Schedule PytorchOrder(const std::string& name, const Schedule& loaded) {
  if (name.rfind("csv:", 0) == 0) return loaded;
  const ScheduleFamily family = ParseScheduleSpec(name)->family;
  if (family == ScheduleFamily::kGPipe || family == ScheduleFamily::kOneFOneB) {
    return AddReduceGrad(loaded);
  }
  return loaded;
}

// Flags given on the command line win over what --from-hlo or --stage-costs measured.
CostInputs Costs(const PipelineFlags& f, const std::vector<StageCost>& hlo) {
  CostInputs in;
  if (!hlo.empty()) {
    in.forward_time.clear();
    in.backward_input_time.clear();
    in.backward_weight_time.clear();
    in.activation_bytes.clear();
    for (const StageCost& s : hlo) {
      in.forward_time.push_back(s.forward_us);
      in.backward_input_time.push_back(s.backward_input_us);
      in.backward_weight_time.push_back(s.backward_weight_us);
      in.activation_bytes.push_back(s.activation_bytes);
    }
  }
  if (f.forward_time) in.forward_time = *f.forward_time;
  if (f.backward_time) in.backward_time = *f.backward_time;
  if (f.backward_input_time) in.backward_input_time = *f.backward_input_time;
  if (f.backward_weight_time) in.backward_weight_time = *f.backward_weight_time;
  if (f.activation_bytes) in.activation_bytes = *f.activation_bytes;
  in.microbatch_tokens = f.microbatch_tokens;
  in.comm_time = f.comm_time;
  in.unshard_time = f.unshard_time;
  in.reshard_time = f.reshard_time;
  in.reduce_grad_time = f.reduce_grad_time;
  return in;
}

// Costs near the largest double (--forward-time=1e308,...) add up to inf, and inf - inf to
// nan: a report of "makespan inf us, bubble -nan%" would look like a result. Also checks that
// --static-bytes gives one value or one per rank of this schedule.
absl::Status CheckFinite(const PipelineFlags& f, const Schedule& schedule, const Simulation& sim) {
  const size_t ranks = static_cast<size_t>(schedule.num_ranks());
  if (f.static_bytes.size() > 1 && f.static_bytes.size() != ranks) {
    return absl::InvalidArgumentError(StrCat("--static-bytes has ", f.static_bytes.size(),
                                             " values but ", schedule.name, " has ", ranks,
                                             " ranks: give one value for all or one per rank"));
  }
  auto bad = [&](std::string_view what, double v) {
    return absl::InvalidArgumentError(fmt::format(
        "the simulation of {} does not give finite numbers: {} is {} (the costs are too large "
        "to add up in a double)",
        schedule.name, what, v));
  };
  if (!std::isfinite(sim.makespan)) return bad("the makespan", sim.makespan);
  if (!std::isfinite(sim.bubble_fraction)) return bad("the bubble", sim.bubble_fraction);
  for (size_t r = 0; r < sim.ranks.size(); ++r) {
    const RankStats& st = sim.ranks[r];
    const double stat = f.static_bytes.empty()       ? 0
                        : f.static_bytes.size() == 1 ? f.static_bytes[0]
                                                     : f.static_bytes[r];
    for (double v : {st.busy_time, st.end_time, st.bubble_fraction, st.peak_time}) {
      if (!std::isfinite(v)) return bad(StrCat("a time of rank ", r), v);
    }
    if (!std::isfinite(st.peak_bytes + stat)) {
      return bad(StrCat("the peak memory of rank ", r), st.peak_bytes + stat);
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Run> Simulated(const PipelineFlags& f, const std::vector<StageCost>& hlo,
                              const std::string& name) {
  absl::StatusOr<Schedule> loaded = LoadOrGenerate(f, name);
  if (!loaded.ok()) return loaded.status();
  Schedule pytorch_order = PytorchOrder(name, *loaded);
  // Idle cells of a generated layout or a CSV are a display choice; they do not change what runs.
  const Schedule compute = DropIdle(*loaded);
  Schedule schedule = compute;
  const bool lower = !f.no_comms && !compute.HasComms();
  if (lower) {
    Schedule input = compute;
    if (f.fsdp_actions) input = AddReduceGrad(AddUnshardReshard(input));
    absl::StatusOr<Schedule> lowered = f.recv_eager ? AddSendRecvEager(input) : AddSendRecv(input);
    if (!lowered.ok()) return lowered.status();
    schedule = *std::move(lowered);
  }
  absl::StatusOr<CostModel> costs = BuildCostModel(Costs(f, hlo), schedule);
  if (!costs.ok()) return costs.status();
  absl::StatusOr<Simulation> sim = Simulate(schedule, *costs);
  if (!sim.ok()) {
    // Lowering keeps a deadlock a deadlock; the user's own grid, without the SEND/RECV we
    // added, shows it more plainly. Only computed on failure, so the common path pays nothing.
    if (lower) {
      absl::StatusOr<Simulation> plain = Simulate(compute, CostModel::UnitSteps(compute));
      if (!plain.ok()) return plain.status();
    }
    return sim.status();
  }
  if (absl::Status s = CheckFinite(f, schedule, *sim); !s.ok()) return s;
  return Run{name, std::move(schedule), *std::move(sim), std::move(pytorch_order)};
}

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
    // Said here, not in PipelineHelp's exit codes, which list what the flags decide.
    fmt::print("{}\n{}\nRunning out of memory exits 1, like bad input.\n", PipelineHelp(),
               kOutputPathsHelp);
    return kOk;
  }
  // An output that names an input (--trace=S with --schedule=csv:S), or two outputs one file,
  // would lose data: refused before anything runs (tools/output_paths.h).
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
  if (std::optional<Failure> bad = CheckNames(f, names)) return Fail(*bad);

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

  ReportOptions report;
  report.sizes_in_bytes = f.activation_bytes.has_value() || !hlo.empty();
  report.static_bytes = f.static_bytes;
  report.memory_limit = f.memory_limit;

  if (f.compare.empty()) {
    absl::StatusOr<Run> run = Simulated(f, hlo, f.schedule);
    if (!run.ok()) return Fail({kBadInput, std::string(StdView(run.status().message()))});
    if (f.grid) {
      if (std::optional<Failure> bad = PrintGrid(f, *run)) return Fail(*bad);
    }
    fmt::print("{}", f.json ? SummaryJson(run->schedule, run->sim, report)
                            : FormatSummary(run->schedule, run->sim, report));
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

  std::vector<std::optional<Run>> runs;
  std::vector<CompareEntry> entries;
  runs.reserve(names.size());
  bool any_failed = false;
  for (const std::string& name : names) {
    absl::StatusOr<Run> run = Simulated(f, hlo, name);
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
                               hloscope::pipeline::kBadInput, hloscope::pipeline::kBadInput);
}
