// hlo-pipeline's simulation of one schedule (tools/hlo-pipeline/hlo_pipeline_run.h), moved out of
// its main so that the Python package gives the same figures.
#include "tools/hlo-pipeline/hlo_pipeline_run.h"

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "fmt/format.h"
#include "pipeline/cost_model.h"
#include "pipeline/generators.h"
#include "pipeline/grid_text.h"
#include "pipeline/lowering.h"
#include "pipeline/pytorch_lowering.h"
#include "pipeline/schedule_csv.h"
#include "pipeline/simulator.h"
#include "support/option_error.h"
#include "support/status_text.h"
#include "support/str_util.h"

namespace hloscope::pipeline {
namespace {
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

}  // namespace

// Generator names are checked before anything runs, so that a typo is a usage error even when
// another schedule in --compare would fail for a different reason.
std::optional<std::string> CheckScheduleNames(const PipelineFlags& f,
                                              const std::vector<std::string>& names) {
  bool generated = false;
  for (const std::string& name : names) {
    if (name.rfind("csv:", 0) == 0) {
      if (name.size() == 4) return "csv: needs a path (csv:PATH)";
      continue;
    }
    generated = true;
    if (absl::StatusOr<ScheduleSpec> spec = ParseScheduleSpec(name); !spec.ok()) {
      return StatusText(spec.status());
    }
  }
  if (generated && !f.ranks) return "--ranks is required to generate a schedule";
  if (generated && !f.microbatches && f.microbatch_tokens.empty()) {
    return "--microbatches is required to generate a schedule";
  }
  return std::nullopt;
}

absl::StatusOr<ScheduleRun> SimulateSchedule(const PipelineFlags& f,
                                             const std::vector<StageCost>& hlo,
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
  return ScheduleRun{name, std::move(schedule), *std::move(sim), std::move(pytorch_order)};
}

ReportOptions PipelineReportOptions(const PipelineFlags& f, bool costs_from_hlo) {
  ReportOptions report;
  report.sizes_in_bytes = f.activation_bytes.has_value() || costs_from_hlo;
  report.static_bytes = f.static_bytes;
  report.memory_limit = f.memory_limit;
  if (f.static_bytes.empty()) {
    report.static_unknown = {"no --static-bytes, and no --from-hlo module to measure it in"};
  }
  return report;
}

ReportOptions ScheduleReportOptions(const PipelineFlags& f, const std::vector<StageCost>& hlo,
                                    const Schedule& schedule) {
  ReportOptions report = PipelineReportOptions(f, !hlo.empty());
  if (!f.static_bytes.empty() || hlo.empty()) return report;
  // Spread as the other per-part costs are (cost_model.h); a module whose bytes are not known
  // is spread as 1s alone, marking the stages that take something from it.
  std::vector<double> bytes;
  for (const StageCost& s : hlo) bytes.push_back(s.static_bytes.value_or(0));
  const int32_t ranks = schedule.num_ranks();
  absl::StatusOr<std::vector<double>> per_stage =
      SpreadOverStages(bytes, ranks, schedule.num_stages);
  if (!per_stage.ok()) {
    report.static_unknown = {
        fmt::format("{} stage modules do not spread over the {} stages of {}: {}", hlo.size(),
                    schedule.num_stages, schedule.name, StatusText(per_stage.status()))};
    return report;
  }
  report.static_bytes.assign(static_cast<size_t>(ranks), 0);
  report.static_unknown.assign(static_cast<size_t>(ranks), "");
  for (int32_t stage = 0; stage < schedule.num_stages; ++stage) {
    const int32_t r = schedule.stage_rank[stage];
    if (r >= 0 && r < ranks) report.static_bytes[r] += (*per_stage)[stage];
  }
  for (size_t part = 0; part < hlo.size(); ++part) {
    if (hlo[part].static_bytes) continue;
    std::vector<double> mark(hlo.size(), 0);
    mark[part] = 1;
    absl::StatusOr<std::vector<double>> marked = SpreadOverStages(mark, ranks, schedule.num_stages);
    if (!marked.ok()) return report;  // spreads as `bytes` did: cannot fail
    for (int32_t stage = 0; stage < schedule.num_stages; ++stage) {
      const int32_t r = schedule.stage_rank[stage];
      if (r < 0 || r >= ranks || (*marked)[stage] <= 0 || !report.static_unknown[r].empty()) {
        continue;
      }
      report.static_unknown[r] = fmt::format(
          "the stage costs give no static_bytes for stage {} ({}); hlo-opt --stage-costs "
          "measures it",
          part, hlo[part].path);
    }
  }
  report.static_source =
      "the stage modules' entry parameters (weights, optimizer state, inputs), measured by "
      "hlo-opt --stage-costs";
  return report;
}

absl::StatusOr<std::string> ScheduleGridText(const ScheduleRun& run, bool pytorch_layout) {
  if (pytorch_layout) {
    absl::StatusOr<Schedule> grid =
        run.schedule.HasComms() ? LockstepGrid(run.schedule) : run.pytorch_order;
    if (!grid.ok()) return grid.status();
    std::vector<std::vector<std::string>> cells;
    for (const auto& row : grid->rows) cells.push_back(RowCells(row));
    return FormatCellGrid(cells);
  }
  absl::StatusOr<Schedule> aligned = AlignToSteps(run.schedule);
  if (!aligned.ok()) return aligned.status();
  return FormatStepGrid(*aligned);
}

ScheduleComparison CompareSchedules(const PipelineFlags& f, const std::vector<StageCost>& hlo,
                                    const std::vector<std::string>& names) {
  ScheduleComparison c;
  // Entries point into runs: no reallocation once the first points in.
  c.runs.reserve(names.size());
  c.options.reserve(names.size());
  for (const std::string& name : names) {
    absl::StatusOr<ScheduleRun> run = SimulateSchedule(f, hlo, name);
    CompareEntry e;
    e.name = name;
    if (run.ok()) {
      c.runs.emplace_back(*std::move(run));
      if (name.rfind("csv:", 0) != 0) e.name = c.runs.back()->schedule.name;  // canonical spelling
      e.schedule = &c.runs.back()->schedule;
      e.sim = &c.runs.back()->sim;
      c.options.push_back(ScheduleReportOptions(f, hlo, c.runs.back()->schedule));
      e.options = &c.options.back();
    } else {
      c.runs.emplace_back(std::nullopt);
      c.any_failed = true;
      // The first line; a deadlock's grid would not fit in a table cell.
      const std::string message = StatusText(WithHloPipelineFlag(run.status()));
      e.error = std::string(message.substr(0, message.find('\n')));
    }
    c.entries.push_back(std::move(e));
  }
  return c;
}

absl::Status WithHloPipelineFlag(const absl::Status& status) {
  return RespellOption(status, [](std::string_view option) -> std::string {
    if (option == "backward_time") return "--backward-time";
    if (option == kStageCostsWriter) return "hlo-opt --stage-costs";
    return "";
  });
}

}  // namespace hloscope::pipeline
