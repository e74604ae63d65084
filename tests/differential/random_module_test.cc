// The random module generator: every module parses and verifies, generation is
// deterministic, and the features the harness relies on (loops, needed copies, in-place
// updates inside fusions, layout-changing bitcasts) actually occur.
#include "tests/differential/random_module.h"

#include <string>

#include "fmt/format.h"
#include "gtest/gtest.h"
#include "hlo/parser.h"
#include "hlo/verifier.h"
#include "support/status_text.h"

namespace hloscope::differential {
namespace {

TEST(RandomModuleTest, EveryModuleParsesAndVerifies) {
  for (uint64_t seed = 0; seed < 1000; ++seed) {
    std::string text = RandomModuleText(seed, {});
    auto module = ParseModule(text);
    ASSERT_TRUE(module.ok()) << "seed " << seed << ": " << StatusText(module.status()) << "\n"
                             << text;
    absl::Status s = VerifyModule(**module);
    ASSERT_TRUE(s.ok()) << "seed " << seed << ": " << StatusText(s) << "\n" << text;
  }
}

TEST(RandomModuleTest, SameSeedSameTextOtherSeedOtherText) {
  EXPECT_EQ(RandomModuleText(7, {}), RandomModuleText(7, {}));
  EXPECT_NE(RandomModuleText(7, {}), RandomModuleText(8, {}));
}

TEST(RandomModuleTest, FeaturesOccur) {
  int loops = 0, needed = 0, fused_updates = 0, relayout_bitcasts = 0, conditionals = 0;
  const int kModules = 300;
  for (uint64_t seed = 0; seed < kModules; ++seed) {
    RandomModule m = GenerateRandomModule(seed, {});
    loops += m.text.find(" while(") != std::string::npos;
    needed += m.needed_copies > 0;
    fused_updates += m.text.find("fused_row_update") != std::string::npos;
    conditionals += m.text.find(" conditional(") != std::string::npos;
    // A bitcast to a non-default layout: "{0,1}" is the transposed rank-2 layout.
    relayout_bitcasts += m.text.find("{0,1} bitcast(") != std::string::npos;
  }
  fmt::print(
      "of {} modules: {} loops, {} with needed copies, {} fused row updates, {} "
      "conditionals, {} transposing bitcasts\n",
      kModules, loops, needed, fused_updates, conditionals, relayout_bitcasts);
  EXPECT_GT(loops, kModules * 7 / 10);
  EXPECT_GT(needed, kModules / 4);
  EXPECT_GT(fused_updates, kModules / 20);
  EXPECT_GT(conditionals, kModules / 10);
  EXPECT_GT(relayout_bitcasts, kModules / 20);
}

TEST(RandomModuleTest, ArraysStayWithinTheElementLimit) {
  RandomModuleOptions options;
  options.max_elements = 64;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    auto module = ParseModule(RandomModuleText(seed, options));
    ASSERT_TRUE(module.ok());
    for (Computation* c : (*module)->computations())
      for (Instruction* i : c->instructions())
        if (i->shape().IsArray()) {
          EXPECT_LE(i->shape().ElementCount(), 64) << "seed " << seed << " " << i->name();
        }
  }
}

}  // namespace
}  // namespace hloscope::differential
