// Bounded dynamic shapes in the interpreter (eval/dynamic_shapes.h): literals compared and
// printed over their valid region, and the ops whose valid result depends on the padding (dot,
// variadic reduce, reshape of a column-major array, transpose), in value and buffer mode.
// XLA's own execution cases are lit tests: testdata/tools/hlo_run/dynamic/.
#include <cstring>
#include <string>

#include "eval/literal.h"
#include "gtest/gtest.h"
#include "tests/eval/eval_test_util.h"

namespace hloscope::eval {
namespace {

using testing::RunBoth;

TEST(DynamicShapesTest, LiteralsCompareAndPrintOnlyTheValidRegion) {
  std::unique_ptr<Module> m = testing::Parse(R"(
HloModule shapes
ENTRY e {
  ROOT a = f32[<=3,2] parameter(0)
})");
  const Shape& shape = m->entry()->parameter(0)->shape();
  absl::StatusOr<Literal> a = ParseLiteral("{{1, 2}, {3, 4}, {5, 6}}", shape);
  absl::StatusOr<Literal> b = ParseLiteral("{{1, 2}, {3, 4}, {7, 8}}", shape);
  ASSERT_TRUE(a.ok() && b.ok());
  // At the bound the padding row is part of the value.
  EXPECT_EQ(FormatLiteral(*a, true), "f32[<=3,2](3,2) {{1, 2}, {3, 4}, {5, 6}}\n");
  EXPECT_TRUE(FirstDifference(*a, *b).has_value());
  a->set_dynamic_sizes({2, 2});
  b->set_dynamic_sizes({2, 2});
  EXPECT_EQ(FirstDifference(*a, *b), std::nullopt);  // they differ in the padding only
  EXPECT_EQ(FormatLiteral(*a, true), "f32[<=3,2](2,2) {{1, 2}, {3, 4}}\n");
  EXPECT_EQ(TotalElementCount(*a), 4);
  b->set_dynamic_sizes({1, 2});
  EXPECT_EQ(FirstDifference(*a, *b), "output {}: dynamic sizes (2,2) vs (1,2)");
  b->set_dynamic_sizes({2, 2});
  b->Set({1, 1}, 9);
  EXPECT_EQ(FirstDifference(*a, *b), "output {}: element [1,1]: 4 vs 9");
}

TEST(DynamicShapesTest, DotReadsZeroForTheContractingPadding) {
  // XLA's dynamic padder pads a dot's contracting dimension with zero: the 100s never count.
  EXPECT_EQ(RunBoth(R"(
HloModule dot
ENTRY e {
  a = f32[2,4] parameter(0)
  b = f32[4,3] parameter(1)
  two = s32[] constant(2)
  ad = f32[2,<=4] set-dimension-size(a, two), dimensions={1}
  bd = f32[<=4,3] set-dimension-size(b, two), dimensions={0}
  ROOT d = f32[2,3] dot(ad, bd), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})",
                    {"{{1, 2, 100, 100}, {3, 4, 100, 100}}",
                     "{{1, 0, 0}, {0, 1, 0}, {100, 100, 100}, {100, 100, 100}}"}),
            "f32[2,3] {{1, 2, 0}, {3, 4, 0}}");
}

TEST(DynamicShapesTest, VariadicReduceMasksEachInputWithItsInitValue) {
  EXPECT_EQ(RunBoth(R"(
HloModule reduce
sum_max {
  a0 = s32[] parameter(0)
  a1 = s32[] parameter(1)
  b0 = s32[] parameter(2)
  b1 = s32[] parameter(3)
  s = s32[] add(a0, b0)
  m = s32[] maximum(a1, b1)
  ROOT t = (s32[], s32[]) tuple(s, m)
}
ENTRY e {
  p = s32[3,2] parameter(0)
  two = s32[] constant(2)
  d = s32[<=3,2] set-dimension-size(p, two), dimensions={0}
  zero = s32[] constant(0)
  low = s32[] constant(-100)
  ROOT r = (s32[2], s32[2]) reduce(d, d, zero, low), dimensions={0}, to_apply=sum_max
})",
                    {"{{1, 2}, {3, 4}, {50, 60}}"}),
            "{0}: s32[2] {4, 6}\n{1}: s32[2] {3, 4}");
}

TEST(DynamicShapesTest, ReduceKeepsTheSizeOfAKeptDimension) {
  EXPECT_EQ(RunBoth(R"(
HloModule reduce_kept
add {
  x = s32[] parameter(0)
  y = s32[] parameter(1)
  ROOT s = s32[] add(x, y)
}
ENTRY e {
  p = s32[3,2] parameter(0)
  two = s32[] constant(2)
  d = s32[<=3,2] set-dimension-size(p, two), dimensions={0}
  zero = s32[] constant(0)
  ROOT r = s32[<=3] reduce(d, zero), dimensions={1}, to_apply=add
})",
                    {"{{1, 2}, {3, 4}, {50, 60}}"}),
            "s32[<=3](2) {3, 7}");
}

TEST(DynamicShapesTest, ReshapeAndTransposeOfAColumnMajorArray) {
  // The valid elements in logical (row-major) order, whatever the layout.
  EXPECT_EQ(RunBoth(R"(
HloModule reshape_layout
ENTRY e {
  p = s32[3,2]{0,1} parameter(0)
  two = s32[] constant(2)
  d = s32[<=3,2]{0,1} set-dimension-size(p, two), dimensions={0}
  r = s32[<=6] reshape(d)
  t = s32[2,<=3] transpose(d), dimensions={1,0}
  ROOT o = (s32[<=6], s32[2,<=3]) tuple(r, t)
})",
                    {"{{1, 2}, {3, 4}, {5, 6}}"}),
            "{0}: s32[<=6](4) {1, 2, 3, 4}\n{1}: s32[2,<=3](2,2) {{1, 3}, {2, 4}}");
}

TEST(DynamicShapesTest, OpsThatTheInterpreterDoesNotRunBelowTheBoundAreRefused) {
  EXPECT_EQ(RunBoth(R"(
HloModule rw
add {
  x = s32[] parameter(0)
  y = s32[] parameter(1)
  ROOT s = s32[] add(x, y)
}
ENTRY e {
  p = s32[4] parameter(0)
  two = s32[] constant(2)
  d = s32[<=4] set-dimension-size(p, two), dimensions={0}
  zero = s32[] constant(0)
  ROOT r = s32[<=4] reduce-window(d, zero), window={size=2 pad=0_1}, to_apply=add
})",
                    {"{1, 2, 3, 4}"}),
            "error: the interpreter does not run reduce-window %r on a dynamic dimension below "
            "its bound: XLA's dynamic padder rewrites this op in ways not run here");
}

// Each error path of the dynamic kernels, on a module that verifies: `d` is s32[<=3] of size 2.
TEST(DynamicShapesTest, EveryMisfitIsRefusedWithAReason) {
  struct Case {
    const char* computations;
    const char* body;
    const char* message;
  };
  const Case cases[] = {
      {R"(sm {
  a0 = s32[] parameter(0)
  a1 = s32[] parameter(1)
  b0 = s32[] parameter(2)
  b1 = s32[] parameter(3)
  s = s32[] add(a0, b0)
  m = s32[] maximum(a1, b1)
  ROOT t = (s32[], s32[]) tuple(s, m)
})",
       "  zero = s32[] constant(0)\n"
       "  ROOT r = (s32[], s32[]) reduce(d, p, zero, zero), dimensions={0}, to_apply=sm",
       "error: cannot run %r: its inputs' dynamic sizes differ"},
      {R"(gt {
  a0 = s32[] parameter(0)
  a1 = s32[] parameter(1)
  b0 = s32[] parameter(2)
  b1 = s32[] parameter(3)
  ROOT c = pred[] compare(a0, a1), direction=GT
})",
       "  ROOT s = (s32[<=3], s32[3]) sort(d, p), dimensions={0}, to_apply=gt",
       "error: the interpreter does not run sort %s on a dynamic dimension below its bound: its "
       "operands' dynamic sizes differ"},
      {"", "  nine = s32[] constant(9)\n  ROOT r = s32[<=6] dynamic-reshape(d, nine)",
       "error: cannot run %r: dynamic-reshape size 9 of dimension 0 does not fit s32[<=6]"},
      {"", "  ROOT c = (f32[3], s32[]) custom-call(d), custom_call_target=\"PadToStatic\"",
       "error: cannot run %c: PadToStatic needs one array operand and gives (the array, one size "
       "per dimension)"},
      {"",
       "  t = (s32[<=3]) tuple(d)\n"
       "  ROOT c = (s32[<=3]) custom-call(t), custom_call_target=\"Sharding\"",
       "error: the interpreter does not run custom-call %c on a dynamic dimension below its "
       "bound: a tuple operand holds a dynamic array"},
      {"", "  ROOT c = s16[<=3,2] bitcast-convert(d)",
       "error: the interpreter does not run bitcast-convert %c on a dynamic dimension below its "
       "bound: its operand and result ranks differ"},
      {"",
       "  i = s32[] constant(0)\n"
       "  ROOT g = s32[2] gather(d, i), offset_dims={0}, collapsed_slice_dims={}, "
       "start_index_map={0}, index_vector_dim=0, slice_sizes={2}",
       "error: the interpreter does not run gather %g on a dynamic dimension below its bound: it "
       "gathers part of a dynamic dimension"},
      {"", "  ROOT b = s32[3] bitcast(d)",
       "error: the interpreter does not run bitcast %b on a dynamic dimension below its bound: "
       "XLA's dynamic padder rewrites this op in ways not run here"},
  };
  for (const Case& c : cases) {
    const std::string text = std::string("HloModule m\n") + c.computations +
                             "\nENTRY e {\n  p = s32[3] parameter(0)\n  two = s32[] constant(2)\n"
                             "  d = s32[<=3] set-dimension-size(p, two), dimensions={0}\n" +
                             c.body + "\n}\n";
    EXPECT_EQ(RunBoth(text, {"{1, 2, 3}"}), c.message) << text;
  }
}

TEST(DynamicShapesTest, AReshapeWithNoWholeSizeIsAnError) {
  // 2 x 4 = 8 valid elements cannot fill rows of 3.
  EXPECT_EQ(RunBoth(R"(
HloModule reshape_whole
ENTRY e {
  p = s32[3,4] parameter(0)
  two = s32[] constant(2)
  d = s32[<=3,4] set-dimension-size(p, two), dimensions={0}
  ROOT r = s32[<=4,3] reshape(d)
})",
                    {"{{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}}"}),
            "error: cannot run %r: reshape of 8 valid elements into s32[<=4,3] leaves no whole "
            "size for dimension 0");
}

}  // namespace
}  // namespace hloscope::eval
