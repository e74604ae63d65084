#include "tests/differential/harness.h"

#include <set>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "fmt/format.h"
#include "hlo/eval/evaluator.h"
#include "hlo/eval/literal.h"
#include "hlo/parser.h"
#include "hlo/verifier.h"
#include "passes/copy_elision.h"
#include "passes/pass_registry.h"
#include "tests/differential/reducer.h"

namespace hloscope::differential {
namespace {

std::string MessageOf(const absl::Status& s) { return std::string(s.message()); }

// A short reason to count skipped modules by: the opcode for unsupported ones, the status
// code otherwise (messages name instructions, which would make every module its own reason).
std::string SkipReason(std::string_view what, const absl::Status& s) {
  std::string message = MessageOf(s);
  if (s.code() == absl::StatusCode::kUnimplemented) {
    size_t at = message.find(" (instruction");
    std::string_view prefix = "hlo-run does not support ";
    std::string head = message.substr(0, at);
    if (head.starts_with(prefix)) head = "unsupported " + head.substr(prefix.size());
    return head;
  }
  if (s.code() == absl::StatusCode::kResourceExhausted) return "too large";
  // The message without the names in it (quoted) and without details after ';' or '('.
  std::string general;
  bool quoted = false;
  for (char c : message) {
    if (c == ';' || (c == '(' && !quoted)) break;
    if (c == '\'') {
      general += quoted ? "'" : "'_";
      quoted = !quoted;
    } else if (!quoted) {
      general += c;
    }
  }
  while (!general.empty() && general.back() == ' ') general.pop_back();
  return fmt::format("{}: {}", what, general);
}

// The original module's expected results (value mode) on each seed.
struct Baseline {
  std::vector<std::vector<eval::Literal>> arguments;
  std::vector<eval::Literal> expected;
  // Read-only values whose buffer the original already writes, by bitcast option. A pass may
  // not add to them: the interpreter protects read-only values as if a copy were there, so a
  // wrongly removed copy of a constant or an entry parameter shows here and not in the results.
  std::set<std::string> read_only_overwrites[2];
};

// Parses and verifies; on failure sets `result` to skipped.
std::unique_ptr<Module> Load(std::string_view text, ModuleResult& result) {
  auto module = ParseModule(text);
  if (!module.ok()) {
    result = {Verdict::kSkipped, "does not parse", {}, {}};
    return nullptr;
  }
  if (!VerifyModule(**module).ok()) {
    result = {Verdict::kSkipped, "does not verify", {}, {}};
    return nullptr;
  }
  return std::move(*module);
}

// Computes the baseline and checks the original in buffer mode; on a problem sets `result`.
// Buffer mode is checked under each bitcast option some pass assumes.
std::optional<Baseline> MakeBaseline(const Module& module, absl::Span<const PassUnderTest> passes,
                                     const HarnessOptions& options, ModuleResult& result) {
  Baseline b;
  std::vector<bool> bitcast_modes = {false};
  for (const PassUnderTest& p : passes)
    if (p.bitcast_defines_value && bitcast_modes.size() == 1) bitcast_modes.push_back(true);
  eval::EvalOptions value{.mode = eval::EvalMode::kValue, .max_bytes = options.max_bytes};
  // Before building arguments: a module of 2^62-byte parameters must be skipped, not allocated.
  if (absl::Status runnable = eval::CheckRunnable(module, value); !runnable.ok()) {
    result = {Verdict::kSkipped, SkipReason("value mode", runnable), {}, {}};
    return std::nullopt;
  }
  for (int i = 0; i < options.seeds; ++i) {
    uint64_t seed = options.first_seed + uint64_t(i);
    std::vector<eval::Literal> args = eval::RandomArguments(module, seed);
    absl::StatusOr<eval::Literal> expected = eval::Evaluate(module, args, value);
    if (!expected.ok()) {
      result = {Verdict::kSkipped, SkipReason("value mode", expected.status()), {}, {}};
      return std::nullopt;
    }
    for (bool bitcast_defines_value : bitcast_modes) {
      std::vector<std::string> overwrites;
      eval::EvalOptions buffer{.mode = eval::EvalMode::kBuffer,
                               .bitcast_defines_value = bitcast_defines_value,
                               .max_bytes = options.max_bytes,
                               .read_only_overwrites = &overwrites};
      absl::StatusOr<eval::Literal> shared = eval::Evaluate(module, args, buffer);
      b.read_only_overwrites[bitcast_defines_value].insert(overwrites.begin(), overwrites.end());
      if (!shared.ok()) {
        result = {Verdict::kSkipped, SkipReason("buffer mode", shared.status()), {}, {}};
        return std::nullopt;
      }
      if (eval::FirstDifference(*expected, *shared)) {
        result = {Verdict::kNotBaseline, "buffer mode differs from value mode", {}, {}};
        return std::nullopt;
      }
    }
    b.arguments.push_back(std::move(args));
    b.expected.push_back(std::move(*expected));
  }
  return b;
}

// Runs `pass` on a fresh parse of `text` and compares; the failure message or nullopt.
std::optional<std::string> RunPass(std::string_view text, const PassUnderTest& pass,
                                   const Baseline& baseline, const HarnessOptions& options,
                                   bool* changed) {
  auto module = ParseModule(text);
  if (!module.ok()) return "the module no longer parses: " + MessageOf(module.status());
  std::unique_ptr<Pass> p = pass.make();
  absl::StatusOr<bool> ran = p->Run(**module);
  if (!ran.ok()) return "the pass failed: " + MessageOf(ran.status());
  if (changed != nullptr) *changed = *ran;
  if (absl::Status s = VerifyModule(**module); !s.ok())
    return "the transformed module does not verify: " + MessageOf(s);
  std::vector<std::string> overwrites;
  eval::EvalOptions buffer{.mode = eval::EvalMode::kBuffer,
                           .bitcast_defines_value = pass.bitcast_defines_value,
                           .max_bytes = options.max_bytes,
                           .read_only_overwrites = &overwrites};
  for (size_t i = 0; i < baseline.expected.size(); ++i) {
    absl::StatusOr<eval::Literal> actual = eval::Evaluate(**module, baseline.arguments[i], buffer);
    if (!actual.ok())
      return fmt::format("seed {}: the transformed module does not run: {}", options.first_seed + i,
                         MessageOf(actual.status()));
    if (auto diff = eval::FirstDifference(baseline.expected[i], *actual))
      return fmt::format("seed {}: {}", options.first_seed + i, *diff);
    for (const std::string& name : overwrites) {
      if (!baseline.read_only_overwrites[pass.bitcast_defines_value].contains(name)) {
        return fmt::format(
            "seed {}: read-only {} now shares a buffer that the module writes (a device would "
            "overwrite it: a copy it needed was removed)",
            options.first_seed + i, name);
      }
    }
  }
  return std::nullopt;
}

}  // namespace

std::vector<PassUnderTest> RegisteredPasses() {
  std::vector<PassUnderTest> passes;
  for (const PassRegistry::Entry* e : PassRegistry::Global().Entries()) {
    passes.push_back(PassUnderTest{e->name, e->factory, false});
    // The registry makes passes with default options only; copy-elision's other bitcast
    // assumption is a different set of decisions, so it is tested as a pass of its own.
    if (e->name == "copy-elision") {
      passes.push_back(PassUnderTest{
          "copy-elision[bitcast_defines_value]",
          [] { return std::make_unique<CopyElision>(CopyElisionOptions{true}); }, true});
    }
  }
  return passes;
}

std::string_view VerdictName(Verdict v) {
  switch (v) {
    case Verdict::kPass:
      return "pass";
    case Verdict::kFail:
      return "FAIL";
    case Verdict::kNotBaseline:
      return "not a valid baseline";
    case Verdict::kSkipped:
      return "skipped";
  }
  return "?";
}

ModuleResult CheckModule(std::string_view text, absl::Span<const PassUnderTest> passes,
                         const HarnessOptions& options) {
  ModuleResult result;
  std::unique_ptr<Module> module = Load(text, result);
  if (module == nullptr) return result;
  std::optional<Baseline> baseline = MakeBaseline(*module, passes, options, result);
  if (!baseline) return result;
  for (const PassUnderTest& pass : passes) {
    bool changed = false;
    if (auto failure = RunPass(text, pass, *baseline, options, &changed)) {
      result.verdict = Verdict::kFail;
      result.failures.push_back({pass.name, std::move(*failure)});
    }
    if (changed) result.changed_by.push_back(pass.name);
  }
  return result;
}

std::optional<std::string> PassFailureOn(std::string_view text, const PassUnderTest& pass,
                                         const HarnessOptions& options) {
  ModuleResult ignored;
  std::unique_ptr<Module> module = Load(text, ignored);
  if (module == nullptr) return std::nullopt;
  std::optional<Baseline> baseline = MakeBaseline(*module, {&pass, 1}, options, ignored);
  if (!baseline) return std::nullopt;
  return RunPass(text, pass, *baseline, options, nullptr);
}

std::string ReduceAndDescribe(std::string_view text, const PassUnderTest& pass,
                              const HarnessOptions& options) {
  ReduceResult reduced = ReduceModule(text, [&](const std::string& candidate) {
    return PassFailureOn(candidate, pass, options).has_value();
  });
  std::optional<std::string> failure = PassFailureOn(reduced.text, pass, options);
  return fmt::format(
      "pass '{}' changes the result: {}\nreduced from {} to {} instructions ({} tries):\n{}",
      pass.name, failure.value_or("(the failure did not reproduce)"), reduced.instructions_before,
      reduced.instructions_after, reduced.tries, reduced.text);
}

void Tally::Add(const ModuleResult& r) {
  ++modules;
  for (const std::string& pass : r.changed_by) ++changed_by[pass];
  switch (r.verdict) {
    case Verdict::kPass:
      ++passed;
      break;
    case Verdict::kFail:
      ++failed;
      break;
    case Verdict::kNotBaseline:
      ++not_baseline;
      ++reasons[r.reason];
      break;
    case Verdict::kSkipped:
      ++skipped;
      ++reasons[r.reason];
      break;
  }
}

std::string Tally::Summary() const {
  std::string out = fmt::format(
      "{} modules: {} checked and passed, {} failed, {} not a valid "
      "baseline, {} skipped",
      modules, passed, failed, not_baseline, skipped);
  for (const auto& [reason, count] : reasons) out += fmt::format("\n  {:4} {}", count, reason);
  if (!changed_by.empty()) {
    out += "\n  modules changed, by pass:";
    for (const auto& [pass, count] : changed_by) out += fmt::format(" {} {};", pass, count);
  }
  return out;
}

}  // namespace hloscope::differential
