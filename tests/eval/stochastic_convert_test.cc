// stochastic-convert (eval/stochastic_convert.cc): operands in different layouts, the 8-bit
// floats, and the refusal of operands the verifier never saw. The hand-worked values of every
// rounding rule are in testdata/tools/hlo_run/stochastic_convert.hlo.
#include "eval/stochastic_convert.h"

#include "gtest/gtest.h"
#include "support/status_text.h"
#include "support/str_util.h"
#include "tests/eval/eval_test_util.h"

namespace hloscope::eval {
namespace {

using testing::RunBoth;

TEST(StochasticConvertTest, OperandAndRandomBitsMeetAtTheSameLogicalIndex) {
  // x is column-major, the random bits row-major: element [0,1] is 0.5 with random 2^31 - 1
  // (rounds up), element [1,0] is 0.5 with random 2^31 (does not).
  EXPECT_EQ(RunBoth(R"(
HloModule m
ENTRY e {
  x = f32[2,2]{0,1} parameter(0)
  r = u32[2,2] parameter(1)
  ROOT s = s32[2,2] stochastic-convert(x, r)
}
)",
                    {"{{1, 0.5}, {0.5, -1.5}}", "{{0, 2147483647}, {2147483648, 0}}"}),
            "s32[2,2] {{1, 1}, {0, -2}}");
}

TEST(StochasticConvertTest, EightBitFloatsUseEightRandomBits) {
  // f8e4m3fn: 1.5 has fraction 0.5 * 2^8 = 128 (random 127 rounds up, 128 does not); 448,
  // its largest value, is past 127 (128 in f8e4m3fn) and saturates.
  EXPECT_EQ(RunBoth(R"(
HloModule m
ENTRY e {
  x = f8e4m3fn[3] parameter(0)
  r = u8[3] parameter(1)
  ROOT s = s8[3] stochastic-convert(x, r)
}
)",
                    {"{1.5, 1.5, 448}", "{127, 128, 0}"}),
            "s8[3] {2, 1, 127}");
}

TEST(StochasticConvertTest, RefusesOperandsOfOtherDimensions) {
  std::unique_ptr<Module> m = testing::Parse(R"(
HloModule m
ENTRY e {
  x = f32[2] parameter(0)
  r = u32[3] parameter(1)
  ROOT s = s32[2] stochastic-convert(x, r)
}
)");
  ASSERT_NE(m, nullptr);
  // Through Evaluate, the elementwise operand check refuses it first.
  absl::StatusOr<Literal> out = Evaluate(*m, RandomArguments(*m, 1), {});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(StatusText(out.status()),
            "cannot run %s: operand 1 has shape u32[3] but the result is s32[2]");
  // The kernel checks them too, for callers that hand it arrays directly.
  const Instruction& s = *m->entry()->root();
  const std::vector<uint8_t> bytes(12, 0);
  const ArrayRef operands[2] = {{&s.operand(0)->shape(), bytes.data()},
                                {&s.operand(1)->shape(), bytes.data()}};
  absl::StatusOr<Bytes> r = EvalStochasticConvert(s, operands);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(StatusText(r.status()),
            "cannot run %s: stochastic-convert takes an operand and random bits of its result's "
            "dimensions");
}

}  // namespace
}  // namespace hloscope::eval
