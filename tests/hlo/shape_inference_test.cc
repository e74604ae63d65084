// The shape rules of hlo/shape_inference.h on shapes alone: the results the parser, the verifier
// and the interpreter's operand checks all take from them, and the misfits they refuse.
#include "hlo/shape_inference.h"

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace hloscope {
namespace {

// An f32 array; sizes below zero are `<=N` bounds of N (dynamic), kUnboundedSize stays `?`.
Shape F32(std::initializer_list<int64_t> sizes) {
  Shape s;
  s.element_type = PrimitiveType::kF32;
  for (int64_t n : sizes) {
    const bool bounded = n < 0 && n != Shape::kUnboundedSize;
    s.dims.push_back(bounded ? -n : n);
    s.dynamic.push_back(n < 0);
  }
  return s;
}

std::string Text(const std::optional<Shape>& s) { return s ? s->ToString(false) : "nullopt"; }

DotDimensionNumbers Dnums(std::initializer_list<int64_t> lb, std::initializer_list<int64_t> lc,
                          std::initializer_list<int64_t> rb, std::initializer_list<int64_t> rc) {
  DotDimensionNumbers d;
  d.lhs_batch.assign(lb);
  d.lhs_contracting.assign(lc);
  d.rhs_batch.assign(rb);
  d.rhs_contracting.assign(rc);
  return d;
}

TEST(InferTransposeShape, PermutesAndRefusesWhatIsNotAPermutation) {
  EXPECT_EQ(Text(InferTransposeShape(F32({2, 3, -4}), std::vector<int64_t>{2, 0, 1})),
            "f32[<=4,2,3]");
  EXPECT_EQ(Text(InferTransposeShape(F32({2, 3}), std::vector<int64_t>{0, 0})), "nullopt");
  EXPECT_EQ(Text(InferTransposeShape(F32({2, 3}), std::vector<int64_t>{0})), "nullopt");
}

TEST(InferConcatenateShape, AddsTheJoinedDimensionAndRefusesMisfits) {
  const Shape a = F32({2, 3}), b = F32({-2, 5}), c = F32({2}), q = F32({2, Shape::kUnboundedSize});
  EXPECT_EQ(Text(InferConcatenateShape(std::vector<const Shape*>{&a, &b}, 1)), "f32[<=2,8]");
  EXPECT_EQ(Text(InferConcatenateShape(std::vector<const Shape*>{&a, &q}, 1)), "f32[2,?]");
  EXPECT_EQ(Text(InferConcatenateShape(std::vector<const Shape*>{&a, &c}, 0)), "nullopt");
  EXPECT_EQ(Text(InferConcatenateShape(std::vector<const Shape*>{&a}, 2)), "nullopt");
  EXPECT_EQ(Text(InferConcatenateShape(std::vector<const Shape*>{}, 0)), "nullopt");
  const Shape huge = F32({std::numeric_limits<int64_t>::max()});
  EXPECT_EQ(Text(InferConcatenateShape(std::vector<const Shape*>{&huge, &huge}, 0)), "nullopt");
}

TEST(InferPadShape, PadsEachDimensionAndRefusesMisfits) {
  EXPECT_EQ(Text(InferPadShape(F32({4, -3}), std::vector<PaddingDim>{{1, 2, 0}, {0, 0, 1}})),
            "f32[7,<=5]");
  EXPECT_EQ(Text(InferPadShape(F32({Shape::kUnboundedSize}), std::vector<PaddingDim>{{1, 1, 0}})),
            "f32[?]");
  EXPECT_EQ(Text(InferPadShape(F32({4}), std::vector<PaddingDim>{})), "nullopt");
  EXPECT_EQ(Text(InferPadShape(F32({2}), std::vector<PaddingDim>{{-2, -1, 0}})), "nullopt");
}

TEST(InferReduceShape, DropsTheReducedDimensions) {
  EXPECT_EQ(Text(InferReduceShape(F32({2, 3, 4}), std::vector<int64_t>{0, 2}, PrimitiveType::kF32)),
            "f32[3]");
  EXPECT_EQ(Text(InferReduceShape(F32({2}), std::vector<int64_t>{1}, PrimitiveType::kF32)),
            "nullopt");
}

TEST(InferDotShape, BatchThenLhsFreeThenRhsFree) {
  const Shape lhs = F32({2, 3, 4}), rhs = F32({-2, 4, 5});
  const DotDimensionNumbers d = Dnums({0}, {2}, {0}, {1});
  ASSERT_TRUE(DotDimensionsInRange(lhs, rhs, d));
  // The batch dimension is dynamic because the rhs's is.
  EXPECT_EQ(InferDotShape(lhs, rhs, d, PrimitiveType::kF32).ToString(false), "f32[<=2,3,5]");
  // An outer product: no contracting dimensions.
  EXPECT_EQ(InferDotShape(F32({2}), F32({3}), {}, PrimitiveType::kS32).ToString(false), "s32[2,3]");
}

TEST(DotDimensionsInRange, RefusesUnpairedListsAndDimensionsOutOfRange) {
  const Shape lhs = F32({2, 3}), rhs = F32({3, 4});
  EXPECT_TRUE(DotDimensionsInRange(lhs, rhs, Dnums({}, {1}, {}, {0})));
  EXPECT_FALSE(DotDimensionsInRange(lhs, rhs, Dnums({}, {1}, {}, {})));
  EXPECT_FALSE(DotDimensionsInRange(lhs, rhs, Dnums({}, {2}, {}, {0})));
  EXPECT_FALSE(DotDimensionsInRange(lhs, rhs, Dnums({}, {1}, {}, {-1})));
  EXPECT_FALSE(DotDimensionsInRange(lhs, rhs, Dnums({0}, {}, {}, {})));
}

TEST(InferRaggedDotShape, TheRaggedDimensionsPlaceDecidesTheResult) {
  const Shape groups = F32({3});
  // Free: the rhs group dimension leaves the result.
  DotDimensionNumbers d = Dnums({}, {1}, {}, {1});
  d.lhs_ragged.assign({0});
  d.rhs_group.assign({0});
  EXPECT_EQ(InferRaggedDotShape(F32({8, 4}), F32({3, 4, 5}), groups, d, PrimitiveType::kF32)
                .ToString(false),
            "f32[8,5]");
  // Contracting: one result per group, the group count first.
  d = Dnums({}, {1}, {}, {0});
  d.lhs_ragged.assign({1});
  EXPECT_EQ(
      InferRaggedDotShape(F32({8, 4}), F32({4, 5}), groups, d, PrimitiveType::kF32).ToString(false),
      "f32[3,8,5]");
  // Batch: a dot's result.
  d = Dnums({0}, {2}, {0}, {1});
  d.lhs_ragged.assign({0});
  EXPECT_EQ(InferRaggedDotShape(F32({2, 8, 4}), F32({2, 4, 5}), groups, d, PrimitiveType::kF32)
                .ToString(false),
            "f32[2,8,5]");
}

}  // namespace
}  // namespace hloscope
