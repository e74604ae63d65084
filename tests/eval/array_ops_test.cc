// sort, select-and-scatter, reduce-precision, pad with a padding value of another float width,
// and a while loop with known_trip_count, against hand-computed results in both modes; and the
// refusals of the issue-35 kernels on modules the verifier never saw.
#include "eval/kernels.h"
#include "gtest/gtest.h"
#include "support/status_text.h"
#include "support/str_util.h"
#include "tests/eval/eval_test_util.h"

namespace hloscope::eval {
namespace {

using testing::RunBoth;

constexpr const char* kLessF32 = R"(
less {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  ROOT lt = pred[] compare(a, b), direction=LT
}
)";

TEST(ArrayOpsTest, SortIsStableAndCarriesEveryOperand) {
  // Keys 1 and 3 appear twice: their values keep their order (1 before 3, 0 before 4).
  EXPECT_EQ(RunBoth(StrCat("HloModule m\n", kLessF32, R"(
ENTRY e {
  k = f32[6] parameter(0)
  v = s32[6] parameter(1)
  ROOT s = (f32[6], s32[6]) sort(k, v), dimensions={0}, is_stable=true, to_apply=less
}
)"),
                    {"{3, 1, 2, 1, 3, 0}", "{0, 1, 2, 3, 4, 5}"}),
            "{0}: f32[6] {0, 1, 1, 2, 3, 3}\n{1}: s32[6] {5, 1, 3, 2, 0, 4}");
}

TEST(ArrayOpsTest, SortAlongTheOuterDimensionOfAColumnMajorArray) {
  EXPECT_EQ(RunBoth(R"(
HloModule m
greater {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT gt = pred[] compare(a, b), direction=GT
}
ENTRY e {
  k = s32[3,2]{0,1} parameter(0)
  ROOT s = s32[3,2]{0,1} sort(k), dimensions={0}, to_apply=greater
}
)",
                    {"{{1, 9}, {3, 7}, {2, 8}}"}),
            "s32[3,2] {{3, 9}, {2, 8}, {1, 7}}");
}

TEST(ArrayOpsTest, SelectAndScatterAddsWhereSelectChose) {
  // Windows [1,5] [2,2] [7,3]: GE keeps the first of equal elements.
  constexpr const char* kComputations = R"(
ge {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=GE
}
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
)";
  EXPECT_EQ(RunBoth(StrCat("HloModule m\n", kComputations, R"(
ENTRY e {
  x = f32[6] parameter(0)
  s = f32[3] parameter(1)
  z = f32[] constant(0)
  ROOT r = f32[6] select-and-scatter(x, s, z), window={size=2 stride=2}, select=ge, scatter=add
}
)"),
                    {"{1, 5, 2, 2, 7, 3}", "{10, 20, 30}"}),
            "f32[6] {0, 10, 20, 0, 30, 0}");
  // Overlapping windows select the same element twice: both source values are added there.
  EXPECT_EQ(RunBoth(StrCat("HloModule m\n", kComputations, R"(
ENTRY e {
  x = f32[4] parameter(0)
  s = f32[2] parameter(1)
  z = f32[] constant(0.5)
  ROOT r = f32[4] select-and-scatter(x, s, z), window={size=3}, select=ge, scatter=add
}
)"),
                    {"{1, 3, 2, 0}", "{1, 2}"}),
            "f32[4] {0.5, 3.5, 0.5, 0.5}");
  // scatter gets (source, output) as XLA passes them: subtract gives 10 - 1, not 1 - 10.
  EXPECT_EQ(RunBoth(StrCat("HloModule m\n", kComputations, R"(
sub {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] subtract(a, b)
}
ENTRY e {
  x = f32[2] parameter(0)
  s = f32[1] parameter(1)
  z = f32[] constant(1)
  ROOT r = f32[2] select-and-scatter(x, s, z), window={size=2 stride=2}, select=ge, scatter=sub
}
)"),
                    {"{1, 5}", "{10}"}),
            "f32[2] {1, 9}");
}

TEST(ArrayOpsTest, ReducePrecisionRoundsToNearestEvenAndClampsTheExponent) {
  // E5M7: 1+2^-8 is a tie (to 1), 1+3*2^-8 rounds up to the even 1+2^-6; 70000 is past the
  // largest E5 exponent (inf), 1e-5 below the smallest normal one (0); NaN stays NaN.
  EXPECT_EQ(RunBoth(R"(
HloModule m
ENTRY e {
  x = f32[7] parameter(0)
  ROOT r = f32[7] reduce-precision(x), exponent_bits=5, mantissa_bits=7
}
)",
                    {"{1, 1.00390625, 1.01171875, 70000, -70000, 1e-05, nan}"}),
            "f32[7] {1, 1, 1.015625, inf, -inf, 0, nan}");
  // bf16 with as many bits as it has is unchanged; with mantissa_bits=2, 1.375 -> 1.5.
  EXPECT_EQ(RunBoth(R"(
HloModule m
ENTRY e {
  x = bf16[3] parameter(0)
  a = bf16[3] reduce-precision(x), exponent_bits=8, mantissa_bits=7
  b = bf16[3] reduce-precision(x), exponent_bits=8, mantissa_bits=2
  ROOT t = (bf16[3], bf16[3]) tuple(a, b)
}
)",
                    {"{1.375, -3, 0.1}"}),
            "{0}: bf16[3] {1.375, -3, 0.100097656}\n{1}: bf16[3] {1.5, -3, 0.09375}");
  // As XLA's evaluator, f16 is reduced as f32: E5M10 keeps every normal f16 but flushes the
  // f16 subnormal 1e-5 to zero; with mantissa_bits=0, 3 (a tie) goes to 2, whose exponent is
  // even, and a NaN becomes +inf.
  EXPECT_EQ(RunBoth(R"(
HloModule m
ENTRY e {
  x = f16[3] parameter(0)
  a = f16[3] reduce-precision(x), exponent_bits=5, mantissa_bits=10
  b = f16[3] reduce-precision(x), exponent_bits=5, mantissa_bits=0
  ROOT t = (f16[3], f16[3]) tuple(a, b)
}
)",
                    {"{1e-05, 3, nan}"}),
            "{0}: f16[3] {0, 3, nan}\n{1}: f16[3] {0, 2, inf}");
}

TEST(ArrayOpsTest, PadOfBf16WithAnF32PaddingValueConvertsTheValue) {
  // The f32 1.5 is 0x3fc00000: copying its first two bytes into the bf16 result gave zeros.
  EXPECT_EQ(RunBoth(R"(
HloModule m
ENTRY e {
  x = bf16[2] parameter(0)
  v = f32[] constant(1.5)
  ROOT p = bf16[4] pad(x, v), padding=1_1
}
)",
                    {"{1, 2}"}),
            "bf16[4] {1.5, 1, 2, 1.5}");
}

TEST(ArrayOpsTest, WhileWithKnownTripCountRunsItsCondition) {
  EXPECT_EQ(RunBoth(R"(
HloModule m
cond {
  p = (s32[], f32[2]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[2]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[2] get-tuple-element(p), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  y = f32[2] add(x, x)
  ROOT t = (s32[], f32[2]) tuple(j, y)
}
ENTRY e {
  x = f32[2] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[2]) tuple(zero, x)
  ROOT w = (s32[], f32[2]) while(init), condition=cond, body=body, backend_config={"known_trip_count":{"n":"3"}}
}
)",
                    {"{1, -2}"}),
            "{0}: s32[] 3\n{1}: f32[2] {8, -16}");
}

TEST(ArrayOpsTest, TopKTakesTheLargestInTotalOrderAndTheLowerIndexOnTies) {
  // NaN is above inf in the total order; the two 3s keep their index order.
  EXPECT_EQ(RunBoth(R"(
HloModule m
ENTRY e {
  x = f32[2,5] parameter(0)
  ROOT t = (f32[2,3], s32[2,3]) topk(x), k=3, largest=true
}
)",
                    {"{{1, 3, nan, 3, -inf}, {-0, 0, -1, 2, inf}}"}),
            "{0}: f32[2,3] {{nan, 3, 3}, {inf, 2, 0}}\n{1}: s32[2,3] {{2, 1, 3}, {4, 3, 1}}");
  EXPECT_EQ(RunBoth(R"(
HloModule m
ENTRY e {
  x = s32[4] parameter(0)
  ROOT t = (s32[2], s32[2]) topk(x), k=2, largest=false
}
)",
                    {"{5, -7, 5, -7}"}),
            "{0}: s32[2] {-7, -7}\n{1}: s32[2] {1, 3}");
}

TEST(ArrayOpsTest, CholeskyAndTriangularSolve) {
  // a = L L^T with L = {{2, 0, 0}, {6, 1, 0}, {-8, 5, 3}}; the solves have exact answers.
  EXPECT_EQ(RunBoth(R"(
HloModule m
ENTRY e {
  a = f32[3,3] parameter(0)
  l = f32[3,3] cholesky(a), lower=true
  u = f32[3,3] cholesky(a), lower=false
  b = f32[3,1] parameter(1)
  x = f32[3,1] triangular-solve(l, b), left_side=true, lower=true, transpose_a=NO_TRANSPOSE
  c = f32[3,1] parameter(2)
  y = f32[3,1] triangular-solve(l, c), left_side=true, lower=true, transpose_a=TRANSPOSE
  d = f32[1,3] parameter(3)
  z = f32[1,3] triangular-solve(l, d), left_side=false, lower=true, transpose_a=NO_TRANSPOSE
  w = f32[1,3] triangular-solve(u, d), left_side=false, lower=false, transpose_a=ADJOINT
  ROOT t = (f32[3,3], f32[3,3], f32[3,1], f32[3,1], f32[1,3], f32[1,3]) tuple(l, u, x, y, z, w)
}
)",
                    {"{{4, 12, -16}, {12, 37, -43}, {-16, -43, 98}}", "{{2}, {7}, {9}}",
                     "{{0}, {6}, {3}}", "{{0, 6, 3}}"}),
            "{0}: f32[3,3] {{2, 0, 0}, {6, 1, 0}, {-8, 5, 3}}\n"
            "{1}: f32[3,3] {{2, 6, -8}, {0, 1, 5}, {0, 0, 3}}\n"
            "{2}: f32[3,1] {{1}, {1}, {4}}\n{3}: f32[3,1] {{1}, {1}, {1}}\n"
            "{4}: f32[1,3] {{1, 1, 1}}\n{5}: f32[1,3] {{1, 1, 1}}");
  // Not positive definite: NaN from the failing pivot on; unit_diagonal ignores a's diagonal.
  EXPECT_EQ(RunBoth(R"(
HloModule m
ENTRY e {
  a = f64[2,2] parameter(0)
  l = f64[2,2] cholesky(a), lower=true
  b = f64[2,1] parameter(1)
  x = f64[2,1] triangular-solve(a, b), left_side=true, lower=true, unit_diagonal=true, transpose_a=NO_TRANSPOSE
  ROOT t = (f64[2,2], f64[2,1]) tuple(l, x)
}
)",
                    {"{{1, 2}, {2, 1}}", "{{3}, {4}}"}),
            "{0}: f64[2,2] {{1, 0}, {2, nan}}\n{1}: f64[2,1] {{3}, {-2}}");
}

std::string Refusal(std::string_view computations, std::string_view body) {
  std::unique_ptr<Module> m =
      testing::Parse(StrCat("HloModule m\n", computations, "\nENTRY e {\n", body, "\n}\n"));
  if (m == nullptr) return "parse error";
  absl::StatusOr<Literal> out = Evaluate(*m, RandomArguments(*m, 1), {});
  return out.ok() ? "ran" : std::string(StatusText(out.status()));
}

constexpr const char* kMax = R"(
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
)";

TEST(ArrayOpsTest, Threefry2x32MatchesTheRandom123KnownAnswers) {
  EXPECT_EQ(Threefry2x32({0, 0}, {0, 0}), (std::array<uint32_t, 2>{0x6b200159, 0x99ba4efe}));
  EXPECT_EQ(Threefry2x32({0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}),
            (std::array<uint32_t, 2>{0x1cb996fc, 0xbb002be7}));
  EXPECT_EQ(Threefry2x32({0x243f6a88, 0x85a308d3}, {0x13198a2e, 0x03707344}),
            (std::array<uint32_t, 2>{0xc4923a9c, 0x483df7a0}));
}

TEST(ArrayOpsTest, Philox4x32MatchesTheRandom123KnownAnswers) {
  EXPECT_EQ(Philox4x32({0, 0, 0, 0}, {0, 0}),
            (std::array<uint32_t, 4>{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(Philox4x32({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}),
            (std::array<uint32_t, 4>{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  EXPECT_EQ(Philox4x32({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0}),
            (std::array<uint32_t, 4>{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

TEST(ArrayOpsTest, RngBitGeneratorThreeFryLaysOutWordsAsXlaExpandsIt) {
  // Key 0, counter 0: Threefry(0, 0) = (0x6b200159, 0x99ba4efe). u64 takes both words (low
  // first); u32[3] (no even dimension) pairs elements 0 and 1 on counter 0, element 2 on
  // counter 1; the state's counter advances by the counters used.
  EXPECT_EQ(RunBoth(R"(
HloModule m
ENTRY e {
  s = u64[2] parameter(0)
  a = (u64[2], u64[1]) rng-bit-generator(s), algorithm=rng_three_fry
  b = (u64[2], u32[3]) rng-bit-generator(s), algorithm=rng_three_fry
  c = (u64[2], u16[2,1]) rng-bit-generator(s), algorithm=rng_three_fry
  ROOT t = ((u64[2], u64[1]), (u64[2], u32[3]), (u64[2], u16[2,1])) tuple(a, b, c)
}
)",
                    {"{0, 0}"}),
            "{0,0}: u64[2] {0, 1}\n{0,1}: u64[1] {11077253088097075545}\n"
            "{1,0}: u64[2] {0, 2}\n{1,1}: u32[3] {1797259609, 2579123966, 1351547692}\n"
            "{2,0}: u64[2] {0, 1}\n{2,1}: u16[2,1] {{345}, {20222}}");
  // Philox, state {0, 0}: the counter is (state[1], state[0]) = 0, block 0 is the known answer
  // (0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8), element e is word e % 4 of block e / 4
  // (u64: word pairs); a 3-word state keeps its high counter word, u8 keeps the low byte.
  EXPECT_EQ(RunBoth(R"(
HloModule m
ENTRY e {
  s = u64[2] parameter(0)
  a = (u64[2], u32[5]) rng-bit-generator(s), algorithm=rng_philox
  b = (u64[2], u64[3]) rng-bit-generator(s), algorithm=rng_philox
  t = u64[3] parameter(1)
  c = (u64[3], u8[2]) rng-bit-generator(t), algorithm=rng_philox
  ROOT r = ((u64[2], u32[5]), (u64[2], u64[3]), (u64[3], u8[2])) tuple(a, b, c)
}
)",
                    {"{0, 0}", "{0, 0, 0}"}),
            "{0,0}: u64[2] {0, 2}\n"
            "{0,1}: u32[5] {1713891541, 3781805453, 3159862348, 2600524760, 4175744164}\n"
            "{1,0}: u64[2] {0, 2}\n"
            "{1,1}: u64[3] {16242730742183356629, 11169168799798111308, 6679402142117448868}\n"
            "{2,0}: u64[3] {0, 1, 0}\n{2,1}: u8[2] {213, 141}");
  EXPECT_EQ(
      Refusal("",
              "  s = u64[2] parameter(0)\n"
              "  ROOT r = (u64[2], u32[4]) rng-bit-generator(s), algorithm=rng_default"),
      "the interpreter runs rng-bit-generator with algorithm=rng_three_fry or rng_philox, not "
      "rng_default (the backend's choice; instruction %r)");
  EXPECT_EQ(Refusal("",
                    "  s = u64[1] parameter(0)\n"
                    "  ROOT r = (u64[1], u32[4]) rng-bit-generator(s), algorithm=rng_philox"),
            "cannot run %r: Philox needs a u64 state of 2 or more words and gives it back");
  EXPECT_EQ(Refusal("",
                    "  s = u64[3] parameter(0)\n"
                    "  ROOT r = (u64[3], u32[4]) rng-bit-generator(s), algorithm=rng_three_fry"),
            "cannot run %r: ThreeFry needs a u64[2] state (key, counter) and gives it back");
}

TEST(ArrayOpsTest, KernelsRefuseOperandsThatDoNotFit) {
  EXPECT_EQ(Refusal(kMax,
                    "  x = f32[4] parameter(0)\n  z = f32[] constant(0)\n"
                    "  ROOT r = f32[4] reduce-window(x, z), window={size=2}, to_apply=max"),
            "cannot run %r: the window gives 3 positions along dimension 0, not 4");
  EXPECT_EQ(Refusal(kMax,
                    "  x = f32[4] parameter(0)\n  z = f32[] constant(0)\n"
                    "  ROOT r = f32[3] reduce-window(x, z), window={size=2x2}, to_apply=max"),
            "cannot run %r: the window has 2 dimensions, the operand 1");
  EXPECT_EQ(
      Refusal(kMax,
              "  x = f32[4] parameter(0)\n  z = f32[] constant(0)\n"
              "  ROOT r = f32[3] reduce-window(x, z), window={size=2 stride=0}, "
              "to_apply=max"),
      "cannot run %r: window dimension 0 has stride=0, but sizes, strides and dilations must be "
      "positive");
  EXPECT_EQ(Refusal(kMax,
                    "  x = f32[4] parameter(0)\n  z = f32[2] parameter(1)\n"
                    "  ROOT r = f32[3] reduce-window(x, z), window={size=2}, to_apply=max"),
            "cannot run %r: the inputs must share one shape, the init values be scalars");
  EXPECT_EQ(Refusal(kMax,
                    "  x = f32[4] parameter(0)\n"
                    "  ROOT s = f32[4] sort(x), dimensions={1}, to_apply=max"),
            "cannot run %s: sort needs one dimension of the operands' 1 in dimensions={...}");
  EXPECT_EQ(Refusal("",
                    "  x = f32[4] parameter(0)\n"
                    "  ROOT s = f32[4] sort(x), dimensions={0}"),
            "cannot run %s: sort needs a comparator (to_apply=)");
  EXPECT_EQ(Refusal(kMax,
                    "  x = f32[4] parameter(0)\n  y = f32[5] parameter(1)\n"
                    "  ROOT s = (f32[4], f32[5]) sort(x, y), dimensions={0}, to_apply=max"),
            "cannot run %s: every operand and output must have the same dimensions");
  EXPECT_EQ(Refusal(kMax,
                    "  x = f32[4] parameter(0)\n  s = f32[2] parameter(1)\n"
                    "  z = f32[] constant(0)\n"
                    "  ROOT r = f32[4] select-and-scatter(x, s, z), window={size=2 stride=2}"),
            "cannot run %r: select-and-scatter needs select= and scatter=");
  EXPECT_EQ(Refusal(kMax,
                    "  x = f32[4] parameter(0)\n  s = f32[3] parameter(1)\n"
                    "  z = f32[] constant(0)\n"
                    "  ROOT r = f32[4] select-and-scatter(x, s, z), window={size=2 stride=2}, "
                    "select=max, scatter=max"),
            "cannot run %r: the window gives 2 positions along dimension 0, not 3");
  EXPECT_EQ(Refusal("",
                    "  x = f32[1,4,1] parameter(0)\n  k = f32[1,1,2] parameter(1)\n"
                    "  ROOT c = f32[1,1,4] convolution(x, k), window={size=2}, "
                    "dim_labels=bf0_oi0->bf0"),
            "cannot run %c: the lhs feature size 4 is not feature_group_count (1) times the rhs "
            "input feature size (1)");
  EXPECT_EQ(Refusal("",
                    "  x = f32[1,1,4] parameter(0)\n  k = f32[1,1,2] parameter(1)\n"
                    "  ROOT c = f32[1,1,4] convolution(x, k), window={size=2}, "
                    "dim_labels=bf0_oi0->bf0"),
            "cannot run %c: its operands give f32[1,1,3], not f32[1,1,4]");
  EXPECT_EQ(Refusal("",
                    "  x = f32[1,1,4] parameter(0)\n  k = f32[1,1,2] parameter(1)\n"
                    "  ROOT c = f32[1,1,3] convolution(x, k), window={size=2}"),
            "cannot run %c: it has no dim_labels");
  EXPECT_EQ(Refusal("",
                    "  x = s32[4] parameter(0)\n"
                    "  ROOT r = s32[4] reduce-precision(x), exponent_bits=5, mantissa_bits=2"),
            "cannot run %r: reduce-precision needs a float operand (f16, bf16, f32, f64), not s32");
  EXPECT_EQ(Refusal("",
                    "  x = f32[4] parameter(0)\n"
                    "  ROOT r = f32[4] reduce-precision(x), exponent_bits=0, mantissa_bits=2"),
            "cannot run %r: exponent_bits=0 and mantissa_bits=2 do not describe a float format "
            "(at least 1 and 0)");
  EXPECT_EQ(Refusal("",
                    "  x = f32[4] parameter(0)\n"
                    "  ROOT r = f32[4] reduce-precision(x), mantissa_bits=2"),
            "cannot run %r: reduce-precision needs exponent_bits= and mantissa_bits=");
  EXPECT_EQ(Refusal("",
                    "  x = f32[4] parameter(0)\n"
                    "  ROOT t = (f32[5], s32[5]) topk(x), k=5, largest=true"),
            "cannot run %t: k must be between 0 and the last dimension's 4");
  EXPECT_EQ(Refusal("",
                    "  x = f32[4] parameter(0)\n"
                    "  ROOT t = (f32[2], s32[3]) topk(x), k=2, largest=true"),
            "cannot run %t: its result must be (f32[..., k], s32[..., k]) for the operand f32[4]");
  EXPECT_EQ(Refusal("",
                    "  x = f32[2,3] parameter(0)\n"
                    "  ROOT c = f32[2,3] cholesky(x), lower=true"),
            "cannot run %c: cholesky takes one float array of square matrices and gives its "
            "shape");
  EXPECT_EQ(Refusal("",
                    "  a = f32[2,2] parameter(0)\n  b = f32[3,1] parameter(1)\n"
                    "  ROOT x = f32[3,1] triangular-solve(a, b), left_side=true, lower=true, "
                    "transpose_a=NO_TRANSPOSE"),
            "cannot run %x: b's rows must number a's 2");
  EXPECT_EQ(Refusal("",
                    "  a = f32[2,2] parameter(0)\n  b = f32[2,1] parameter(1)\n"
                    "  ROOT x = f32[2,1] triangular-solve(a, b), left_side=true, lower=true, "
                    "transpose_a=SIDEWAYS"),
            "cannot run %x: transpose_a=SIDEWAYS is not NO_TRANSPOSE, TRANSPOSE or ADJOINT");
  EXPECT_EQ(Refusal("",
                    "  a = f32[2,2] parameter(0)\n  b = f32[2,1] parameter(1)\n"
                    "  ROOT x = f32[2,2] triangular-solve(a, b), left_side=true, lower=true"),
            "cannot run %x: triangular-solve needs float a[..., n, n] and b of the result's shape");
}

}  // namespace
}  // namespace hloscope::eval
