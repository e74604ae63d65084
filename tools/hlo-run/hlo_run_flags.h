// Command line of hlo-run (tools/hlo-run/hlo_run.cc): the flags (one table,
// tools/common/flag_table.h), their checks and the help text.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "analysis/dataflow_options.h"
#include "eval/evaluator.h"
#include "passes/assumed_donation.h"
#include "tools/common/flag_table.h"

namespace hloscope {

enum RunExitCode { kRunOk = 0, kRunDiffer = 1, kRunBadUsage = 2, kRunCannotRun = 3 };

struct RunFlags {
  std::string file;               // the module (single-run mode)
  bool compare = false;           // --compare A B
  std::string file_b;             // the second module of --compare
  bool split_input_file = false;  // --compare part k of A with part k of B
  int jobs = 0;                   // pairs compared at once; 0: one per core
  uint64_t seed = 0;
  std::optional<uint64_t> rng_seed = std::nullopt;  // --rng-seed=N: the seed of rng's engine
  eval::HostIo host_io = eval::HostIo::kRefuse;     // --host-io=refuse|seeded
  // --elided-constants=refuse|seeded: what constants dumped as {...} hold.
  eval::ElidedConstants elided_constants = eval::ElidedConstants::kRefuse;
  // --custom-calls=refuse|opaque: what custom-calls of unknown targets compute.
  eval::CustomCalls custom_calls = eval::CustomCalls::kRefuse;
  // --mixed-precision=refuse|convert: ops that mix floating-point types.
  eval::MixedPrecision mixed_precision = eval::MixedPrecision::kRefuse;
  // --rng-default=refuse|philox|three_fry: rng-bit-generator's algorithm=rng_default.
  eval::RngDefault rng_default = eval::RngDefault::kRefuse;
  // --rng-empty-range=refuse|backend: rng_uniform with low >= high.
  eval::RngEmptyRange rng_empty_range = eval::RngEmptyRange::kRefuse;
  eval::EvalMode mode = eval::EvalMode::kValue;
  eval::EvalMode mode_a = eval::EvalMode::kValue;
  eval::EvalMode mode_b = eval::EvalMode::kBuffer;
  std::string inputs;  // --inputs=FILE
  bool print_all = false;
  int64_t max_bytes = int64_t{1} << 30;
  int64_t max_steps = 100'000'000;
  int64_t replicas = 0;           // --replicas=N: N replicas in lockstep; 0: one, as replica 0
  DataflowOptions dataflow = {};  // --bitcast-defines-value: buffer mode's analyses
  // --assume-donated=all|LIST: entry parameters the caller donates (passes/assumed_donation.h).
  std::optional<DonationAssumption> assume_donated;
  bool help = false;
  std::vector<std::string> files;  // the positional arguments, before ParseRunFlags checks them
};

// The table whose handlers fill `flags` (which must outlive it).
FlagTable RunFlagTable(RunFlags& flags);

// The interpreter's options for a run in `mode` under `flags` (hlo-run's and Python's
// Module.run / Module.compare: one mapping, so a new run flag reaches both).
eval::EvalOptions EvalOptionsOf(const RunFlags& flags, eval::EvalMode mode);

// --compare runs B on A's arguments: an error naming both parameter lists (by `label_a` and
// `label_b`) when B's entry parameters are not A's in number and shape, else OK.
absl::Status CheckComparableEntries(const Module& a, std::string_view label_a, const Module& b,
                                    std::string_view label_b);

// The whole --help text.
std::string RunHelp();

// Parses argv into *flags. Returns nullopt to go on, or the message of a usage error.
std::optional<std::string> ParseRunFlags(int argc, char** argv, RunFlags* flags);

}  // namespace hloscope
