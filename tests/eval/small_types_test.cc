// The 8/6/4-bit floats and sub-byte integers of eval/small_types.h, at the edges of each
// format: ties, the largest finite value, subnormals, NaN and the types without -0 or inf.
#include "eval/small_types.h"

#include <cmath>
#include <limits>

#include "eval/element_io.h"
#include "gtest/gtest.h"

namespace hloscope::eval {
namespace {

double Round(PrimitiveType t, double v) { return SmallFloatToDouble(t, DoubleToSmallFloat(t, v)); }

TEST(SmallTypesTest, F8E4M3FNRoundsTiesToEvenAndOverflowsToNaN) {
  const PrimitiveType t = PrimitiveType::kF8E4M3FN;
  EXPECT_EQ(Round(t, 448), 448);           // the largest finite value, 0x7e
  EXPECT_EQ(Round(t, 464), 448);           // the tie with 480 goes to the even 448
  EXPECT_TRUE(std::isnan(Round(t, 465)));  // past it: no inf in this type
  EXPECT_EQ(DoubleToSmallFloat(t, 448), 0x7e);
  EXPECT_EQ(DoubleToSmallFloat(t, -448), 0xfe);
  EXPECT_EQ(Round(t, 1.0625), 1);                                 // tie between 1 and 1.125
  EXPECT_EQ(Round(t, 1.1875), 1.25);                              // tie between 1.125 and 1.25
  EXPECT_EQ(Round(t, std::ldexp(1.0, -9)), std::ldexp(1.0, -9));  // the smallest subnormal
  EXPECT_EQ(Round(t, std::ldexp(1.0, -10)), 0);                   // its half: tie to 0
  EXPECT_TRUE(std::signbit(Round(t, -0.0)));
  EXPECT_TRUE(std::isnan(SmallFloatToDouble(t, 0x7f)));
  EXPECT_TRUE(std::isnan(SmallFloatToDouble(t, 0xff)));
}

TEST(SmallTypesTest, F8E5M2HasInfinity) {
  const PrimitiveType t = PrimitiveType::kF8E5M2;
  EXPECT_EQ(Round(t, 57344), 57344);
  EXPECT_EQ(Round(t, 61439), 57344);
  EXPECT_TRUE(std::isinf(Round(t, 61440)));  // the tie goes up to the even pattern, inf
  EXPECT_TRUE(std::isinf(Round(t, -std::numeric_limits<double>::infinity())));
  EXPECT_EQ(DoubleToSmallFloat(t, std::numeric_limits<double>::infinity()), 0x7c);
  EXPECT_TRUE(std::isnan(Round(t, std::numeric_limits<double>::quiet_NaN())));
}

TEST(SmallTypesTest, FnuzTypesHaveNoNegativeZero) {
  const PrimitiveType t = PrimitiveType::kF8E4M3FNUZ;
  EXPECT_EQ(DoubleToSmallFloat(t, -0.0), 0x00);
  EXPECT_TRUE(std::isnan(SmallFloatToDouble(t, 0x80)));
  EXPECT_EQ(Round(t, 240), 240);  // the largest finite value (bias 8)
  EXPECT_TRUE(std::isnan(Round(t, 256)));
}

TEST(SmallTypesTest, F4E2M1FNSaturates) {
  const PrimitiveType t = PrimitiveType::kF4E2M1FN;
  EXPECT_EQ(Round(t, 5), 4);  // tie between 4 and 6: the even 4
  EXPECT_EQ(Round(t, 100), 6);
  EXPECT_EQ(Round(t, -0.25), -0.0);
  EXPECT_EQ(Round(t, 0.75), 1);  // tie between 0.5 and 1: the even 1
}

TEST(SmallTypesTest, SubByteIntegersWrapAndExtend) {
  uint8_t b = 0;
  StoreInt(PrimitiveType::kS4, &b, 8);
  EXPECT_EQ(LoadInt(PrimitiveType::kS4, &b), -8);
  StoreInt(PrimitiveType::kS4, &b, -9);
  EXPECT_EQ(LoadInt(PrimitiveType::kS4, &b), 7);
  StoreInt(PrimitiveType::kU4, &b, -1);
  EXPECT_EQ(LoadInt(PrimitiveType::kU4, &b), 15);
  StoreDouble(PrimitiveType::kS4, &b, 100.0);  // float -> int saturates
  EXPECT_EQ(LoadInt(PrimitiveType::kS4, &b), 7);
  StoreInt(PrimitiveType::kS2, &b, 2);
  EXPECT_EQ(LoadInt(PrimitiveType::kS2, &b), -2);
  EXPECT_EQ(BitWidth(PrimitiveType::kU2), 2);
  EXPECT_EQ(ElementBytes(PrimitiveType::kS4), 1);
}

}  // namespace
}  // namespace hloscope::eval
