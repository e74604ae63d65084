// Elementwise ops, compare, select, clamp and convert against hand-computed results.
#include "gtest/gtest.h"
#include "support/str_util.h"
#include "tests/eval/eval_test_util.h"

namespace hloscope::eval {
namespace {

using testing::RunBoth;
using testing::RunText;

// A module applying `op` (text after the result shape) to parameters of the given shapes.
std::string Module(std::string_view params, std::string_view root) {
  return StrCat("HloModule m\nENTRY e {\n", params, "\n  ROOT r = ", root, "\n}\n");
}

TEST(ElementwiseTest, FloatArithmetic) {
  std::string p = "  a = f32[4] parameter(0)\n  b = f32[4] parameter(1)";
  std::vector<std::string> args = {"{1.5, -2, 7, 0}", "{0.5, 4, -2, 0}"};
  EXPECT_EQ(RunBoth(Module(p, "f32[4] add(a, b)"), args), "f32[4] {2, 2, 5, 0}");
  EXPECT_EQ(RunBoth(Module(p, "f32[4] subtract(a, b)"), args), "f32[4] {1, -6, 9, 0}");
  EXPECT_EQ(RunBoth(Module(p, "f32[4] multiply(a, b)"), args), "f32[4] {0.75, -8, -14, 0}");
  EXPECT_EQ(RunBoth(Module(p, "f32[4] divide(a, b)"), args), "f32[4] {3, -0.5, -3.5, nan}");
  EXPECT_EQ(RunBoth(Module(p, "f32[4] maximum(a, b)"), args), "f32[4] {1.5, 4, 7, 0}");
  EXPECT_EQ(RunBoth(Module(p, "f32[4] minimum(a, b)"), args), "f32[4] {0.5, -2, -2, 0}");
  EXPECT_EQ(RunBoth(Module(p, "f32[4] remainder(a, b)"), args), "f32[4] {0, -2, 1, nan}");
  EXPECT_EQ(RunBoth(Module(p, "f32[4] power(a, b)"), args),
            "f32[4] {1.2247449, 16, 0.020408163, 1}");
}

TEST(ElementwiseTest, FloatUnary) {
  std::string p = "  a = f32[4] parameter(0)";
  std::vector<std::string> args = {"{-1.5, 0.25, 4, 2.5}"};
  EXPECT_EQ(RunBoth(Module(p, "f32[4] abs(a)"), args), "f32[4] {1.5, 0.25, 4, 2.5}");
  EXPECT_EQ(RunBoth(Module(p, "f32[4] negate(a)"), args), "f32[4] {1.5, -0.25, -4, -2.5}");
  EXPECT_EQ(RunBoth(Module(p, "f32[4] floor(a)"), args), "f32[4] {-2, 0, 4, 2}");
  EXPECT_EQ(RunBoth(Module(p, "f32[4] ceil(a)"), args), "f32[4] {-1, 1, 4, 3}");
  EXPECT_EQ(RunBoth(Module(p, "f32[4] round-nearest-even(a)"), args), "f32[4] {-2, 0, 4, 2}");
  EXPECT_EQ(RunBoth(Module(p, "f32[4] round-nearest-afz(a)"), args), "f32[4] {-2, 0, 4, 3}");
  EXPECT_EQ(RunBoth(Module(p, "f32[4] sign(a)"), args), "f32[4] {-1, 1, 1, 1}");
  EXPECT_EQ(RunBoth(Module(p, "f32[4] sqrt(a)"), args), "f32[4] {nan, 0.5, 2, 1.5811388}");
  EXPECT_EQ(RunBoth(Module(p, "f32[4] rsqrt(a)"), args), "f32[4] {nan, 2, 0.5, 0.6324555}");
  EXPECT_EQ(RunBoth(Module(p, "f32[4] exponential(a)"), args),
            "f32[4] {0.22313017, 1.2840254, 54.59815, 12.182494}");
  EXPECT_EQ(RunBoth(Module(p, "f32[4] tanh(a)"), args),
            "f32[4] {-0.90514827, 0.24491866, 0.9993293, 0.9866143}");
  EXPECT_EQ(RunBoth(Module(p, "f32[4] logistic(a)"), args),
            "f32[4] {0.18242553, 0.5621765, 0.98201376, 0.9241418}");
  EXPECT_EQ(RunBoth(Module(p, "pred[4] is-finite(a)"), args), "pred[4] {true, true, true, true}");
}

TEST(ElementwiseTest, Bf16ResultsAreRoundedToNearestEven) {
  // 1 + 2^-8 is exactly halfway between two bf16 values: rounds to the even one (1).
  std::string p = "  a = bf16[3] parameter(0)\n  b = bf16[3] parameter(1)";
  EXPECT_EQ(RunBoth(Module(p, "bf16[3] add(a, b)"),
                    {"{1, 1, 1.0078125}", "{0.00390625, 0.01171875, 0.00390625}"}),
            "bf16[3] {1, 1.015625, 1.015625}");
  // f32 -> bf16 convert: 1.00390625 ties to 1, 1.01171875 ties up to 1.015625, and the f32
  // just above 1.00390625 rounds up.
  EXPECT_EQ(RunBoth(Module("  a = f32[3] parameter(0)", "bf16[3] convert(a)"),
                    {"{1.00390625, 1.01171875, 1.0039064}"}),
            "bf16[3] {1, 1.015625, 1.0078125}");
  EXPECT_EQ(
      RunBoth(Module("  a = f32[2] parameter(0)", "f16[2] convert(a)"), {"{1.00048828125, 70000}"}),
      "f16[2] {1, inf}");
}

TEST(ElementwiseTest, IntegerArithmeticWrapsAndFollowsXlaDivision) {
  std::string p = "  a = s32[5] parameter(0)\n  b = s32[5] parameter(1)";
  std::vector<std::string> args = {"{7, -7, 5, -2147483648, 2147483647}", "{2, 2, 0, -1, 1}"};
  EXPECT_EQ(RunBoth(Module(p, "s32[5] divide(a, b)"), args),
            "s32[5] {3, -3, -1, -2147483648, 2147483647}");
  EXPECT_EQ(RunBoth(Module(p, "s32[5] remainder(a, b)"), args), "s32[5] {1, -1, 5, 0, 0}");
  EXPECT_EQ(RunBoth(Module(p, "s32[5] add(a, b)"), args),
            "s32[5] {9, -5, 5, 2147483647, -2147483648}");
  EXPECT_EQ(RunBoth(Module(p, "s32[5] multiply(a, b)"), args),
            "s32[5] {14, -14, 0, -2147483648, 2147483647}");
  EXPECT_EQ(RunBoth(Module(p, "s32[5] power(b, b)"), args), "s32[5] {4, 4, 1, -1, 1}");
  std::string u = "  a = u8[3] parameter(0)\n  b = u8[3] parameter(1)";
  EXPECT_EQ(RunBoth(Module(u, "u8[3] subtract(a, b)"), {"{1, 200, 0}", "{2, 100, 0}"}),
            "u8[3] {255, 100, 0}");
  EXPECT_EQ(RunBoth(Module(u, "u8[3] maximum(a, b)"), {"{1, 200, 0}", "{2, 100, 0}"}),
            "u8[3] {2, 200, 0}");
  EXPECT_EQ(RunBoth(Module(u, "u8[3] divide(a, b)"), {"{1, 200, 9}", "{2, 100, 0}"}),
            "u8[3] {0, 2, 255}");
}

TEST(ElementwiseTest, BitwiseShiftsAndCounts) {
  std::string p = "  a = s8[4] parameter(0)\n  b = s8[4] parameter(1)";
  std::vector<std::string> args = {"{-128, 1, 96, -1}", "{1, 7, 9, 3}"};
  EXPECT_EQ(RunBoth(Module(p, "s8[4] shift-left(a, b)"), args), "s8[4] {0, -128, 0, -8}");
  EXPECT_EQ(RunBoth(Module(p, "s8[4] shift-right-logical(a, b)"), args), "s8[4] {64, 0, 0, 31}");
  EXPECT_EQ(RunBoth(Module(p, "s8[4] shift-right-arithmetic(a, b)"), args),
            "s8[4] {-64, 0, 0, -1}");
  EXPECT_EQ(RunBoth(Module(p, "s8[4] and(a, b)"), args), "s8[4] {0, 1, 0, 3}");
  EXPECT_EQ(RunBoth(Module(p, "s8[4] or(a, b)"), args), "s8[4] {-127, 7, 105, -1}");
  EXPECT_EQ(RunBoth(Module(p, "s8[4] xor(a, b)"), args), "s8[4] {-127, 6, 105, -4}");
  EXPECT_EQ(RunBoth(Module(p, "s8[4] not(a)"), args), "s8[4] {127, -2, -97, 0}");
  EXPECT_EQ(RunBoth(Module(p, "s8[4] popcnt(a)"), args), "s8[4] {1, 1, 2, 8}");
  EXPECT_EQ(RunBoth(Module(p, "s8[4] count-leading-zeros(a)"), args), "s8[4] {0, 7, 1, 0}");
  EXPECT_EQ(RunBoth(Module(p, "s8[4] abs(a)"), args), "s8[4] {-128, 1, 96, 1}");
  EXPECT_EQ(RunBoth(Module("  a = pred[2] parameter(0)", "pred[2] not(a)"), {"{true, false}"}),
            "pred[2] {false, true}");
}

TEST(ElementwiseTest, CompareEveryDirectionAndTotalOrder) {
  std::string p = "  a = f32[4] parameter(0)\n  b = f32[4] parameter(1)";
  std::vector<std::string> args = {"{1, 2, nan, -0}", "{2, 2, nan, 0}"};
  EXPECT_EQ(RunBoth(Module(p, "pred[4] compare(a, b), direction=EQ"), args),
            "pred[4] {false, true, false, true}");
  EXPECT_EQ(RunBoth(Module(p, "pred[4] compare(a, b), direction=NE"), args),
            "pred[4] {true, false, true, false}");
  EXPECT_EQ(RunBoth(Module(p, "pred[4] compare(a, b), direction=LT"), args),
            "pred[4] {true, false, false, false}");
  EXPECT_EQ(RunBoth(Module(p, "pred[4] compare(a, b), direction=LE"), args),
            "pred[4] {true, true, false, true}");
  EXPECT_EQ(RunBoth(Module(p, "pred[4] compare(a, b), direction=GT"), args),
            "pred[4] {false, false, false, false}");
  EXPECT_EQ(RunBoth(Module(p, "pred[4] compare(a, b), direction=GE"), args),
            "pred[4] {false, true, false, true}");
  // Total order: -0 < +0 and NaN equals itself.
  EXPECT_EQ(RunBoth(Module(p, "pred[4] compare(a, b), direction=LT, type=TOTALORDER"), args),
            "pred[4] {true, false, false, true}");
  EXPECT_EQ(RunBoth(Module(p, "pred[4] compare(a, b), direction=EQ, type=TOTALORDER"), args),
            "pred[4] {false, true, true, false}");
  // Unsigned comparison reads the bits as unsigned.
  EXPECT_EQ(RunBoth(Module("  a = u32[2] parameter(0)\n  b = u32[2] parameter(1)",
                           "pred[2] compare(a, b), direction=GT"),
                    {"{4294967295, 1}", "{1, 2}"}),
            "pred[2] {true, false}");
  EXPECT_EQ(RunBoth(Module("  a = s32[2] parameter(0)\n  b = s32[2] parameter(1)",
                           "pred[2] compare(a, b), direction=GT"),
                    {"{-1, 1}", "{1, 2}"}),
            "pred[2] {false, false}");
}

TEST(ElementwiseTest, SelectAndClamp) {
  EXPECT_EQ(
      RunBoth(
          Module("  p = pred[3] parameter(0)\n  a = s32[3] parameter(1)\n  b = s32[3] parameter(2)",
                 "s32[3] select(p, a, b)"),
          {"{true, false, true}", "{1, 2, 3}", "{4, 5, 6}"}),
      "s32[3] {1, 5, 3}");
  EXPECT_EQ(
      RunBoth(
          Module("  lo = f32[] parameter(0)\n  x = f32[4] parameter(1)\n  hi = f32[] parameter(2)",
                 "f32[4] clamp(lo, x, hi)"),
          {"-1", "{-5, 0.5, 3, -1}", "2"}),
      "f32[4] {-1, 0.5, 2, -1}");
}

TEST(ElementwiseTest, ConvertAmongTypes) {
  EXPECT_EQ(RunBoth(Module("  a = f32[5] parameter(0)", "s8[5] convert(a)"),
                    {"{-2.75, 2.75, 300, -300, nan}"}),
            "s8[5] {-2, 2, 127, -128, 0}");
  EXPECT_EQ(RunBoth(Module("  a = s32[3] parameter(0)", "u8[3] convert(a)"), {"{-1, 256, 7}"}),
            "u8[3] {255, 0, 7}");
  EXPECT_EQ(RunBoth(Module("  a = u64[2] parameter(0)", "f64[2] convert(a)"),
                    {"{18446744073709551615, 3}"}),
            "f64[2] {1.8446744073709552e+19, 3}");
  EXPECT_EQ(RunBoth(Module("  a = s32[3] parameter(0)", "pred[3] convert(a)"), {"{0, 5, -1}"}),
            "pred[3] {false, true, true}");
  EXPECT_EQ(RunBoth(Module("  a = pred[2] parameter(0)", "bf16[2] convert(a)"), {"{true, false}"}),
            "bf16[2] {1, 0}");
  EXPECT_EQ(RunBoth(Module("  a = s64[1] parameter(0)", "f32[1] convert(a)"), {"{16777217}"}),
            "f32[1] {16777216}");
  EXPECT_EQ(RunBoth(Module("  a = f64[1] parameter(0)", "f16[1] convert(a)"), {"{0.1}"}),
            "f16[1] {0.099975586}");
  EXPECT_EQ(RunBoth(Module("  a = f32[2] parameter(0)", "s32[2] bitcast-convert(a)"), {"{1, -2}"}),
            "s32[2] {1065353216, -1073741824}");
}

}  // namespace
}  // namespace hloscope::eval
