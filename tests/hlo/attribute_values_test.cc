#include "hlo/attribute_values.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "gtest/gtest.h"
#include "tests/hlo/test_util.h"

namespace hloscope {
namespace {

std::vector<int64_t> Flat(const std::optional<std::vector<PaddingDim>>& pads) {
  std::vector<int64_t> out;
  for (const PaddingDim& p : *pads) out.insert(out.end(), {p.low, p.high, p.interior});
  return out;
}

TEST(ParsePadding, ReadsLowHighAndOptionalInteriorPerDimension) {
  auto pads = ParsePadding("1_2x-1_-3x0_0_4");
  ASSERT_TRUE(pads.has_value());
  EXPECT_EQ(Flat(pads), (std::vector<int64_t>{1, 2, 0, -1, -3, 0, 0, 0, 4}));
  auto scalar = ParsePadding("");
  ASSERT_TRUE(scalar.has_value());
  EXPECT_TRUE(scalar->empty());
}

TEST(ParsePadding, RejectsWhatIsNotOfThatForm) {
  for (const char* bad : {"1", "1_", "1_x", "_1", "1_2_", "1_2_3_4", "1_2x", "x1_2", "1_2 ", "a_b",
                          "1__2", "99999999999999999999_0"}) {
    EXPECT_FALSE(ParsePadding(bad).has_value()) << "'" << bad << "'";
  }
}

TEST(PaddedSize, AddsEdgesAndInteriorAndRefusesOverflowOrNegativeSizes) {
  EXPECT_EQ(PaddedSize(4, {1, 2, 0}), 7);
  EXPECT_EQ(PaddedSize(5, {0, 0, 2}), 13);
  EXPECT_EQ(PaddedSize(0, {1, 1, 5}), 2);  // no elements, so nothing between them
  EXPECT_EQ(PaddedSize(3, {-1, -1, 0}), 1);
  EXPECT_EQ(PaddedSize(2, {-2, -1, 0}), std::nullopt);
  EXPECT_EQ(PaddedSize(2, {0, 0, -1}), std::nullopt);
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(PaddedSize(2, {kMax, 0, 0}), std::nullopt);
  EXPECT_EQ(PaddedSize(kMax, {0, 0, 2}), std::nullopt);
  EXPECT_EQ(PaddedSize(kMax - 1, {1, 0, 0}), kMax);
}

TEST(ParseInt64, ReadsOnlyTextThatIsOneInteger) {
  EXPECT_EQ(ParseInt64("3"), 3);
  EXPECT_EQ(ParseInt64("-12"), -12);
  EXPECT_EQ(ParseInt64("9223372036854775807"), std::numeric_limits<int64_t>::max());
  for (const char* bad : {"", " 3", "3 ", "3x", "{3}", "+", "9223372036854775808"}) {
    EXPECT_EQ(ParseInt64(bad), std::nullopt) << "'" << bad << "'";
  }
}

using DimList = DotDimensionNumbers::DimList;

TEST(ReadDotDimensionNumbers, ReadsEachListAndLeavesAbsentOnesEmpty) {
  std::unique_ptr<Module> m = testing::ParseOrDie(R"(
HloModule m
ENTRY e {
  a = f32[2,3,4] parameter(0)
  b = f32[2,4,5] parameter(1)
  d = f32[2,3,5] dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
  ROOT m = f32[3,2,3,2,5] dot(a, b), rhs_contracting_dims={}
}
)");
  ASSERT_NE(m, nullptr);
  DotDimensionNumbers d = ReadDotDimensionNumbers(*testing::Find(*m, "d"));
  EXPECT_EQ(d.lhs_batch, DimList({0}));
  EXPECT_EQ(d.lhs_contracting, DimList({2}));
  EXPECT_EQ(d.rhs_batch, DimList({0}));
  EXPECT_EQ(d.rhs_contracting, DimList({1}));
  EXPECT_TRUE(d.lhs_ragged.empty());
  EXPECT_TRUE(d.rhs_group.empty());
  DotDimensionNumbers outer = ReadDotDimensionNumbers(*testing::Find(*m, "m"));
  EXPECT_TRUE(outer.lhs_batch.empty() && outer.lhs_contracting.empty() && outer.rhs_batch.empty() &&
              outer.rhs_contracting.empty());
}

TEST(ReadDotDimensionNumbers, ReadsRaggedDotsGroupLists) {
  std::unique_ptr<Module> m = testing::ParseOrDie(R"(
HloModule m
ENTRY e {
  a = f32[8,4] parameter(0)
  b = f32[3,4,5] parameter(1)
  g = s32[3] parameter(2)
  ROOT r = f32[8,5] ragged-dot(a, b, g), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}
}
)");
  ASSERT_NE(m, nullptr);
  DotDimensionNumbers d = ReadDotDimensionNumbers(*testing::Find(*m, "r"));
  EXPECT_EQ(d.lhs_contracting, DimList({1}));
  EXPECT_EQ(d.rhs_contracting, DimList({1}));
  EXPECT_EQ(d.lhs_ragged, DimList({0}));
  EXPECT_EQ(d.rhs_group, DimList({0}));
}

}  // namespace
}  // namespace hloscope
