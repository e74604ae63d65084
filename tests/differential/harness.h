// The differential harness: does a pass preserve what a module computes, bit for bit, when the
// transformed module runs with real buffer sharing?
//
//   HarnessOptions options;                        // 3 seeds
//   ModuleResult r = CheckModule(text, RegisteredPasses(), options);
//   if (r.verdict == Verdict::kFail) fmt::print("{}\n", r.failures[0].message);
//
// For one module: parse and verify it; run the ORIGINAL in value mode on `seeds` seeded random
// argument sets (the expected results); run the original in buffer mode too: if that differs,
// the module is not buffer-safe as given (a copy it needs is missing) and it is no baseline for
// judging passes (Verdict::kNotBaseline). Then, for each pass, a fresh parse of the text is
// transformed, verified, run in buffer mode with the pass's bitcast option, and compared with
// the expected results (eval::FirstDifference). Modules the interpreter cannot run (an
// unsupported opcode, too large, alias analysis refusing them) are skipped with the reason.
//
// Besides the results, three safety properties that equal results cannot show (issue 19):
//  - entry outputs: a pass may not make two array positions of the entry's result one buffer,
//    nor put an entry parameter's buffer at an output it was not at (a donated parameter
//    belongs to its input_output_alias output, a kept one to the caller), with bitcasts as
//    aliases as at run time;
//  - a pass with `removes_subset_of` (a pass run with bitcasts as new values) removes only
//    copies that the named pass (the same pass with its default) removes from the same module;
//  - a pass with `leaves_unsafe_modules_alone` (copy-elision) must not change a module that is
//    not buffer-safe as given (kNotBaseline): its reasoning assumes buffers without conflicts.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/types/span.h"
#include "passes/pass.h"

namespace hloscope::differential {

struct HarnessOptions {
  // Random argument sets per module (seeds first_seed, first_seed+1, ...).
  int seeds = 3;
  uint64_t first_seed = 1;
  // Modules whose storage would exceed this are skipped ("too large"): keeps tests fast.
  int64_t max_bytes = int64_t{16} << 20;
  // The interpreter's step limit per run: a fuzzed while loop may never end (pipeline_fuzzer).
  int64_t max_steps = 100'000'000;
};

// A pass as the harness runs it.
struct PassUnderTest {
  PassUnderTest() = default;
  PassUnderTest(std::string name, std::function<std::unique_ptr<Pass>()> make,
                bool bitcast_defines_value = false, bool leaves_unsafe_modules_alone = false,
                std::string removes_subset_of = "")
      : name(std::move(name)),
        make(std::move(make)),
        bitcast_defines_value(bitcast_defines_value),
        leaves_unsafe_modules_alone(leaves_unsafe_modules_alone),
        removes_subset_of(std::move(removes_subset_of)) {}

  std::string name;  // as reported, e.g. "dce"
  std::function<std::unique_ptr<Pass>()> make;
  // Buffer mode's bitcast option for the transformed module: the assumption the pass made.
  bool bitcast_defines_value = false;
  // A module that is not buffer-safe as given must come out unchanged.
  bool leaves_unsafe_modules_alone = false;
  // The copies this pass removes must be among those the pass of this name removes.
  std::string removes_subset_of;
};

// Every pass of PassRegistry::Global(), in name order (passes registered later are covered
// without changing the harness), each leaving unsafe modules alone when it says it does
// (Pass::LeavesUnsafeModulesAlone). A pass that declares the option bitcast-defines-value
// (default false) is tested a second time with it true, named by its pass list
// ("copy-elision{bitcast-defines-value=true}"), run in buffer mode with that option, and
// required to remove a subset of what the pass removes with its default.
std::vector<PassUnderTest> RegisteredPasses();

enum class Verdict {
  kPass,         // every pass preserved the results
  kFail,         // some pass did not (see failures)
  kNotBaseline,  // the original is not buffer-safe: buffer mode != value mode (a pass that
                 // must leave such modules alone and changes one makes it kFail)
  kSkipped,      // the module cannot be judged (see reason)
};
std::string_view VerdictName(Verdict v);

struct PassFailure {
  std::string pass;
  std::string message;  // "seed 2: output {1}: element [0]: 1.5 vs 2" or the error
};

struct ModuleResult {
  Verdict verdict = Verdict::kPass;
  // kSkipped / kNotBaseline: why, short and stable enough to count by ("unsupported opcode
  // 'sort'", "too large", "does not parse", ...).
  std::string reason;
  std::vector<PassFailure> failures;
  std::vector<std::string> changed_by;  // the passes that reported a change
};

ModuleResult CheckModule(std::string_view text, absl::Span<const PassUnderTest> passes,
                         const HarnessOptions& options);

// The failure of one pass on one module (nullopt when it preserves the results or the module
// cannot be judged). The predicate the reducer shrinks a failing module with.
std::optional<std::string> PassFailureOn(std::string_view text, const PassUnderTest& pass,
                                         const HarnessOptions& options);

// Reduces `text` while `pass` still fails on it and returns a report: the pass, the failure on
// the reduced module, and the reduced module's text.
std::string ReduceAndDescribe(std::string_view text, const PassUnderTest& pass,
                              const HarnessOptions& options);

// Counts of verdicts and skip reasons over many modules, for test output.
struct Tally {
  int modules = 0;
  int passed = 0;
  int failed = 0;
  int not_baseline = 0;
  int skipped = 0;
  std::map<std::string, int> reasons;     // skip and not-baseline reasons
  std::map<std::string, int> changed_by;  // pass → modules it changed

  void Add(const ModuleResult& r);
  std::string Summary() const;
};

}  // namespace hloscope::differential
