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
  // Why a rank's static memory is not known (one reason for all ranks or one per rank; "" where
  // it is known; empty: known everywhere, from static_bytes). Such a rank's static memory is said
  // to be unknown, in the text ("not known", and the reason beside the memory limit) and the
  // JSON (`static_unknown` instead of `static`), never counted as a silent 0.
  std::vector<std::string> static_unknown;
  // Where static_bytes came from when no flag gave it ("" says nothing): said beside the limit.
  std::string static_source;
};

// Static memory of `rank` under `options` (0 when none was given or it is not known).
double StaticBytes(const ReportOptions& options, int32_t rank);
// Why the static memory of `rank` is not known; "" when it is.
std::string StaticUnknown(const ReportOptions& options, int32_t rank);
// Peak activations plus static memory within the limit; true when there is no limit. With the
// static memory not known, whether the activations alone are.
bool Fits(const Simulation& sim, const ReportOptions& options, int32_t rank);
bool AllFit(const Simulation& sim, const ReportOptions& options);
// kNotKnown: the activations fit, but static memory that is not known may not.
enum class Fit { kYes, kNo, kNotKnown };
Fit RankFit(const Simulation& sim, const ReportOptions& options, int32_t rank);
Fit ScheduleFit(const Simulation& sim, const ReportOptions& options);

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
  // This schedule's own options (its ranks' static memory, which depends on how its stages sit
  // on ranks); null: the shared ones.
  const ReportOptions* options = nullptr;
};

std::string FormatCompare(std::span<const CompareEntry> entries, const ReportOptions& options);
std::string CompareJson(std::span<const CompareEntry> entries, const ReportOptions& options);

}  // namespace hloscope::pipeline
