// Buffer values b(T) (eval/buffers.h) on modules that skip the verifier, so that the
// interpreter's own checks are reached: a buffer through an instruction that does not forward
// it, and Pin, Unpin, CreateBuffer and dynamic-update-slice with operands that do not fit.
// The verified paths (Pin/Unpin with a layout change, a loop that updates a buffer, reads of
// CreateBuffer contents) are in testdata/tools/hlo_run/buffers.hlo.
#include "gtest/gtest.h"
#include "support/status_text.h"
#include "tests/eval/eval_test_util.h"

namespace hloscope::eval {
namespace {

std::string Error(std::string_view text, EvalMode mode = EvalMode::kValue) {
  std::unique_ptr<Module> m = testing::Parse(text);
  if (m == nullptr) return "does not parse";
  EvalOptions options;
  options.mode = mode;
  absl::StatusOr<Literal> out = Evaluate(*m, RandomArguments(*m, 0), options);
  return out.ok() ? "ok" : StatusText(out.status());
}

TEST(EvalBufferValuesTest, PinThenUnpinGivesTheOperandInBothModes) {
  constexpr std::string_view text = R"(HloModule m
ENTRY e {
  x = s32[3] parameter(0)
  b = b(s32[3]) custom-call(x), custom_call_target="Pin", output_to_operand_aliasing={{}: (0, {})}
  ROOT y = s32[3] custom-call(b), custom_call_target="Unpin", output_to_operand_aliasing={{}: (0, {})}
}
)";
  std::unique_ptr<Module> m = testing::Parse(text);
  ASSERT_NE(m, nullptr);
  std::vector<Literal> args = testing::Args(*m, {"{7, -3, 5}"});
  for (EvalMode mode : {EvalMode::kValue, EvalMode::kBuffer}) {
    EvalOptions options;
    options.mode = mode;
    absl::StatusOr<Literal> out = Evaluate(*m, args, options);
    ASSERT_TRUE(out.ok()) << StatusText(out.status());
    EXPECT_EQ(FirstDifference(args[0], *out), std::nullopt);
  }
}

TEST(EvalBufferValuesTest, ABufferThroughAnotherInstructionIsRefused) {
  EXPECT_EQ(Error(R"(HloModule m
ENTRY e {
  x = s32[3] parameter(0)
  b = b(s32[3]) custom-call(x), custom_call_target="Pin", output_to_operand_aliasing={{}: (0, {})}
  c = b(s32[3]) copy(b)
  ROOT y = s32[3] custom-call(c), custom_call_target="Unpin", output_to_operand_aliasing={{}: (0, {})}
}
)"),
            "the interpreter runs buffers (b(...)) only through Pin, Unpin, CreateBuffer, "
            "dynamic-update-slice and the instructions that forward values, not through 'copy' "
            "(instruction %c)");
}

TEST(EvalBufferValuesTest, CreateBufferWithAnOperandIsRefused) {
  EXPECT_EQ(Error(R"(HloModule m
ENTRY e {
  x = s32[3] parameter(0)
  c = b(s32[3]) custom-call(x), custom_call_target="CreateBuffer"
  ROOT y = s32[3] custom-call(c), custom_call_target="Unpin", output_to_operand_aliasing={{}: (0, {})}
}
)"),
            "cannot run %c: CreateBuffer takes no operand and gives a buffer");
}

TEST(EvalBufferValuesTest, PinOfAnotherShapeIsRefused) {
  EXPECT_EQ(Error(R"(HloModule m
ENTRY e {
  x = s32[2] parameter(0)
  b = b(s32[3]) custom-call(x), custom_call_target="Pin", output_to_operand_aliasing={{}: (0, {})}
  ROOT y = s32[3] custom-call(b), custom_call_target="Unpin", output_to_operand_aliasing={{}: (0, {})}
}
)"),
            "cannot run %b: Pin takes one array and gives a buffer of its shape");
}

TEST(EvalBufferValuesTest, UnpinOfAnArrayIsRefused) {
  EXPECT_EQ(Error(R"(HloModule m
ENTRY e {
  x = s32[3] parameter(0)
  ROOT y = s32[3] custom-call(x), custom_call_target="Unpin", output_to_operand_aliasing={{}: (0, {})}
}
)"),
            "cannot run %y: Unpin takes one buffer and gives an array of its shape");
}

TEST(EvalBufferValuesTest, DynamicUpdateSliceIntoABufferWithoutItsIndicesIsRefused) {
  EXPECT_EQ(Error(R"(HloModule m
ENTRY e {
  x = s32[3] parameter(0)
  u = s32[1] parameter(1)
  b = b(s32[3]) custom-call(x), custom_call_target="Pin", output_to_operand_aliasing={{}: (0, {})}
  w = b(s32[3]) dynamic-update-slice(b, u)
  ROOT y = s32[3] custom-call(w), custom_call_target="Unpin", output_to_operand_aliasing={{}: (0, {})}
}
)"),
            "cannot run %w: a dynamic-update-slice into a buffer takes the buffer, an update of "
            "its rank and one index per dimension");
}

TEST(EvalBufferValuesTest, DynamicUpdateSliceIntoABufferInBothModes) {
  constexpr std::string_view text = R"(HloModule m
ENTRY e {
  x = s32[4] parameter(0)
  u = s32[2] parameter(1)
  i = s32[] parameter(2)
  b = b(s32[4]) custom-call(x), custom_call_target="Pin", output_to_operand_aliasing={{}: (0, {})}
  w = b(s32[4]) dynamic-update-slice(b, u, i)
  ROOT y = s32[4] custom-call(w), custom_call_target="Unpin", output_to_operand_aliasing={{}: (0, {})}
}
)";
  std::unique_ptr<Module> m = testing::Parse(text);
  ASSERT_NE(m, nullptr);
  // Index 3 is clamped to 2 so that the update fits, as for arrays.
  std::vector<Literal> args = testing::Args(*m, {"{1, 2, 3, 4}", "{8, 9}", "3"});
  for (EvalMode mode : {EvalMode::kValue, EvalMode::kBuffer}) {
    EvalOptions options;
    options.mode = mode;
    absl::StatusOr<Literal> out = Evaluate(*m, args, options);
    ASSERT_TRUE(out.ok()) << StatusText(out.status());
    EXPECT_EQ(FormatLiteral(*out, true), "s32[4] {1, 2, 8, 9}\n");
  }
}

}  // namespace
}  // namespace hloscope::eval
