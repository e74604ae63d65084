// FLOPs per microbatch from HLO (analysis/stage_flops.h), on hand-written modules
// whose counts are worked out in the comments.
#include "analysis/stage_flops.h"

#include <string>

#include "gtest/gtest.h"
#include "support/status_text.h"
#include "tests/test_util.h"

namespace hloscope {
namespace {

using ::hloscope::testing::Parse;

StageFlops Count(std::string_view text) {
  std::unique_ptr<Module> m = Parse(text);
  if (m == nullptr) return {};
  absl::StatusOr<StageFlops> f = CountStageFlops(*m, FlopOptions{});
  EXPECT_TRUE(f.ok()) << StatusText(f.status());
  return f.ok() ? *f : StageFlops{};
}

TEST(HloCosts, ForwardDotAndBackwardSplitIntoInputAndWeight) {
  // x[2,3] . w[3,4]: 2 * 8 outputs * 3 = 48, forward. dx[2,3] = dy . w^T: 2 * 6 * 4 = 48;
  // dw[3,4] = x^T . dy: 2 * 12 * 2 = 48.
  StageFlops f = Count(R"hlo(
HloModule m
ENTRY e {
  p = f32[2,3] parameter(0)
  w = f32[3,4] parameter(1)
  dy = f32[2,4] parameter(2)
  x = f32[2,3] negate(p)
  y = f32[2,4] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}, metadata={op_name="jit(f)/jvp(model)/dense/dot_general"}
  dx = f32[2,3] dot(dy, w), lhs_contracting_dims={1}, rhs_contracting_dims={1}, metadata={op_name="jit(f)/transpose(jvp(model))/dense/dot_general"}
  dw = f32[3,4] dot(x, dy), lhs_contracting_dims={0}, rhs_contracting_dims={0}, metadata={op_name="jit(f)/transpose(jvp(model))/dense/dot_general"}
  ROOT t = (f32[2,4], f32[2,3], f32[3,4]) tuple(y, dx, dw)
})hlo");
  EXPECT_EQ(f.forward, 48);  // 2 * 8 * 3
  // dx has [2,3], the dims of parameter p: an entry parameter is a weight by the rule, so
  // both backward dots count as W here. The next test separates them.
  EXPECT_EQ(f.backward_weight, 48 + 48);  // dx: 2*6*4; dw: 2*12*2
  EXPECT_EQ(f.backward_input, 0);
  EXPECT_EQ(f.dots, 3);
}

TEST(HloCosts, InputGradientHasNoWeightShape) {
  StageFlops f = Count(R"hlo(
HloModule m
ENTRY e {
  p = f32[5,3] parameter(0)
  w = f32[3,4] parameter(1)
  x = f32[2,3] slice(p), slice={[0:2], [0:3]}
  y = f32[2,4] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  dx = f32[2,3] dot(y, w), lhs_contracting_dims={1}, rhs_contracting_dims={1}, metadata={op_name="transpose(jvp(f))"}
  dw = f32[3,4] dot(x, y), lhs_contracting_dims={0}, rhs_contracting_dims={0}, metadata={op_name="transpose(jvp(f))"}
  ROOT t = (f32[2,3], f32[3,4]) tuple(dx, dw)
})hlo");
  EXPECT_EQ(f.forward, 48);          // no metadata: forward
  EXPECT_EQ(f.backward_input, 48);   // [2,3] is no weight's shape: 2 * 6 * 4
  EXPECT_EQ(f.backward_weight, 48);  // [3,4] is w's: 2 * 12 * 2
}

// The outer loop is the loop over microbatches (its body counts once); the inner loop runs 3
// times per iteration (known_trip_count); the dot inside a fusion counts too.
TEST(HloCosts, OuterLoopIsOneMicrobatchInnerLoopsMultiply) {
  StageFlops f = Count(R"hlo(
HloModule m
fused {
  a = f32[4,4] parameter(0)
  ROOT d = f32[4,4] dot(a, a), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
inner_cond {
  s = (s32[], f32[4,4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
inner_body {
  s = (s32[], f32[4,4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  v = f32[4,4] get-tuple-element(s), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  f = f32[4,4] fusion(v), kind=kOutput, calls=fused
  ROOT t = (s32[], f32[4,4]) tuple(j, f)
}
outer_cond {
  s = (s32[], f32[4,4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(8)
  ROOT lt = pred[] compare(i, n), direction=LT
}
outer_body {
  s = (s32[], f32[4,4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  v = f32[4,4] get-tuple-element(s), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  zero = s32[] constant(0)
  init = (s32[], f32[4,4]) tuple(zero, v)
  w = (s32[], f32[4,4]) while(init), condition=inner_cond, body=inner_body
  r = f32[4,4] get-tuple-element(w), index=1
  ROOT t = (s32[], f32[4,4]) tuple(j, r)
}
ENTRY e {
  p = f32[4,4] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[4,4]) tuple(zero, p)
  w = (s32[], f32[4,4]) while(init), condition=outer_cond, body=outer_body
  ROOT r = f32[4,4] get-tuple-element(w), index=1
})hlo");
  EXPECT_EQ(f.forward, 3 * (2 * 16 * 4));  // 3 inner iterations of a 4x4x4 dot, per microbatch
  EXPECT_EQ(f.unknown_trip_counts, 0);
}

TEST(HloCosts, ConditionalCountsItsCostliestBranchAndConvolutionCountsKernel) {
  StageFlops f = Count(R"hlo(
HloModule m
small {
  a = f32[2,2] parameter(0)
  ROOT d = f32[2,2] dot(a, a), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
big {
  a = f32[2,2] parameter(0)
  d = f32[2,2] dot(a, a), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT e = f32[2,2] dot(d, a), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
ENTRY e {
  b = pred[] parameter(0)
  x = f32[2,2] parameter(1)
  c = f32[2,2] conditional(b, x, x), true_computation=small, false_computation=big
  img = f32[1,8,8,3] parameter(2)
  k = f32[3,3,3,16] parameter(3)
  conv = f32[1,8,8,16] convolution(img, k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  ROOT t = (f32[2,2], f32[1,8,8,16]) tuple(c, conv)
})hlo");
  // big: two 2x2x2 dots = 2 * (2*4*2) = 32. conv: 2 * 1024 outputs * (432 / 16) = 55296.
  EXPECT_EQ(f.forward, 32 + 55296);
  EXPECT_EQ(f.dots, 3);
}

TEST(HloCosts, BadBackwardRegexIsAnError) {
  std::unique_ptr<Module> m = Parse("HloModule m\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n");
  ASSERT_NE(m, nullptr);
  absl::StatusOr<StageFlops> f = CountStageFlops(*m, {.backward_regex = "transpose("});
  ASSERT_FALSE(f.ok());
  EXPECT_NE(StatusText(f.status()).find("bad backward regular expression 'transpose('"),
            std::string::npos);
}

// f_k calls f_{k-1} from two sites, so the dot in f0 runs 2^40 times; each computation is
// walked once (the walk per call path never finished on this module, from the hostile-input
// suite). Dots count per call path, as for a computation called twice.
TEST(HloCosts, FanOutCallGraphIsWalkedOncePerComputation) {
  std::string text = R"hlo(HloModule fan
f0 {
  p = f32[2,2] parameter(0)
  ROOT d = f32[2,2] dot(p, p), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)hlo";
  for (int i = 1; i <= 40; ++i) {
    text += "f" + std::to_string(i) +
            " {\n  p = f32[2,2] parameter(0)\n  a = f32[2,2] call(p), to_apply=f" +
            std::to_string(i - 1) + "\n  ROOT b = f32[2,2] call(a), to_apply=f" +
            std::to_string(i - 1) + "\n}\n";
  }
  text += "ENTRY e {\n  p = f32[2,2] parameter(0)\n  ROOT c = f32[2,2] call(p), to_apply=f40\n}\n";
  const StageFlops f = Count(text);
  // One 2x2x2 dot: 2 * 4 outputs * 2 = 16 FLOPs, 2^40 times.
  EXPECT_DOUBLE_EQ(f.forward, 16.0 * 1099511627776.0);
  EXPECT_EQ(f.dots, int64_t{1} << 40);
}

}  // namespace
}  // namespace hloscope
