// The interpreter's limits on hostile modules (issue 22): a call chain deeper than the stack
// allows, loops nested so that their product of trips never ends, a call graph that fans out
// exponentially, and storage sums past int64. Each must end in a clear ResourceExhausted
// error, never a crash, a hang or a wrapped byte count. Labelled robustness, so scripts/test
// runs it under ASan+UBSan as well (where a stack overflow or signed overflow would abort).
#include <string>

#include "fmt/format.h"
#include "gtest/gtest.h"
#include "support/option_error.h"
#include "support/status_text.h"
#include "tests/eval/eval_test_util.h"

namespace hloscope::eval {
namespace {

// c0 calls c1 ... calls c{depth-1}, which negates; the entry calls c0.
std::string CallChain(int depth) {
  std::string text = "HloModule chain\n";
  text +=
      fmt::format("c{} {{\n  p = f32[] parameter(0)\n  ROOT n = f32[] negate(p)\n}}\n", depth - 1);
  for (int i = depth - 2; i >= 0; --i) {
    text += fmt::format(
        "c{} {{\n  p = f32[] parameter(0)\n  ROOT c = f32[] call(p), to_apply=c{}\n}}\n", i, i + 1);
  }
  text += "ENTRY e {\n  p = f32[] parameter(0)\n  ROOT c = f32[] call(p), to_apply=c0\n}\n";
  return text;
}

// f{levels} calls f{levels-1} twice, ..., so the entry reaches f0 2^levels times.
std::string FanOut(int levels) {
  std::string text = "HloModule fan\n";
  text += "f0 {\n  p = f32[] parameter(0)\n  ROOT n = f32[] negate(p)\n}\n";
  for (int i = 1; i <= levels; ++i) {
    text += fmt::format(
        "f{0} {{\n  p = f32[] parameter(0)\n  a = f32[] call(p), to_apply=f{1}\n"
        "  ROOT b = f32[] call(a), to_apply=f{1}\n}}\n",
        i, i - 1);
  }
  text += fmt::format(
      "ENTRY e {{\n  p = f32[] parameter(0)\n  ROOT c = f32[] call(p), to_apply=f{}\n}}\n", levels);
  return text;
}

// `depth` while loops inside each other, each of 2 trips: 2^depth innermost iterations.
std::string NestedLoops(int depth) {
  std::string text = "HloModule loops\n";
  for (int i = 0; i < depth; ++i) {
    text += fmt::format(
        "cond{} {{\n  p = (s32[], f32[]) parameter(0)\n  i = s32[] get-tuple-element(p), "
        "index=0\n  two = s32[] constant(2)\n  ROOT lt = pred[] compare(i, two), "
        "direction=LT\n}}\n",
        i);
    std::string inner =
        i + 1 < depth ? fmt::format(
                            "  z = s32[] constant(0)\n  t0 = (s32[], f32[]) tuple(z, v)\n"
                            "  w = (s32[], f32[]) while(t0), condition=cond{0}, body=body{0}\n"
                            "  x = f32[] get-tuple-element(w), index=1\n",
                            i + 1)
                      : "  x = f32[] negate(v)\n";
    text += fmt::format(
        "body{} {{\n  p = (s32[], f32[]) parameter(0)\n  i = s32[] get-tuple-element(p), "
        "index=0\n  v = f32[] get-tuple-element(p), index=1\n{}  one = s32[] constant(1)\n"
        "  i1 = s32[] add(i, one)\n  ROOT t = (s32[], f32[]) tuple(i1, x)\n}}\n",
        i, inner);
  }
  text +=
      "ENTRY e {\n  v = f32[] parameter(0)\n  z = s32[] constant(0)\n"
      "  t = (s32[], f32[]) tuple(z, v)\n"
      "  w = (s32[], f32[]) while(t), condition=cond0, body=body0\n"
      "  ROOT r = f32[] get-tuple-element(w), index=1\n}\n";
  return text;
}

absl::StatusOr<Literal> RunSeeded(const Module& m, EvalOptions options) {
  return Evaluate(m, RandomArguments(m, 1), options);
}

TEST(RunLimitsTest, CallChainDeeperThanTheLimitIsRefusedNotAStackOverflow) {
  std::unique_ptr<Module> m = testing::Parse(CallChain(30000));
  ASSERT_NE(m, nullptr);
  for (EvalMode mode : {EvalMode::kValue, EvalMode::kBuffer}) {
    absl::StatusOr<Literal> out = RunSeeded(*m, {.mode = mode});
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), absl::StatusCode::kResourceExhausted);
    EXPECT_EQ(StatusText(out.status()),
              "computation c255 is nested more than 256 levels deep (calls, loops, "
              "conditionals and fusions inside each other)");
  }
}

TEST(RunLimitsTest, CallChainJustWithinTheLimitRuns) {
  // The entry is level 1, so 255 more computations fit (this also checks, under ASan, that the
  // limit leaves the stack room).
  std::unique_ptr<Module> m = testing::Parse(CallChain(255));
  ASSERT_NE(m, nullptr);
  absl::StatusOr<Literal> out = Evaluate(*m, testing::Args(*m, {"1.5"}), {});
  ASSERT_TRUE(out.ok()) << StatusText(out.status());
  EXPECT_EQ(FormatLiteral(*out, true), "f32[] -1.5\n");
}

TEST(RunLimitsTest, NestedLoopsStopOnTheRunsStepBudget) {
  std::unique_ptr<Module> m = testing::Parse(NestedLoops(200));
  ASSERT_NE(m, nullptr);
  for (EvalMode mode : {EvalMode::kValue, EvalMode::kBuffer}) {
    absl::StatusOr<Literal> out = RunSeeded(*m, {.mode = mode, .max_steps = 100'000});
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), absl::StatusCode::kResourceExhausted);
    EXPECT_TRUE(StatusText(out.status())
                    .starts_with("the run evaluated more than 100000 instructions; stopped at %"))
        << StatusText(out.status());
    EXPECT_EQ(LiftingOption(out.status()), "max_steps");
  }
}

TEST(RunLimitsTest, StepBudgetCountsEveryInstructionOfTheRun) {
  // 3 nested 2-trip loops: the budget is one count for the whole run, so the smallest budget
  // that runs is exactly the number of instructions evaluated across every loop level.
  std::unique_ptr<Module> m = testing::Parse(NestedLoops(3));
  ASSERT_NE(m, nullptr);
  int64_t fits = 0;
  for (int64_t budget = 1; budget < 10'000; budget *= 2) {
    if (RunSeeded(*m, {.max_steps = budget}).ok()) {
      fits = budget;
      break;
    }
  }
  ASSERT_GT(fits, 0);
  int64_t lo = fits / 2, hi = fits;  // lo fails, hi runs: find the exact count
  while (hi - lo > 1) {
    int64_t mid = lo + (hi - lo) / 2;
    (RunSeeded(*m, {.max_steps = mid}).ok() ? hi : lo) = mid;
  }
  // A loop whose condition (4 instructions) runs 3 times and body twice costs 4*3 + 2*(B + L),
  // L being the inner loop's cost: the innermost body has B=7, the outer bodies B=10; the
  // entry has 5.
  const int64_t innermost = 4 * 3 + 2 * 7;
  const int64_t middle = 4 * 3 + 2 * (10 + innermost);
  const int64_t outer = 4 * 3 + 2 * (10 + middle);
  EXPECT_EQ(hi, 5 + outer);
}

TEST(RunLimitsTest, ExponentialCallGraphStopsOnTheStepBudget) {
  std::unique_ptr<Module> m = testing::Parse(FanOut(40));
  ASSERT_NE(m, nullptr);
  absl::StatusOr<Literal> out = RunSeeded(*m, {.max_steps = 100'000});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(LiftingOption(out.status()), "max_steps");
}

TEST(RunLimitsTest, StorageSumPastInt64SaturatesInsteadOfWrapping) {
  // Each parameter alone fits int64 bytes (2^60 f32 elements, 2^62 bytes); the four sum to
  // 2^64, which used to wrap to 0 and pass any --max-bytes.
  constexpr std::string_view text = R"(
HloModule huge
ENTRY e {
  a = f32[1152921504606846976] parameter(0)
  b = f32[1152921504606846976] parameter(1)
  c = f32[1152921504606846976] parameter(2)
  d = f32[1152921504606846976] parameter(3)
  ROOT t = (f32[1152921504606846976], f32[1152921504606846976], f32[1152921504606846976],
            f32[1152921504606846976]) tuple(a, b, c, d)
}
)";
  std::unique_ptr<Module> m = testing::Parse(text);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(RequiredBytes(*m), std::numeric_limits<int64_t>::max());
  absl::Status s = CheckRunnable(*m, {.max_bytes = std::numeric_limits<int64_t>::max() - 1});
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(StatusText(s).find("more than the limit"), std::string::npos) << StatusText(s);
}

// A shape of `rank` dimensions of size 1 (element type f32).
std::string OnesShape(int rank) {
  std::string dims;
  for (int i = 0; i < rank; ++i) dims += i == 0 ? "1" : ",1";
  return "f32[" + dims + "]";
}

TEST(RunLimitsTest, PrintingAVeryHighRankArrayNeedsNoStackPerDimension) {
  // Used to recurse once per dimension (a segfault at rank 60,000, earlier under ASan).
  const int rank = 60000;
  std::unique_ptr<Module> m = testing::Parse(
      "HloModule r\nENTRY e {\n  ROOT p = " + OnesShape(rank) + " parameter(0)\n}\n");
  ASSERT_NE(m, nullptr);
  absl::StatusOr<Literal> out = Evaluate(*m, RandomArguments(*m, 1), {});
  ASSERT_TRUE(out.ok()) << StatusText(out.status());
  const std::string text = FormatLiteral(*out, /*print_all=*/true);
  const size_t open = text.find('{');
  ASSERT_NE(open, std::string::npos);
  EXPECT_EQ(text.substr(open, rank), std::string(rank, '{'));
  EXPECT_EQ(text.substr(text.size() - rank - 1), std::string(rank, '}') + "\n");
}

TEST(RunLimitsTest, IterativePrintingKeepsTheNestedForm) {
  std::unique_ptr<Module> m = testing::Parse(
      "HloModule r\nENTRY e {\n  a = s32[2,3] parameter(0)\n  b = s32[2,0,2] parameter(1)\n"
      "  ROOT t = (s32[2,3], s32[2,0,2]) tuple(a, b)\n}\n");
  ASSERT_NE(m, nullptr);
  absl::StatusOr<Literal> out =
      Evaluate(*m, testing::Args(*m, {"{{1,2,3},{4,5,6}}", "{{},{}}"}), {});
  ASSERT_TRUE(out.ok()) << StatusText(out.status());
  EXPECT_EQ(FormatLiteral(*out, true),
            "{0}: s32[2,3] {{1, 2, 3}, {4, 5, 6}}\n{1}: s32[2,0,2] {{}, {}}\n");
}

TEST(RunLimitsTest, LiteralTextNestedPastTheBoundIsAnError) {
  Shape shape;
  shape.element_type = PrimitiveType::kF32;
  for (int i = 0; i < 300; ++i) {
    shape.dims.push_back(1);
    shape.dynamic.push_back(false);
  }
  absl::StatusOr<Literal> lit =
      ParseLiteral(std::string(300, '{') + "1" + std::string(300, '}'), shape);
  ASSERT_FALSE(lit.ok());
  EXPECT_NE(StatusText(lit.status())
                .find("literals nest at most 256 braces deep; the shape has rank 300"),
            std::string::npos)
      << StatusText(lit.status());
}

}  // namespace
}  // namespace hloscope::eval
