// libFuzzer target for everything that reads a parsed module (built with -DHLOSCOPE_FUZZ=ON;
// see `scripts/fuzz --fuzzer=pipeline`).
//
// The parser fuzzer stops at the printer; most fuzzed inputs never pass the verifier, so the
// analyses and passes would rarely see them. Here an input that parses and verifies is run
// through what hlo-opt runs on a user's module:
//   - dataflow and alias analysis, with bitcasts as aliases and as new values;
//   - the memory profiler (live ranges over the text order or schedule);
//   - every built-in pass in one pipeline with the verifier after each pass;
//   - copy-insertion, then copy-elision with its defaults and with region-analysis=true
//     (XLA's region-based interference, passes/copy_region_interference.h), each checked by the
//     differential harness (tests/differential/harness.h): the inserted module in value mode
//     against the pass's result in buffer mode, bit for bit, on one seeded input.
// None may crash or trip a sanitizer. An analysis may refuse a module with a status (that is
// a clean error), but a pass that leaves an invalid module (status Internal from the
// pipeline's verifier) is a bug, and so is a result whose printed text does not parse again,
// and so is a copy removal that changes what the module computes.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/alias.h"
#include "analysis/dataflow.h"
#include "analysis/memory/memory_profile.h"
#include "hlo/parser.h"
#include "hlo/printer.h"
#include "hlo/verifier.h"
#include "passes/pass_pipeline.h"
#include "passes/pass_registry.h"
#include "support/status_text.h"
#include "tests/differential/harness.h"

namespace {

using hloscope::StatusText;

[[noreturn]] void Fail(std::string_view what, std::string_view module_text,
                       std::string_view message) {
  std::fprintf(stderr, "%.*s\n--- module ---\n%.*s\n--- message ---\n%.*s\n",
               static_cast<int>(what.size()), what.data(), static_cast<int>(module_text.size()),
               module_text.data(), static_cast<int>(message.size()), message.data());
  std::abort();
}

// absl::Status::message() is absl::string_view, which Debian's abseil does not alias to
// std::string_view.

void RunAnalyses(const hloscope::Module& module) {
  for (bool bitcast_defines_value : {false, true}) {
    hloscope::DataflowAnalysis::Options options;
    options.bitcast_defines_value = bitcast_defines_value;
    // Statuses are allowed (a clean refusal); crashes and sanitizer reports are not.
    (void)hloscope::AliasAnalysis::Run(module, options);
  }
  hloscope::MemoryOptions memory;
  memory.timeline = false;
  (void)hloscope::ProfileModule(module, memory);
}

// Runs `passes` (a pass list) on a fresh parse of `text` with the verifier after each pass;
// returns the printed result, or nothing when a pass refused the module with a clean status.
std::optional<std::string> RunPasses(std::string_view text, std::string_view passes) {
  auto module = hloscope::ParseModule(text);
  if (!module.ok()) Fail("the module no longer parses", text, StatusText(module.status()));
  auto pipeline =
      hloscope::BuildPipeline(passes, hloscope::PassRegistry::Global(), {.verify_each = true});
  if (!pipeline.ok()) Fail("cannot build the pass pipeline", passes, StatusText(pipeline.status()));
  absl::StatusOr<bool> changed = (*pipeline)->Run(**module);
  if (!changed.ok()) {
    if (changed.status().code() == absl::StatusCode::kInternal) {
      Fail("a pass left an invalid module", text, StatusText(changed.status()));
    }
    return std::nullopt;
  }
  return hloscope::PrintModule(**module);
}

// The copies copy-insertion adds are what copy-elision removes on a user's module (the corpus
// judge runs copy-insertion,copy-elision): both modes of copy-elision must keep its results.
void CheckCopyElisionKeepsResults(std::string_view text) {
  std::optional<std::string> inserted = RunPasses(text, "copy-insertion");
  if (!inserted) return;
  namespace hd = hloscope::differential;
  std::vector<hd::PassUnderTest> passes;
  for (const char* spec : {"copy-elision", "copy-elision{region-analysis=true}"}) {
    passes.push_back(hd::PassUnderTest(spec, [spec]() -> std::unique_ptr<hloscope::Pass> {
      auto pass = hloscope::CreatePass(spec, hloscope::PassRegistry::Global());
      if (!pass.ok()) Fail("cannot make the pass", spec, StatusText(pass.status()));
      return *std::move(pass);
    }));
  }
  // Small limits keep each execution cheap; a module past them is skipped, not failed.
  hd::HarnessOptions options{.seeds = 1, .max_bytes = int64_t{64} << 10, .max_steps = 10'000};
  hd::ModuleResult r = hd::CheckModule(*inserted, passes, options);
  if (r.verdict == hd::Verdict::kFail) {
    Fail("copy elision changed a result: " + r.failures[0].pass, *inserted, r.failures[0].message);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto module = hloscope::ParseModule(text);
  if (!module.ok() || !hloscope::VerifyModule(**module).ok()) return 0;

  RunAnalyses(**module);

  const std::string before = hloscope::PrintModule(**module);
  auto pipeline = hloscope::BuildPipeline("tuple-simplify,dce,flatten-call-graph,copy-elision",
                                          hloscope::PassRegistry::Global(), {.verify_each = true});
  if (!pipeline.ok()) Fail("cannot build the pass pipeline", "", StatusText(pipeline.status()));
  absl::StatusOr<bool> changed = (*pipeline)->Run(**module);
  if (!changed.ok()) {
    if (changed.status().code() == absl::StatusCode::kInternal) {
      Fail("a pass left an invalid module", before, StatusText(changed.status()));
    }
    return 0;
  }

  const std::string after = hloscope::PrintModule(**module);
  auto reparsed = hloscope::ParseModule(after, {.filename = "<after passes>"});
  if (!reparsed.ok()) {
    Fail("the module after the passes prints text that does not parse", after,
         StatusText(reparsed.status()));
  }
  if (absl::Status s = hloscope::VerifyModule(**reparsed); !s.ok()) {
    Fail("the module after the passes does not verify once printed and parsed", after,
         StatusText(s));
  }
  RunAnalyses(**reparsed);

  CheckCopyElisionKeepsResults(text);
  return 0;
}
