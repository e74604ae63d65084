#include "tests/differential/harness.h"

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "analysis/alias.h"
#include "eval/evaluator.h"
#include "eval/literal.h"
#include "fmt/format.h"
#include "fmt/ranges.h"
#include "hlo/parser.h"
#include "hlo/verifier.h"
#include "passes/pass_pipeline.h"
#include "passes/pass_registry.h"
#include "support/status_text.h"
#include "tests/differential/reducer.h"

namespace hloscope::differential {
namespace {

// A short reason to count skipped modules by: the opcode for unsupported ones, the status
// code otherwise (messages name instructions, which would make every module its own reason).
std::string SkipReason(std::string_view what, const absl::Status& s) {
  std::string message = StatusText(s);
  if (s.code() == absl::StatusCode::kUnimplemented) {
    size_t at = message.find(" (instruction");
    std::string_view prefix = "the interpreter does not support ";
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
  eval::EvalOptions value{.mode = eval::EvalMode::kValue,
                          .max_bytes = options.max_bytes,
                          .max_steps = options.max_steps};
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
                               .dataflow = {.bitcast_defines_value = bitcast_defines_value},
                               .max_bytes = options.max_bytes,
                               .max_steps = options.max_steps,
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

// Where buffers meet the entry's result, with bitcasts as aliases (storage as at run time):
// pairs of outputs that share one buffer, and which entry parameter element's buffer is at
// which output. nullopt when the alias analysis refuses the module.
struct OutputStorage {
  std::set<std::pair<std::string, std::string>> shared;
  std::set<std::pair<std::string, std::string>> parameters;  // ("parameter 0{}", "{1}")
};

std::optional<OutputStorage> EntryOutputStorage(const Module& module) {
  absl::StatusOr<std::unique_ptr<AliasAnalysis>> alias = AliasAnalysis::Run(module);
  if (!alias.ok() || module.entry() == nullptr) return std::nullopt;
  const DataflowAnalysis& flow = (*alias)->dataflow();
  const Instruction& root = *module.entry()->root();
  std::map<BufferId, std::vector<std::string>> outputs_of;
  for (int32_t p = 0; p < flow.PositionCount(root); ++p) {
    absl::Span<const ValueId> values = flow.ValuesAtPosition(root, p);
    if (values.empty() || !flow.value(values.front()).shape->IsArray()) continue;
    const ShapeIndex index = flow.IndexAt(root, p);
    for (BufferId b : (*alias)->BuffersAt(root, index)) {
      outputs_of[b].push_back(ShapeIndexToString(index));
    }
  }
  OutputStorage out;
  for (const auto& [b, outputs] : outputs_of) {
    for (size_t i = 0; i < outputs.size(); ++i) {
      for (size_t j = i + 1; j < outputs.size(); ++j) {
        if (outputs[i] != outputs[j]) out.shared.insert({outputs[i], outputs[j]});
      }
    }
    for (ValueId v : (*alias)->buffers()[b].values) {
      const HloValue& hv = flow.value(v);
      if (hv.is_phi || hv.instruction->opcode() != Opcode::kParameter ||
          hv.instruction->parent() != module.entry()) {
        continue;
      }
      for (const std::string& o : outputs) {
        out.parameters.insert({fmt::format("parameter {}{}", hv.instruction->parameter_number(),
                                           ShapeIndexToString(hv.index)),
                               o});
      }
    }
  }
  return out;
}

// What the pass did to the entry's result that XLA forbids; nullopt when nothing.
std::optional<std::string> EntryOutputFailure(const OutputStorage& before,
                                              const OutputStorage& after) {
  for (const auto& [a, b] : after.shared) {
    if (!before.shared.contains({a, b})) {
      return fmt::format(
          "entry outputs {} and {} now share one buffer (XLA gives each output its own: a copy "
          "that kept them apart was removed)",
          a, b);
    }
  }
  for (const auto& [param, output] : after.parameters) {
    if (!before.parameters.contains({param, output})) {
      return fmt::format(
          "the buffer of entry {} is now at output {} (a donated parameter belongs to its "
          "input_output_alias output, a kept one to the caller: a copy was removed)",
          param, output);
    }
  }
  return std::nullopt;
}

std::set<std::string> CopyNames(const Module& module) {
  std::set<std::string> names;
  for (const Computation* c : module.computations()) {
    for (const Instruction* i : c->instructions()) {
      if (i->opcode() == Opcode::kCopy) names.insert(std::string(i->name()));
    }
  }
  return names;
}

// Runs `pass` on a fresh parse of `text` and compares; the failure message or nullopt.
// `removed` (optional) receives the names of the copies the pass removed.
std::optional<std::string> RunPass(std::string_view text, const PassUnderTest& pass,
                                   const Baseline& baseline, const HarnessOptions& options,
                                   bool* changed, std::set<std::string>* removed = nullptr) {
  auto module = ParseModule(text);
  if (!module.ok()) return "the module no longer parses: " + StatusText(module.status());
  const std::optional<OutputStorage> outputs_before = EntryOutputStorage(**module);
  const std::set<std::string> copies_before = CopyNames(**module);
  std::unique_ptr<Pass> p = pass.make();
  absl::StatusOr<bool> ran = p->Run(**module);
  if (!ran.ok()) return "the pass failed: " + StatusText(ran.status());
  if (changed != nullptr) *changed = *ran;
  if (removed != nullptr) {
    const std::set<std::string> copies_after = CopyNames(**module);
    for (const std::string& name : copies_before) {
      if (!copies_after.contains(name)) removed->insert(name);
    }
  }
  if (absl::Status s = VerifyModule(**module); !s.ok())
    return "the transformed module does not verify: " + StatusText(s);
  std::vector<std::string> overwrites;
  eval::EvalOptions buffer{.mode = eval::EvalMode::kBuffer,
                           .dataflow = {.bitcast_defines_value = pass.bitcast_defines_value},
                           .max_bytes = options.max_bytes,
                           .max_steps = options.max_steps,
                           .read_only_overwrites = &overwrites};
  for (size_t i = 0; i < baseline.expected.size(); ++i) {
    absl::StatusOr<eval::Literal> actual = eval::Evaluate(**module, baseline.arguments[i], buffer);
    if (!actual.ok())
      return fmt::format("seed {}: the transformed module does not run: {}", options.first_seed + i,
                         StatusText(actual.status()));
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
  if (outputs_before) {
    if (std::optional<OutputStorage> after = EntryOutputStorage(**module)) {
      if (auto failure = EntryOutputFailure(*outputs_before, *after)) return failure;
    }
  }
  return std::nullopt;
}

// A pass that must leave unsafe modules alone, run on one: the failure, if it changed it.
std::optional<std::string> ChangesUnsafeModule(std::string_view text, const PassUnderTest& pass) {
  auto module = ParseModule(text);
  if (!module.ok()) return std::nullopt;
  absl::StatusOr<bool> ran = pass.make()->Run(**module);
  if (!ran.ok()) return "the pass failed: " + StatusText(ran.status());
  if (!*ran) return std::nullopt;
  return std::string(
      "changed a module that is not buffer-safe as given (buffer mode differs from value "
      "mode): its decisions assume buffers without conflicts");
}

}  // namespace

std::vector<PassUnderTest> RegisteredPasses() {
  // The one option the harness varies: the interpreter's buffer mode has the same switch, so a
  // pass that declares it is also judged with bitcasts as new values, in that mode.
  constexpr std::string_view kBitcastOption = "bitcast-defines-value";
  std::vector<PassUnderTest> passes;
  const PassRegistry& registry = PassRegistry::Global();
  for (const PassRegistry::Entry* e : registry.Entries()) {
    std::unique_ptr<Pass> probe = e->factory();
    const bool alone = probe->LeavesUnsafeModulesAlone();
    passes.push_back(PassUnderTest{e->name, e->factory, false, alone, ""});
    bool declares_bitcast_option = false;
    for (const PassOption& option : probe->pass_options().options()) {
      declares_bitcast_option |= option.name == kBitcastOption && option.default_value == "false";
    }
    if (!declares_bitcast_option) continue;
    // Assuming more values can only hide sharing, never show more: the copies this variant
    // removes must be among those the default removes. Named by its pass list, which makes it.
    std::string spec = fmt::format("{}{{{}=true}}", e->name, kBitcastOption);
    auto make = [spec, &registry]() -> std::unique_ptr<Pass> {
      absl::StatusOr<std::unique_ptr<Pass>> pass = CreatePass(spec, registry);
      return pass.ok() ? *std::move(pass) : nullptr;  // cannot fail: the pass declares it
    };
    passes.push_back(PassUnderTest{spec, make, true, alone, e->name});
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
  if (!baseline) {
    if (result.verdict != Verdict::kNotBaseline) return result;
    for (const PassUnderTest& pass : passes) {
      if (!pass.leaves_unsafe_modules_alone) continue;
      if (auto failure = ChangesUnsafeModule(text, pass)) {
        result.verdict = Verdict::kFail;
        result.failures.push_back({pass.name, std::move(*failure)});
      }
    }
    return result;
  }
  std::map<std::string, std::set<std::string>> removed;
  for (const PassUnderTest& pass : passes) {
    bool changed = false;
    if (auto failure = RunPass(text, pass, *baseline, options, &changed, &removed[pass.name])) {
      result.verdict = Verdict::kFail;
      result.failures.push_back({pass.name, std::move(*failure)});
    }
    if (changed) result.changed_by.push_back(pass.name);
  }
  for (const PassUnderTest& pass : passes) {
    const std::string& other = pass.removes_subset_of;
    // Checked even when either pass failed otherwise: a removal can break several rules.
    if (other.empty() || !removed.contains(other)) continue;
    std::vector<std::string> extra;
    for (const std::string& name : removed[pass.name]) {
      if (!removed[other].contains(name)) extra.push_back("%" + name);
    }
    if (!extra.empty()) {
      result.verdict = Verdict::kFail;
      result.failures.push_back({pass.name, fmt::format("removes copies that '{}' keeps: {}", other,
                                                        fmt::join(extra, ", "))});
    }
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
