// Complex numbers (c64, c128) in the interpreter: literal text, elementwise ops, the ops XLA
// does not define on them, dot, reduce, data movement, sort and fft.
#include <complex>

#include "eval/element_io.h"
#include "eval/literal.h"
#include "gtest/gtest.h"
#include "hlo/verifier.h"
#include "support/str_util.h"
#include "tests/eval/eval_test_util.h"

namespace hloscope::eval {
namespace {

using ::hloscope::StatusText;
using testing::RunBoth;
using testing::RunText;

std::string ModuleText(std::string_view params, std::string_view root) {
  return StrCat("HloModule m\nENTRY e {\n", params, "\n  ROOT r = ", root, "\n}\n");
}

Shape ArrayShape(PrimitiveType t, std::vector<int64_t> dims) {
  Shape s;
  s.element_type = t;
  s.dims.assign(dims.begin(), dims.end());
  s.dynamic.assign(dims.size(), false);
  return s;
}

TEST(ComplexLiteralTest, ParsesAndPrintsAsXla) {
  Shape s = ArrayShape(PrimitiveType::kC64, {2, 2});
  absl::StatusOr<Literal> lit = ParseLiteral("{{(1, 2), (-0.5, 0)}, {(nan, inf), (3e2, -4)}}", s);
  ASSERT_TRUE(lit.ok()) << StatusText(lit.status());
  EXPECT_EQ(FormatLiteral(*lit, true), "c64[2,2] {{(1, 2), (-0.5, 0)}, {(nan, inf), (300, -4)}}\n");
  // c128 keeps f64 precision in both parts.
  Shape d = ArrayShape(PrimitiveType::kC128, {});
  absl::StatusOr<Literal> c = ParseLiteral("(0.1, -0.2)", d);
  ASSERT_TRUE(c.ok()) << StatusText(c.status());
  EXPECT_EQ(FormatLiteral(*c, true), "c128[] (0.1, -0.2)\n");
  std::complex<double> v = LoadComplex(PrimitiveType::kC128, c->data().data());
  EXPECT_EQ(v, std::complex<double>(0.1, -0.2));
}

TEST(ComplexLiteralTest, BadTextIsAnErrorWithItsColumn) {
  Shape s = ArrayShape(PrimitiveType::kC64, {2});
  auto error = [&](std::string_view text) {
    absl::StatusOr<Literal> lit = ParseLiteral(text, s);
    return lit.ok() ? std::string("ok") : std::string(StatusText(lit.status()));
  };
  EXPECT_EQ(error("{1, 2}"),
            "literal column 2: expected '(' to start a c64 value written (real, imag)");
  EXPECT_EQ(error("{(1 2), (3, 4)}"),
            "literal column 5: expected ',' between the real and imaginary part");
  EXPECT_EQ(error("{(1, 2, (3, 4)}"), "literal column 7: expected ')' after the imaginary part");
  EXPECT_EQ(error("{(1, x), (3, 4)}"), "literal column 6: 'x' is not a f32 value");
  EXPECT_EQ(error("{(1e39, 0), (3, 4)}").substr(0, 48),
            "literal column 3: '1e39' is out of range for f32");
}

TEST(ComplexLiteralTest, SummaryIsOfMagnitudes) {
  Literal lit = Literal::Zeros(ArrayShape(PrimitiveType::kC64, {100}));
  StoreComplex(PrimitiveType::kC64, lit.mutable_data().data(), {3, -4});
  StoreComplex(PrimitiveType::kC64, lit.mutable_data().data() + 8, {0, 0.5});
  EXPECT_EQ(FormatLiteral(lit, /*print_all=*/false),
            "c64[100] |x| min=0 max=5 mean=0.055 first={(3, -4), (0, 0.5), (0, 0), (0, 0), (0, 0), "
            "(0, 0), (0, 0), (0, 0), ...}\n");
}

TEST(ComplexLiteralTest, RandomLiteralFillsBothParts) {
  Literal lit = RandomLiteral(ArrayShape(PrimitiveType::kC64, {64}), 3);
  bool nonzero_imag = false;
  for (int64_t i = 0; i < 64; ++i) {
    std::complex<double> v = LoadComplex(PrimitiveType::kC64, lit.data().data() + i * 8);
    EXPECT_EQ(v.real() * 8, std::floor(v.real() * 8));
    EXPECT_GE(v.imag(), -2);
    EXPECT_LT(v.imag(), 2);
    nonzero_imag |= v.imag() != 0;
  }
  EXPECT_TRUE(nonzero_imag);
}

TEST(ComplexElementwiseTest, Arithmetic) {
  std::string p = "  a = c64[3] parameter(0)\n  b = c64[3] parameter(1)";
  std::vector<std::string> args = {"{(1, 2), (3, -4), (0.5, 0)}", "{(2, 0), (1, 1), (-1, 2.5)}"};
  EXPECT_EQ(RunBoth(ModuleText(p, "c64[3] add(a, b)"), args),
            "c64[3] {(3, 2), (4, -3), (-0.5, 2.5)}");
  EXPECT_EQ(RunBoth(ModuleText(p, "c64[3] subtract(a, b)"), args),
            "c64[3] {(-1, 2), (2, -5), (1.5, -2.5)}");
  EXPECT_EQ(RunBoth(ModuleText(p, "c64[3] multiply(a, b)"), args),
            "c64[3] {(2, 4), (7, -1), (-0.5, 1.25)}");
  EXPECT_EQ(RunBoth(ModuleText(p, "c64[3] divide(a, b)"), args),
            "c64[3] {(0.5, 1), (-0.5, -3.5), (-0.06896552, -0.1724138)}");
  EXPECT_EQ(RunBoth(ModuleText(p, "pred[3] compare(a, a), direction=EQ"), args),
            "pred[3] {true, true, true}");
  EXPECT_EQ(RunBoth(ModuleText(p, "pred[3] compare(a, b), direction=NE"), args),
            "pred[3] {true, true, true}");
}

TEST(ComplexElementwiseTest, UnaryOpsAndParts) {
  std::string p = "  a = c64[3] parameter(0)";
  std::vector<std::string> args = {"{(3, 4), (0, 0), (-1, 0)}"};
  EXPECT_EQ(RunBoth(ModuleText(p, "f32[3] abs(a)"), args), "f32[3] {5, 0, 1}");
  EXPECT_EQ(RunBoth(ModuleText(p, "c64[3] sign(a)"), args), "c64[3] {(0.6, 0.8), (0, 0), (-1, 0)}");
  EXPECT_EQ(RunBoth(ModuleText(p, "c64[3] negate(a)"), args),
            "c64[3] {(-3, -4), (-0, -0), (1, -0)}");
  EXPECT_EQ(RunBoth(ModuleText(p, "c64[3] sqrt(a)"), args), "c64[3] {(2, 1), (0, 0), (0, 1)}");
  EXPECT_EQ(RunBoth(ModuleText(p, "f32[3] real(a)"), args), "f32[3] {3, 0, -1}");
  EXPECT_EQ(RunBoth(ModuleText(p, "f32[3] imag(a)"), args), "f32[3] {4, 0, 0}");
  // exp(i pi) = -1 (to f32 precision).
  EXPECT_EQ(RunBoth(ModuleText("  a = c128[] parameter(0)", "c128[] exponential(a)"),
                    {"(0, 3.141592653589793)"}),
            "c128[] (-1, 1.2246467991473532e-16)");
  // XLA: 0^0 = 1.
  EXPECT_EQ(RunBoth(ModuleText("  a = c64[] parameter(0)", "c64[] power(a, a)"), {"(0, 0)"}),
            "c64[] (1, 0)");
}

TEST(ComplexElementwiseTest, ComplexRealImagOnFloats) {
  std::string p = "  a = f32[2] parameter(0)\n  b = f32[2] parameter(1)";
  std::vector<std::string> args = {"{1, -100}", "{2.5, 0}"};
  EXPECT_EQ(RunBoth(ModuleText(p, "c64[2] complex(a, b)"), args), "c64[2] {(1, 2.5), (-100, 0)}");
  EXPECT_EQ(RunBoth(ModuleText(p, "f32[2] real(a)"), args), "f32[2] {1, -100}");
  EXPECT_EQ(RunBoth(ModuleText(p, "f32[2] imag(a)"), args), "f32[2] {0, 0}");
}

TEST(ComplexElementwiseTest, Converts) {
  EXPECT_EQ(
      RunBoth(ModuleText("  a = s32[2] parameter(0)", "c64[2] convert(a)"), {"{-3, 16777217}"}),
      "c64[2] {(-3, 0), (16777216, 0)}");
  EXPECT_EQ(RunBoth(ModuleText("  a = f64[1] parameter(0)", "c64[1] convert(a)"), {"{0.1}"}),
            "c64[1] {(0.1, 0)}");
  EXPECT_EQ(RunBoth(ModuleText("  a = c64[1] parameter(0)", "c128[1] convert(a)"), {"{(0.1, 2)}"}),
            "c128[1] {(0.10000000149011612, 2)}");
}

TEST(ComplexElementwiseTest, OpsXlaDoesNotDefineAreRefused) {
  std::string p = "  a = c64[2] parameter(0)\n  b = c64[2] parameter(1)";
  std::vector<std::string> args = {"{(1, 2), (3, 4)}", "{(1, 2), (3, 4)}"};
  EXPECT_EQ(RunText(ModuleText(p, "pred[2] compare(a, b), direction=LT"), args),
            "error: the interpreter compares c64 values only for EQ and NE: complex numbers have "
            "no order (instruction %r)");
  EXPECT_EQ(
      RunText(ModuleText(p, "c64[2] maximum(a, b)"), args),
      "error: the interpreter does not run 'maximum' on c64 values: XLA does not define it for "
      "complex numbers (instruction %r)");
}

TEST(ComplexElementwiseTest, FloorOfComplexIsRefusedUnverified) {
  // XLA's shape inference rejects floor of c64 (InferUnaryOpShape), and so does the verifier
  // (hlo/verifier_element_type_rules.cc); a module nobody verified is still refused.
  std::unique_ptr<Module> m =
      testing::Parse(ModuleText("  a = c64[2] parameter(0)", "c64[2] floor(a)"));
  ASSERT_NE(m, nullptr);
  EXPECT_FALSE(VerifyModule(*m).ok());
  Literal arg = *ParseLiteral("{(1, 2), (3, 4)}", m->entry()->parameter(0)->shape());
  absl::StatusOr<Literal> out = Evaluate(*m, {arg}, {});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(StatusText(out.status()),
            "the interpreter does not run 'floor' on c64 values: XLA does not define it for "
            "complex numbers (instruction %r)");
}

TEST(ComplexElementwiseTest, ConvertToRealIsRefused) {
  // XLA's verifier rejects it too, so this runs without verifying.
  std::unique_ptr<Module> m =
      testing::Parse(ModuleText("  a = c64[2] parameter(0)", "f32[2] convert(a)"));
  ASSERT_NE(m, nullptr);
  Literal arg = *ParseLiteral("{(1, 2), (3, 4)}", m->entry()->parameter(0)->shape());
  absl::StatusOr<Literal> out = Evaluate(*m, {arg}, {});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(StatusText(out.status()),
            "the interpreter does not convert c64 to f32: XLA does not define a conversion from "
            "complex to real (use real or imag; instruction %r)");
}

TEST(ComplexArrayOpsTest, DotMultipliesAndAccumulatesComplex) {
  std::string p = "  a = c64[2,2] parameter(0)\n  b = c64[2] parameter(1)";
  // {{1+i, 2}, {0, i}} . {1-i, i} = {(1+i)(1-i) + 2i, i*i} = {2+2i, -1}
  EXPECT_EQ(
      RunBoth(ModuleText(p, "c64[2] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
              {"{{(1, 1), (2, 0)}, {(0, 0), (0, 1)}}", "{(1, -1), (0, 1)}"}),
      "c64[2] {(2, 2), (-1, 0)}");
}

TEST(ComplexArrayOpsTest, ConvolutionMultipliesAndAccumulatesComplex) {
  std::string p = "  a = c64[1,1,3] parameter(0)\n  k = c64[1,1,2] parameter(1)";
  // {1+i, 2, i} * {1, i}: (1+i) + 2i = 1+3i, then 2 + i*i = 1.
  EXPECT_EQ(RunBoth(ModuleText(p,
                               "c64[1,1,2] convolution(a, k), window={size=2}, "
                               "dim_labels=bf0_oi0->bf0"),
                    {"{{{(1, 1), (2, 0), (0, 1)}}}", "{{{(1, 0), (0, 1)}}}"}),
            "c64[1,1,2] {{{(1, 3), (1, 0)}}}");
}

TEST(ComplexArrayOpsTest, ReduceAddsComplex) {
  std::string text = R"(HloModule m
add {
  x = c128[] parameter(0)
  y = c128[] parameter(1)
  ROOT s = c128[] add(x, y)
}
mul {
  x = c128[] parameter(0)
  y = c128[] parameter(1)
  m = c128[] multiply(x, y)
  ROOT n = c128[] negate(m)
}
ENTRY e {
  a = c128[2,2] parameter(0)
  z = c128[] constant((0, 0))
  one = c128[] constant((-1, 0))
  s = c128[2] reduce(a, z), dimensions={1}, to_apply=add
  p = c128[2] reduce(a, one), dimensions={0}, to_apply=mul
  ROOT t = (c128[2], c128[2]) tuple(s, p)
}
)";
  // Column products with a negation per step: -(-(-1 * a0) * a1) = -a0*a1.
  EXPECT_EQ(RunBoth(text, {"{{(1, 2), (3, 4)}, {(0, 1), (0, 1)}}"}),
            "{0}: c128[2] {(4, 6), (0, 2)}\n{1}: c128[2] {(2, -1), (4, -3)}");
}

TEST(ComplexArrayOpsTest, DataMovementCopiesWholeElements) {
  std::string p = "  a = c64[2,2] parameter(0)";
  std::vector<std::string> args = {"{{(1, 2), (3, 4)}, {(5, 6), (7, 8)}}"};
  EXPECT_EQ(RunBoth(ModuleText(p, "c64[2,2] transpose(a), dimensions={1,0}"), args),
            "c64[2,2] {{(1, 2), (5, 6)}, {(3, 4), (7, 8)}}");
  EXPECT_EQ(RunBoth(ModuleText(p, "c64[4] reshape(a)"), args),
            "c64[4] {(1, 2), (3, 4), (5, 6), (7, 8)}");
  EXPECT_EQ(RunBoth(ModuleText(p, "c64[1,2] slice(a), slice={[1:2], [0:2]}"), args),
            "c64[1,2] {{(5, 6), (7, 8)}}");
  EXPECT_EQ(
      RunBoth(ModuleText(p, "c64[2,2,2] broadcast(a), dimensions={0,1}"), args),
      "c64[2,2,2] {{{(1, 2), (1, 2)}, {(3, 4), (3, 4)}}, {{(5, 6), (5, 6)}, {(7, 8), (7, 8)}}}");
  EXPECT_EQ(RunBoth(ModuleText(p + "\n  c = c64[2,2]{0,1} copy(a)",
                               "c64[2,4] concatenate(a, c), dimensions={1}"),
                    args),
            "c64[2,4] {{(1, 2), (3, 4), (1, 2), (3, 4)}, {(5, 6), (7, 8), (5, 6), (7, 8)}}");
  EXPECT_EQ(RunBoth(ModuleText(p + "\n  z = c64[] constant((0, -1))",
                               "c64[2,3] pad(a, z), padding=0_0x1_0"),
                    args),
            "c64[2,3] {{(0, -1), (1, 2), (3, 4)}, {(0, -1), (5, 6), (7, 8)}}");
  EXPECT_EQ(RunBoth(ModuleText("  a = pred[2] parameter(0)\n  b = c64[2] parameter(1)\n  "
                               "c = c64[2] parameter(2)",
                               "c64[2] select(a, b, c)"),
                    {"{true, false}", "{(1, 1), (2, 2)}", "{(3, 3), (4, 4)}"}),
            "c64[2] {(1, 1), (4, 4)}");
}

TEST(ComplexArrayOpsTest, PadC128WritesTheWholeSixteenBytePaddingValue) {
  EXPECT_EQ(RunBoth(ModuleText("  a = c128[1] parameter(0)\n  z = c128[] constant((0.5, -0.25))",
                               "c128[3] pad(a, z), padding=1_1"),
                    {"{(1, 2)}"}),
            "c128[3] {(0.5, -0.25), (1, 2), (0.5, -0.25)}");
}

TEST(ComplexArrayOpsTest, TopKIsRefused) {
  std::unique_ptr<Module> m =
      testing::Parse(ModuleText("  a = c64[3] parameter(0)", "(c64[2], s32[2]) topk(a), k=2"));
  ASSERT_NE(m, nullptr);
  Literal arg = *ParseLiteral("{(1, 0), (2, 0), (3, 0)}", m->entry()->parameter(0)->shape());
  absl::StatusOr<Literal> out = Evaluate(*m, {arg}, {});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(StatusText(out.status()),
            "cannot run %r: topk orders its operand, and c64 values have no order");
}

TEST(ComplexArrayOpsTest, SortByComparatorOnRealParts) {
  std::string text = R"(HloModule m
lt {
  p0 = c64[] parameter(0)
  r0 = f32[] real(p0)
  p1 = c64[] parameter(1)
  r1 = f32[] real(p1)
  ROOT c = pred[] compare(r0, r1), direction=LT
}
ENTRY e {
  a = c64[4] parameter(0)
  ROOT s = c64[4] sort(a), dimensions={0}, to_apply=lt
}
)";
  EXPECT_EQ(RunBoth(text, {"{(6, 1), (2, 2), (4, 3), (-1, 4)}"}),
            "c64[4] {(-1, 4), (2, 2), (4, 3), (6, 1)}");
}

TEST(FftTest, ForwardAndInverseRoundTrip) {
  std::string text = ModuleText(
      "  a = c128[2,4] parameter(0)\n  f = c128[2,4] fft(a), fft_type=FFT, fft_length={4}",
      "c128[2,4] fft(f), fft_type=IFFT, fft_length={4}");
  EXPECT_EQ(RunBoth(text, {"{{(1, 0), (2, 0), (3, 0), (4, 0)}, {(0, 1), (0, 0), (0, 0), (0, 0)}}"}),
            "c128[2,4] {{(1, 0), (2, 0), (3, 0), (4, 0)}, {(0, 1), (0, 0), (0, 0), (0, 0)}}");
  EXPECT_EQ(RunBoth(ModuleText("  a = c128[4] parameter(0)",
                               "c128[4] fft(a), fft_type=FFT, fft_length={4}"),
                    {"{(1, 0), (2, 0), (3, 0), (4, 0)}"}),
            "c128[4] {(10, 0), (-2, 2), (-2, 0), (-2, -2)}");
}

TEST(FftTest, WrongTypesAreRefused) {
  // The verifier's shape rules are not the point here: the kernel's own check names the types.
  std::unique_ptr<Module> m = testing::Parse(
      ModuleText("  a = f32[4] parameter(0)", "c64[4] fft(a), fft_type=FFT, fft_length={4}"));
  ASSERT_NE(m, nullptr);
  Literal arg = *ParseLiteral("{1, 2, 3, 4}", m->entry()->parameter(0)->shape());
  absl::StatusOr<Literal> out = Evaluate(*m, {arg}, {});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(StatusText(out.status()), "cannot run %r: fft_type=FFT does not take f32 to c64");
  m = testing::Parse(
      ModuleText("  a = c64[4] parameter(0)", "c64[4] fft(a), fft_type=FFT, fft_length={}"));
  ASSERT_NE(m, nullptr);
  arg = *ParseLiteral("{(1, 0), (2, 0), (3, 0), (4, 0)}", m->entry()->parameter(0)->shape());
  out = Evaluate(*m, {arg}, {});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(StatusText(out.status()),
            "cannot run %r: fft needs fft_length={...} of 1 to 3 sizes and operand and result of "
            "one rank at least that large");
}

}  // namespace
}  // namespace hloscope::eval
