// eval/xla_builder_math.h's functions as modules, and the text writer under them
// (eval/scalar_hlo_text.h). Their values are checked against XLA's own expansion by
// testdata/tools/hlo_run/evaluator/xla_builder_math.hlo; here: every offered function is a
// module that parses and verifies, with the arity and element types the kernel relies on.
#include "eval/xla_builder_math.h"

#include <string>

#include "eval/scalar_hlo_text.h"
#include "gtest/gtest.h"
#include "hlo/module.h"
#include "hlo/parser.h"
#include "hlo/verifier.h"

namespace hloscope::eval {
namespace {

TEST(XlaBuilderMathTest, EveryOfferedFunctionParsesAndVerifies) {
  struct Case {
    std::string_view target;
    std::vector<PrimitiveType> types;
  };
  using P = PrimitiveType;
  const std::vector<P> unary = {P::kF32, P::kF64, P::kC64, P::kC128};
  const Case cases[] = {
      {"xla_builder.math.Acos", unary},
      {"xla_builder.math.Acosh", unary},
      {"xla_builder.math.Asin", unary},
      {"xla_builder.math.Asinh", unary},
      {"xla_builder.math.Atan", unary},
      {"xla_builder.math.Cosh", unary},
      {"xla_builder.math.NextAfter", {P::kF32, P::kF8E5M2FNUZ}},
  };
  for (const Case& c : cases) {
    const int arity = c.target == "xla_builder.math.NextAfter" ? 2 : 1;
    EXPECT_TRUE(IsXlaBuilderMathTarget(c.target));
    EXPECT_EQ(XlaBuilderMathArity(c.target), arity);
    for (PrimitiveType type : c.types) {
      SCOPED_TRACE(std::string(c.target) + " " + std::string(PrimitiveTypeName(type)));
      std::optional<std::string> text = XlaBuilderMathModuleText(c.target, type);
      ASSERT_TRUE(text.has_value());
      absl::StatusOr<std::unique_ptr<Module>> module = ParseModule(*text, {});
      ASSERT_TRUE(module.ok()) << module.status() << "\n" << *text;
      EXPECT_TRUE(VerifyModule(**module).ok()) << *text;
      const Computation& entry = *(*module)->entry();
      ASSERT_EQ(entry.parameter_count(), arity);
      for (int i = 0; i < arity; ++i) {
        EXPECT_EQ(entry.parameter(i)->shape().element_type, type);
      }
      EXPECT_EQ(entry.root()->shape().element_type, type);
      EXPECT_TRUE(entry.root()->shape().dims.empty());
    }
  }
  EXPECT_EQ(XlaBuilderMathTypes("xla_builder.math.NextAfter"), "f32, f8e5m2fnuz");
}

TEST(XlaBuilderMathTest, OtherTypesAndTargetsHaveNoFunction) {
  EXPECT_FALSE(XlaBuilderMathModuleText("xla_builder.math.Acos", PrimitiveType::kF16));
  EXPECT_FALSE(XlaBuilderMathModuleText("xla_builder.math.NextAfter", PrimitiveType::kF64));
  EXPECT_FALSE(XlaBuilderMathModuleText("xla_builder.matrix.Einsum", PrimitiveType::kF32));
  EXPECT_FALSE(IsXlaBuilderMathTarget("xla_builder.matrix.Einsum"));
  EXPECT_EQ(XlaBuilderMathArity("xla_builder.matrix.Einsum"), 0);
  EXPECT_EQ(XlaBuilderMathTypes("xla_builder.matrix.Einsum"), "");
}

TEST(ScalarHloTextTest, WritesOneInstructionPerCallAndMarksTheRoot) {
  ScalarHloText h;
  ScalarHloText::Value z = h.Parameter("c64");
  ScalarHloText::Value re = h.Real(z);
  ScalarHloText::Value zero = h.Constant("f32", "0");
  ScalarHloText::Value neg = h.Compare(re, zero, "LT");
  ScalarHloText::Value root = h.Select(neg, h.Unary("negate", re), re);
  ScalarHloText::Value back = h.Complex(root, h.Imag(z));
  EXPECT_EQ(back.type, "c64");
  EXPECT_EQ(h.Text("f", root),
            "%f {\n"
            "  %v0 = c64[] parameter(0)\n"
            "  %v1 = f32[] real(%v0)\n"
            "  %v2 = f32[] constant(0)\n"
            "  %v3 = pred[] compare(%v1, %v2), direction=LT\n"
            "  %v4 = f32[] negate(%v1)\n"
            "  ROOT %v5 = f32[] select(%v3, %v4, %v1)\n"
            "  %v6 = f32[] imag(%v0)\n"
            "  %v7 = c64[] complex(%v5, %v6)\n"
            "}\n");
}

}  // namespace
}  // namespace hloscope::eval
