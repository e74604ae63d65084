// hlo-run: run an HLO module on the reference interpreter (eval) and print its outputs, or
// compare the outputs of two modules on the same seeded inputs.
//
//   hlo-run model.hlo --mode=buffer --seed=3
//   hlo-run --compare before.hlo after.hlo      # exit 1 and the first difference if they differ
//
// Exit status: 0 ok / equal, 1 outputs differ, 2 bad usage, 3 cannot run (see --help).
#include <algorithm>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "eval/evaluator.h"
#include "eval/replicas.h"
#include "fmt/core.h"
#include "hlo/computation.h"
#include "hlo/module.h"
#include "hlo/parser.h"
#include "passes/assumed_donation.h"
#include "support/option_error.h"
#include "support/status_text.h"
#include "tools/common/error_line.h"
#include "tools/common/file_io.h"
#include "tools/common/load_module.h"
#include "tools/common/output_paths.h"
#include "tools/common/parallel_modules.h"
#include "tools/hlo-run/hlo_run_flags.h"
#include "tools/hlo-run/hlo_run_inputs.h"

namespace hloscope {
namespace {

int UsageError(std::string_view message) {
  fmt::print(stderr, "hlo-run: error: {}\nRun 'hlo-run --help' for usage.\n",
             TerminalSafe(message));
  return kRunBadUsage;
}

// Why a module cannot run, with the flag that would lift a limit: the interpreter records the
// EvalOptions field (support/option_error.h), the flags that set it are hlo-run's.
std::string CannotRunText(const absl::Status& s) {
  return std::string(StatusText(RespellOption(s, [](std::string_view option) -> std::string {
    return option == "rng_seed"           ? "--rng-seed=N"
           : option == "host_io"          ? "--host-io=seeded"
           : option == "max_bytes"        ? "--max-bytes"
           : option == "max_steps"        ? "--max-steps"
           : option == "elided_constants" ? "--elided-constants=seeded"
           : option == "custom_calls"     ? "--custom-calls=opaque"
           : option == "mixed_precision"  ? "--mixed-precision=convert"
           : option == "rng_default"      ? "--rng-default=philox"
           : option == "rng_empty_range"  ? "--rng-empty-range=backend"
                                          : "";
  })));
}

// Parse and verifier errors carry their own "file:line:col: error:" prefix; the rest get
// "hlo-run: error:".
int CannotRun(const absl::Status& s) {
  fmt::print(stderr, "{}", ErrorLine("hlo-run", CannotRunText(s)));
  return kRunCannotRun;
}

// --assume-donated: the caller donates those parameters (passes/assumed_donation.h), so buffer
// mode gives each one's storage to the output it is paired with.
absl::Status Donate(const RunFlags& flags, Module& module) {
  if (!flags.assume_donated) return absl::OkStatus();
  absl::StatusOr<DonationResult> donated = AssumeDonated(module, *flags.assume_donated);
  if (!donated.ok()) {
    return absl::InvalidArgumentError(
        fmt::format("option '--assume-donated': {}", StatusText(donated.status())));
  }
  return absl::OkStatus();
}

// Reads, parses and verifies one module; on failure returns the exit code in *code.
std::unique_ptr<LoadedModule> Load(const RunFlags& flags, const std::string& path, int* code) {
  absl::StatusOr<LoadedModule> loaded = LoadModule(path);
  if (!loaded.ok()) {
    *code = IsReadError(loaded.status()) ? UsageError(StatusText(loaded.status()))
                                         : CannotRun(loaded.status());
    return nullptr;
  }
  if (absl::Status s = Donate(flags, *loaded->module); !s.ok()) {
    *code = CannotRun(s);
    return nullptr;
  }
  return std::make_unique<LoadedModule>(*std::move(loaded));
}

// The arguments: from --inputs when given, else seeded random ones.
absl::StatusOr<std::vector<eval::Literal>> Arguments(const RunFlags& flags, const Module& module,
                                                     int* code) {
  if (flags.inputs.empty()) return eval::RandomArguments(module, flags.seed);
  std::string text, error;
  if (!ReadInput(flags.inputs, &text, &error)) {
    *code = kRunBadUsage;
    return absl::InvalidArgumentError(error);
  }
  *code = kRunCannotRun;
  return ParseInputs(text, flags.inputs, module);
}

// --host-io=seeded: the run's writes to outside, after the outputs (eval/host_io.h's form).
std::string OutsideWritesText(const RunFlags& flags,
                              const std::vector<eval::OutsideWrite>& writes) {
  std::string out;
  for (const eval::OutsideWrite& w : writes)
    out += eval::FormatOutsideWrite(w, flags.print_all, flags.replicas > 0);
  return out;
}

std::string_view ModeName(eval::EvalMode m) {
  return m == eval::EvalMode::kValue ? "value" : "buffer";
}

// --replicas=N: every replica's arguments (seed + R, or the same --inputs), run in lockstep.
int RunReplicas(const RunFlags& flags, const Module& module) {
  std::vector<std::vector<eval::Literal>> args;
  for (int64_t r = 0; r < flags.replicas; ++r) {
    int code = 0;
    RunFlags mine = flags;
    mine.seed = flags.seed + static_cast<uint64_t>(r);
    absl::StatusOr<std::vector<eval::Literal>> a = Arguments(mine, module, &code);
    if (!a.ok())
      return code == kRunBadUsage ? UsageError(StatusText(a.status())) : CannotRun(a.status());
    args.push_back(*std::move(a));
  }
  std::vector<eval::OutsideWrite> writes;
  eval::EvalOptions options = EvalOptionsOf(flags, flags.mode);
  options.outside_writes = &writes;
  absl::StatusOr<std::vector<eval::Literal>> outs = eval::EvaluateReplicas(module, args, options);
  if (!outs.ok()) return CannotRun(outs.status());
  for (size_t r = 0; r < outs->size(); ++r) {
    fmt::print("replica {}:\n{}", r, eval::FormatLiteral((*outs)[r], flags.print_all));
  }
  fmt::print("{}", OutsideWritesText(flags, writes));
  return kRunOk;
}

int RunOne(const RunFlags& flags) {
  int code = 0;
  std::unique_ptr<LoadedModule> a = Load(flags, flags.file, &code);
  if (a == nullptr) return code;
  if (absl::Status s = eval::CheckRunnable(*a->module, EvalOptionsOf(flags, flags.mode)); !s.ok())
    return CannotRun(s);
  if (flags.replicas > 0) return RunReplicas(flags, *a->module);
  absl::StatusOr<std::vector<eval::Literal>> args = Arguments(flags, *a->module, &code);
  if (!args.ok())
    return code == kRunBadUsage ? UsageError(StatusText(args.status())) : CannotRun(args.status());
  std::vector<eval::OutsideWrite> writes;
  eval::EvalOptions options = EvalOptionsOf(flags, flags.mode);
  options.outside_writes = &writes;
  absl::StatusOr<eval::Literal> out = eval::Evaluate(*a->module, *args, options);
  if (!out.ok()) return CannotRun(out.status());
  fmt::print("{}{}", eval::FormatLiteral(*out, flags.print_all), OutsideWritesText(flags, writes));
  return kRunOk;
}

// What comparing one pair gives: the exit code and the text for stdout and stderr, kept so
// that pairs compared at once still print in order.
struct PairResult {
  int code = kRunOk;
  std::string out;
  std::string err;
};

PairResult CannotRunResult(std::string_view context, const absl::Status& s) {
  // A located message (FILE:LINE:COL: error:) names its part already.
  std::string message = HasErrorPrefix(StatusText(s))
                            ? CannotRunText(s)
                            : fmt::format("{}{}", context, CannotRunText(s));
  return {kRunCannotRun, "", ErrorLine("hlo-run", message)};
}

// Runs a and b on the same arguments and compares the outputs. `context` starts every line
// ("" for one pair, "part 3: " for --split-input-file).
PairResult ComparePair(const RunFlags& flags, const Module& a, const Module& b,
                       std::string_view context) {
  for (const Module* m : {&a, &b}) {
    if (absl::Status s = eval::CheckRunnable(*m, EvalOptionsOf(flags, flags.mode_a)); !s.ok())
      return CannotRunResult(context, s);
  }
  if (absl::Status s = CheckComparableEntries(a, flags.file, b, flags.file_b); !s.ok())
    return CannotRunResult(context, s);
  // One argument list per replica (seed + R, as --replicas alone gives them); one without.
  std::vector<std::vector<eval::Literal>> args;
  for (int64_t r = 0; r < std::max<int64_t>(flags.replicas, 1); ++r) {
    int code = 0;
    RunFlags mine = flags;
    mine.seed = flags.seed + static_cast<uint64_t>(r);
    absl::StatusOr<std::vector<eval::Literal>> arg = Arguments(mine, a, &code);
    if (!arg.ok()) {
      if (code != kRunBadUsage) return CannotRunResult(context, arg.status());
      return {kRunBadUsage, "",
              fmt::format("hlo-run: error: {}\nRun 'hlo-run --help' for usage.\n",
                          StatusText(arg.status()))};
    }
    args.push_back(*std::move(arg));
  }
  // --host-io=seeded: A and B read the same stream; their writes to outside are compared too.
  std::vector<eval::OutsideWrite> writes_a, writes_b;
  auto run =
      [&](const Module& m, eval::EvalMode mode,
          std::vector<eval::OutsideWrite>* writes) -> absl::StatusOr<std::vector<eval::Literal>> {
    eval::EvalOptions options = EvalOptionsOf(flags, mode);
    options.outside_writes = writes;
    if (flags.replicas > 0) return eval::EvaluateReplicas(m, args, options);
    absl::StatusOr<eval::Literal> out = eval::Evaluate(m, args[0], options);
    if (!out.ok()) return out.status();
    std::vector<eval::Literal> outs;
    outs.push_back(*std::move(out));
    return outs;
  };
  absl::StatusOr<std::vector<eval::Literal>> out_a = run(a, flags.mode_a, &writes_a);
  if (!out_a.ok()) return CannotRunResult(context, out_a.status());
  absl::StatusOr<std::vector<eval::Literal>> out_b = run(b, flags.mode_b, &writes_b);
  if (!out_b.ok()) return CannotRunResult(context, out_b.status());
  int64_t elements = 0;
  for (size_t r = 0; r < out_a->size(); ++r) {
    if (std::optional<std::string> diff = eval::FirstDifference((*out_a)[r], (*out_b)[r])) {
      std::string where = flags.replicas > 0 ? fmt::format("replica {}: ", r) : "";
      return {
          kRunDiffer,
          fmt::format("{}outputs differ: {} ({}) vs {} ({}): {}{}\n", context, flags.file,
                      ModeName(flags.mode_a), flags.file_b, ModeName(flags.mode_b), where, *diff),
          ""};
    }
    elements += eval::TotalElementCount((*out_a)[r]);
  }
  if (std::optional<std::string> diff =
          eval::FirstOutsideWriteDifference(writes_a, writes_b, flags.replicas > 0)) {
    return {kRunDiffer,
            fmt::format("{}outside writes differ: {} ({}) vs {} ({}): {}\n", context, flags.file,
                        ModeName(flags.mode_a), flags.file_b, ModeName(flags.mode_b), *diff),
            ""};
  }
  std::string replicas = flags.replicas > 0 ? fmt::format(" in {} replicas", flags.replicas) : "";
  return {kRunOk, fmt::format("{}outputs match ({} elements{})\n", context, elements, replicas),
          ""};
}

int Print(const PairResult& r) {
  fmt::print(stderr, "{}", r.err);
  fmt::print("{}", r.out);
  return r.code;
}

int Compare(const RunFlags& flags) {
  int code = 0;
  std::unique_ptr<LoadedModule> a = Load(flags, flags.file, &code);
  if (a == nullptr) return code;
  std::unique_ptr<LoadedModule> b = Load(flags, flags.file_b, &code);
  if (b == nullptr) return code;
  return Print(ComparePair(flags, *a->module, *b->module, ""));
}

// The modules of a --split-input-file input: the parts between '// -----' lines that are not
// blank (as hlo-opt takes them).
std::vector<InputChunk> Parts(std::string_view text) {
  std::vector<InputChunk> parts;
  for (const InputChunk& c : SplitInputFile(text)) {
    if (c.text.find_first_not_of(" \t\r\n") != std::string_view::npos) parts.push_back(c);
  }
  return parts;
}

// --compare --split-input-file: part k of A against part k of B, --jobs pairs at a time, each
// pair's lines printed in order as if compared one by one. A pair that cannot run does not
// stop the others; the exit status is the most severe of the pairs' (3, then 2, then 1).
int CompareParts(const RunFlags& flags) {
  std::string text_a, text_b, error;
  if (!ReadInput(flags.file, &text_a, &error)) return UsageError(error);
  if (!ReadInput(flags.file_b, &text_b, &error)) return UsageError(error);
  const std::string name_a = InputName(flags.file);
  const std::string name_b = InputName(flags.file_b);
  const std::vector<InputChunk> parts_a = Parts(text_a);
  const std::vector<InputChunk> parts_b = Parts(text_b);
  if (parts_a.size() != parts_b.size()) {
    return UsageError(fmt::format(
        "--split-input-file: '{}' has {} modules and '{}' has {}; --compare needs as many in each",
        name_a, parts_a.size(), name_b, parts_b.size()));
  }
  std::vector<PairResult> results(parts_a.size());
  int code = kRunOk;
  const int jobs = flags.jobs > 0 ? flags.jobs : DefaultJobs();
  ForEachInOrder(
      parts_a.size(), jobs, static_cast<size_t>(jobs) * 2,
      [&](size_t k) {
        const std::string context = fmt::format("part {}: ", k + 1);
        absl::StatusOr<std::unique_ptr<Module>> a =
            ParseAndVerify({parts_a[k].text, parts_a[k].first_line, name_a});
        if (!a.ok()) {
          results[k] = CannotRunResult(context, a.status());
          return;
        }
        absl::StatusOr<std::unique_ptr<Module>> b =
            ParseAndVerify({parts_b[k].text, parts_b[k].first_line, name_b});
        if (!b.ok()) {
          results[k] = CannotRunResult(context, b.status());
          return;
        }
        for (Module* m : {a->get(), b->get()}) {
          if (absl::Status s = Donate(flags, *m); !s.ok()) {
            results[k] = CannotRunResult(context, s);
            return;
          }
        }
        results[k] = ComparePair(flags, **a, **b, context);
      },
      [&](size_t k) { code = std::max(code, Print(results[k])); },
      [&](size_t k) { results[k] = PairResult(); });
  return code;
}

int Main(int argc, char** argv) {
  RunFlags flags;
  if (std::optional<std::string> error = ParseRunFlags(argc, argv, &flags))
    return UsageError(*error);
  if (flags.help) {
    fmt::print("{}", RunHelp());
    return kRunOk;
  }
  // hlo-run writes only to standard output: it has no output flag to check against its inputs,
  // but goes through the one check every tool runs (tools/common/output_paths.h), so an output flag
  // added later is checked by listing it here.
  if (std::string e = CheckOutputPaths({}, {flags.file, flags.file_b, flags.inputs}); !e.empty())
    return UsageError(e);
  if (!flags.compare) return RunOne(flags);
  return flags.split_input_file ? CompareParts(flags) : Compare(flags);
}

}  // namespace
}  // namespace hloscope

int main(int argc, char** argv) {
  // Out of memory is "module too large" (3), whatever --max-bytes allowed: the input, not the
  // command line, asked for more than this process may use.
  return hloscope::RunToolMain("hlo-run", hloscope::Main, argc, argv, hloscope::kRunBadUsage,
                               hloscope::kRunCannotRun);
}
