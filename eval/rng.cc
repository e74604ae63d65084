// rng (RNG_UNIFORM, RNG_NORMAL) as XLA's evaluator defines it: one std::minstd_rand0 engine
// per run, seeded with the module's seed, drawn from by every rng in evaluation order and by
// each one's elements in the result's physical order, through the standard library's
// distributions:
//   f32/f64 uniform  std::uniform_real_distribution(low, high), drawn again while it gives high
//   f32/f64 normal   std::normal_distribution(mean, stddev)
//   integers, pred   std::uniform_int_distribution<int64_t>(low, high - 1), uniform only
// The engine is fully specified by the C++ standard; the distributions are not, so the values
// equal XLA's when both are built with the same standard library (hloscope and XLA's CPU
// builds both use libstdc++). Narrower floats (bf16, f16, f8...) are drawn in f32 and rounded,
// as XLA's evaluator computes them in f32; complex results are refused, as XLA refuses them.
#include "eval/rng.h"

#include <cstring>
#include <random>
#include <string_view>

#include "absl/status/status.h"
#include "eval/element_io.h"
#include "eval/kernels.h"
#include "eval/layout_util.h"
#include "eval/rng_empty_range.h"
#include "fmt/format.h"
#include "hlo/attribute_values.h"
#include "support/option_error.h"
#include "support/str_util.h"

namespace hloscope::eval {
namespace {

absl::Status Bad(const Instruction& instr, std::string_view why) {
  return absl::InvalidArgumentError(StrCat("cannot run %", instr.name(), ": ", why));
}

// `high - 1` as XLA computes it in the element type (C++'s promotions included): types narrower
// than int do not wrap, 32- and 64-bit ones wrap at their width.
int64_t HighMinusOne(PrimitiveType t, int64_t high) {
  switch (BitWidth(t)) {
    case 32:
      return IsUnsignedType(t)
                 ? static_cast<int64_t>(static_cast<uint32_t>(static_cast<uint32_t>(high) - 1u))
                 : static_cast<int64_t>(static_cast<int32_t>(static_cast<uint32_t>(high) - 1u));
    case 64:
      return static_cast<int64_t>(static_cast<uint64_t>(high) - 1u);
    default:
      return high - 1;
  }
}

template <typename T>
void FillUniformReal(T low, T high, int64_t n, int eb, uint8_t* out, std::minstd_rand0& engine) {
  std::uniform_real_distribution<T> dist(low, high);
  for (int64_t i = 0; i < n; ++i) {
    T v;
    do {
      v = dist(engine);
    } while (v == high);
    std::memcpy(out + i * eb, &v, sizeof(T));
  }
}

template <typename T>
void FillNormal(T mean, T stddev, int64_t n, int eb, uint8_t* out, std::minstd_rand0& engine) {
  std::normal_distribution<T> dist(mean, stddev);
  for (int64_t i = 0; i < n; ++i) {
    T v = dist(engine);
    std::memcpy(out + i * eb, &v, sizeof(T));
  }
}

// A float type narrower than f32 (bf16, f16, the f8, f6 and f4 types): XLA's evaluator computes
// them in f32 (HloEvaluatorTypedVisitor<T, float>), so a uniform draw is
// std::uniform_real_distribution<float>(low, high) rounded to the type and drawn again until
// the rounded value is below high (rounding can reach it), and a normal draw is
// std::normal_distribution<float>(mean, stddev) rounded to the type.
void FillNarrowFloat(PrimitiveType t, bool uniform, float a, float b, int64_t n, int eb,
                     uint8_t* out, std::minstd_rand0& engine) {
  if (uniform) {
    std::uniform_real_distribution<float> dist(a, b);
    for (int64_t i = 0; i < n; ++i) {
      uint8_t* p = out + i * eb;
      do {
        StoreDouble(t, p, static_cast<double>(dist(engine)));
      } while (!(LoadDouble(t, p) < static_cast<double>(b)));
    }
    return;
  }
  std::normal_distribution<float> dist(a, b);
  for (int64_t i = 0; i < n; ++i) StoreDouble(t, out + i * eb, static_cast<double>(dist(engine)));
}

// rng_uniform on an empty or reversed range: drawn by the backends' formula when asked and
// defined there (eval/rng_empty_range.h), else refused with `why`, lifted by rng_empty_range
// where the formula would run it.
absl::StatusOr<Bytes> EmptyRange(const Instruction& instr, std::string_view why,
                                 absl::Span<const ArrayRef> operands, bool by_formula,
                                 std::minstd_rand0& engine) {
  const Shape& out = instr.shape();
  if (!RngFormulaDefines(out.element_type)) return Bad(instr, why);
  if (!by_formula) return LiftedByOption(Bad(instr, why), "rng_empty_range");
  return RngByBackendFormula(out.element_type, operands[0].data, operands[1].data,
                             out.ElementCount(), engine);
}

}  // namespace

absl::StatusOr<Bytes> EvalRng(const Instruction& instr, absl::Span<const ArrayRef> operands,
                              std::minstd_rand0& engine, bool empty_range_by_formula) {
  const Shape& out = instr.shape();
  const PrimitiveType t = out.element_type;
  std::optional<std::string_view> dist = RawAttribute(instr, "distribution");
  const bool uniform = dist && *dist == "rng_uniform";
  const bool normal = dist && *dist == "rng_normal";
  if (!uniform && !normal) {
    return Bad(instr, "rng needs distribution=rng_uniform or distribution=rng_normal");
  }
  if (operands.size() != 2) {
    // XLA's verifier wants exactly two (HandleRng: CheckOperandCount); XLA's rng-expander
    // tests give a third, the shape, that only that pass reads.
    return Bad(instr, StrCat("rng takes two operands (the bounds), not ", operands.size()));
  }
  if (operands[0].shape->rank() != 0 || operands[1].shape->rank() != 0 ||
      operands[0].shape->element_type != t || operands[1].shape->element_type != t) {
    // Mixed precision (f32 bounds for an f16 result) verifies, but XLA's evaluator reads the
    // bounds as the result type (low.Get<ReturnT>), which is not defined for other types.
    return Bad(instr, StrCat("rng takes two scalars of its element type ", PrimitiveTypeName(t),
                             ", not ", operands[0].shape->ToString(false), " and ",
                             operands[1].shape->ToString(false),
                             " (XLA's evaluator reads the bounds as the result type)"));
  }
  const bool real = t == PrimitiveType::kF32 || t == PrimitiveType::kF64;
  const bool narrow = IsFloatType(t) && !real;
  const bool integral = IsSignedType(t) || IsUnsignedType(t) || t == PrimitiveType::kPred;
  if (!real && !narrow && !integral) {
    return absl::UnimplementedError(
        StrCat("the interpreter does not run rng on ", PrimitiveTypeName(t),
               ": XLA's evaluator draws only floats, integers and pred (instruction %",
               instr.name(), ")"));
  }
  if (narrow) {
    const double a = LoadDouble(t, operands[0].data), b = LoadDouble(t, operands[1].data);
    if (uniform && !(a < b)) {
      return EmptyRange(instr, fmt::format("rng_uniform needs low < high, got [{}, {})", a, b),
                        operands, empty_range_by_formula, engine);
    }
    if (normal && !(b > 0))
      return Bad(instr, fmt::format("rng_normal needs stddev > 0, got {}", b));
    const int eb = ElementBytes(t);
    Bytes result(static_cast<size_t>(out.ElementCount() * eb));
    FillNarrowFloat(t, uniform, static_cast<float>(a), static_cast<float>(b), out.ElementCount(),
                    eb, result.data(), engine);
    return result;
  }
  if (normal && !real && !narrow) {
    return absl::UnimplementedError(
        StrCat("the interpreter does not run rng_normal on ", PrimitiveTypeName(t),
               ": XLA defines the normal distribution for floating-point types only (instruction %",
               instr.name(), ")"));
  }
  const int eb = ElementBytes(t);
  const int64_t n = out.ElementCount();
  Bytes result(static_cast<size_t>(n * eb));
  if (real) {
    const double a = LoadDouble(t, operands[0].data), b = LoadDouble(t, operands[1].data);
    if (uniform && !(a < b)) {
      // The standard requires low < high; libstdc++ would loop for ever on low == high.
      return EmptyRange(instr, fmt::format("rng_uniform needs low < high, got [{}, {})", a, b),
                        operands, empty_range_by_formula, engine);
    }
    if (normal && !(b > 0))
      return Bad(instr, fmt::format("rng_normal needs stddev > 0, got {}", b));
    if (t == PrimitiveType::kF32) {
      auto fa = static_cast<float>(a), fb = static_cast<float>(b);
      if (uniform) {
        FillUniformReal<float>(fa, fb, n, eb, result.data(), engine);
      } else {
        FillNormal<float>(fa, fb, n, eb, result.data(), engine);
      }
    } else if (uniform) {
      FillUniformReal<double>(a, b, n, eb, result.data(), engine);
    } else {
      FillNormal<double>(a, b, n, eb, result.data(), engine);
    }
    return result;  // drawn in physical order, as XLA's Populate fills a literal
  }
  const int64_t low = LoadInt(t, operands[0].data);
  const int64_t high = HighMinusOne(t, LoadInt(t, operands[1].data));
  if (low > high) {
    // high - 1 as XLA computes it; the message gives the bounds as written.
    return EmptyRange(instr,
                      StrCat("rng_uniform needs low < high, got low ", low, " and high ",
                             LoadInt(t, operands[1].data),
                             " (std::uniform_int_distribution is undefined on an empty range)"),
                      operands, empty_range_by_formula, engine);
  }
  std::uniform_int_distribution<int64_t> d(low, high);
  for (int64_t i = 0; i < n; ++i) StoreInt(t, result.data() + i * eb, d(engine));
  return result;
}

}  // namespace hloscope::eval
