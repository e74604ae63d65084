// hlo-pipeline's work on one schedule, as a library: generate it (or read a PyTorch CSV,
// `csv:PATH`), lower it to SEND/RECV unless --no-comms, build the costs from the flags and
// simulate. hlo-pipeline's main prints the result; the Python package (python/) returns it,
// so both give the same figures for the same flags.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "pipeline/report.h"
#include "pipeline/schedule.h"
#include "pipeline/simulator.h"
#include "pipeline/stage_costs.h"
#include "tools/hlo-pipeline/hlo_pipeline_flags.h"

namespace hloscope::pipeline {

// One schedule, ready to report.
struct ScheduleRun {
  std::string name;
  Schedule schedule;  // as simulated (lowered unless --no-comms)
  Simulation sim;
  Schedule pytorch_order;  // the compute-only schedule in PyTorch's pipeline_order layout
};

// `status` with the option a library error names (support/option_error.h) spelled as
// hlo-pipeline's flag: CostInputs' backward_time is --backward-time, and the stage costs'
// writer is hlo-opt --stage-costs.
absl::Status WithHloPipelineFlag(const absl::Status& status);

// The usage error of the schedule names (generator names, `csv:` without a path, --ranks or
// --microbatches missing for a generated schedule), checked before anything runs; nullopt when
// they are fine.
std::optional<std::string> CheckScheduleNames(const PipelineFlags& f,
                                              const std::vector<std::string>& names);

// Generates or reads schedule `name`, lowers and simulates it with the costs of the flags
// (`hlo`: per-stage costs measured from HLO, or empty; flags given win over them). Errors are
// bad input: a CSV that cannot be read or does not match --ranks/--microbatches, a deadlock,
// costs that are not finite, --static-bytes of the wrong length.
absl::StatusOr<ScheduleRun> SimulateSchedule(const PipelineFlags& f,
                                             const std::vector<StageCost>& hlo,
                                             const std::string& name);

// The report's options from the flags; `costs_from_hlo`: sizes are bytes. Without
// --static-bytes, static memory is not known (and said so).
ReportOptions PipelineReportOptions(const PipelineFlags& f, bool costs_from_hlo);

// The report's options for one schedule: PipelineReportOptions, and without --static-bytes each
// rank's static memory from the stage costs `hlo` (--from-hlo, --stage-costs: each stage
// module's entry parameters), spread over the schedule's stages as the other costs are and
// summed over the stages of the rank; not known where a module's bytes are not given.
ReportOptions ScheduleReportOptions(const PipelineFlags& f, const std::vector<StageCost>& hlo,
                                    const Schedule& schedule);

// What --grid prints for a run: the simulated schedule aligned to steps, or with
// `pytorch_layout` (--grid --grid-style=pytorch) the compute-only order in PyTorch's pipeline_order
// layout. Errors: a schedule that cannot be aligned (bad input).
absl::StatusOr<std::string> ScheduleGridText(const ScheduleRun& run, bool pytorch_layout);

// --compare: every schedule of `names` simulated with the same flags and costs. A schedule
// that cannot run keeps the first line of its error in its entry (the others still run).
struct ScheduleComparison {
  std::vector<std::optional<ScheduleRun>> runs;  // one per name, nullopt where it failed
  std::vector<CompareEntry> entries;   // one per name; schedule, sim and options point into
                                       // `runs` and `options`
  std::vector<ReportOptions> options;  // one per run that succeeded (ScheduleReportOptions)
  bool any_failed = false;
};
ScheduleComparison CompareSchedules(const PipelineFlags& f, const std::vector<StageCost>& hlo,
                                    const std::vector<std::string>& names);

}  // namespace hloscope::pipeline
