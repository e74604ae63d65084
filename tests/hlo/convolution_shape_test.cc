// Convolution and reduce-window result shapes inferred when HLO text leaves them out
// (hlo/convolution_shape.h, hlo/window_attribute.h). Expected shapes are worked out by hand in
// the comments: padded = (in - 1) * lhs_dilate + 1 + lo + hi, extent = (size - 1) * rhs_dilate
// + 1, out = (padded - extent) / stride + 1 (0 when the window does not fit).
#include "hlo/convolution_shape.h"

#include <string>
#include <string_view>
#include <vector>

#include "gtest/gtest.h"
#include "hlo/window_attribute.h"
#include "support/status_text.h"
#include "support/str_util.h"
#include "tests/hlo/test_util.h"

namespace hloscope {
namespace {

using testing::Find;
using testing::ParseOrDie;

// A module whose root is `ROOT c = convolution(a, k), <attrs>` with parameters of the given
// shapes; returns the printed inferred shape of c, or the parse error's message after
// "error: " (first line only).
std::string InferConv(std::string_view lhs, std::string_view rhs, std::string_view attrs) {
  std::string text = StrCat("HloModule m\nENTRY e {\n  a = ", lhs, " parameter(0)\n  k = ", rhs,
                            " parameter(1)\n  ROOT c = convolution(a, k), ", attrs, "\n}\n");
  auto m = ParseModule(text, {.filename = "x.hlo"});
  if (!m.ok()) {
    std::string message = StatusText(m.status());
    message = message.substr(0, message.find('\n'));
    size_t error = message.find("error: ");
    return error == std::string::npos ? message : message.substr(error + 7);
  }
  return Find(**m, "c")->shape().ToString();
}

// The reason part of "cannot infer the result shape of 'c' (convolution): <why>; write ...".
std::string Why(std::string_view why) {
  return StrCat("cannot infer the result shape of 'c' (convolution): ", why,
                "; write the shape before the opcode");
}

TEST(ConvolutionShape, StridedPaddedAndDilated) {
  // 10 with a window of 3 and stride 2: (10 - 3) / 2 + 1 = 4.
  EXPECT_EQ(InferConv("f32[2,10,10,3]", "f32[3,3,3,8]",
                      "window={size=3x3 stride=2x2}, dim_labels=b01f_01io->b01f"),
            "f32[2,4,4,8]");
  // Same padding: 9 + 1 + 1 - 3 + 1 = 9 (the fused_conv_rewriter corpus modules).
  EXPECT_EQ(InferConv("f32[1,17,9,9]", "f32[3,3,17,32]",
                      "window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_01io->bf01"),
            "f32[1,32,9,9]");
  // Asymmetric padding: 9 + 0 + 1 = 10 -> 8; 9 + 2 + 0 = 11 -> 9.
  EXPECT_EQ(InferConv("f32[1,17,9,9]", "f32[3,3,17,32]",
                      "window={size=3x3 pad=0_1x2_0}, dim_labels=bf01_01io->bf01"),
            "f32[1,32,8,9]");
  // Negative padding crops: 9 - 2 - 1 = 6 -> 4.
  EXPECT_EQ(InferConv("f32[1,17,9,9]", "f32[3,3,17,32]",
                      "window={size=3x3 pad=-2_-1x0_0}, dim_labels=bf01_01io->bf01"),
            "f32[1,32,4,7]");
  // lhs_dilate 2 on 9: 17 -> 17 - 3 + 1 = 15; rhs_dilate 2 on a 3-window: extent 5 -> 5.
  EXPECT_EQ(
      InferConv("f32[1,17,9,9]", "f32[3,3,17,32]",
                "window={size=3x3 lhs_dilate=2x1 rhs_dilate=1x2}, dim_labels=bf01_01io->bf01"),
      "f32[1,32,15,5]");
  // Everything at once: (7 - 1) * 3 + 1 + 2 + 1 = 22, extent (2 - 1) * 4 + 1 = 5,
  // (22 - 5) / 3 + 1 = 6.
  EXPECT_EQ(InferConv("f32[1,7,2]", "f32[2,2,5]",
                      "window={size=2 stride=3 pad=2_1 lhs_dilate=3 rhs_dilate=4}, "
                      "dim_labels=b0f_0io->b0f"),
            "f32[1,6,5]");
  // rhs_reversal does not change the shape.
  EXPECT_EQ(InferConv("f32[2,10,10,3]", "f32[3,3,3,8]",
                      "window={size=3x3 rhs_reversal=1x0}, dim_labels=b01f_01io->b01f"),
            "f32[2,8,8,8]");
}

TEST(ConvolutionShape, DimLabelsPlaceEachDimension) {
  // Kernel oi01, output bf01: batch 2, feature = kernel o = 4, spatial 7 - 3 + 1 = 5.
  EXPECT_EQ(
      InferConv("f32[2,3,7,7]", "f32[4,3,3,3]", "window={size=3x3}, dim_labels=bf01_oi01->bf01"),
      "f32[2,4,5,5]");
  // Output in another order than the input: 01fb.
  EXPECT_EQ(
      InferConv("f32[2,7,6,3]", "f32[3,2,3,4]", "window={size=3x2}, dim_labels=b01f_01io->01fb"),
      "f32[5,5,4,2]");
  // Spatial dimensions written out of order: lhs spatial 0 is the last dimension.
  EXPECT_EQ(
      InferConv("f32[1,10,3,20]", "f32[5,2,3,6]", "window={size=5x2}, dim_labels=b1f0_01io->b01f"),
      "f32[1,16,9,6]");
  // 1D and 3D.
  EXPECT_EQ(
      InferConv("f32[4,3,12]", "f32[5,3,2]", "window={size=5 stride=2}, dim_labels=bf0_0io->bf0"),
      "f32[4,2,4]");
  // 3D: 4 - 2 + 1 = 3; (6 + 2 - 3) / 2 + 1 = 3; (8 - 3) / 3 + 1 = 2.
  EXPECT_EQ(InferConv("f32[1,4,6,8,2]", "f32[2,3,3,2,5]",
                      "window={size=2x3x3 stride=1x2x3 pad=0_0x1_1x0_0}, "
                      "dim_labels=b012f_012io->b012f"),
            "f32[1,3,3,2,5]");
  // No spatial dimensions and no window: a matrix product.
  EXPECT_EQ(InferConv("f32[4,3]", "f32[3,5]", "dim_labels=bf_io->bf"), "f32[4,5]");
  // A window larger than the padded input has no position: 0.
  EXPECT_EQ(
      InferConv("f32[1,2,2,1]", "f32[3,3,1,1]", "window={size=3x3}, dim_labels=b01f_01io->b01f"),
      "f32[1,0,0,1]");
}

TEST(ConvolutionShape, GroupCounts) {
  // Depthwise: 6 input features in 6 groups of 1; 8 - 3 + 1 = 6.
  EXPECT_EQ(InferConv("f32[1,8,8,6]", "f32[3,3,1,6]",
                      "window={size=3x3}, dim_labels=b01f_01io->b01f, feature_group_count=6"),
            "f32[1,6,6,6]");
  // Two groups of 4 input features, 12 outputs.
  EXPECT_EQ(InferConv("f32[4,5,5,8]", "f32[1,1,4,12]",
                      "window={size=1x1}, dim_labels=b01f_01io->b01f, feature_group_count=2"),
            "f32[4,5,5,12]");
  // Batch groups divide the batch: 8 / 4 = 2; 10 - 3 + 1 = 8.
  EXPECT_EQ(InferConv("f32[8,10,3]", "f32[3,3,4]",
                      "window={size=3}, dim_labels=b0f_0io->b0f, batch_group_count=4"),
            "f32[2,8,4]");
  // The depthwise backprop-filter corpus module: lhs f01b with batch 64 in 64 groups -> 1;
  // spatial 0: 3 + 1 + 1 = 5, window 2 -> 4; spatial 1: (3 - 1) * 3 + 1 = 7, window extent
  // (3 - 1) * 2 + 1 = 5 -> 3.
  EXPECT_EQ(InferConv("f32[16,3,3,64]", "f32[16,2,3,64]",
                      "window={size=2x3 pad=1_1x0_0 lhs_dilate=1x3 rhs_dilate=1x2}, "
                      "dim_labels=f01b_i01o->01fb, batch_group_count=64"),
            "f32[4,3,64,1]");
}

TEST(ConvolutionShape, ElementTypeIsTheMorePreciseOperandType) {
  const char* attrs = "window={size=1x1}, dim_labels=b01f_01io->b01f";
  EXPECT_EQ(InferConv("s8[1,2,2,3]", "s8[1,1,3,4]", attrs), "s8[1,2,2,4]");
  EXPECT_EQ(InferConv("bf16[1,2,2,3]", "f32[1,1,3,4]", attrs), "f32[1,2,2,4]");
  EXPECT_EQ(InferConv("s32[1,2,2,3]", "s8[1,1,3,4]", attrs), "s32[1,2,2,4]");
  // Same width: signed wins; float range before precision (bf16 reaches 2^127, f16 2^15).
  EXPECT_EQ(InferConv("u8[1,2,2,3]", "s8[1,1,3,4]", attrs), "s8[1,2,2,4]");
  EXPECT_EQ(InferConv("f16[1,2,2,3]", "bf16[1,1,3,4]", attrs), "bf16[1,2,2,4]");
  EXPECT_EQ(InferConv("f8e4m3fn[1,2,2,3]", "f8e5m2[1,1,3,4]", attrs), "f8e5m2[1,2,2,4]");
  // Any float beats any integer, complex beats both.
  EXPECT_EQ(InferConv("s64[1,2,2,3]", "f16[1,1,3,4]", attrs), "f16[1,2,2,4]");
  EXPECT_EQ(InferConv("c64[1,2,2,3]", "f64[1,1,3,4]", attrs), "c64[1,2,2,4]");
  // Two different types that tie have no common type (XLA stops with a check failure).
  EXPECT_EQ(InferConv("f8e4m3[1,2,2,3]", "f8e4m3fnuz[1,1,3,4]", attrs),
            Why("the lhs element type f8e4m3 and the rhs element type f8e4m3fnuz have no common "
                "result type"));
}

TEST(ConvolutionShape, DynamicDimensionsStayDynamic) {
  const char* attrs = "window={size=3x3}, dim_labels=b01f_01io->b01f";
  EXPECT_EQ(InferConv("f32[<=4,8,8,3]", "f32[3,3,3,16]", attrs), "f32[<=4,6,6,16]");
  EXPECT_EQ(InferConv("f32[1,<=8,8,3]", "f32[3,3,3,16]", attrs), "f32[1,<=6,6,16]");
  EXPECT_EQ(InferConv("f32[1,8,8,3]", "f32[3,<=3,3,16]", attrs), "f32[1,6,<=6,16]");
  EXPECT_EQ(InferConv("f32[?,8,?,3]", "f32[3,3,3,16]", attrs), "f32[?,6,?,16]");
  // A dynamic contracted feature dimension does not show in the output.
  EXPECT_EQ(InferConv("f32[1,8,8,<=3]", "f32[3,3,3,16]", attrs), "f32[1,6,6,16]");
}

TEST(ConvolutionShape, OperandsThatDoNotFit) {
  const char* labels = "dim_labels=b01f_01io->b01f";
  auto attrs = [&](std::string_view extra) { return StrCat("window={size=3x3}, ", labels, extra); };
  EXPECT_EQ(InferConv("(f32[1,8,8,3])", "f32[3,3,3,16]", attrs("")),
            Why("the lhs (f32[1,8,8,3]) is not an array"));
  EXPECT_EQ(InferConv("f32[1,8,8,3]", "token[]", attrs("")),
            Why("the rhs token[] is not an array"));
  EXPECT_EQ(InferConv("f32[1,8,8,3]", "f32[3,3,3,16]", attrs(", feature_group_count=0")),
            Why("feature_group_count must be positive, not 0"));
  EXPECT_EQ(InferConv("f32[1,8,8,3]", "f32[3,3,3,16]", attrs(", batch_group_count=-2")),
            Why("batch_group_count must be positive, not -2"));
  EXPECT_EQ(InferConv("f32[1,8,8,3]", "f32[3,3,3,16]", attrs(", batch_group_count=two")),
            Why("batch_group_count=two is not an integer"));
  EXPECT_EQ(InferConv("f32[1,8,8,3]", "f32[3,3,3,16]",
                      attrs(", feature_group_count=3, batch_group_count=2")),
            Why("feature_group_count 3 and batch_group_count 2 cannot both be greater than 1"));
  EXPECT_EQ(InferConv("f32[1,8,8,3]", "f32[3,3,3,16]", StrCat("window={size=3}, ", labels)),
            Why("the window has 1 dimension but dim_labels 'b01f_01io->b01f' have 2 spatial "
                "dimensions"));
  EXPECT_EQ(InferConv("f32[1,8,8,3]", "f32[3,3,3,16]", labels),
            Why("the window has 0 dimensions but dim_labels 'b01f_01io->b01f' have 2 spatial "
                "dimensions"));
  EXPECT_EQ(InferConv("f32[8,8,3]", "f32[3,3,3,16]", attrs("")),
            Why("the lhs f32[8,8,3] has rank 3 but dim_labels 'b01f_01io->b01f' have rank 4"));
  EXPECT_EQ(InferConv("f32[1,8,8,3]", "f32[3,3,3,16,1]", attrs("")),
            Why("the rhs f32[3,3,3,16,1] has rank 5 but dim_labels 'b01f_01io->b01f' have rank 4"));
  EXPECT_EQ(InferConv("f32[1,8,8,3]", "f32[3,3,3,<=16]", attrs("")),
            Why("the rhs f32[3,3,3,<=16] has a dynamic output feature dimension, which XLA does "
                "not support"));
  EXPECT_EQ(InferConv("f32[6,8,8,3]", "f32[3,3,3,16]", attrs(", batch_group_count=3")),
            Why("the rhs output feature size 16 is not divisible by batch_group_count 3"));
  EXPECT_EQ(InferConv("f32[1,8,8,3]", "f32[3,3,4,16]", attrs("")),
            Why("the lhs feature size 3 is not feature_group_count (1) times the rhs input feature "
                "size (4)"));
  EXPECT_EQ(InferConv("f32[1,8,8,6]", "f32[3,3,2,16]", attrs(", feature_group_count=2")),
            Why("the lhs feature size 6 is not feature_group_count (2) times the rhs input feature "
                "size (2)"));
  EXPECT_EQ(InferConv("f32[1,8,8,6]", "f32[3,3,3,15]", attrs(", feature_group_count=2")),
            Why("the rhs output feature size 15 is not divisible by feature_group_count 2"));
  EXPECT_EQ(InferConv("f32[3,8,8,3]", "f32[3,3,3,16]", attrs(", batch_group_count=2")),
            Why("the lhs batch size 3 is not divisible by batch_group_count 2"));
  EXPECT_EQ(InferConv("f32[1,8,8,3]", "f32[3,5,3,16]", attrs("")),
            Why("the window size=3x3 does not match the rhs spatial sizes 3x5"));
}

TEST(ConvolutionShape, MissingAttributesAndOperands) {
  EXPECT_EQ(InferConv("f32[1,8,8,3]", "f32[3,3,3,16]", "window={size=3x3}"),
            Why("it has no dim_labels"));
  auto m = ParseModule(
      "HloModule m\nENTRY e {\n  a = f32[4,3] parameter(0)\n"
      "  ROOT c = convolution(a, a, a), dim_labels=bf_io->bf\n}\n",
      {.filename = "x.hlo"});
  ASSERT_FALSE(m.ok());
  std::string message = StatusText(m.status());
  EXPECT_EQ(message.substr(0, message.find('\n')),
            "x.hlo:4:12: error: " + Why("it has 3 operands, but a convolution takes 2"));
}

TEST(ConvDimLabels, DecodesPositions) {
  absl::StatusOr<ConvDimLabels> dn = ParseConvDimLabels("f01b_i01o->01fb");
  ASSERT_TRUE(dn.ok()) << StatusText(dn.status());
  EXPECT_EQ(dn->rank(), 4);
  EXPECT_EQ(dn->lhs_batch, 3);
  EXPECT_EQ(dn->lhs_feature, 0);
  EXPECT_EQ(dn->lhs_spatial, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(dn->rhs_input_feature, 0);
  EXPECT_EQ(dn->rhs_output_feature, 3);
  EXPECT_EQ(dn->rhs_spatial, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(dn->out_batch, 3);
  EXPECT_EQ(dn->out_feature, 2);
  EXPECT_EQ(dn->out_spatial, (std::vector<int64_t>{0, 1}));
  absl::StatusOr<ConvDimLabels> shuffled = ParseConvDimLabels("1bf0_o10i->f10b");
  ASSERT_TRUE(shuffled.ok()) << StatusText(shuffled.status());
  EXPECT_EQ(shuffled->lhs_spatial, (std::vector<int64_t>{3, 0}));
  EXPECT_EQ(shuffled->rhs_spatial, (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(shuffled->out_spatial, (std::vector<int64_t>{2, 1}));
  absl::StatusOr<ConvDimLabels> none = ParseConvDimLabels("bf_io->bf");
  ASSERT_TRUE(none.ok()) << StatusText(none.status());
  EXPECT_EQ(none->rank(), 2);
}

TEST(ConvDimLabels, MalformedLabels) {
  struct Case {
    const char* labels;
    const char* message;
  };
  const Case cases[] = {
      {"b01f01io->b01f",
       "dim_labels 'b01f01io->b01f' is not of the form lhs_rhs->output, e.g. b01f_01io->b01f"},
      {"b01f_01io_b01f",
       "dim_labels 'b01f_01io_b01f' is not of the form lhs_rhs->output, e.g. "
       "b01f_01io->b01f"},
      {"b01f_01io->b01f_x",
       "dim_labels 'b01f_01io->b01f_x' is not of the form lhs_rhs->output, "
       "e.g. b01f_01io->b01f"},
      {"b0f->b0f_0io",
       "dim_labels 'b0f->b0f_0io' is not of the form lhs_rhs->output, e.g. b01f_01io->b01f"},
      {"b01f_01io->b0f",
       "dim_labels 'b01f_01io->b0f' give the lhs, rhs and output different ranks (4, 4, 3)"},
      {"bb1f_01io->b01f",
       "the lhs labels 'bb1f' in dim_labels 'bb1f_01io->b01f' must be b, f, 0 and 1, once each"},
      {"b01f_02io->b01f",
       "the rhs labels '02io' in dim_labels 'b01f_02io->b01f' must be i, o, 0 and 1, once each"},
      {"b0f_0io->b0i",
       "the output labels 'b0i' in dim_labels 'b0f_0io->b0i' must be b, f and 0, once each"},
      {"b_i->b", "the lhs labels 'b' in dim_labels 'b_i->b' must be b and f, once each"},
      {"_->", "the lhs labels '' in dim_labels '_->' must be b and f, once each"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<ConvDimLabels> dn = ParseConvDimLabels(c.labels);
    ASSERT_FALSE(dn.ok()) << c.labels;
    EXPECT_EQ(StatusText(dn.status()), c.message);
  }
}

TEST(WindowAttribute, ParsesEveryField) {
  absl::StatusOr<std::vector<WindowDim>> w = ParseWindow(
      "{size=3x2 stride=2x1 pad=1_-1x0_2 lhs_dilate=1x4 rhs_dilate=2x1 rhs_reversal=1x0}");
  ASSERT_TRUE(w.ok()) << StatusText(w.status());
  ASSERT_EQ(w->size(), 2u);
  const WindowDim& d0 = (*w)[0];
  const WindowDim& d1 = (*w)[1];
  EXPECT_EQ(d0.size, 3);
  EXPECT_EQ(d1.size, 2);
  EXPECT_EQ(d0.stride, 2);
  EXPECT_EQ(d1.stride, 1);
  EXPECT_EQ(d0.padding_low, 1);
  EXPECT_EQ(d0.padding_high, -1);
  EXPECT_EQ(d1.padding_low, 0);
  EXPECT_EQ(d1.padding_high, 2);
  EXPECT_EQ(d0.base_dilation, 1);
  EXPECT_EQ(d1.base_dilation, 4);
  EXPECT_EQ(d0.window_dilation, 2);
  EXPECT_EQ(d1.window_dilation, 1);
  EXPECT_TRUE(d0.reversal);
  EXPECT_FALSE(d1.reversal);
  // Defaults, a single dimension, and whitespace around the items.
  absl::StatusOr<std::vector<WindowDim>> one = ParseWindow(" {\n size=5 \t} ");
  ASSERT_TRUE(one.ok()) << StatusText(one.status());
  ASSERT_EQ(one->size(), 1u);
  EXPECT_EQ((*one)[0].size, 5);
  EXPECT_EQ((*one)[0].stride, 1);
  EXPECT_EQ((*one)[0].padding_low, 0);
  EXPECT_EQ((*one)[0].padding_high, 0);
  EXPECT_EQ((*one)[0].base_dilation, 1);
  EXPECT_EQ((*one)[0].window_dilation, 1);
  EXPECT_FALSE((*one)[0].reversal);
}

// XLA's parser reads `window={}` as no dimensions (a 0-D convolution); a window that gives
// other sub-attributes but no size= is still malformed (see MalformedWindows).
TEST(WindowAttribute, EmptyBracesAreNoDimensions) {
  for (const char* text : {"{}", "{ }", " {\n} "}) {
    absl::StatusOr<std::vector<WindowDim>> w = ParseWindow(text);
    ASSERT_TRUE(w.ok()) << text << ": " << StatusText(w.status());
    EXPECT_TRUE(w->empty()) << text;
  }
}

TEST(WindowAttribute, MalformedWindows) {
  struct Case {
    const char* text;
    const char* message;
  };
  const Case cases[] = {
      {"size=3", "window 'size=3' is not written in braces"},
      {"{size=3x3 2x2}", "window item '2x2' is not key=value"},
      {"{=3}", "window item '=3' is not key=value"},
      {"{size=3x3 dilate=2x2}", "window has an unknown sub-attribute 'dilate'"},
      {"{size=3x3 size=3x3}", "window gives 'size=' twice"},
      {"{size=3 pad=0_0 pad=1_1}", "window gives 'pad=' twice"},
      {"{size=3xa}", "window 'size=3xa' is not a list of integers like 3x3"},
      {"{size=3x}", "window 'size=3x' is not a list of integers like 3x3"},
      {"{size=3x3 pad=1x1}", "window 'pad=1x1' is not a list of low_high paddings like 1_1x0_0"},
      {"{size=3 pad=1_1_0}", "window 'pad=1_1_0' is not a list of low_high paddings like 1_1x0_0"},
      {"{stride=2x2}", "window has no 'size='"},
      {"{size=3x3 stride=2}", "window 'stride=' has 1 value but 'size=' has 2"},
      {"{size=3 pad=0_0x1_1}", "window 'pad=' has 2 values but 'size=' has 1"},
      {"{size=3 rhs_reversal=0x1}", "window 'rhs_reversal=' has 2 values but 'size=' has 1"},
      {"{size=3 lhs_dilate=1x1x1}", "window 'lhs_dilate=' has 3 values but 'size=' has 1"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<std::vector<WindowDim>> w = ParseWindow(c.text);
    ASSERT_FALSE(w.ok()) << c.text;
    EXPECT_EQ(StatusText(w.status()), c.message);
  }
}

TEST(WindowAttribute, OutputSize) {
  auto size = [](WindowDim d, int64_t base) {
    absl::StatusOr<int64_t> s = WindowedOutputSize(d, base, 0);
    EXPECT_TRUE(s.ok()) << StatusText(s.status());
    return s.ok() ? *s : -1;
  };
  EXPECT_EQ(size({.size = 3}, 10), 8);
  EXPECT_EQ(size({.size = 3, .stride = 2}, 10), 4);  // offsets 0, 2, 4, 6
  EXPECT_EQ(size({.size = 3, .stride = 3}, 10), 3);  // offsets 0, 3, 6 (9 would overrun)
  EXPECT_EQ(size({.size = 2, .padding_low = 1, .padding_high = 2}, 4), 6);
  EXPECT_EQ(size({.size = 2, .base_dilation = 3}, 4), 9);    // 10 elements
  EXPECT_EQ(size({.size = 2, .window_dilation = 3}, 4), 1);  // extent 4 fits once in 4
  EXPECT_EQ(size({.size = 2, .window_dilation = 4}, 4), 0);  // extent 5 does not fit
  EXPECT_EQ(size({.size = 3}, 2), 0);
  EXPECT_EQ(size({.size = 1}, 0), 0);
  EXPECT_EQ(size({.size = 1, .padding_low = 2}, 0), 2);  // padding alone is a base
}

TEST(WindowAttribute, OutputSizeErrors) {
  auto error = [](WindowDim d, int64_t base) {
    absl::StatusOr<int64_t> s = WindowedOutputSize(d, base, 1);
    EXPECT_FALSE(s.ok());
    return StatusText(s.status());
  };
  EXPECT_EQ(error({.size = 0}, 4),
            "window dimension 1 has size=0, but sizes, strides and dilations must be positive");
  EXPECT_EQ(error({.size = 2, .stride = 0}, 4),
            "window dimension 1 has stride=0, but sizes, strides and dilations must be positive");
  EXPECT_EQ(
      error({.size = 2, .base_dilation = -1}, 4),
      "window dimension 1 has lhs_dilate=-1, but sizes, strides and dilations must be positive");
  EXPECT_EQ(
      error({.size = 2, .window_dilation = 0}, 4),
      "window dimension 1 has rhs_dilate=0, but sizes, strides and dilations must be positive");
  EXPECT_EQ(error({.size = 2, .padding_low = -3, .padding_high = -2}, 4),
            "window dimension 1 pads the input to a negative size (-1)");
  EXPECT_EQ(error({.size = 2, .base_dilation = int64_t{1} << 62}, 5),
            "window dimension 1 is too large: its extent overflows 64 bits");
  EXPECT_EQ(error({.size = int64_t{1} << 40, .window_dilation = int64_t{1} << 40}, 5),
            "window dimension 1 is too large: its extent overflows 64 bits");
}

TEST(ReduceWindowShape, SharesTheWindowRules) {
  auto m = ParseOrDie(R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  p = f32[2,<=9] parameter(0)
  s = f32[] parameter(1)
  z = f32[] constant(0)
  big = reduce-window(p, z), window={size=5x1}, to_apply=add
  dyn = reduce-window(p, z), window={size=1x3 stride=1x3}, to_apply=add
  ROOT scalar = reduce-window(s, z), to_apply=add
})");
  ASSERT_NE(m, nullptr);
  // A window larger than the input has no position (XLA gives 0, not an error).
  EXPECT_EQ(Find(*m, "big")->shape().ToString(), "f32[0,<=9]");
  // (9 - 3) / 3 + 1 = 3, still dynamic.
  EXPECT_EQ(Find(*m, "dyn")->shape().ToString(), "f32[2,<=3]");
  // No window: a scalar reduces to a scalar.
  EXPECT_EQ(Find(*m, "scalar")->shape().ToString(), "f32[]");
}

}  // namespace
}  // namespace hloscope
