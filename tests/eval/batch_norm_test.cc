// batch-norm-training, -inference and -grad (eval/batch_norm.cc): layouts, the rounding of every
// step of XLA's expansion in the operand's type, and the refusals of modules the verifier never
// saw. testdata/tools/hlo_run/batch_norm.hlo has the hand-worked f32 values and compares the ops
// with their expansion on random arguments.
#include "gtest/gtest.h"
#include "support/status_text.h"
#include "support/str_util.h"
#include "tests/eval/eval_test_util.h"

namespace hloscope::eval {
namespace {

using testing::RunBoth;

TEST(BatchNormTest, ColumnMajorOperandAndResultHoldTheSameValues) {
  // batch_norm.hlo's training case with x and y stored column-major.
  EXPECT_EQ(RunBoth(R"(
HloModule m
ENTRY e {
  x = f32[4,2]{0,1} parameter(0)
  scale = f32[2] parameter(1)
  offset = f32[2] parameter(2)
  ROOT bn = (f32[4,2]{0,1}, f32[2], f32[2]) batch-norm-training(x, scale, offset), epsilon=0, feature_index=1
}
)",
                    {"{{0, 1}, {0, 3}, {4, 1}, {4, 3}}", "{1, 2}", "{0, 10}"}),
            "{0}: f32[4,2] {{-1, 8}, {-1, 12}, {1, 8}, {1, 12}}\n{1}: f32[2] {2, 2}\n"
            "{2}: f32[2] {4, 1}");
}

TEST(BatchNormTest, EveryStepIsRoundedToTheOperandType) {
  // bf16, x = {1, 2, 3}: sum(x^2) / 3 = 14 / 3 rounds to 4.65625 (8 significant bits), so the
  // variance is 4.65625 - 2^2 = 0.65625, not 2/3; rsqrt(0.65625) = 1.23443 rounds to 1.234375.
  EXPECT_EQ(RunBoth(R"(
HloModule m
ENTRY e {
  x = bf16[3,1] parameter(0)
  scale = bf16[1] parameter(1)
  offset = bf16[1] parameter(2)
  ROOT bn = (bf16[3,1], bf16[1], bf16[1]) batch-norm-training(x, scale, offset), epsilon=0, feature_index=1
}
)",
                    {"{{1}, {2}, {3}}", "{1}", "{0}"}),
            "{0}: bf16[3,1] {{-1.234375}, {0}, {1.234375}}\n{1}: bf16[1] {2}\n"
            "{2}: bf16[1] {0.65625}");
}

TEST(BatchNormTest, FeatureFirstAndZeroSizedOperands) {
  // feature_index=0 of f32[2,3]: each row is a feature. A batch with no elements gives
  // mean 0 / 0 = NaN per feature (as the expansion's divide does).
  EXPECT_EQ(
      RunBoth(R"(
HloModule m
ENTRY e {
  x = f32[2,3] parameter(0)
  scale = f32[2] parameter(1)
  offset = f32[2] parameter(2)
  mean = f32[2] parameter(3)
  variance = f32[2] parameter(4)
  y = f32[2,3] batch-norm-inference(x, scale, offset, mean, variance), epsilon=0, feature_index=0
  empty = f32[0,2] parameter(5)
  e2 = f32[2] parameter(6)
  t = (f32[0,2], f32[2], f32[2]) batch-norm-training(empty, e2, e2), epsilon=0, feature_index=1
  tm = f32[2] get-tuple-element(t), index=1
  ROOT r = (f32[2,3], f32[2]) tuple(y, tm)
}
)",
              {"{{1, 2, 3}, {4, 5, 6}}", "{1, 3}", "{0, 1}", "{1, 4}", "{4, 9}", "{}", "{1, 1}"}),
      "{0}: f32[2,3] {{0, 0.5, 1}, {1, 2, 3}}\n{1}: f32[2] {nan, nan}");
}

std::string Refusal(std::string_view body, std::string_view params = R"(
  x = f32[4,2] parameter(0)
  s2 = f32[2] parameter(1)
  s3 = f32[3] parameter(2)
)") {
  std::unique_ptr<Module> m =
      testing::Parse(StrCat("HloModule m\nENTRY e {\n", params, body, "\n}\n"));
  if (m == nullptr) return "parse error";
  absl::StatusOr<Literal> out = Evaluate(*m, RandomArguments(*m, 1), {});
  return out.ok() ? "ran" : std::string(StatusText(out.status()));
}

TEST(BatchNormTest, RefusesOperandsAndAttributesThatDoNotFit) {
  EXPECT_EQ(Refusal("  ROOT bn = (f32[4,2], f32[2], f32[2]) batch-norm-training(x, s3, s2), "
                    "epsilon=0.001, feature_index=1"),
            "cannot run %bn: batch-norm-training operand 1 is f32[3] but must be f32[2] "
            "(operand 0 is f32[4,2], feature_index=1)");
  EXPECT_EQ(Refusal("  ROOT bn = (f32[4,2], f32[2], f32[2]) batch-norm-training(x, s2, s2), "
                    "epsilon=0.001, feature_index=2"),
            "cannot run %bn: batch-norm-training needs feature_index= naming a dimension of its "
            "f32[4,2] operand");
  EXPECT_EQ(Refusal("  ROOT bn = (f32[4,2], f32[2], f32[2]) batch-norm-training(x, s2, s2), "
                    "feature_index=1"),
            "cannot run %bn: batch-norm-training needs epsilon= as a finite f32 number");
  EXPECT_EQ(Refusal("  ROOT bn = (f32[4,2], f32[2]) batch-norm-training(x, s2, s2), "
                    "epsilon=0.001, feature_index=1"),
            "cannot run %bn: batch-norm-training gives (f32[4,2], f32[2], f32[2]), not "
            "(f32[4,2], f32[2])");
  EXPECT_EQ(Refusal("  ROOT bn = f32[4,2] batch-norm-inference(x, s2, s2, s2, x), "
                    "epsilon=0.001, feature_index=1"),
            "cannot run %bn: batch-norm-inference operand 4 is f32[4,2] but must be f32[2] "
            "(operand 0 is f32[4,2], feature_index=1)");
  EXPECT_EQ(Refusal("  ROOT bn = (f32[4,2], f32[2], f32[2]) batch-norm-grad(x, s2, s2, s2, s2), "
                    "epsilon=0.001, feature_index=1"),
            "cannot run %bn: batch-norm-grad operand 4 is f32[2] but must be f32[4,2] "
            "(operand 0 is f32[4,2], feature_index=1)");
  EXPECT_EQ(Refusal("  ROOT bn = (s32[4,2], s32[2], s32[2]) batch-norm-training(x, s, s), "
                    "epsilon=0.001, feature_index=1",
                    "  x = s32[4,2] parameter(0)\n  s = s32[2] parameter(1)\n"),
            "cannot run %bn: batch-norm-training needs a real floating-point operand, not s32");
}

}  // namespace
}  // namespace hloscope::eval
