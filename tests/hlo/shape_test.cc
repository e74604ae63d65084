#include "hlo/shape.h"

#include <limits>
#include <optional>

#include "gtest/gtest.h"
#include "hlo/module.h"
#include "hlo/primitive_type.h"
#include "test_util.h"

namespace hloscope {
namespace {

using testing::Find;
using testing::ParseOrDie;

const Shape& ResultShape(const Module& m, std::string_view name) { return Find(m, name)->shape(); }

TEST(PrimitiveType, EveryNameRoundTrips) {
  int count = 0;
  for (int i = 1; i < static_cast<int>(PrimitiveType::kCount); ++i) {
    auto t = static_cast<PrimitiveType>(i);
    if (t == PrimitiveType::kTuple || t == PrimitiveType::kBuffer) continue;
    auto parsed = ParsePrimitiveType(PrimitiveTypeName(t));
    ASSERT_TRUE(parsed.has_value()) << PrimitiveTypeName(t);
    EXPECT_EQ(*parsed, t);
    ++count;
  }
  // pred, 7 signed, 7 unsigned, 4 float, 2 complex, 8 f8, 2 f6, 1 f4, token, opaque.
  EXPECT_EQ(count, 34);
  EXPECT_FALSE(ParsePrimitiveType("f31").has_value());
  EXPECT_FALSE(ParsePrimitiveType("tuple").has_value());
}

TEST(Shape, ByteSizesPackSubByteTypes) {
  auto m = ParseOrDie(R"(HloModule m
ENTRY e {
  a = f32[2,3]{1,0} parameter(0)
  b = s4[3] parameter(1)
  c = pred[5] parameter(2)
  d = bf16[4] parameter(3)
  e = u2[4]{0:E(8)} parameter(4)
  f = c128[2] parameter(5)
  g = f4e2m1fn[7] parameter(6)
  ROOT t = (f32[2,3]{1,0}, s4[3], (pred[5])) tuple(a, b, c)
})");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(ResultShape(*m, "a").ByteSize(), 24);
  EXPECT_EQ(ResultShape(*m, "b").ByteSize(), 2);  // 12 bits round up to 2 bytes
  EXPECT_EQ(ResultShape(*m, "c").ByteSize(), 5);
  EXPECT_EQ(ResultShape(*m, "d").ByteSize(), 8);
  EXPECT_EQ(ResultShape(*m, "e").ByteSize(), 4);  // E(8): one byte per element
  EXPECT_EQ(ResultShape(*m, "f").ByteSize(), 32);
  EXPECT_EQ(ResultShape(*m, "g").ByteSize(), 4);  // 28 bits
  EXPECT_EQ(ResultShape(*m, "t").ByteSize(), 0);
  EXPECT_EQ(ResultShape(*m, "t").TotalArrayBytes(), 24 + 2 + 5);
}

TEST(Shape, LayoutPartsPrintInCanonicalOrder) {
  auto m = ParseOrDie(R"(HloModule m
ENTRY e {
  ROOT a = f32[8,128]{1,0:S(1)E(32)T(8,128)(2,1)L(4)#(s32)*(u32)M(8)} parameter(0)
})");
  ASSERT_NE(m, nullptr);
  const Shape& s = ResultShape(*m, "a");
  EXPECT_EQ(s.layout.memory_space, 1);
  EXPECT_EQ(s.layout.element_size_bits, 32);
  ASSERT_EQ(s.layout.tiles.size(), 2u);
  EXPECT_EQ(s.layout.tiles[0].dims, (absl::InlinedVector<int64_t, 2>{8, 128}));
  EXPECT_EQ(s.layout.tail_padding_alignment, 4);
  EXPECT_EQ(s.layout.index_type, PrimitiveType::kS32);
  EXPECT_EQ(s.layout.pointer_type, PrimitiveType::kU32);
  EXPECT_EQ(s.ToString(), "f32[8,128]{1,0:T(8,128)(2,1)L(4)#(s32)*(u32)E(32)S(1)M(8)}");
}

TEST(Shape, DynamicDimensionsAndTupleIndices) {
  auto m = ParseOrDie(R"(HloModule m
ENTRY e {
  a = f32[<=16,?,3] parameter(0)
  b = (s32[], (f32[2], u8[])) parameter(1)
  ROOT t = () tuple()
})");
  ASSERT_NE(m, nullptr);
  const Shape& a = ResultShape(*m, "a");
  EXPECT_TRUE(a.IsDynamic());
  EXPECT_EQ(a.dims[0], 16);
  EXPECT_EQ(a.dims[1], Shape::kUnboundedSize);
  EXPECT_EQ(a.ToString(), "f32[<=16,?,3]");
  const Shape& b = ResultShape(*m, "b");
  const Shape* leaf = Subshape(b, {1, 0});
  ASSERT_NE(leaf, nullptr);
  EXPECT_EQ(leaf->ToString(), "f32[2]");
  EXPECT_EQ(Subshape(b, {2}), nullptr);
  int visited = 0;
  ForEachSubshape(b, [&](const Shape&, const ShapeIndex&) { ++visited; });
  EXPECT_EQ(visited, 5);
  EXPECT_EQ(ShapeIndexToString({1, 0}), "{1,0}");
  EXPECT_EQ(ResultShape(*m, "t").ToString(), "()");
}

TEST(Shape, InterningSharesEqualShapes) {
  auto m = ParseOrDie(R"(HloModule m
ENTRY e {
  a = f32[2]{0} parameter(0)
  b = f32[2]{0} parameter(1)
  c = f32[2] parameter(2)
  ROOT d = f32[2]{0} add(a, b)
})");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(Find(*m, "a")->shape_ptr(), Find(*m, "b")->shape_ptr());
  EXPECT_NE(Find(*m, "a")->shape_ptr(), Find(*m, "c")->shape_ptr());  // layout differs
  EXPECT_TRUE(Find(*m, "a")->shape().Compatible(Find(*m, "c")->shape()));
}

Shape ArrayOf(PrimitiveType type, std::initializer_list<int64_t> dims) {
  Shape s;
  s.element_type = type;
  s.dims.assign(dims.begin(), dims.end());
  s.dynamic.assign(dims.size(), false);
  return s;
}

TEST(Shape, SizeFitsIn64Bits) {
  EXPECT_TRUE(ArrayOf(PrimitiveType::kF32, {4, 3}).SizeFits());
  // 2^62 elements fit, but not their 2^64 bytes.
  EXPECT_TRUE(ArrayOf(PrimitiveType::kPred, {int64_t{1} << 31, int64_t{1} << 31}).SizeFits());
  EXPECT_FALSE(ArrayOf(PrimitiveType::kF32, {int64_t{1} << 31, int64_t{1} << 31}).SizeFits());
  // 2^64 elements do not fit; a `?` dimension counts as nothing.
  EXPECT_FALSE(ArrayOf(PrimitiveType::kS4, {int64_t{1} << 32, int64_t{1} << 32}).SizeFits());
  EXPECT_TRUE(ArrayOf(PrimitiveType::kF32, {Shape::kUnboundedSize, int64_t{1} << 40}).SizeFits());
}

TEST(Shape, CheckedElementCountAndByteSizeFits) {
  EXPECT_EQ(CheckedElementCount({4, 3}), 12);
  EXPECT_EQ(CheckedElementCount({}), 1);
  EXPECT_EQ(CheckedElementCount({Shape::kUnboundedSize, 5}), 5);
  EXPECT_EQ(CheckedElementCount({int64_t{1} << 32, int64_t{1} << 32}), std::nullopt);
  EXPECT_TRUE(ByteSizeFits(int64_t{1} << 60, 4));
  EXPECT_FALSE(ByteSizeFits(int64_t{1} << 62, 32));
}

TEST(Shape, IsPermutation) {
  EXPECT_TRUE(IsPermutation({}, 0));
  EXPECT_TRUE(IsPermutation({2, 0, 1}, 3));
  EXPECT_FALSE(IsPermutation({0, 0}, 2));
  EXPECT_FALSE(IsPermutation({0, 2}, 2));
  EXPECT_FALSE(IsPermutation({-1, 0}, 2));
  EXPECT_FALSE(IsPermutation({0, 1}, 3));
}

TEST(SliceDim, SizeIsCeilOfRangeOverStride) {
  EXPECT_EQ((SliceDim{0, 4, 1}.size()), 4);
  EXPECT_EQ((SliceDim{0, 4, 3}.size()), 2);
  EXPECT_EQ((SliceDim{2, 2, 5}.size()), 0);
  EXPECT_EQ((SliceDim{1, 8, std::numeric_limits<int64_t>::max()}.size()), 1);
}

}  // namespace
}  // namespace hloscope
