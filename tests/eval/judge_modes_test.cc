// The judge-only run modes (EvalOptions::mixed_precision, EvalOptions::rng_default): which ops
// mixed precision converts and to what (eval/mixed_precision.h), that the default refusals
// name the option that lifts them and that ops outside the rule stay refused without one, and
// that rng_default runs as the algorithm it is given.
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "eval/element_io.h"
#include "eval/evaluator.h"
#include "eval/mixed_precision.h"
#include "gtest/gtest.h"
#include "support/option_error.h"
#include "support/status_text.h"
#include "tests/eval/eval_test_util.h"

namespace hloscope::eval {
namespace {

using PT = PrimitiveType;

constexpr std::string_view kOps = R"(HloModule m
ENTRY e {
  w = f32[2] parameter(0)
  n = bf16[2] parameter(1)
  h = f16[2] parameter(2)
  p = pred[2] parameter(3)
  i = s32[] parameter(4)
  e8 = f8e8m0fnu[2] parameter(5)
  add = f32[2] add(w, n)
  narrow = bf16[2] add(w, n)
  cmp = pred[2] compare(n, w), direction=LT
  sel = bf16[2] select(p, w, n)
  b = f32[2,2] broadcast(n), dimensions={0}
  dus = bf16[2] dynamic-update-slice(n, w, i)
  same = f32[2] add(w, w)
  tie = f16[2] add(h, n)
  e8h = f16[2] multiply(h, e8)
  e8w = f32[2] multiply(w, e8)
  cvt = f32[2] convert(n)
  ROOT t = (f32[2], bf16[2], pred[2], bf16[2], f32[2,2], bf16[2], f32[2], f16[2], f16[2], f32[2], f32[2]) tuple(add, narrow, cmp, sel, b, dus, same, tie, e8h, e8w, cvt)
}
)";

const Instruction& Named(const Module& m, std::string_view name) {
  for (const Instruction* instr : m.entry()->instructions()) {
    if (instr->name() == name) return *instr;
  }
  ADD_FAILURE() << "no instruction " << name;
  return *m.entry()->root();
}

std::vector<PT> TypesOf(const Module& m, std::string_view name) {
  const Instruction& instr = Named(m, name);
  std::vector<const Shape*> shapes;
  for (const Instruction* o : instr.operands()) shapes.push_back(&o->shape());
  return MixedPrecisionOperandTypes(instr, shapes);
}

TEST(JudgeModesTest, MixedPrecisionComputesInTheWidestType) {
  std::unique_ptr<Module> m = testing::Parse(kOps);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(TypesOf(*m, "add"), (std::vector<PT>{PT::kF32, PT::kF32}));
  // A bf16 result is computed in f32 too (and converted after).
  EXPECT_EQ(TypesOf(*m, "narrow"), (std::vector<PT>{PT::kF32, PT::kF32}));
  // A comparison's pred result is no floating-point type: the operands' widest.
  EXPECT_EQ(TypesOf(*m, "cmp"), (std::vector<PT>{PT::kF32, PT::kF32}));
  EXPECT_EQ(TypesOf(*m, "e8w"), (std::vector<PT>{PT::kF32, PT::kF32}));
}

TEST(JudgeModesTest, MovedElementsTakeTheResultType) {
  std::unique_ptr<Module> m = testing::Parse(kOps);
  ASSERT_NE(m, nullptr);
  // select's predicate and dynamic-update-slice's start stay as they are.
  EXPECT_EQ(TypesOf(*m, "sel"), (std::vector<PT>{PT::kPred, PT::kBF16, PT::kBF16}));
  EXPECT_EQ(TypesOf(*m, "b"), (std::vector<PT>{PT::kF32}));
  EXPECT_EQ(TypesOf(*m, "dus"), (std::vector<PT>{PT::kBF16, PT::kBF16, PT::kS32}));
}

TEST(JudgeModesTest, OpsOutsideTheRuleAreLeftAsTheyAre) {
  std::unique_ptr<Module> m = testing::Parse(kOps);
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(TypesOf(*m, "same").empty());
  EXPECT_TRUE(TypesOf(*m, "cvt").empty());
  // f16 and bf16: neither holds the other. f16 cannot hold f8e8m0fnu's range.
  EXPECT_TRUE(TypesOf(*m, "tie").empty());
  EXPECT_TRUE(TypesOf(*m, "e8h").empty());
}

TEST(JudgeModesTest, MixedAllReduceTypes) {
  Shape bf16 = testing::Parse(kOps)->entry()->parameter(1)->shape();
  Shape f32 = bf16;
  f32.element_type = PT::kF32;
  Shape s32 = bf16;
  s32.element_type = PT::kS32;
  const std::vector<const Shape*> in = {&bf16, &f32}, out = {&f32, &f32};
  EXPECT_EQ(MixedAllReduceTypes(in, out), (std::vector<PT>{PT::kF32, PT::kF32}));
  EXPECT_EQ(MixedAllReduceTypes(out, in), (std::vector<PT>{PT::kF32, PT::kF32}));
  EXPECT_TRUE(MixedAllReduceTypes(out, out).empty());
  const std::vector<const Shape*> ints = {&s32, &f32};
  EXPECT_TRUE(MixedAllReduceTypes(ints, out).empty());
}

TEST(JudgeModesTest, ConvertElementsRoundsToNearestEven) {
  Shape f32 = testing::Parse(kOps)->entry()->parameter(0)->shape();
  const float values[2] = {1.00390625f, 1.01171875f};  // halfway between bf16 neighbours
  std::vector<uint8_t> bytes(8);
  std::memcpy(bytes.data(), values, 8);
  Bytes narrow = ConvertElements(f32, bytes.data(), PT::kBF16);
  ASSERT_EQ(narrow.size(), 4u);
  EXPECT_EQ(LoadDouble(PT::kBF16, narrow.data()), 1.0);
  EXPECT_EQ(LoadDouble(PT::kBF16, narrow.data() + 2), 1.015625);
  ConvertedShapes shapes;
  const Shape* once = shapes.Get(f32, PT::kBF16);
  EXPECT_EQ(once->element_type, PT::kBF16);
  EXPECT_EQ(once->dims, f32.dims);
  EXPECT_EQ(shapes.Get(f32, PT::kBF16), once);
}

absl::StatusOr<Literal> RunModule(std::string_view text, const EvalOptions& options,
                                  const std::vector<std::string>& args = {}) {
  std::unique_ptr<Module> m = testing::Parse(text);
  if (m == nullptr) return absl::InvalidArgumentError("parse error");
  return Evaluate(*m, testing::Args(*m, args), options);
}

constexpr std::string_view kMixedAdd = R"(HloModule m
ENTRY e {
  w = f32[2] constant({1.00390625, -3})
  n = bf16[2] constant({1, 0.5})
  ROOT add = f32[2] add(w, n)
}
)";

constexpr std::string_view kHalfAndBf16 = R"(HloModule m
ENTRY e {
  h = f16[2] constant({1, 2})
  n = bf16[2] constant({1, 0.5})
  ROOT add = f16[2] add(h, n)
}
)";

TEST(JudgeModesTest, MixedPrecisionRefusedByDefaultNamingTheOption) {
  absl::StatusOr<Literal> refused = RunModule(kMixedAdd, EvalOptions());
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(LiftingOption(refused.status()), "mixed_precision");
  EvalOptions convert;
  convert.mixed_precision = MixedPrecision::kConvertOperands;
  for (EvalMode mode : {EvalMode::kValue, EvalMode::kBuffer}) {
    convert.mode = mode;
    absl::StatusOr<Literal> r = RunModule(kMixedAdd, convert);
    ASSERT_TRUE(r.ok()) << StatusText(r.status());
    EXPECT_EQ(r->GetLinear(0), 2.00390625);
    EXPECT_EQ(r->GetLinear(1), -2.5);
  }
  // Outside the rule: refused in both modes, naming no option.
  for (MixedPrecision mode : {MixedPrecision::kRefuse, MixedPrecision::kConvertOperands}) {
    EvalOptions options;
    options.mixed_precision = mode;
    absl::StatusOr<Literal> r = RunModule(kHalfAndBf16, options);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(LiftingOption(r.status()), "");
  }
}

std::string RngText(std::string_view algorithm) {
  return std::string(R"(HloModule m
ENTRY e {
  s = u64[2] constant({42, 7})
  ROOT r = (u64[2], u32[2,3]) rng-bit-generator(s), algorithm=)") +
         std::string(algorithm) + "\n}\n";
}

TEST(JudgeModesTest, RngDefaultRunsAsTheNamedAlgorithm) {
  absl::StatusOr<Literal> refused = RunModule(RngText("rng_default"), EvalOptions());
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(LiftingOption(refused.status()), "rng_default");
  EvalOptions philox;
  philox.rng_default = RngDefault::kPhilox;
  EvalOptions three_fry;
  three_fry.rng_default = RngDefault::kThreeFry;
  absl::StatusOr<Literal> as_philox = RunModule(RngText("rng_default"), philox);
  absl::StatusOr<Literal> as_three_fry = RunModule(RngText("rng_default"), three_fry);
  absl::StatusOr<Literal> named_philox = RunModule(RngText("rng_philox"), EvalOptions());
  absl::StatusOr<Literal> named_three_fry = RunModule(RngText("rng_three_fry"), EvalOptions());
  ASSERT_TRUE(as_philox.ok() && as_three_fry.ok() && named_philox.ok() && named_three_fry.ok());
  EXPECT_EQ(FormatLiteral(*as_philox, true), FormatLiteral(*named_philox, true));
  EXPECT_EQ(FormatLiteral(*as_three_fry, true), FormatLiteral(*named_three_fry, true));
  EXPECT_NE(FormatLiteral(*as_philox, true), FormatLiteral(*as_three_fry, true));
  // A named algorithm is not replaced.
  absl::StatusOr<Literal> kept = RunModule(RngText("rng_philox"), three_fry);
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ(FormatLiteral(*kept, true), FormatLiteral(*named_philox, true));
}

constexpr std::string_view kEmptyRanges = R"(HloModule m
ENTRY e {
  one = s32[] constant(1)
  zero = s32[] constant(0)
  ints = s32[5] rng(one, zero), distribution=rng_uniform
  same = s32[3] rng(one, one), distribution=rng_uniform
  hi = f32[] constant(1)
  lo = f32[] constant(0.125)
  floats = f32[64] rng(hi, lo), distribution=rng_uniform
  ROOT t = (s32[5], s32[3], f32[64]) tuple(ints, same, floats)
}
)";

TEST(JudgeModesTest, RngEmptyRangeByTheBackendsFormula) {
  EvalOptions options;
  options.rng_seed = 7;
  absl::StatusOr<Literal> refused = RunModule(kEmptyRanges, options);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(LiftingOption(refused.status()), "rng_empty_range");
  options.rng_empty_range = RngEmptyRange::kBackendFormula;
  absl::StatusOr<Literal> r = RunModule(kEmptyRanges, options);
  ASSERT_TRUE(r.ok()) << StatusText(r.status());
  // The words of the seeded engine, one 32-bit word per element in order, through
  // ConvertRandomBitsToUniformInt: low 1, high 0 wraps the range to 2^32 - 1; low == high
  // leaves the word whole (X % 0 == X).
  std::minstd_rand0 engine;
  engine.seed(7);
  std::uniform_int_distribution<uint32_t> word(0, UINT32_MAX);
  for (int64_t i = 0; i < 5; ++i) {
    const uint32_t dist = word(engine) % 0xFFFFFFFFu;
    EXPECT_EQ(static_cast<int64_t>(r->elements()[0].GetLinear(i)),
              static_cast<int32_t>(1u + dist / 2 + (dist - dist / 2)));
  }
  for (int64_t i = 0; i < 3; ++i) {
    EXPECT_EQ(static_cast<int64_t>(r->elements()[1].GetLinear(i)),
              static_cast<int32_t>(1u + word(engine)));
  }
  // f32 [1, 0.125): u * (0.125 - 1) + 1 with u in [0, 1), so in (0.125, 1].
  for (int64_t i = 0; i < 64; ++i) {
    const double v = r->elements()[2].GetLinear(i);
    EXPECT_GT(v, 0.125);
    EXPECT_LE(v, 1.0);
  }
}

}  // namespace
}  // namespace hloscope::eval
