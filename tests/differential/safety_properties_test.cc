// The three copy-elision safety properties of issue 19 as harness checks, each with a pass that
// is wrong on purpose and that the harness must catch (broken_pass.h):
//  - entry outputs: no two outputs made one buffer, no parameter's buffer moved to an output
//    (remove-all-copies on modules where equal results hide it);
//  - bitcast option: copy-elision with bitcasts as new values removes a subset of what it
//    removes with bitcasts as aliases, on every harness module (differential_pass_tests runs
//    that through RegisteredPasses) and here on the curated corpus; remove-copies-of-bitcasts
//    as the bitcast variant is caught;
//  - buffer consistency: copy-elision leaves a module that is not buffer-safe as given alone
//    (remove-sole-use-copies does not), and says "not buffer-safe" exactly where the
//    interpreter shows the module is not: on every random module with a copy removed.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "gtest/gtest.h"
#include "hlo/parser.h"
#include "hlo/printer.h"
#include "hlo/verifier.h"
#include "passes/copy_elision.h"
#include "passes/pass_registry.h"
#include "tests/differential/broken_pass.h"
#include "tests/differential/harness.h"
#include "tests/differential/random_module.h"
#include "tests/differential/test_modules.h"

namespace hloscope::differential {
namespace {

bool FailedWith(const ModuleResult& r, std::string_view pass, std::string_view text) {
  return std::any_of(r.failures.begin(), r.failures.end(), [&](const PassFailure& f) {
    return f.pass == pass && f.message.find(text) != std::string::npos;
  });
}

std::string Failures(const ModuleResult& r) {
  std::string out = r.reason;
  for (const PassFailure& f : r.failures) out += fmt::format("\n{}: {}", f.pass, f.message);
  return out;
}

// The bitcast of a donated parameter and the parameter itself: both outputs hold the same
// numbers, so only the storage check can see that removing the copy merges them.
constexpr std::string_view kDonatedTwice = R"(
HloModule donated_twice, input_output_alias={ {1}: (0, {}, may-alias) }
ENTRY main {
  p = f32[8] parameter(0)
  b = f32[2,4] bitcast(p)
  c = f32[2,4] copy(b)
  ROOT t = (f32[2,4], f32[8]) tuple(c, p)
})";

// A parameter the caller keeps, copied to the result: removing the copy hands the caller's
// buffer out as the result, with the same numbers.
constexpr std::string_view kKeptParameterOut = R"(
HloModule kept_parameter_out
ENTRY main {
  p = f32[8] parameter(0)
  b = f32[2,4] bitcast(p)
  ROOT c = f32[2,4] copy(b)
})";

// Not buffer-safe as given: the update writes the broadcast's buffer while the add still reads
// the broadcast (it depends on the update). The copy at the root is the only use of its
// operand.
constexpr std::string_view kOverwritesLiveBroadcast = R"(
HloModule overwrites_live_broadcast
ENTRY main {
  z = f32[] constant(0)
  b = f32[8] broadcast(z), dimensions={}
  upd = f32[2] parameter(0)
  i = s32[] parameter(1)
  s = f32[8] dynamic-update-slice(b, upd, i)
  r = f32[8] add(s, b)
  ROOT c = f32[8] copy(r)
})";

PassUnderTest Registered(std::string_view name) {
  for (const PassUnderTest& p : RegisteredPasses())
    if (p.name == name) return p;
  ADD_FAILURE() << "no pass " << name;
  return {};
}

TEST(SafetyProperties, EntryOutputsKeptApartByCopyElision) {
  for (std::string_view text : {kDonatedTwice, kKeptParameterOut}) {
    ModuleResult r = CheckModule(text, RegisteredPasses(), {});
    EXPECT_EQ(r.verdict, Verdict::kPass) << Failures(r);
  }
}

TEST(SafetyProperties, EntryOutputsBrokenVariantIsCaught) {
  PassUnderTest broken{"remove-all-copies", [] { return std::make_unique<RemoveAllCopies>(); }};
  ModuleResult twice = CheckModule(kDonatedTwice, {&broken, 1}, {});
  ASSERT_EQ(twice.verdict, Verdict::kFail) << Failures(twice);
  ASSERT_EQ(twice.failures.size(), 1u);
  // Not a difference in the numbers: the storage check caught it.
  EXPECT_EQ(twice.failures[0].message,
            "entry outputs {0} and {1} now share one buffer (XLA gives each output its own: a "
            "copy that kept them apart was removed)");
  ModuleResult kept = CheckModule(kKeptParameterOut, {&broken, 1}, {});
  ASSERT_EQ(kept.verdict, Verdict::kFail) << Failures(kept);
  EXPECT_TRUE(FailedWith(kept, "remove-all-copies",
                         "the buffer of entry parameter 0{} is now at output {}"))
      << Failures(kept);
}

TEST(SafetyProperties, BitcastOptionRemovesASubset) {
  // The real pair: both keep the copy of the bitcast.
  std::vector<PassUnderTest> pair = {Registered("copy-elision"),
                                     Registered("copy-elision{bitcast-defines-value=true}")};
  EXPECT_EQ(pair[1].removes_subset_of, "copy-elision");
  ModuleResult ok = CheckModule(kKeptParameterOut, pair, {});
  EXPECT_EQ(ok.verdict, Verdict::kPass) << Failures(ok);
  // The broken bitcast variant removes it.
  pair[1] = {"remove-copies-of-bitcasts", [] { return std::make_unique<RemoveCopiesOfBitcasts>(); },
             true, true, "copy-elision"};
  ModuleResult r = CheckModule(kKeptParameterOut, pair, {});
  ASSERT_EQ(r.verdict, Verdict::kFail) << Failures(r);
  EXPECT_TRUE(
      FailedWith(r, "remove-copies-of-bitcasts", "removes copies that 'copy-elision' keeps: %c"))
      << Failures(r);
  EXPECT_FALSE(FailedWith(r, "copy-elision", ""));
}

TEST(SafetyProperties, UnsafeModuleLeftAloneByCopyElision) {
  ModuleResult r = CheckModule(kOverwritesLiveBroadcast, RegisteredPasses(), {});
  EXPECT_EQ(r.verdict, Verdict::kNotBaseline) << Failures(r);
  auto module = ParseModule(kOverwritesLiveBroadcast);
  ASSERT_TRUE(module.ok());
  CopyElision pass;
  absl::StatusOr<bool> changed = pass.Run(**module);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_FALSE(*changed);
  EXPECT_FALSE(pass.report().buffer_safe);
  EXPECT_EQ(pass.report().not_buffer_safe,
            "%s takes over the buffer of %b, but %r reads %b after it");
  EXPECT_TRUE(pass.report().copies.empty());
  EXPECT_EQ(pass.report().bytes_saved_per_step, 0);
}

TEST(SafetyProperties, UnsafeModuleBrokenVariantIsCaught) {
  PassUnderTest broken{"remove-sole-use-copies",
                       [] { return std::make_unique<RemoveSoleUseCopies>(); }, false, true};
  ModuleResult r = CheckModule(kOverwritesLiveBroadcast, {&broken, 1}, {});
  ASSERT_EQ(r.verdict, Verdict::kFail) << Failures(r);
  EXPECT_TRUE(
      FailedWith(r, "remove-sole-use-copies", "changed a module that is not buffer-safe as given"))
      << Failures(r);
  // The harness's own module that misses a copy: flagged by the pass too.
  ModuleResult missing = CheckModule(testing::LoopModule(false), RegisteredPasses(), {});
  EXPECT_EQ(missing.verdict, Verdict::kNotBaseline) << Failures(missing);
}

// A chain of `n` in-place updates of one broadcast, element k by the k-th (one buffer of n + 1
// values); with `stale_read`, the last value is added to the sixth, which the seventh update
// overwrote.
std::string UpdateChain(int n, bool stale_read) {
  std::string text =
      "HloModule chain\nENTRY main {\n  z = f32[] constant(0)\n"
      "  d_ = f32[64] broadcast(z), dimensions={}\n  u = f32[1] parameter(0)\n";
  std::string prev = "d_";
  for (int k = 0; k < n; ++k) {
    text += fmt::format(
        "  c{0} = s32[] constant({0})\n  d{0} = f32[64] dynamic-update-slice({1}, u, c{0})\n", k,
        prev);
    prev = fmt::format("d{}", k);
  }
  text += stale_read ? fmt::format("  ROOT r = f32[64] add({}, d5)\n}}\n", prev)
                     : fmt::format("  ROOT r = f32[64] negate({})\n}}\n", prev);
  return text;
}

// Past kPairwiseLimit values a buffer is sorted by definition and neighbours are compared:
// the stale read is still found, and the interpreter agrees.
TEST(SafetyProperties, LargeBufferConflictIsFound) {
  auto module = ParseModule(UpdateChain(40, true));
  ASSERT_TRUE(module.ok()) << module.status();
  CopyElision pass;
  ASSERT_TRUE(pass.Run(**module).ok());
  EXPECT_FALSE(pass.report().buffer_safe);
  EXPECT_EQ(pass.report().not_buffer_safe,
            "%d6 takes over the buffer of %d5, but %r reads %d5 after it");
  std::vector<PassUnderTest> none;
  EXPECT_EQ(CheckModule(UpdateChain(40, true), none, {}).verdict, Verdict::kNotBaseline);
  auto safe = ParseModule(UpdateChain(40, false));
  ASSERT_TRUE(safe.ok());
  CopyElision again;
  ASSERT_TRUE(again.Run(**safe).ok());
  EXPECT_TRUE(again.report().buffer_safe) << again.report().not_buffer_safe;
}

// Whether copy-elision calls the module buffer-safe; nullopt when it cannot run.
std::optional<bool> BufferSafe(std::string_view text) {
  auto module = ParseModule(text);
  if (!module.ok()) return std::nullopt;
  CopyElision pass;
  if (!pass.Run(**module).ok()) return std::nullopt;
  return pass.report().buffer_safe;
}

// Random modules are buffer-safe by construction (text order); with every copy removed, many
// are not. The check must agree with the interpreter: not buffer-safe exactly where buffer mode
// differs from value mode (the interpreter is the judge; a conflict it cannot see, such as an
// overwrite with the same numbers, would show as a disagreement here).
TEST(SafetyProperties, ConsistencyCheckAgreesWithTheInterpreterOnRandomModules) {
  std::vector<PassUnderTest> none;
  int unsafe = 0, safe = 0;
  for (uint64_t seed = 1; seed <= 150; ++seed) {
    const std::string text = RandomModuleText(seed);
    EXPECT_EQ(BufferSafe(text), std::optional<bool>(true)) << "seed " << seed << "\n" << text;
    auto module = ParseModule(text);
    ASSERT_TRUE(module.ok());
    ASSERT_TRUE(RemoveAllCopies().Run(**module).ok());
    const std::string stripped = PrintModule(**module);
    ModuleResult baseline = CheckModule(stripped, none, {});
    if (baseline.verdict == Verdict::kSkipped) continue;
    std::optional<bool> judged = BufferSafe(stripped);
    ASSERT_TRUE(judged.has_value()) << stripped;
    if (baseline.verdict == Verdict::kNotBaseline) {
      ++unsafe;
      EXPECT_FALSE(*judged) << "seed " << seed << ": the interpreter sees a conflict\n" << stripped;
    } else {
      ++safe;
    }
  }
  fmt::print("random modules without their copies: {} not buffer-safe, {} still safe\n", unsafe,
             safe);
  EXPECT_GE(unsafe, 30);  // the generator places needed copies in most modules
}

// removed(bitcast_defines_value=true) ⊆ removed(false) on the curated corpus (modules split,
// flatten-call-graph first as the lit corpus test does; modules the analyses refuse are
// counted and left out).
TEST(SafetyProperties, BitcastOptionRemovesASubsetOnTheCorpus) {
  const std::filesystem::path dir = HLOSCOPE_CORPUS_DIR;
  ASSERT_TRUE(std::filesystem::is_directory(dir)) << dir;
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".hlo") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  int compared = 0, with_removals = 0, refused = 0;
  for (const auto& path : files) {
    std::ifstream in(path);
    std::stringstream buffer;
    buffer << in.rdbuf();
    const std::string text = buffer.str();
    for (const InputChunk& chunk : SplitInputFile(text)) {
      std::set<std::string> removed[2];
      bool ok = true;
      for (bool bitcast_defines_value : {false, true}) {
        auto module = ParseModule(chunk.text);
        if (!module.ok() || !VerifyModule(**module).ok()) {
          ok = false;
          break;
        }
        auto flatten = PassRegistry::Global().Create("flatten-call-graph");
        ASSERT_TRUE(flatten.ok());
        CopyElision pass({.dataflow = {.bitcast_defines_value = bitcast_defines_value}});
        if (!(*flatten)->Run(**module).ok() || !pass.Run(**module).ok()) {
          ok = false;
          break;
        }
        for (const CopyDecision& d : pass.report().copies)
          if (d.removed) removed[bitcast_defines_value].insert(d.computation + "/" + d.name);
      }
      if (!ok) {
        ++refused;
        continue;
      }
      ++compared;
      if (!removed[0].empty()) ++with_removals;
      for (const std::string& name : removed[1]) {
        EXPECT_TRUE(removed[0].contains(name))
            << path.filename() << ":" << chunk.first_line << ": %" << name
            << " removed only with bitcasts as new values";
      }
    }
  }
  fmt::print("corpus: {} modules compared ({} with removals), {} refused\n", compared,
             with_removals, refused);
  EXPECT_GE(compared, 30);
  EXPECT_GE(with_removals, 2);
}

}  // namespace
}  // namespace hloscope::differential
