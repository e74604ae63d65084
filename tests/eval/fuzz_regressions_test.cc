// Inputs tests/fuzz/eval_fuzzer (scripts/fuzz --fuzzer=eval) found to crash the interpreter or
// trip a sanitizer, each kept as a regression test (issue 35: bad input gets a clear error, never
// a crash). Labelled robustness, so scripts/test runs them under ASan+UBSan as well: some of
// these failed only there (undefined behaviour that a plain build does not show).
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "support/status_text.h"
#include "tests/eval/eval_test_util.h"

namespace hloscope::eval {
namespace {

// An empty array's byte vector may have a null data(): RandomLiteral and buffer mode's store of a
// result into its buffer called memcpy(null, null, 0), which UBSan reports (seeds
// testdata/tools/hlo_run/evaluator/concatenate_zero_element.hlo,
// pad_2d_integer_zero_dimension.hlo).
TEST(EvalFuzzRegressions, EmptyArraysAsRandomArgumentsAndInBuffers) {
  constexpr char kText[] = R"(
HloModule empty
ENTRY e {
  p = f32[0,3] parameter(0)
  n = f32[0,3] negate(p)
  one = f32[] constant(1)
  b = f32[2,3] broadcast(one), dimensions={}
  ROOT c = f32[2,3] concatenate(n, b), dimensions={0}
}
)";
  std::unique_ptr<Module> m = testing::Parse(kText);
  ASSERT_NE(m, nullptr);
  std::vector<Literal> args = RandomArguments(*m, 1);
  ASSERT_EQ(args.size(), 1u);
  EXPECT_EQ(args[0].element_count(), 0);
  std::vector<std::string> printed;
  for (EvalMode mode : {EvalMode::kValue, EvalMode::kBuffer}) {
    EvalOptions options;
    options.mode = mode;
    absl::StatusOr<Literal> out = Evaluate(*m, args, options);
    ASSERT_TRUE(out.ok()) << StatusText(out.status());
    printed.push_back(FormatLiteral(*out, /*print_all=*/true));
  }
  // The six ones of `b` (the empty operand adds no row), the same in both modes.
  ASSERT_EQ(printed.size(), 2u);
  EXPECT_EQ(printed[0], printed[1]);
  const size_t first = printed[0].find("1, 1, 1");
  ASSERT_NE(first, std::string::npos) << printed[0];
  EXPECT_NE(printed[0].find("1, 1, 1", first + 1), std::string::npos) << printed[0];
}

}  // namespace
}  // namespace hloscope::eval
