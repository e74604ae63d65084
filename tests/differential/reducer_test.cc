// The reducer on synthetic predicates: it shrinks to a 1-minimal module that still satisfies
// the predicate, keeps modules valid, and stops within its budget.
#include "tests/differential/reducer.h"

#include <string>

#include "gtest/gtest.h"
#include "hlo/parser.h"
#include "hlo/verifier.h"
#include "tests/differential/broken_pass.h"
#include "tests/differential/harness.h"
#include "tests/differential/random_module.h"

namespace hloscope::differential {
namespace {

constexpr char kChain[] = R"(
HloModule chain

ENTRY main {
  p = f32[3] parameter(0)
  q = f32[3] parameter(1)
  a = f32[3] negate(p)
  b = f32[3] exponential(a)
  c = f32[3] multiply(b, q)
  d = f32[3] add(c, a)
  e = f32[3] tanh(d)
  ROOT f = f32[3] subtract(e, p)
}
)";

bool Valid(const std::string& text) {
  auto m = ParseModule(text);
  return m.ok() && VerifyModule(**m).ok();
}

TEST(ReducerTest, KeepsOnlyWhatThePredicateNeeds) {
  int calls = 0;
  ReduceResult r = ReduceModule(kChain, [&](const std::string& t) {
    ++calls;
    EXPECT_TRUE(Valid(t)) << t;
    return t.find(" multiply(") != std::string::npos;
  });
  EXPECT_EQ(r.tries, calls);
  EXPECT_EQ(r.instructions_before, 8);
  // The multiply is now the root, reading the parameters (or zeros) directly.
  EXPECT_NE(r.text.find("ROOT c = f32[3] multiply("), std::string::npos) << r.text;
  EXPECT_EQ(r.text.find("negate"), std::string::npos) << r.text;
  EXPECT_EQ(r.text.find("tanh"), std::string::npos) << r.text;
  EXPECT_LE(r.instructions_after, 4);
}

TEST(ReducerTest, ResultIsOneMinimal) {
  auto needs_exp_of_negate = [](const std::string& t) {
    return t.find(" exponential(") != std::string::npos && t.find(" negate(") != std::string::npos;
  };
  ReduceResult r = ReduceModule(kChain, needs_exp_of_negate);
  EXPECT_TRUE(needs_exp_of_negate(r.text));
  // Reducing again finds nothing more to remove.
  ReduceResult again = ReduceModule(r.text, needs_exp_of_negate);
  EXPECT_EQ(again.text, r.text);
  EXPECT_EQ(again.instructions_after, r.instructions_after);
}

TEST(ReducerTest, ShrinksARandomModuleToTheCopyThatMatters) {
  // The synthetic predicate: "the module still contains a copy whose removal changes the
  // result" (the broken pass fails on it).
  PassUnderTest broken{"remove-all-copies", [] { return std::make_unique<RemoveAllCopies>(); },
                       false};
  int reduced = 0;
  for (uint64_t seed = 0; seed < 60 && reduced < 3; ++seed) {
    std::string text = RandomModuleText(seed, {});
    if (!PassFailureOn(text, broken, {})) continue;
    ReduceResult r = ReduceModule(
        text, [&](const std::string& t) { return PassFailureOn(t, broken, {}).has_value(); });
    EXPECT_LT(r.instructions_after, r.instructions_before) << r.text;
    EXPECT_NE(r.text.find(" copy("), std::string::npos) << r.text;
    EXPECT_TRUE(PassFailureOn(r.text, broken, {}).has_value()) << r.text;
    ++reduced;
  }
  EXPECT_EQ(reduced, 3);
}

TEST(ReducerTest, AnInputThatDoesNotParseComesBackUnchanged) {
  ReduceResult r = ReduceModule("HloModule m\nENTRY {", [](const std::string&) { return true; });
  EXPECT_EQ(r.text, "HloModule m\nENTRY {");
  EXPECT_EQ(r.tries, 0);
}

TEST(ReducerTest, StopsAtTheTryBudget) {
  ReduceResult r = ReduceModule(
      kChain, [](const std::string&) { return false; }, ReduceOptions{.max_tries = 3});
  EXPECT_EQ(r.tries, 3);
  EXPECT_EQ(r.instructions_after, r.instructions_before);
}

}  // namespace
}  // namespace hloscope::differential
