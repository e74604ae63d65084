// pass_fuzz: the driver behind `scripts/fuzz --passes`. Runs the differential harness on
// random modules (tests/differential/random_module.h) with fresh seeds until the time is up;
// on the first pass that changes a result it reduces the module, prints the seed, the failure
// and the reduced module, and exits 1.
//
//   pass_fuzz [--time=SECONDS] [--seed=N] [--passes=a,b,...]
//   pass_fuzz --module=FILE [--passes=a,b,...]
//
// With --module, checks that one module instead (exit 1 on a failure, printed reduced); a
// module that is not a valid baseline (buffer mode differs from value mode before any pass) is
// reduced too, to show the copy it lacks.
//
// --passes defaults to every registered pass (RegisteredPasses) and the variants of
// kFuzzedOptions below; a pass list entry with options ("copy-elision{region-analysis=true}")
// is accepted too, and so is `remove-all-copies` (the broken test pass), to see a failure
// being found and reduced. --seed is the first seed (default:
// derived from the clock, and printed, so a run can be repeated).
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "fmt/format.h"
#include "passes/pass_pipeline.h"
#include "passes/pass_registry.h"
#include "tests/differential/broken_pass.h"
#include "tests/differential/harness.h"
#include "tests/differential/random_module.h"
#include "tests/differential/reducer.h"

namespace hd = hloscope::differential;

namespace {

constexpr std::string_view kUsage =
    "usage: pass_fuzz [--time=SECONDS] [--seed=N] [--passes=a,b,...]\n"
    "       pass_fuzz --module=FILE [--passes=a,b,...]\n";

int UsageError(std::string_view message) {
  fmt::print(stderr, "pass_fuzz: error: {}\n{}", message, kUsage);
  return 2;
}

bool ParseNumber(std::string_view text, uint64_t* out) {
  if (text.empty()) return false;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9' || v > (UINT64_MAX - 9) / 10) return false;
    v = v * 10 + uint64_t(c - '0');
  }
  *out = v;
  return true;
}

// Boolean pass options (default false) that change what a pass decides without a matching
// interpreter switch, so RegisteredPasses does not vary them: each pass that declares one is
// fuzzed a second time with it true. region-analysis makes copy-elision remove copies the
// ordered value lists refuse (XLA's region-based interference): more removals, more to check.
constexpr std::string_view kFuzzedOptions[] = {"region-analysis"};

// `spec` (a pass list entry, options included) as the harness runs it; null when it does not
// make a pass.
std::unique_ptr<hd::PassUnderTest> PassFromSpec(const std::string& spec) {
  const hloscope::PassRegistry& registry = hloscope::PassRegistry::Global();
  absl::StatusOr<std::unique_ptr<hloscope::Pass>> probe = hloscope::CreatePass(spec, registry);
  if (!probe.ok()) return nullptr;
  auto make = [spec, &registry]() -> std::unique_ptr<hloscope::Pass> {
    absl::StatusOr<std::unique_ptr<hloscope::Pass>> pass = hloscope::CreatePass(spec, registry);
    return pass.ok() ? *std::move(pass) : nullptr;  // cannot fail: the probe was made
  };
  return std::make_unique<hd::PassUnderTest>(spec, make, false,
                                             (*probe)->LeavesUnsafeModulesAlone());
}

// RegisteredPasses and a variant per declared option of kFuzzedOptions.
std::vector<hd::PassUnderTest> DefaultPasses() {
  std::vector<hd::PassUnderTest> passes = hd::RegisteredPasses();
  for (const hloscope::PassRegistry::Entry* e : hloscope::PassRegistry::Global().Entries()) {
    std::unique_ptr<hloscope::Pass> probe = e->factory();
    for (const hloscope::PassOption& option : probe->pass_options().options()) {
      for (std::string_view fuzzed : kFuzzedOptions) {
        if (option.name != fuzzed || option.default_value != "false") continue;
        if (auto p = PassFromSpec(fmt::format("{}{{{}=true}}", e->name, fuzzed)))
          passes.push_back(std::move(*p));
      }
    }
  }
  return passes;
}

// The passes named in `list` (comma separated), or an error message.
std::string SelectPasses(std::string_view list, std::vector<hd::PassUnderTest>* out) {
  std::vector<hd::PassUnderTest> all = DefaultPasses();
  all.push_back(
      {"remove-all-copies", [] { return std::make_unique<hd::RemoveAllCopies>(); }, false});
  while (!list.empty()) {
    // Options hold no commas outside braces only: "a{x=1,y=2},b" splits after the brace.
    size_t comma = list.find(',');
    if (size_t brace = list.find('{'); brace < comma) {
      size_t close = list.find('}', brace);
      comma = close == std::string_view::npos ? close : list.find(',', close);
    }
    std::string_view name = list.substr(0, comma);
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
    bool found = false;
    for (const hd::PassUnderTest& p : all)
      if (p.name == name) {
        out->push_back(p);
        found = true;
      }
    if (found) continue;
    std::unique_ptr<hd::PassUnderTest> p = PassFromSpec(std::string(name));
    if (p == nullptr) return fmt::format("unknown pass '{}'", name);
    out->push_back(std::move(*p));
  }
  return {};
}

// --module=FILE: the harness on one module; 0 when it passes or is skipped.
int CheckFile(const std::string& path, const std::vector<hd::PassUnderTest>& passes) {
  std::ifstream in(path);
  if (!in) {
    fmt::print(stderr, "pass_fuzz: error: cannot read '{}'\n", path);
    return 2;
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::string text = buffer.str();
  hd::HarnessOptions options;
  hd::ModuleResult r = hd::CheckModule(text, passes, options);
  fmt::print("{}: {}{}\n", path, hd::VerdictName(r.verdict),
             r.reason.empty() ? "" : " (" + r.reason + ")");
  if (r.verdict == hd::Verdict::kNotBaseline) {
    hd::ReduceResult reduced = hd::ReduceModule(text, [&](const std::string& t) {
      return hd::CheckModule(t, {}, options).verdict == hd::Verdict::kNotBaseline;
    });
    fmt::print("reduced from {} to {} instructions, still not a valid baseline:\n{}",
               reduced.instructions_before, reduced.instructions_after, reduced.text);
    return 1;
  }
  if (r.verdict != hd::Verdict::kFail) return 0;
  for (const hd::PassFailure& f : r.failures) {
    for (const hd::PassUnderTest& p : passes)
      if (p.name == f.pass) fmt::print("{}\n", hd::ReduceAndDescribe(text, p, options));
  }
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t seconds = 60;
  uint64_t seed =
      uint64_t(std::chrono::system_clock::now().time_since_epoch().count()) % 1000000000;
  std::vector<hd::PassUnderTest> passes;
  std::string module_file;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      fmt::print("{}", kUsage);
      return 0;
    } else if (arg.starts_with("--time=")) {
      if (!ParseNumber(arg.substr(7), &seconds) || seconds == 0)
        return UsageError("--time wants a positive number of seconds");
    } else if (arg.starts_with("--seed=")) {
      if (!ParseNumber(arg.substr(7), &seed)) return UsageError("--seed wants a number");
    } else if (arg.starts_with("--module=")) {
      module_file = std::string(arg.substr(9));
    } else if (arg.starts_with("--passes=")) {
      if (std::string e = SelectPasses(arg.substr(9), &passes); !e.empty()) return UsageError(e);
    } else {
      return UsageError(fmt::format("unknown argument '{}'", arg));
    }
  }
  if (passes.empty()) passes = DefaultPasses();
  if (!module_file.empty()) return CheckFile(module_file, passes);
  std::vector<std::string> names;
  for (const hd::PassUnderTest& p : passes) names.push_back(p.name);
  fmt::print("pass_fuzz: {}s from seed {}, passes: {}\n", seconds, seed, fmt::join(names, ", "));
  std::fflush(stdout);

  hd::HarnessOptions options;
  hd::Tally tally;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  for (; std::chrono::steady_clock::now() < deadline; ++seed) {
    std::string text = hd::RandomModuleText(seed, {});
    hd::ModuleResult r = hd::CheckModule(text, passes, options);
    tally.Add(r);
    if (r.verdict == hd::Verdict::kNotBaseline)
      fmt::print("seed {}: generated module is not a valid baseline ({})\n", seed, r.reason);
    if (r.verdict != hd::Verdict::kFail) continue;
    const hd::PassUnderTest* failing = nullptr;
    for (const hd::PassUnderTest& p : passes)
      if (p.name == r.failures[0].pass) failing = &p;
    fmt::print("FAILURE at seed {}: pass '{}': {}\n", seed, r.failures[0].pass,
               r.failures[0].message);
    fmt::print("{}\n", hd::ReduceAndDescribe(text, *failing, options));
    fmt::print("reproduce: pass_fuzz --time=1 --seed={} --passes={}\n", seed, failing->name);
    fmt::print("{}\n", tally.Summary());
    return 1;
  }
  fmt::print("{}\nno failure\n", tally.Summary());
  return 0;
}
