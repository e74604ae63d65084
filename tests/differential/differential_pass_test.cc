// Every registered pass, run over
//  (a) every module in testdata/ the interpreter supports,
//  (b) hlo-gen modules at tiny sizes (spmd-circular and each mpmd stage, XLA copies on/off),
//  (c) a fixed set of random modules,
// must preserve the results bit for bit (original in value mode vs transformed in buffer
// mode). A failure prints the reduced module. Also: the broken pass (remove-all-copies) is
// caught on most random modules that contain needed copies.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "fmt/ranges.h"
#include "gtest/gtest.h"
#include "hlo/parser.h"
#include "tests/differential/broken_pass.h"
#include "tests/differential/harness.h"
#include "tests/differential/random_module.h"
#include "tools/hlo-gen/model.h"
#include "tools/hlo-gen/options.h"

namespace hloscope::differential {
namespace {

struct LabelledModule {
  std::string label;
  std::string text;
};

// Checks one module with every pass; a failure is reported with the reduced module.
void CheckAndReport(const LabelledModule& m, absl::Span<const PassUnderTest> passes,
                    const HarnessOptions& options, Tally& tally) {
  ModuleResult r = CheckModule(m.text, passes, options);
  tally.Add(r);
  if (r.verdict == Verdict::kNotBaseline) fmt::print("not a valid baseline: {}\n", m.label);
  for (const PassFailure& f : r.failures) {
    auto pass = std::find_if(passes.begin(), passes.end(),
                             [&](const PassUnderTest& p) { return p.name == f.pass; });
    ADD_FAILURE() << m.label << ": pass '" << f.pass << "': " << f.message << "\n"
                  << ReduceAndDescribe(m.text, *pass, options);
  }
}

std::vector<LabelledModule> TestdataModules() {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(HLOSCOPE_TESTDATA_DIR))
    if (entry.is_regular_file() && entry.path().extension() == ".hlo")
      files.push_back(entry.path());
  std::sort(files.begin(), files.end());  // a stable order for stable output
  std::vector<LabelledModule> modules;
  for (const auto& path : files) {
    std::ifstream in(path);
    std::stringstream buffer;
    buffer << in.rdbuf();
    std::string text = buffer.str();
    std::string rel = std::filesystem::relative(path, HLOSCOPE_TESTDATA_DIR).string();
    for (const InputChunk& chunk : SplitInputFile(text))
      modules.push_back(
          {fmt::format("testdata/{}:{}", rel, chunk.first_line), std::string(chunk.text)});
  }
  return modules;
}

// The testdata modules in four shards (module k in shard k % 4), so that ctest -j runs them
// side by side: one test over all of them was the suite's longest by far.
constexpr int kTestdataShards = 4;

class DifferentialTestdataTest : public testing::TestWithParam<int> {};

TEST_P(DifferentialTestdataTest, Modules) {
  const std::vector<LabelledModule> all = TestdataModules();
  std::vector<PassUnderTest> passes = RegisteredPasses();
  Tally tally;
  // 10^6 evaluated instructions at most: every testdata module that ends needs far fewer,
  // and the few of XLA's test modules whose loops never end (the ordering and dataflow tests
  // only analyse them) then stop in a tenth of a second instead of ten at the harness's 10^8,
  // which was half of this test's time.
  HarnessOptions options;
  options.max_steps = 1'000'000;
  for (size_t k = static_cast<size_t>(GetParam()); k < all.size(); k += kTestdataShards) {
    CheckAndReport(all[k], passes, options, tally);
  }
  fmt::print("testdata shard {} of {} x {} passes: {}\n", GetParam(), kTestdataShards,
             passes.size(), tally.Summary());
  EXPECT_EQ(tally.failed, 0);
  // A sane minimum: testdata/passes, examples, syntax and analysis hold many small runnable
  // modules; far fewer in a shard means the walk or the interpreter broke.
  EXPECT_GE(tally.passed, 10);
}

INSTANTIATE_TEST_SUITE_P(Shards, DifferentialTestdataTest, testing::Range(0, kTestdataShards));

TEST(DifferentialPassTest, HloGenModulesAtTinySizes) {
  std::vector<LabelledModule> modules;
  for (bool xla_copies : {true, false}) {
    gen::Options o;
    o.layers = 2;
    o.stages = 2;
    o.hidden = 8;
    o.heads = 2;
    o.seq = 4;
    o.microbatch = 1;
    o.microbatches = 3;
    o.xla_copies = xla_copies;
    std::string copies = xla_copies ? "on" : "off";
    o.layout = gen::Layout::kSpmdCircular;
    std::string spmd;
    gen::Sink spmd_sink(&spmd);
    gen::GenerateModule(o, -1, spmd_sink);
    modules.push_back({"hlo-gen spmd-circular --xla-copies=" + copies, spmd});
    o.layout = gen::Layout::kMpmd;
    for (int stage = 0; stage < o.stages; ++stage) {
      std::string text;
      gen::Sink sink(&text);
      gen::GenerateModule(o, stage, sink);
      modules.push_back(
          {fmt::format("hlo-gen mpmd stage {} --xla-copies={}", stage, copies), text});
    }
  }
  std::vector<PassUnderTest> passes = RegisteredPasses();
  HarnessOptions options;
  options.max_bytes = int64_t{64} << 20;  // the 32000-word embedding table alone is 0.5 MiB
  options.seeds = 1;  // these modules take ~100 ms per run; the random modules vary the seeds
  Tally tally;
  for (const LabelledModule& m : modules) {
    int passed_before = tally.passed;
    CheckAndReport(m, passes, options, tally);
    // With --xla-copies the module is "after copy insertion": it must be a valid baseline and
    // so actually checked. Without them it may lack a copy buffer sharing needs (counted).
    if (m.label.ends_with("--xla-copies=on")) {
      EXPECT_EQ(tally.passed, passed_before + 1) << m.label << " was not checked";
    }
  }
  fmt::print("hlo-gen × {} passes: {}\n", passes.size(), tally.Summary());
  EXPECT_EQ(tally.failed, 0);
}

constexpr uint64_t kRandomModules = 250;

TEST(DifferentialPassTest, RandomModules) {
  std::vector<PassUnderTest> passes = RegisteredPasses();
  Tally tally;
  for (uint64_t seed = 0; seed < kRandomModules; ++seed)
    CheckAndReport({fmt::format("random module seed {}", seed), RandomModuleText(seed, {})}, passes,
                   {}, tally);
  fmt::print("random × {} passes: {}\n", passes.size(), tally.Summary());
  EXPECT_EQ(tally.failed, 0);
  EXPECT_GE(tally.passed, 200);
  // The modules give the passes work: copy-elision removes copies in many of them, dce
  // removes the generator's dead ops.
  EXPECT_GE(tally.changed_by["copy-elision"], int(kRandomModules) / 4);
  EXPECT_GE(tally.changed_by["dce"], int(kRandomModules) / 2);
  // The generator places every copy buffer sharing needs; a module that is not buffer-safe is
  // a generator bug, tolerated only rarely.
  EXPECT_LE(tally.not_baseline, int(kRandomModules) / 50);
}

TEST(DifferentialPassTest, BrokenPassIsCaughtOnRandomModulesWithNeededCopies) {
  PassUnderTest broken{"remove-all-copies", [] { return std::make_unique<RemoveAllCopies>(); },
                       false};
  int with_needed = 0, caught = 0;
  std::vector<uint64_t> missed;
  for (uint64_t seed = 0; seed < kRandomModules; ++seed) {
    RandomModule m = GenerateRandomModule(seed, {});
    if (m.needed_copies == 0) continue;
    ModuleResult r = CheckModule(m.text, {&broken, 1}, {});
    if (r.verdict != Verdict::kPass && r.verdict != Verdict::kFail) continue;
    ++with_needed;
    caught += r.verdict == Verdict::kFail;
    if (r.verdict == Verdict::kPass) missed.push_back(seed);
  }
  fmt::print(
      "remove-all-copies caught on {} of {} random modules with needed copies; missed "
      "seeds: {}\n",
      caught, with_needed, fmt::join(missed, " "));
  EXPECT_GE(with_needed, int(kRandomModules) / 3);
  EXPECT_GE(caught * 10, with_needed * 8);  // at least 80%
}

}  // namespace
}  // namespace hloscope::differential
