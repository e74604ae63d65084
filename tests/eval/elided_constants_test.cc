// Elided constants (`constant({...})`, eval/elided_constants.h): refused by default with
// elided_constants as the lifting option; in seeded mode filled with the values RandomLiteral
// gives for the seed mixed with the constant's name.
#include "eval/elided_constants.h"

#include "gtest/gtest.h"
#include "support/option_error.h"
#include "support/status_text.h"
#include "tests/eval/eval_test_util.h"

namespace hloscope::eval {
namespace {

constexpr std::string_view kTwoConstants = R"(HloModule m
ENTRY e {
  a = f32[64] constant({...})
  b = f32[64] constant({...})
  ROOT t = (f32[64], f32[64]) tuple(a, b)
}
)";

EvalOptions Seeded(uint64_t seed) {
  EvalOptions options;
  options.elided_constants = ElidedConstants::kSeeded;
  options.elided_constants_seed = seed;
  return options;
}

TEST(EvalElidedConstantsTest, RefusedByDefaultNamingTheOption) {
  std::unique_ptr<Module> m = testing::Parse(kTwoConstants);
  ASSERT_NE(m, nullptr);
  absl::Status s = CheckRunnable(*m, EvalOptions());
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_EQ(LiftingOption(s), "elided_constants");
  EXPECT_EQ(StatusText(s),
            "the interpreter cannot run constant %a: its contents were elided ({...}) when the "
            "module was dumped");
}

TEST(EvalElidedConstantsTest, SeededValuesDependOnNameAndSeed) {
  std::unique_ptr<Module> m = testing::Parse(kTwoConstants);
  ASSERT_NE(m, nullptr);
  absl::StatusOr<Literal> one = Evaluate(*m, {}, Seeded(1));
  ASSERT_TRUE(one.ok()) << StatusText(one.status());
  absl::StatusOr<Literal> again = Evaluate(*m, {}, Seeded(1));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(FirstDifference(*one, *again), std::nullopt);
  // Two constants of one shape: different names, different values.
  EXPECT_NE(FirstDifference(one->elements()[0], one->elements()[1]), std::nullopt);
  absl::StatusOr<Literal> other = Evaluate(*m, {}, Seeded(2));
  ASSERT_TRUE(other.ok());
  EXPECT_NE(FirstDifference(one->elements()[0], other->elements()[0]), std::nullopt);
  // In range: multiples of 1/8 in [-2, 2), as RandomLiteral gives.
  for (int64_t i = 0; i < 64; ++i) {
    double v = one->elements()[0].GetLinear(i);
    EXPECT_GE(v, -2.0);
    EXPECT_LT(v, 2.0);
    EXPECT_EQ(v * 8, static_cast<double>(static_cast<int64_t>(v * 8)));
  }
}

TEST(EvalElidedConstantsTest, SameNameSameValuesInAnotherModule) {
  std::unique_ptr<Module> m = testing::Parse(kTwoConstants);
  std::unique_ptr<Module> n = testing::Parse(R"(HloModule n
ENTRY e {
  x = f32[2] parameter(0)
  b = f32[64] constant({...})
  ROOT n = f32[64] negate(b)
}
)");
  ASSERT_NE(m, nullptr);
  ASSERT_NE(n, nullptr);
  absl::StatusOr<Literal> from_m = Evaluate(*m, {}, Seeded(3));
  std::vector<Literal> args = RandomArguments(*n, 0);
  absl::StatusOr<Literal> from_n = Evaluate(*n, args, Seeded(3));
  ASSERT_TRUE(from_m.ok() && from_n.ok());
  for (int64_t i = 0; i < 64; ++i) {
    EXPECT_EQ(from_n->GetLinear(i), -from_m->elements()[1].GetLinear(i)) << i;
  }
}

TEST(EvalElidedConstantsTest, SeededModeRefusesAPartlyElidedTuple) {
  std::unique_ptr<Module> m = testing::Parse(
      "HloModule m\nENTRY e {\n  ROOT c = (f32[2], f32[2]) constant(({...}, {1, 2}))\n}\n");
  ASSERT_NE(m, nullptr);
  absl::Status s = CheckRunnable(*m, Seeded(0));
  EXPECT_EQ(StatusText(s),
            "the interpreter cannot run constant %c: seeded values replace only a whole array "
            "elided as {...}, not '({...}, {1, 2})'");
  EXPECT_EQ(LiftingOption(s), "");
}

TEST(EvalElidedConstantsTest, ConstantsThatAreNotElidedParseAsBefore) {
  std::unique_ptr<Module> m =
      testing::Parse("HloModule m\nENTRY e {\n  ROOT c = s32[3] constant({1, 2, 3})\n}\n");
  ASSERT_NE(m, nullptr);
  const Instruction* c = m->entry()->root();
  EXPECT_FALSE(IsElidedConstant(*c));
  absl::StatusOr<Literal> v = ConstantValue(*c, Seeded(9));
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->GetLinear(2), 3);
}

}  // namespace
}  // namespace hloscope::eval
