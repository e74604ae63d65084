// Human and JSON reports of simulated schedules: a per-rank summary of one schedule, and a
// comparison with one row per schedule (bubble, peak activations per rank, fits in memory?).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "pipeline/schedule.h"
#include "pipeline/simulator.h"

namespace hloscope::pipeline {

struct ReportOptions {
  // False when no activation sizes were given: sizes are then stage-equivalents (see
  // cost_model.h) and printed as plain numbers.
  bool sizes_in_bytes = false;
  // Memory a rank holds besides activations (weights, optimizer state); one value for all ranks
  // or one per rank. Added to the activation peak for the fit check only.
  std::vector<double> static_bytes;
  std::optional<double> memory_limit;
};

// Static memory of `rank` under `options` (0 when none was given).
double StaticBytes(const ReportOptions& options, int32_t rank);
// Peak activations plus static memory within the limit; true when there is no limit.
bool Fits(const Simulation& sim, const ReportOptions& options, int32_t rank);
bool AllFit(const Simulation& sim, const ReportOptions& options);

std::string FormatSummary(const Schedule& schedule, const Simulation& sim,
                          const ReportOptions& options);
std::string SummaryJson(const Schedule& schedule, const Simulation& sim,
                        const ReportOptions& options);

// One schedule of a comparison: simulated, or the reason it could not be.
struct CompareEntry {
  std::string name;
  const Schedule* schedule = nullptr;  // null when `error` is set
  const Simulation* sim = nullptr;
  std::string error;
};

std::string FormatCompare(std::span<const CompareEntry> entries, const ReportOptions& options);
std::string CompareJson(std::span<const CompareEntry> entries, const ReportOptions& options);

}  // namespace hloscope::pipeline
