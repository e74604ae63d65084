// while, conditional, call, fusion, opt-barrier and tuples in both modes.
#include "gtest/gtest.h"
#include "tests/eval/eval_test_util.h"

namespace hloscope::eval {
namespace {

using testing::RunBoth;

// Sums 1..n with a loop carrying (i, acc).
constexpr std::string_view kSumLoop = R"(
HloModule sum
cond {
  s = (s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  acc = s32[] get-tuple-element(s), index=1
  one = s32[] constant(1)
  next = s32[] add(i, one)
  sum = s32[] add(acc, next)
  ROOT t = (s32[], s32[]) tuple(next, sum)
}
ENTRY e {
  zero = s32[] constant(0)
  zero2 = s32[] constant(0)
  init = (s32[], s32[]) tuple(zero, zero2)
  ROOT w = (s32[], s32[]) while(init), condition=cond, body=body
}
)";

TEST(ControlFlowTest, WhileLoopCarriesATuple) {
  EXPECT_EQ(RunBoth(kSumLoop), "{0}: s32[] 5\n{1}: s32[] 15");
}

// A loop that writes row i of a [4,2] stash with dynamic-update-slice (in place in buffer mode).
constexpr std::string_view kStashLoop = R"(
HloModule stash
cond {
  s = (s32[], f32[4,2]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(4)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[4,2]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  stash = f32[4,2] get-tuple-element(s), index=1
  f = f32[] convert(i)
  row = f32[1,2] broadcast(f), dimensions={}
  z = s32[] constant(0)
  upd = f32[4,2] dynamic-update-slice(stash, row, i, z)
  one = s32[] constant(1)
  next = s32[] add(i, one)
  ROOT t = (s32[], f32[4,2]) tuple(next, upd)
}
ENTRY e {
  zero = s32[] constant(0)
  p = f32[4,2] parameter(0)
  init = (s32[], f32[4,2]) tuple(zero, p)
  w = (s32[], f32[4,2]) while(init), condition=cond, body=body
  ROOT out = f32[4,2] get-tuple-element(w), index=1
}
)";

TEST(ControlFlowTest, WhileLoopUpdatesItsStateInPlace) {
  EXPECT_EQ(RunBoth(kStashLoop, {"{{9, 9}, {9, 9}, {9, 9}, {9, 9}}"}),
            "f32[4,2] {{0, 0}, {1, 1}, {2, 2}, {3, 3}}");
}

constexpr std::string_view kConditional = R"(
HloModule cond
negate_it {
  x = f32[2] parameter(0)
  ROOT n = f32[2] negate(x)
}
double_it {
  x = f32[2] parameter(0)
  ROOT d = f32[2] add(x, x)
}
keep_it {
  x = f32[2] parameter(0)
  ROOT k = f32[2] copy(x)
}
negate_it2 {
  x = f32[2] parameter(0)
  ROOT n = f32[2] negate(x)
}
double_it2 {
  x = f32[2] parameter(0)
  ROOT d = f32[2] add(x, x)
}
ENTRY e {
  b = s32[] parameter(0)
  p = pred[] parameter(1)
  x = f32[2] parameter(2)
  by_index = f32[2] conditional(b, x, x, x), branch_computations={negate_it, double_it, keep_it}
  by_pred = f32[2] conditional(p, x, x), true_computation=negate_it2, false_computation=double_it2
  ROOT t = (f32[2], f32[2]) tuple(by_index, by_pred)
}
)";

TEST(ControlFlowTest, ConditionalByIndexAndByPredicate) {
  EXPECT_EQ(RunBoth(kConditional, {"1", "true", "{1, -2}"}),
            "{0}: f32[2] {2, -4}\n{1}: f32[2] {-1, 2}");
  EXPECT_EQ(RunBoth(kConditional, {"0", "false", "{1, -2}"}),
            "{0}: f32[2] {-1, 2}\n{1}: f32[2] {2, -4}");
  // An index out of range runs the last branch.
  EXPECT_EQ(RunBoth(kConditional, {"7", "false", "{1, -2}"}),
            "{0}: f32[2] {1, -2}\n{1}: f32[2] {2, -4}");
  EXPECT_EQ(RunBoth(kConditional, {"-1", "false", "{1, -2}"}),
            "{0}: f32[2] {1, -2}\n{1}: f32[2] {2, -4}");
}

TEST(ControlFlowTest, CallFusionAndOptBarrier) {
  EXPECT_EQ(RunBoth(R"(
HloModule m
fused {
  a = f32[3] parameter(0)
  b = f32[3] parameter(1)
  m = f32[3] multiply(a, b)
  ROOT s = f32[3] add(m, a)
}
callee {
  x = f32[3] parameter(0)
  ROOT n = f32[3] negate(x)
}
ENTRY e {
  a = f32[3] parameter(0)
  b = f32[3] parameter(1)
  f = f32[3] fusion(a, b), kind=kLoop, calls=fused
  c = f32[3] call(f), to_apply=callee
  t = (f32[3], f32[3]) tuple(c, a)
  ROOT o = (f32[3], f32[3]) opt-barrier(t)
}
)",
                    {"{1, 2, 3}", "{2, 0, -1}"}),
            "{0}: f32[3] {-3, -2, -0}\n{1}: f32[3] {1, 2, 3}");
}

}  // namespace
}  // namespace hloscope::eval
