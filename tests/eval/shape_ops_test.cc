// Shape and data-movement ops, dot and reduce against hand-computed results.
#include "gtest/gtest.h"
#include "support/status_text.h"
#include "support/str_util.h"
#include "tests/eval/eval_test_util.h"

namespace hloscope::eval {
namespace {

using testing::RunBoth;

std::string Module(std::string_view body) {
  return StrCat("HloModule m\nENTRY e {\n", body, "\n}\n");
}

TEST(ShapeOpsTest, ConstantIotaBroadcastTranspose) {
  EXPECT_EQ(RunBoth(Module("  ROOT c = s32[2,3] constant({{1, 2, 3}, {4, 5, 6}})")),
            "s32[2,3] {{1, 2, 3}, {4, 5, 6}}");
  EXPECT_EQ(RunBoth(Module("  ROOT c = f32[] constant(-2.5)")), "f32[] -2.5");
  EXPECT_EQ(RunBoth(Module("  ROOT c = pred[2] constant({true, false})")), "pred[2] {true, false}");
  EXPECT_EQ(RunBoth(Module("  ROOT i = s32[2,3] iota(), iota_dimension=1")),
            "s32[2,3] {{0, 1, 2}, {0, 1, 2}}");
  EXPECT_EQ(RunBoth(Module("  ROOT i = f32[2,3]{0,1} iota(), iota_dimension=0")),
            "f32[2,3] {{0, 0, 0}, {1, 1, 1}}");
  EXPECT_EQ(
      RunBoth(Module("  a = s32[2] parameter(0)\n  ROOT b = s32[2,3] broadcast(a), dimensions={0}"),
              {"{7, 8}"}),
      "s32[2,3] {{7, 7, 7}, {8, 8, 8}}");
  EXPECT_EQ(
      RunBoth(
          Module("  a = s32[2,3] parameter(0)\n  ROOT t = s32[3,2] transpose(a), dimensions={1,0}"),
          {"{{1, 2, 3}, {4, 5, 6}}"}),
      "s32[3,2] {{1, 4}, {2, 5}, {3, 6}}");
}

TEST(ShapeOpsTest, ReshapeIsLogicalRowMajorWhateverTheLayout) {
  EXPECT_EQ(RunBoth(Module("  a = s32[2,3]{0,1} parameter(0)\n  ROOT r = s32[3,2]{0,1} reshape(a)"),
                    {"{{1, 2, 3}, {4, 5, 6}}"}),
            "s32[3,2] {{1, 2}, {3, 4}, {5, 6}}");
}

TEST(ShapeOpsTest, BitcastReinterpretsBytesUnderTheTransposedLayout) {
  // a is stored column-major: bytes 1 4 2 5 3 6. The bitcast reads the same bytes as a
  // row-major [3,2]: {{1, 4}, {2, 5}, {3, 6}} — a transpose, not a reshape.
  std::string text =
      Module("  a = s32[2,3]{0,1} parameter(0)\n  ROOT b = s32[3,2]{1,0} bitcast(a)");
  EXPECT_EQ(RunBoth(text, {"{{1, 2, 3}, {4, 5, 6}}"}), "s32[3,2] {{1, 4}, {2, 5}, {3, 6}}");
  // With a row-major source the same bitcast is a reshape.
  EXPECT_EQ(RunBoth(Module("  a = s32[2,3]{1,0} parameter(0)\n  ROOT b = s32[3,2]{1,0} bitcast(a)"),
                    {"{{1, 2, 3}, {4, 5, 6}}"}),
            "s32[3,2] {{1, 2}, {3, 4}, {5, 6}}");
}

TEST(ShapeOpsTest, CopyChangesLayoutKeepsValues) {
  EXPECT_EQ(RunBoth(Module("  a = s32[2,3]{1,0} parameter(0)\n  c = s32[2,3]{0,1} copy(a)\n"
                           "  ROOT b = s32[3,2]{1,0} bitcast(c)"),
                    {"{{1, 2, 3}, {4, 5, 6}}"}),
            "s32[3,2] {{1, 4}, {2, 5}, {3, 6}}");
}

TEST(ShapeOpsTest, SliceWithStrides) {
  EXPECT_EQ(RunBoth(Module("  a = s32[3,4] parameter(0)\n  ROOT s = s32[2,2] slice(a), "
                           "slice={[0:3:2], [1:4:2]}"),
                    {"{{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 10, 11}}"}),
            "s32[2,2] {{1, 3}, {9, 11}}");
}

TEST(ShapeOpsTest, DynamicSliceClampsStartIndices) {
  std::string text = Module(
      "  a = s32[5] parameter(0)\n  i = s32[] parameter(1)\n  ROOT d = s32[2] dynamic-slice(a, i), "
      "dynamic_slice_sizes={2}");
  EXPECT_EQ(RunBoth(text, {"{0, 1, 2, 3, 4}", "1"}), "s32[2] {1, 2}");
  EXPECT_EQ(RunBoth(text, {"{0, 1, 2, 3, 4}", "4"}), "s32[2] {3, 4}");   // clamped to 5 - 2
  EXPECT_EQ(RunBoth(text, {"{0, 1, 2, 3, 4}", "-3"}), "s32[2] {0, 1}");  // clamped to 0
}

TEST(ShapeOpsTest, DynamicUpdateSliceClampsStartIndices) {
  std::string text = Module(
      "  a = s32[2,4] parameter(0)\n  u = s32[1,2] parameter(1)\n  i = s32[] parameter(2)\n  j = "
      "u8[] parameter(3)\n"
      "  ROOT d = s32[2,4] dynamic-update-slice(a, u, i, j)");
  std::string a = "{{0, 0, 0, 0}, {0, 0, 0, 0}}";
  EXPECT_EQ(RunBoth(text, {a, "{{7, 8}}", "1", "1"}), "s32[2,4] {{0, 0, 0, 0}, {0, 7, 8, 0}}");
  EXPECT_EQ(RunBoth(text, {a, "{{7, 8}}", "5", "3"}),
            "s32[2,4] {{0, 0, 0, 0}, {0, 0, 7, 8}}");  // (1, 2)
  EXPECT_EQ(RunBoth(text, {a, "{{7, 8}}", "-1", "200"}), "s32[2,4] {{0, 0, 7, 8}, {0, 0, 0, 0}}");
}

TEST(ShapeOpsTest, ConcatenateAndReverse) {
  EXPECT_EQ(RunBoth(Module("  a = s32[2,1] parameter(0)\n  b = s32[2,2] parameter(1)\n"
                           "  ROOT c = s32[2,3] concatenate(a, b), dimensions={1}"),
                    {"{{1}, {2}}", "{{3, 4}, {5, 6}}"}),
            "s32[2,3] {{1, 3, 4}, {2, 5, 6}}");
  EXPECT_EQ(
      RunBoth(Module("  a = s32[2,3] parameter(0)\n  ROOT r = s32[2,3] reverse(a), dimensions={1}"),
              {"{{1, 2, 3}, {4, 5, 6}}"}),
      "s32[2,3] {{3, 2, 1}, {6, 5, 4}}");
}

TEST(ShapeOpsTest, PadWithInteriorAndNegativePadding) {
  std::string params = "  a = s32[3] parameter(0)\n  z = s32[] constant(0)\n";
  EXPECT_EQ(RunBoth(Module(params + "  ROOT p = s32[8] pad(a, z), padding=1_2_1"), {"{1, 2, 3}"}),
            "s32[8] {0, 1, 0, 2, 0, 3, 0, 0}");
  EXPECT_EQ(RunBoth(Module(params + "  ROOT p = s32[3] pad(a, z), padding=-1_-1_1"), {"{1, 2, 3}"}),
            "s32[3] {0, 2, 0}");
  EXPECT_EQ(RunBoth(Module("  a = s32[2,2] parameter(0)\n  v = s32[] constant(9)\n"
                           "  ROOT p = s32[3,3] pad(a, v), padding=1_0x0_1"),
                    {"{{1, 2}, {3, 4}}"}),
            "s32[3,3] {{9, 9, 9}, {1, 2, 9}, {3, 4, 9}}");
}

TEST(ShapeOpsTest, DotWithBatchAndContractingDims) {
  // Two batches of [2,2] x [2,1].
  EXPECT_EQ(
      RunBoth(
          Module("  a = f32[2,2,2] parameter(0)\n  b = f32[2,2,1] parameter(1)\n"
                 "  ROOT d = f32[2,2,1] dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, "
                 "rhs_batch_dims={0}, rhs_contracting_dims={1}"),
          {"{{{1, 2}, {3, 4}}, {{5, 6}, {7, 8}}}", "{{{1}, {1}}, {{2}, {-1}}}"}),
      "f32[2,2,1] {{{3}, {7}}, {{4}, {6}}}");
  // Contracting over lhs dim 0 (a transposed operand), with an s32 result.
  EXPECT_EQ(
      RunBoth(
          Module("  a = s32[2,3] parameter(0)\n  b = s32[2] parameter(1)\n"
                 "  ROOT d = s32[3] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}"),
          {"{{1, 2, 3}, {4, 5, 6}}", "{10, 1}"}),
      "s32[3] {14, 25, 36}");
  // bf16 operands accumulate in f32 and round once: 256 + 1 + 1 is 258 (exact in bf16), not
  // 256 as rounding after every step would give.
  EXPECT_EQ(
      RunBoth(
          Module("  a = bf16[3] parameter(0)\n  b = bf16[3] parameter(1)\n"
                 "  ROOT d = bf16[] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}"),
          {"{256, 1, 1}", "{1, 1, 1}"}),
      "bf16[] 258");
}

TEST(ShapeOpsTest, ReduceWithAddAndWithAGeneralComputation) {
  std::string add =
      "add {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT s = f32[] add(x, y)\n}\n";
  EXPECT_EQ(RunBoth(StrCat("HloModule m\n", add,
                           "ENTRY e {\n  a = f32[2,3] parameter(0)\n  z = f32[] constant(0.5)\n"
                           "  ROOT r = f32[3] reduce(a, z), dimensions={0}, to_apply=add\n}\n"),
                    {"{{1, 2, 3}, {4, 5, 6}}"}),
            "f32[3] {5.5, 7.5, 9.5}");
  // A body with two instructions takes the general path: sum of squares.
  std::string sq =
      "sq {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  m = f32[] multiply(y, y)\n"
      "  ROOT s = f32[] add(x, m)\n}\n";
  EXPECT_EQ(RunBoth(StrCat("HloModule m\n", sq,
                           "ENTRY e {\n  a = f32[2,3] parameter(0)\n  z = f32[] constant(0)\n"
                           "  ROOT r = f32[2] reduce(a, z), dimensions={1}, to_apply=sq\n}\n"),
                    {"{{1, 2, 3}, {4, 5, 6}}"}),
            "f32[2] {14, 77}");
  // Variadic: argmax as (value, index).
  std::string argmax =
      "argmax {\n  av = f32[] parameter(0)\n  ai = s32[] parameter(1)\n  bv = f32[] parameter(2)\n"
      "  bi = s32[] parameter(3)\n  gt = pred[] compare(bv, av), direction=GT\n"
      "  v = f32[] select(gt, bv, av)\n  i = s32[] select(gt, bi, ai)\n  ROOT t = (f32[], s32[]) "
      "tuple(v, i)\n}\n";
  EXPECT_EQ(
      RunBoth(StrCat("HloModule m\n", argmax,
                     "ENTRY e {\n  a = f32[4] parameter(0)\n  i = s32[4] iota(), iota_dimension=0\n"
                     "  lo = f32[] constant(-inf)\n  z = s32[] constant(-1)\n"
                     "  ROOT r = (f32[], s32[]) reduce(a, i, lo, z), dimensions={0}, "
                     "to_apply=argmax\n}\n"),
              {"{3, 9, -1, 9}"}),
      "{0}: f32[] 9\n{1}: s32[] 1");
}

TEST(ShapeOpsTest, GatherRowsOfATable) {
  EXPECT_EQ(
      RunBoth(Module("  t = f32[3,2] parameter(0)\n  i = s32[2,1] parameter(1)\n"
                     "  ROOT g = f32[2,2] gather(t, i), offset_dims={1}, collapsed_slice_dims={0}, "
                     "start_index_map={0}, index_vector_dim=1, slice_sizes={1,2}"),
              {"{{1, 2}, {3, 4}, {5, 6}}", "{{2}, {7}}"}),
      "f32[2,2] {{5, 6}, {5, 6}}");  // index 7 clamps to the last row
}

// Slices of size 0 read nothing: zeros, as XLA's gather simplifier has it (its ZeroSizeSlice
// test, found by the corpus check; this used to read past the empty operand and crash).
TEST(ShapeOpsTest, GatherOfZeroSizeSlicesIsZeros) {
  EXPECT_EQ(
      RunBoth(Module("  t = f32[0,2] parameter(0)\n  i = s32[3] parameter(1)\n"
                     "  ROOT g = f32[3,2] gather(t, i), offset_dims={1}, collapsed_slice_dims={0}, "
                     "start_index_map={0}, index_vector_dim=1, slice_sizes={0,2}"),
              {"{}", "{2, 0, 5}"}),
      "f32[3,2] {{0, 0}, {0, 0}, {0, 0}}");
  EXPECT_EQ(
      RunBoth(Module("  t = f32[4,2] parameter(0)\n  i = s32[2] parameter(1)\n"
                     "  ROOT g = f32[2,2] gather(t, i), offset_dims={1}, collapsed_slice_dims={0}, "
                     "start_index_map={0}, index_vector_dim=1, slice_sizes={0,2}"),
              {"{{1, 2}, {3, 4}, {5, 6}, {7, 8}}", "{3, 9}"}),
      "f32[2,2] {{0, 0}, {0, 0}}");
}

}  // namespace
}  // namespace hloscope::eval

namespace hloscope::eval {
namespace {

constexpr std::string_view kScatterAdd = R"(
HloModule scatter
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  t = f32[4,2] parameter(0)
  i = s32[3,1] parameter(1)
  u = f32[3,2] parameter(2)
  ROOT s = f32[4,2] scatter(t, i, u), update_window_dims={1}, inserted_window_dims={0},
      scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
}
)";

TEST(ScatterTest, AddsRowsRepeatedIndicesAccumulateOutOfBoundsSkipped) {
  // Rows 1 and 1 again get both updates; index 4 is out of bounds and skipped (no clamping).
  EXPECT_EQ(testing::RunBoth(kScatterAdd, {"{{0, 0}, {1, 1}, {2, 2}, {3, 3}}", "{{1}, {4}, {1}}",
                                           "{{10, 20}, {30, 40}, {100, 200}}"}),
            "f32[4,2] {{0, 0}, {111, 221}, {2, 2}, {3, 3}}");
}

TEST(ScatterTest, OverwriteWithAComputationReturningTheUpdate) {
  constexpr std::string_view text = R"(
HloModule scatter
take {
  x = s32[] parameter(0)
  ROOT y = s32[] parameter(1)
}
ENTRY e {
  t = s32[5] parameter(0)
  i = s32[2] parameter(1)
  u = s32[2] parameter(2)
  ROOT s = s32[5] scatter(t, i, u), update_window_dims={}, inserted_window_dims={0},
      scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=take
}
)";
  EXPECT_EQ(testing::RunBoth(text, {"{0, 0, 0, 0, 0}", "{3, -1}", "{7, 8}"}),
            "s32[5] {0, 0, 0, 7, 0}");
}

TEST(ScatterTest, WritesInPlaceInBufferMode) {
  // s updates x's buffer: a later reader of x sees the scattered row.
  constexpr std::string_view text = R"(
HloModule scatter
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  p = f32[2] parameter(0)
  x = f32[2] negate(p)
  i = s32[1] constant({0})
  u = f32[1] constant({5})
  s = f32[2] scatter(x, i, u), update_window_dims={}, inserted_window_dims={0},
      scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
  ROOT t = (f32[2], f32[2]) tuple(s, x)
}
)";
  EXPECT_EQ(testing::RunText(text, {"{1, 2}"}, EvalMode::kValue),
            "{0}: f32[2] {4, -2}\n{1}: f32[2] {-1, -2}");
  EXPECT_EQ(testing::RunText(text, {"{1, 2}"}, EvalMode::kBuffer),
            "{0}: f32[2] {4, -2}\n{1}: f32[2] {4, -2}");
}

TEST(ScatterTest, MisfitDimensionNumbersAreRefused) {
  std::unique_ptr<hloscope::Module> m = testing::Parse(R"(
HloModule scatter
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  t = f32[4,2] parameter(0)
  i = s32[3,1] parameter(1)
  u = f32[3,3] parameter(2)
  ROOT s = f32[4,2] scatter(t, i, u), update_window_dims={1}, inserted_window_dims={0},
      scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
}
)");
  ASSERT_NE(m, nullptr);
  absl::StatusOr<Literal> out = Evaluate(*m, RandomArguments(*m, 1), {});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(StatusText(out.status()),
            "cannot run %s: scatter dimension numbers do not fit the shapes");
}

}  // namespace
}  // namespace hloscope::eval
