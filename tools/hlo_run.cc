// hlo-run: run an HLO module on the reference interpreter (eval) and print its outputs, or
// compare the outputs of two modules on the same seeded inputs.
//
//   hlo-run model.hlo --mode=buffer --seed=3
//   hlo-run --compare before.hlo after.hlo      # exit 1 and the first difference if they differ
//
// Exit status: 0 ok / equal, 1 outputs differ, 2 bad usage, 3 cannot run (see --help).
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "fmt/core.h"
#include "hlo/computation.h"
#include "eval/evaluator.h"
#include "hlo/module.h"
#include "hlo/parser.h"
#include "hlo/verifier.h"
#include "tools/error_line.h"
#include "tools/file_io.h"
#include "tools/hlo_run_flags.h"
#include "tools/hlo_run_inputs.h"

namespace hloscope {
namespace {

std::string_view MessageOf(const absl::Status& s) {
  return {s.message().data(), s.message().size()};
}

int UsageError(std::string_view message) {
  fmt::print(stderr, "hlo-run: error: {}\nRun 'hlo-run --help' for usage.\n", message);
  return kRunBadUsage;
}

// Parse and verifier errors carry their own "file:line:col: error:" prefix; the rest get
// "hlo-run: error:".
int CannotRun(const absl::Status& s) {
  fmt::print(stderr, "{}", ErrorLine("hlo-run", MessageOf(s)));
  return kRunCannotRun;
}

struct Loaded {
  std::string text;  // the module's views point into it
  std::unique_ptr<Module> module;
};

// Reads, parses and verifies one module; on failure returns the exit code in *code.
std::unique_ptr<Loaded> Load(const std::string& path, int* code) {
  auto loaded = std::make_unique<Loaded>();
  std::string error;
  if (!ReadInput(path, &loaded->text, &error)) {
    *code = UsageError(error);
    return nullptr;
  }
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(loaded->text, {.filename = path});
  if (!m.ok()) {
    *code = CannotRun(m.status());
    return nullptr;
  }
  VerifierOptions verifier_options;
  verifier_options.source_text = loaded->text;  // errors then point into the file
  if (absl::Status s = VerifyModule(**m, verifier_options); !s.ok()) {
    *code = CannotRun(s);
    return nullptr;
  }
  loaded->module = std::move(*m);
  return loaded;
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

eval::EvalOptions Options(const RunFlags& flags, eval::EvalMode mode) {
  eval::EvalOptions options;
  options.mode = mode;
  options.bitcast_defines_value = flags.bitcast_defines_value;
  options.max_bytes = flags.max_bytes;
  options.max_steps = flags.max_steps;
  return options;
}

std::string_view ModeName(eval::EvalMode m) {
  return m == eval::EvalMode::kValue ? "value" : "buffer";
}

int RunOne(const RunFlags& flags) {
  int code = 0;
  std::unique_ptr<Loaded> a = Load(flags.file, &code);
  if (a == nullptr) return code;
  if (absl::Status s = eval::CheckRunnable(*a->module, Options(flags, flags.mode)); !s.ok())
    return CannotRun(s);
  absl::StatusOr<std::vector<eval::Literal>> args = Arguments(flags, *a->module, &code);
  if (!args.ok())
    return code == kRunBadUsage ? UsageError(MessageOf(args.status())) : CannotRun(args.status());
  absl::StatusOr<eval::Literal> out = eval::Evaluate(*a->module, *args, Options(flags, flags.mode));
  if (!out.ok()) return CannotRun(out.status());
  fmt::print("{}", eval::FormatLiteral(*out, flags.print_all));
  return kRunOk;
}

int Compare(const RunFlags& flags) {
  int code = 0;
  std::unique_ptr<Loaded> a = Load(flags.file, &code);
  if (a == nullptr) return code;
  std::unique_ptr<Loaded> b = Load(flags.file_b, &code);
  if (b == nullptr) return code;
  for (const Loaded* m : {a.get(), b.get()}) {
    if (absl::Status s = eval::CheckRunnable(*m->module, Options(flags, flags.mode_a)); !s.ok())
      return CannotRun(s);
  }
  const Computation& ea = *a->module->entry();
  const Computation& eb = *b->module->entry();
  bool same = ea.parameter_count() == eb.parameter_count();
  for (int64_t i = 0; same && i < ea.parameter_count(); ++i) {
    same = ea.parameter(i)->shape().Compatible(eb.parameter(i)->shape());
  }
  if (!same) {
    std::string sa, sb;
    for (const Instruction* p : ea.parameters())
      sa += (sa.empty() ? "" : ", ") + p->shape().ToString(false);
    for (const Instruction* p : eb.parameters())
      sb += (sb.empty() ? "" : ", ") + p->shape().ToString(false);
    return CannotRun(absl::InvalidArgumentError(
        fmt::format("cannot compare: the entry parameters differ: {} takes ({}), {} takes ({})",
                    flags.file, sa, flags.file_b, sb)));
  }
  absl::StatusOr<std::vector<eval::Literal>> args = Arguments(flags, *a->module, &code);
  if (!args.ok())
    return code == kRunBadUsage ? UsageError(MessageOf(args.status())) : CannotRun(args.status());
  absl::StatusOr<eval::Literal> out_a =
      eval::Evaluate(*a->module, *args, Options(flags, flags.mode_a));
  if (!out_a.ok()) return CannotRun(out_a.status());
  absl::StatusOr<eval::Literal> out_b =
      eval::Evaluate(*b->module, *args, Options(flags, flags.mode_b));
  if (!out_b.ok()) return CannotRun(out_b.status());
  if (std::optional<std::string> diff = eval::FirstDifference(*out_a, *out_b)) {
    fmt::print("outputs differ: {} ({}) vs {} ({}): {}\n", flags.file, ModeName(flags.mode_a),
               flags.file_b, ModeName(flags.mode_b), *diff);
    return kRunDiffer;
  }
  fmt::print("outputs match ({} elements)\n", eval::TotalElementCount(*out_a));
  return kRunOk;
}

int Main(int argc, char** argv) {
  RunFlags flags;
  if (std::optional<std::string> error = ParseRunFlags(argc, argv, &flags))
    return UsageError(*error);
  if (flags.help) {
    fmt::print("{}", kRunHelp);
    return kRunOk;
  }
  return flags.compare ? Compare(flags) : RunOne(flags);
}

}  // namespace
}  // namespace hloscope

int main(int argc, char** argv) {
  return hloscope::RunToolMain("hlo-run", hloscope::Main, argc, argv, hloscope::kRunBadUsage);
}
