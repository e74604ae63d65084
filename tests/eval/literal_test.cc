// Literals: storage order, random contents, comparison, printing, parsing, float rounding.
#include "eval/literal.h"

#include <cmath>
#include <cstring>

#include "eval/element_io.h"
#include "eval/evaluator.h"
#include "gtest/gtest.h"
#include "support/status_text.h"
#include "tests/eval/eval_test_util.h"

namespace hloscope::eval {
namespace {

// Shapes come from a parsed module so their tuple elements stay alive.
struct Shapes {
  std::unique_ptr<Module> m = testing::Parse(R"(
HloModule shapes
ENTRY e {
  a = f32[2,3]{1,0} parameter(0)
  b = f32[2,3]{0,1} parameter(1)
  c = (s32[], bf16[4]) parameter(2)
  d = f32[100]{0} parameter(3)
  e = pred[3] parameter(4)
  f = u8[2] parameter(5)
  ROOT t = (f32[2,3]{1,0}, f32[2,3]{0,1}) tuple(a, b)
})");
  const Shape& operator[](int i) const { return m->entry()->parameter(i)->shape(); }
};

TEST(LiteralTest, ZerosHasEveryElementAndTupleElements) {
  Shapes s;
  Literal a = Literal::Zeros(s[0]);
  EXPECT_EQ(a.data().size(), 24u);
  EXPECT_EQ(a.Get({1, 2}), 0.0);
  Literal c = Literal::Zeros(s[2]);
  ASSERT_TRUE(c.is_tuple());
  ASSERT_EQ(c.elements().size(), 2u);
  EXPECT_EQ(c.elements()[1].data().size(), 8u);  // bf16: two bytes each
}

TEST(LiteralTest, StorageFollowsTheLayoutAndAccessIsLogical) {
  Shapes s;
  Literal row = Literal::Zeros(s[0]);  // {1,0}: row-major
  Literal col = Literal::Zeros(s[1]);  // {0,1}: column-major
  row.Set({0, 1}, 5);
  col.Set({0, 1}, 5);
  EXPECT_EQ(row.PhysicalOffset({0, 1}), 4);  // element 1
  EXPECT_EQ(col.PhysicalOffset({0, 1}), 8);  // element 2 (dimension 0 is minor)
  EXPECT_EQ(col.Get({0, 1}), 5.0);
  // Same logical values, different bytes: equal as literals.
  EXPECT_NE(std::vector<uint8_t>(row.data().begin(), row.data().end()),
            std::vector<uint8_t>(col.data().begin(), col.data().end()));
  EXPECT_EQ(FirstDifference(row, col), std::nullopt);
}

TEST(LiteralTest, RandomLiteralIsDeterministicAndSmall) {
  Shapes s;
  Literal a = RandomLiteral(s[3], 42), b = RandomLiteral(s[3], 42), c = RandomLiteral(s[3], 43);
  EXPECT_EQ(FirstDifference(a, b), std::nullopt);
  EXPECT_NE(FirstDifference(a, c), std::nullopt);
  bool negative = false, fraction = false;
  for (int64_t i = 0; i < 100; ++i) {
    double v = a.Get({i});
    EXPECT_GE(v, -2.0);
    EXPECT_LT(v, 2.0);
    EXPECT_EQ(v * 8, std::floor(v * 8)) << "multiples of 1/8";
    negative |= v < 0;
    fraction |= v != std::floor(v);
  }
  EXPECT_TRUE(negative && fraction);
  // Pinned values: the same on every machine (no std:: distributions).
  EXPECT_EQ(FormatLiteral(RandomLiteral(s[4], 7), true),
            FormatLiteral(RandomLiteral(s[4], 7), true));
  Literal p = RandomLiteral(s[4], 7);
  for (int64_t i = 0; i < 3; ++i) EXPECT_TRUE(p.Get({i}) == 0 || p.Get({i}) == 1);
  // Layout does not change the logical values.
  EXPECT_EQ(FirstDifference(RandomLiteral(s[0], 5), RandomLiteral(s[1], 5)), std::nullopt);
}

TEST(LiteralTest, RandomArgumentsGiveEachParameterItsOwnStream) {
  Shapes s;
  std::vector<Literal> args = RandomArguments(*s.m, 9);
  ASSERT_EQ(args.size(), 6u);
  EXPECT_TRUE(args[2].is_tuple());
  // Parameters 0 and 1 have the same dims: different values because the seed mixes i.
  EXPECT_NE(FirstDifference(args[0], args[1]), std::nullopt);
  EXPECT_EQ(FirstDifference(RandomArguments(*s.m, 9)[3], args[3]), std::nullopt);
}

TEST(LiteralTest, FirstDifferenceNamesOutputIndexAndElement) {
  Shapes s;
  Literal a = Literal::Zeros(s.m->entry()->root()->shape());
  Literal b = Literal::Zeros(s.m->entry()->root()->shape());
  EXPECT_EQ(FirstDifference(a, b), std::nullopt);
  a.mutable_elements()[1].Set({1, 2}, 1.5);
  b.mutable_elements()[1].Set({1, 2}, 1.25);
  EXPECT_EQ(FirstDifference(a, b), "output {1}: element [1,2]: 1.5 vs 1.25");
  // Bitwise: -0 and +0 differ.
  Literal z1 = Literal::Zeros(s[3]), z2 = Literal::Zeros(s[3]);
  z2.Set({4}, -0.0);
  EXPECT_EQ(FirstDifference(z1, z2), "output {}: element [4]: 0 vs -0");
  // Shapes.
  EXPECT_EQ(FirstDifference(Literal::Zeros(s[3]), Literal::Zeros(s[0])),
            "output {}: shape f32[100] vs f32[2,3]");
  EXPECT_EQ(FirstDifference(Literal::Zeros(s[2]), Literal::Zeros(s[3])),
            "output {}: shape (s32[], bf16[4]) vs f32[100]");
}

TEST(LiteralTest, FirstDifferenceShowsBitsOfNaNsThatPrintAlike) {
  Shapes s;
  Literal a = Literal::Zeros(s[3]), b = Literal::Zeros(s[3]);
  uint32_t n1 = 0x7fc00000, n2 = 0x7fc00001;
  std::memcpy(a.mutable_data().data(), &n1, 4);
  std::memcpy(b.mutable_data().data(), &n2, 4);
  EXPECT_EQ(FirstDifference(a, b), "output {}: element [0]: nan (0x7fc00000) vs nan (0x7fc00001)");
}

TEST(LiteralTest, FormatPrintsSmallArraysInFullAndLargeOnesAsSummary) {
  Shapes s;
  absl::StatusOr<Literal> a = ParseLiteral("{{1, 2, 3}, {4, 5, 6.5}}", s[1]);
  ASSERT_TRUE(a.ok()) << StatusText(a.status());
  EXPECT_EQ(FormatLiteral(*a, false), "f32[2,3] {{1, 2, 3}, {4, 5, 6.5}}\n");
  Literal big = Literal::Zeros(s[3]);
  big.Set({0}, 2);
  big.Set({1}, -1);
  EXPECT_EQ(FormatLiteral(big, false),
            "f32[100] min=-1 max=2 mean=0.01 first={2, -1, 0, 0, 0, 0, 0, 0, ...}\n");
  std::string all = FormatLiteral(big, true);
  EXPECT_TRUE(all.starts_with("f32[100] {2, -1, 0, 0,")) << all;
  EXPECT_TRUE(all.ends_with(", 0, 0}\n")) << all;
  EXPECT_EQ(all.find("..."), std::string::npos);
  absl::StatusOr<Literal> t = ParseLiteral("(7, {1.5, 2, -inf, nan})", s[2]);
  ASSERT_TRUE(t.ok()) << StatusText(t.status());
  EXPECT_EQ(FormatLiteral(*t, false), "{0}: s32[] 7\n{1}: bf16[4] {1.5, 2, -inf, nan}\n");
}

TEST(LiteralTest, ParseLiteralReportsWhatWasExpected) {
  Shapes s;
  auto err = [&](std::string_view text, int i) {
    absl::StatusOr<Literal> l = ParseLiteral(text, s[i]);
    return l.ok() ? std::string("ok") : std::string(StatusText(l.status()));
  };
  EXPECT_EQ(err("{1, 2, 3}", 0), "literal column 2: expected '{' for dimension 1 of f32[2,3]");
  EXPECT_EQ(err("{{1, 2}, {3, 4}}", 0),
            "literal column 7: dimension 1 of f32[2,3] has 3 elements, found '}' after 2");
  // Commas are optional, as XLA's parser skips them (ParseDenseLiteral): rows written `} {`.
  EXPECT_EQ(err("{{1 2 3} {4, 5, 6,},}", 0), "ok");
  EXPECT_EQ(err("{{1, 2, 3}, {4, 5, 6, 7}}", 0),
            "literal column 23: expected '}' : dimension 1 of f32[2,3] has 3 elements");
  EXPECT_EQ(err("{{1, 2, 3}, {4, x, 6}}", 0), "literal column 17: 'x' is not a f32 value");
  EXPECT_EQ(err("{{1, 2, 3}, {4, 5, 6}} 7", 0),
            "literal column 24: unexpected text after the literal");
  EXPECT_EQ(err("{true, false, 2}", 4), "literal column 15: '2' is not a pred value");
  EXPECT_EQ(err("{1, 256}", 5), "literal column 5: '256' is out of range for u8");
  EXPECT_EQ(err("(1 {1,2,3,4})", 2), "ok");  // commas are optional between tuple elements too
  EXPECT_EQ(err("(1, {1,2,3,4}, 5)", 2), "literal column 16: expected ')' after 2 tuple elements");
  EXPECT_EQ(err("{1, /*index=1*/ 2}", 5), "ok");
}

// A NaN payload is the mantissa of the NaN, as XLA's parser sets it (hlo_parser.cc
// SetValueInLiteral, xla/util.h NanWithSignAndPayload at openxla/xla 2c731115): bf16
// -nan(0x7f) is 0xffff; a payload wider than the mantissa is an error.
TEST(LiteralTest, NanPayloadsSetTheMantissa) {
  Shapes s;
  absl::StatusOr<Literal> t = ParseLiteral("(7, {-nan(0x7f), nan(0x3f), nan, -nan})", s[2]);
  ASSERT_TRUE(t.ok()) << StatusText(t.status());
  absl::Span<const uint8_t> b = t->elements()[1].data();
  ASSERT_EQ(b.size(), 8u);
  auto bits = [&](int i) { return b[2 * i] | (b[2 * i + 1] << 8); };
  EXPECT_EQ(bits(0), 0xffff);
  EXPECT_EQ(bits(1), 0x7fbf);
  EXPECT_EQ(bits(2) & 0x7fff, 0x7fc0);
  EXPECT_EQ(bits(3) & 0x8000, 0x8000);
  absl::StatusOr<Literal> wide = ParseLiteral("(7, {nan(0x3ff), 1, 2, 3})", s[2]);
  ASSERT_FALSE(wide.ok());
  EXPECT_EQ(StatusText(wide.status()),
            "literal column 6: 'nan(0x3ff)': NaN payload 0x3ff is out of range for bf16 (0x7f)");
  absl::StatusOr<Literal> malformed = ParseLiteral("(7, {nan(0xZZ), 1, 2, 3})", s[2]);
  ASSERT_FALSE(malformed.ok());
  EXPECT_EQ(StatusText(malformed.status()), "literal column 6: 'nan(0xZZ)' is not a bf16 value");
  absl::StatusOr<Literal> f32 = ParseLiteral("{{nan(0x1), 0, 0}, {0, 0, 0}}", s[0]);
  ASSERT_TRUE(f32.ok()) << StatusText(f32.status());
  uint32_t word = 0;
  std::memcpy(&word, f32->data().data(), 4);
  EXPECT_EQ(word, 0x7f800001u);
}

// XLA's parser takes one value for a whole array (`f32[9] constant(0)`): every element is it.
TEST(LiteralTest, OneValueForAWholeArray) {
  Shapes s;
  absl::StatusOr<Literal> l = ParseLiteral("2.5", s[0]);
  ASSERT_TRUE(l.ok()) << StatusText(l.status());
  EXPECT_EQ(FormatLiteral(*l, false), "f32[2,3] {{2.5, 2.5, 2.5}, {2.5, 2.5, 2.5}}\n");
  absl::StatusOr<Literal> bad = ParseLiteral("x", s[0]);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(StatusText(bad.status()), "literal column 1: 'x' is not a f32 value");
  absl::StatusOr<Literal> none = ParseLiteral("", s[0]);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(StatusText(none.status()),
            "literal column 1: expected '{' for dimension 0 of f32[2,3]");
}

TEST(LiteralTest, Bf16AndF16RoundToNearestEven) {
  // bf16 keeps 8 significant bits: 1 + 2^-8 is halfway between 1 and 1 + 2^-7.
  EXPECT_EQ(BF16ToFloat(FloatToBF16(1.0f + 0x1p-8f)), 1.0f);                // tie -> even
  EXPECT_EQ(BF16ToFloat(FloatToBF16(1.0f + 3 * 0x1p-8f)), 1.0f + 0x1p-6f);  // tie -> even (up)
  EXPECT_EQ(BF16ToFloat(FloatToBF16(1.0f + 0x1p-8f + 0x1p-20f)), 1.0f + 0x1p-7f);  // above half
  EXPECT_EQ(BF16ToFloat(FloatToBF16(-1.0f - 0x1p-8f)), -1.0f);
  EXPECT_TRUE(std::isnan(BF16ToFloat(FloatToBF16(NAN))));
  EXPECT_EQ(BF16ToFloat(FloatToBF16(3.4e38f)), INFINITY);  // rounds past the largest bf16 (3.39e38)
  // f16 keeps 11 significant bits.
  EXPECT_EQ(HalfToFloat(FloatToHalf(1.0f + 0x1p-11f)), 1.0f);
  EXPECT_EQ(HalfToFloat(FloatToHalf(1.0f + 3 * 0x1p-11f)), 1.0f + 0x1p-9f);
  EXPECT_EQ(HalfToFloat(FloatToHalf(65504.0f)), 65504.0f);
  EXPECT_EQ(HalfToFloat(FloatToHalf(65520.0f)), INFINITY);
  EXPECT_EQ(HalfToFloat(FloatToHalf(0x1p-24f)), 0x1p-24f);      // smallest subnormal
  EXPECT_EQ(HalfToFloat(FloatToHalf(0x1p-25f)), 0.0f);          // tie -> even (0)
  EXPECT_EQ(HalfToFloat(FloatToHalf(3 * 0x1p-25f)), 0x1p-23f);  // tie -> even (2 * 2^-24)
  EXPECT_EQ(HalfToFloat(FloatToHalf(-2.5f)), -2.5f);
}

}  // namespace
}  // namespace hloscope::eval
