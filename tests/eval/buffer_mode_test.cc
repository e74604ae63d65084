// Buffer mode: values live in the buffers the alias analysis assigns, so a needed copy that is
// removed changes the result. These tests are the reason buffer mode exists.
#include "gtest/gtest.h"
#include "support/status_text.h"
#include "tests/eval/eval_test_util.h"
#include "tests/eval/needed_copy_module.h"

namespace hloscope::eval {
namespace {

using testing::kCopyRemoved;
using testing::kWithCopy;
using testing::RunText;

TEST(BufferModeTest, RemovingANeededCopyChangesTheBufferModeResult) {
  std::vector<std::string> args = {"{1, 2, 3, 4}"};
  std::string expected = "{0}: f32[4] {-1, -2, -3, -4}\n{1}: f32[4] {-1, 100, -3, -4}";
  EXPECT_EQ(RunText(kWithCopy, args, EvalMode::kValue), expected);
  EXPECT_EQ(RunText(kWithCopy, args, EvalMode::kBuffer), expected);
  EXPECT_EQ(RunText(kCopyRemoved, args, EvalMode::kValue), expected);
  // The in-place update overwrote x, which the root still reads: as on a device.
  EXPECT_EQ(RunText(kCopyRemoved, args, EvalMode::kBuffer),
            "{0}: f32[4] {-1, 100, -3, -4}\n{1}: f32[4] {-1, 100, -3, -4}");
}

// An in-place fusion (a DUS inside) writes into its operand's buffer.
constexpr std::string_view kInPlaceFusion = R"(
HloModule fusion_in_place
fused_update {
  buf = f32[4] parameter(0)
  v = f32[1] parameter(1)
  i = s32[] constant(3)
  ROOT d = f32[4] dynamic-update-slice(buf, v, i)
}
ENTRY e {
  p = f32[4] parameter(0)
  x = f32[4] add(p, p)
  v = f32[1] constant({-7})
  f = f32[4] fusion(x, v), kind=kLoop, calls=fused_update
  y = f32[4] multiply(x, x)
  ROOT t = (f32[4], f32[4]) tuple(f, y)
}
)";

TEST(BufferModeTest, InPlaceFusionWritesIntoTheSharedBuffer) {
  std::vector<std::string> args = {"{1, 2, 3, 4}"};
  EXPECT_EQ(RunText(kInPlaceFusion, args, EvalMode::kValue),
            "{0}: f32[4] {2, 4, 6, -7}\n{1}: f32[4] {4, 16, 36, 64}");
  // y reads x after the fusion overwrote element 3 of x's buffer.
  EXPECT_EQ(RunText(kInPlaceFusion, args, EvalMode::kBuffer),
            "{0}: f32[4] {2, 4, 6, -7}\n{1}: f32[4] {4, 16, 36, 49}");
}

// Loop state lives in its buffers: a value that enters the loop and is also read after it sees
// the loop's writes unless it was copied.
constexpr std::string_view kLoopClobber = R"(
HloModule loop_clobber
cond {
  s = (s32[], f32[2]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[2]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  a = f32[2] get-tuple-element(s), index=1
  two = f32[2] constant({2, 2})
  m = f32[2] multiply(a, two)
  one = s32[] constant(1)
  next = s32[] add(i, one)
  ROOT t = (s32[], f32[2]) tuple(next, m)
}
ENTRY e {
  p = f32[2] parameter(0)
  x = f32[2] negate(p)
  zero = s32[] constant(0)
  init = (s32[], f32[2]) tuple(zero, x)
  w = (s32[], f32[2]) while(init), condition=cond, body=body
  r = f32[2] get-tuple-element(w), index=1
  ROOT t = (f32[2], f32[2]) tuple(r, x)
}
)";

TEST(BufferModeTest, WhileStateSharesTheInitBuffer) {
  std::vector<std::string> args = {"{1, 2}"};
  EXPECT_EQ(RunText(kLoopClobber, args, EvalMode::kValue),
            "{0}: f32[2] {-8, -16}\n{1}: f32[2] {-1, -2}");
  EXPECT_EQ(RunText(kLoopClobber, args, EvalMode::kBuffer),
            "{0}: f32[2] {-8, -16}\n{1}: f32[2] {-8, -16}");
}

// Constants and entry parameters are read-only: an in-place update of one writes a separate
// buffer (XLA copies them), so both modes agree.
TEST(BufferModeTest, ConstantsAndParametersAreNeverOverwritten) {
  constexpr std::string_view text = R"(
HloModule read_only
ENTRY e {
  p = f32[3] parameter(0)
  k = f32[3] constant({1, 2, 3})
  v = f32[1] constant({9})
  i = s32[] constant(0)
  dp = f32[3] dynamic-update-slice(p, v, i)
  dk = f32[3] dynamic-update-slice(k, v, i)
  ROOT t = (f32[3], f32[3], f32[3], f32[3]) tuple(p, dp, k, dk)
}
)";
  std::string expected =
      "{0}: f32[3] {5, 6, 7}\n{1}: f32[3] {9, 6, 7}\n{2}: f32[3] {1, 2, 3}\n{3}: f32[3] {9, 2, 3}";
  EXPECT_EQ(RunText(text, {"{5, 6, 7}"}, EvalMode::kValue), expected);
  EXPECT_EQ(RunText(text, {"{5, 6, 7}"}, EvalMode::kBuffer), expected);
}

// A parameter that the module donates to an output (input_output_alias) is written in place.
TEST(BufferModeTest, DonatedParameterIsUpdatedInPlace) {
  constexpr std::string_view text = R"(
HloModule donated, input_output_alias={ {0}: (0, {}, may-alias) }
ENTRY e {
  p = f32[3] parameter(0)
  v = f32[1] constant({9})
  i = s32[] constant(0)
  dp = f32[3] dynamic-update-slice(p, v, i)
  ROOT t = (f32[3], f32[3]) tuple(dp, p)
}
)";
  EXPECT_EQ(RunText(text, {"{5, 6, 7}"}, EvalMode::kValue),
            "{0}: f32[3] {9, 6, 7}\n{1}: f32[3] {5, 6, 7}");
  EXPECT_EQ(RunText(text, {"{5, 6, 7}"}, EvalMode::kBuffer),
            "{0}: f32[3] {9, 6, 7}\n{1}: f32[3] {9, 6, 7}");
}

// Bitcasts reinterpret the buffer: an in-place update through a bitcast with a transposed
// layout lands on the transposed element, and a reader of the original sees it.
TEST(BufferModeTest, BitcastSharesTheBufferUnderItsOwnLayout) {
  constexpr std::string_view text = R"(
HloModule bitcast_alias
ENTRY e {
  p = f32[2,3]{1,0} parameter(0)
  x = f32[2,3]{1,0} negate(p)
  b = f32[3,2]{0,1} bitcast(x)
  v = f32[1,1] constant({{50}})
  i = s32[] constant(0)
  j = s32[] constant(1)
  d = f32[3,2]{0,1} dynamic-update-slice(b, v, i, j)
  ROOT t = (f32[3,2]{0,1}, f32[2,3]{1,0}) tuple(d, x)
}
)";
  std::vector<std::string> args = {"{{1, 2, 3}, {4, 5, 6}}"};
  // b[i][j] = x[j][i]; d writes b[0][1], which is x[1][0].
  EXPECT_EQ(
      RunText(text, args, EvalMode::kValue),
      "{0}: f32[3,2] {{-1, 50}, {-2, -5}, {-3, -6}}\n{1}: f32[2,3] {{-1, -2, -3}, {-4, -5, -6}}");
  EXPECT_EQ(
      RunText(text, args, EvalMode::kBuffer),
      "{0}: f32[3,2] {{-1, 50}, {-2, -5}, {-3, -6}}\n{1}: f32[2,3] {{-1, -2, -3}, {50, -5, -6}}");
  // When bitcasts define values they get their own buffer: x is left alone.
  std::unique_ptr<Module> m = testing::Parse(text);
  ASSERT_NE(m, nullptr);
  EvalOptions options{.mode = EvalMode::kBuffer, .dataflow = {.bitcast_defines_value = true}};
  absl::StatusOr<Literal> out = Evaluate(*m, testing::Args(*m, args), options);
  ASSERT_TRUE(out.ok()) << StatusText(out.status());
  EXPECT_EQ(
      FormatLiteral(*out, true),
      "{0}: f32[3,2] {{-1, 50}, {-2, -5}, {-3, -6}}\n{1}: f32[2,3] {{-1, -2, -3}, {-4, -5, -6}}\n");
}

// An op whose output shares a buffer with its input reads the input before writing.
TEST(BufferModeTest, InPlaceOpReadsItsInputsBeforeWriting) {
  constexpr std::string_view text = R"(
HloModule overlap
ENTRY e {
  p = s32[4] parameter(0)
  x = s32[4] negate(p)
  s = s32[2] slice(x), slice={[0:2]}
  i = s32[] constant(2)
  ROOT d = s32[4] dynamic-update-slice(x, s, i)
}
)";
  EXPECT_EQ(RunText(text, {"{1, 2, 3, 4}"}, EvalMode::kBuffer), "s32[4] {-1, -2, -1, -2}");
}

}  // namespace
}  // namespace hloscope::eval
