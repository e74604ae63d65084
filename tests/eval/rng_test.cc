// rng with a seed (EvalOptions::rng_seed): the draws of XLA's evaluator (std::minstd_rand0 and
// the standard distributions), determinism, range and moments, and the refusals.
#include <cmath>
#include <cstring>
#include <random>

#include "eval/element_io.h"
#include "gtest/gtest.h"
#include "support/str_util.h"
#include "tests/eval/eval_test_util.h"

namespace hloscope::eval {
namespace {

using ::hloscope::StatusText;

absl::StatusOr<Literal> RunSeeded(std::string_view text, std::optional<uint64_t> seed) {
  std::unique_ptr<Module> m = testing::Parse(text);
  if (m == nullptr) return absl::InvalidArgumentError("parse error");
  EvalOptions options;
  options.rng_seed = seed;
  return Evaluate(*m, {}, options);
}

template <typename T>
std::vector<T> Values(const Literal& lit) {
  std::vector<T> v(static_cast<size_t>(lit.element_count()));
  std::memcpy(v.data(), lit.data().data(), v.size() * sizeof(T));
  return v;
}

constexpr std::string_view kThree = R"(HloModule r
ENTRY main {
  lo = f32[] constant(-1)
  hi = f32[] constant(3)
  u = f32[6] rng(lo, hi), distribution=rng_uniform
  m = f64[] constant(10)
  s = f64[] constant(2)
  n = f64[4] rng(m, s), distribution=rng_normal
  a = s32[] constant(-5)
  b = s32[] constant(5)
  i = s32[8] rng(a, b), distribution=rng_uniform
  ROOT t = (f32[6], f64[4], s32[8]) tuple(u, n, i)
}
)";

TEST(RngTest, DrawsAsXlaFromOneSeededEngine) {
  absl::StatusOr<Literal> out = RunSeeded(kThree, 42);
  ASSERT_TRUE(out.ok()) << StatusText(out.status());
  // XLA's evaluator: one engine, seeded once, every rng continuing its stream.
  std::minstd_rand0 engine;
  engine.seed(42);
  std::uniform_real_distribution<float> u(-1.0f, 3.0f);
  std::vector<float> want_u;
  for (int i = 0; i < 6; ++i) {
    float v;
    do {
      v = u(engine);
    } while (v == 3.0f);
    want_u.push_back(v);
  }
  std::normal_distribution<double> n(10.0, 2.0);
  std::vector<double> want_n;
  for (int i = 0; i < 4; ++i) want_n.push_back(n(engine));
  std::uniform_int_distribution<int64_t> k(-5, 4);
  std::vector<int32_t> want_i;
  for (int i = 0; i < 8; ++i) want_i.push_back(static_cast<int32_t>(k(engine)));
  EXPECT_EQ(Values<float>(out->elements()[0]), want_u);
  EXPECT_EQ(Values<double>(out->elements()[1]), want_n);
  EXPECT_EQ(Values<int32_t>(out->elements()[2]), want_i);
}

TEST(RngTest, SameSeedSameValuesOtherSeedOthers) {
  absl::StatusOr<Literal> a = RunSeeded(kThree, 7), b = RunSeeded(kThree, 7),
                          c = RunSeeded(kThree, 8);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_FALSE(FirstDifference(*a, *b).has_value());
  EXPECT_TRUE(FirstDifference(*a, *c).has_value());
}

TEST(RngTest, RangeAndMoments) {
  absl::StatusOr<Literal> out = RunSeeded(R"(HloModule r
ENTRY main {
  lo = f32[] constant(2)
  hi = f32[] constant(6)
  u = f32[20000] rng(lo, hi), distribution=rng_uniform
  m = f32[] constant(-3)
  s = f32[] constant(0.5)
  n = f32[20000] rng(m, s), distribution=rng_normal
  a = u8[] constant(250)
  b = u8[] constant(255)
  i = u8[20000] rng(a, b), distribution=rng_uniform
  ROOT t = (f32[20000], f32[20000], u8[20000]) tuple(u, n, i)
}
)",
                                          1);
  ASSERT_TRUE(out.ok()) << StatusText(out.status());
  auto moments = [](const std::vector<float>& v) {
    double sum = 0, sq = 0;
    for (float x : v) sum += x;
    double mean = sum / static_cast<double>(v.size());
    for (float x : v) sq += (x - mean) * (x - mean);
    return std::pair{mean, std::sqrt(sq / static_cast<double>(v.size()))};
  };
  std::vector<float> u = Values<float>(out->elements()[0]);
  for (float x : u) {
    ASSERT_GE(x, 2.0f);
    ASSERT_LT(x, 6.0f);
  }
  auto [umean, ustd] = moments(u);
  EXPECT_NEAR(umean, 4.0, 0.05);
  EXPECT_NEAR(ustd, 4.0 / std::sqrt(12.0), 0.03);
  auto [nmean, nstd] = moments(Values<float>(out->elements()[1]));
  EXPECT_NEAR(nmean, -3.0, 0.02);
  EXPECT_NEAR(nstd, 0.5, 0.02);
  std::vector<int> seen(256, 0);
  for (uint8_t x : Values<uint8_t>(out->elements()[2])) ++seen[x];
  for (int x = 250; x < 255; ++x) EXPECT_GT(seen[static_cast<size_t>(x)], 3500) << x;
  EXPECT_EQ(seen[255], 0);  // high is excluded
}

// bf16, f16 and the f8 types: XLA's evaluator computes them in f32
// (HloEvaluatorTypedVisitor<T, float>, xla/hlo/evaluator/hlo_evaluator.cc and HandleRng in
// hlo_evaluator_typed_visitor.h at openxla/xla 2c731115): a float draw, rounded to the type,
// drawn again until the rounded value is in [low, high).
TEST(RngTest, NarrowFloatsAreDrawnInF32AndRounded) {
  absl::StatusOr<Literal> out = RunSeeded(R"(HloModule r
ENTRY main {
  lo = bf16[] constant(-1)
  hi = bf16[] constant(3)
  u = bf16[64] rng(lo, hi), distribution=rng_uniform
  m = f16[] constant(10)
  s = f16[] constant(2)
  n = f16[8] rng(m, s), distribution=rng_normal
  ROOT t = (bf16[64], f16[8]) tuple(u, n)
}
)",
                                          7);
  ASSERT_TRUE(out.ok()) << StatusText(out.status());
  // bf16 is the top half of an f32, rounded to nearest even (written out here, not taken
  // from the interpreter).
  auto to_bf16 = [](float f) {
    uint32_t bits = 0;
    std::memcpy(&bits, &f, 4);
    return static_cast<uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
  };
  std::minstd_rand0 engine;
  engine.seed(7);
  std::uniform_real_distribution<float> u(-1.0f, 3.0f);
  std::vector<uint16_t> want_u;
  for (int i = 0; i < 64; ++i) {
    uint16_t v;
    do {
      v = to_bf16(u(engine));
    } while (v == to_bf16(3.0f));
    want_u.push_back(v);
  }
  EXPECT_EQ(Values<uint16_t>(out->elements()[0]), want_u);
  std::normal_distribution<float> n(10.0f, 2.0f);
  std::vector<uint16_t> want_n;
  for (int i = 0; i < 8; ++i) want_n.push_back(FloatToHalf(n(engine)));
  EXPECT_EQ(Values<uint16_t>(out->elements()[1]), want_n);
}

TEST(RngTest, Refusals) {
  auto error = [](std::string_view type, std::string_view dist, std::string_view lo,
                  std::string_view hi, std::optional<uint64_t> seed) {
    std::string text = StrCat("HloModule r\nENTRY main {\n  a = ", type, "[] constant(", lo,
                              ")\n  b = ", type, "[] constant(", hi, ")\n  ROOT r = ", type,
                              "[3] rng(a, b), distribution=", dist, "\n}\n");
    absl::StatusOr<Literal> out = RunSeeded(text, seed);
    return out.ok() ? std::string("ok") : std::string(StatusText(out.status()));
  };
  EXPECT_EQ(error("f32", "rng_uniform", "0", "1", std::nullopt),
            "the interpreter runs rng only with a seed (instruction %r): XLA draws it from an "
            "engine seeded with the module's seed, and from a random one without");
  EXPECT_EQ(error("f32", "rng_uniform", "0", "1", 0), "ok");
  EXPECT_EQ(error("bf16", "rng_uniform", "0", "1", 1), "ok");
  EXPECT_EQ(error("c64", "rng_uniform", "(0, 0)", "(1, 0)", 1),
            "the interpreter does not run rng on c64: XLA's evaluator draws only floats, integers "
            "and pred (instruction %r)");
  EXPECT_EQ(error("s32", "rng_normal", "0", "1", 1),
            "the interpreter does not run rng_normal on s32: XLA defines the normal distribution "
            "for floating-point types only (instruction %r)");
  EXPECT_EQ(error("f32", "rng_uniform", "1", "1", 1),
            "cannot run %r: rng_uniform needs low < high, got [1, 1)");
  EXPECT_EQ(error("f16", "rng_uniform", "2", "1", 1),
            "cannot run %r: rng_uniform needs low < high, got [2, 1)");
  EXPECT_EQ(error("s32", "rng_uniform", "4", "4", 1),
            "cannot run %r: rng_uniform needs low < high, got low 4 and high 4 "
            "(std::uniform_int_distribution is undefined on an empty range)");
  // f32 bounds of an f16 rng verify with mixed precision, but XLA's evaluator reads them as
  // f16; XLA's rng-expander tests give a third operand, which XLA's verifier rejects.
  auto run = [](std::string_view body) {
    absl::StatusOr<Literal> out =
        RunSeeded(StrCat("HloModule r\nENTRY main {\n", body, "\n}\n"), 1);
    return out.ok() ? std::string("ok") : std::string(StatusText(out.status()));
  };
  EXPECT_EQ(run("  a = f32[] constant(0)\n  b = f32[] constant(1)\n"
                "  ROOT r = f16[3] rng(a, b), distribution=rng_uniform"),
            "cannot run %r: rng takes two scalars of its element type f16, not f32[] and f32[] "
            "(XLA's evaluator reads the bounds as the result type)");
  EXPECT_EQ(run("  a = f32[] constant(0)\n  b = f32[] constant(1)\n  s = u64[1] constant({3})\n"
                "  ROOT r = f32[3] rng(a, b, s), distribution=rng_uniform"),
            "cannot run %r: rng takes two operands (the bounds), not 3");
  EXPECT_EQ(error("f64", "rng_normal", "0", "0", 1),
            "cannot run %r: rng_normal needs stddev > 0, got 0");
}

}  // namespace
}  // namespace hloscope::eval
