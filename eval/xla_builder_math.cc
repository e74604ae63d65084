// Facts used here: the formulas of xla/hlo/builder/lib/math.cc (Acos, Acosh, Asinh, Atan,
// Cosh, NextAfter) and xla/hlo/builder/lib/math_impl.h (AsinComplex, AsinReal), openxla/xla
// read at 0725a3a9904e1c244c69f381bdd32df2fe1dac20, and the expansions XLA's builder tests
// expect (xla/hlo/builder/tests/math_*.hlo in the corpus, openxla/xla via mridul-sahu/xla at
// 2c731115ef3bbd9457cfbc46cd5fba5a35ee74bb), which fix which operations run in which order.
// Bit-exactness needs more than the mathematics: each step rounds in the element type, the
// constants are XLA's (computed in the element type's C++ type, like XLA's ScalarLike
// arguments), and the operands of each op stay in XLA's order (NaN operands propagate from
// the first).
#include "eval/xla_builder_math.h"

#include <cmath>
#include <limits>
#include <numbers>
#include <vector>

#include "eval/scalar_hlo_text.h"
#include "fmt/format.h"
#include "support/str_util.h"

namespace hloscope::eval {
namespace {

using V = ScalarHloText::Value;

// A value of a real floating type as an HLO literal that parses back to the same bits: 17
// significant digits of the value widened to double (exact for f32).
std::string RealLiteral(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  return fmt::format("{:.17g}", v);
}

// Short names for the ops, so the formulas below read like the mathematics.
struct Ops {
  ScalarHloText& h;

  V Add(const V& a, const V& b) { return h.Binary("add", a, b); }
  V Sub(const V& a, const V& b) { return h.Binary("subtract", a, b); }
  V Mul(const V& a, const V& b) { return h.Binary("multiply", a, b); }
  V Div(const V& a, const V& b) { return h.Binary("divide", a, b); }
  V Max(const V& a, const V& b) { return h.Binary("maximum", a, b); }
  V Min(const V& a, const V& b) { return h.Binary("minimum", a, b); }
  V Atan2(const V& a, const V& b) { return h.Binary("atan2", a, b); }
  V And(const V& a, const V& b) { return h.Binary("and", a, b); }
  V Or(const V& a, const V& b) { return h.Binary("or", a, b); }
  V Sqrt(const V& a) { return h.Unary("sqrt", a); }
  V Log(const V& a) { return h.Unary("log", a); }
  V Log1p(const V& a) { return h.Unary("log-plus-one", a); }
  V Exp(const V& a) { return h.Unary("exponential", a); }
  V Neg(const V& a) { return h.Unary("negate", a); }
  V Abs(const V& a) { return h.Unary("abs", a); }
  V Sign(const V& a) { return h.Unary("sign", a); }
  V Not(const V& a) { return h.Unary("not", a); }
  V Eq(const V& a, const V& b) { return h.Compare(a, b, "EQ"); }
  V Ne(const V& a, const V& b) { return h.Compare(a, b, "NE"); }
  V Lt(const V& a, const V& b) { return h.Compare(a, b, "LT"); }
  V Le(const V& a, const V& b) { return h.Compare(a, b, "LE"); }
  V Gt(const V& a, const V& b) { return h.Compare(a, b, "GT"); }
  V Ge(const V& a, const V& b) { return h.Compare(a, b, "GE"); }
  V Sel(const V& p, const V& a, const V& b) { return h.Select(p, a, b); }
  V Real(double v, std::string_view type) { return h.Constant(type, RealLiteral(v)); }
  V Cplx(double re, double im, std::string_view type) {
    return h.Constant(type, StrCat("(", RealLiteral(re), ", ", RealLiteral(im), ")"));
  }
  V Uint(uint64_t v, std::string_view type) { return h.Constant(type, StrCat(v)); }
};

// T is the C++ type of the real element type (or of a complex type's parts): float for
// f32 / c64, double for f64 / c128; `real` and `complex` name the HLO types.
template <typename T>
struct Types {
  std::string_view real;
  std::string_view complex;
};

// --- real arguments ---

// acos(x) = x != -1 ? 2 atan2(sqrt(1 - x²), 1 + x) : π
template <typename T>
V AcosReal(Ops& o, Types<T> t) {
  V x = o.h.Parameter(t.real);
  V not_minus_one = o.Ne(x, o.Real(-1, t.real));
  V two = o.Real(2, t.real);
  V root = o.Sqrt(o.Sub(o.Real(1, t.real), o.Mul(x, x)));
  V angle = o.Mul(two, o.Atan2(root, o.Add(o.Real(1, t.real), x)));
  return o.Sel(not_minus_one, angle, o.Real(std::numbers::pi_v<T>, t.real));
}

// acosh(x) = NaN below -1; log(x) + log(2) from sqrt(max) on, where (x+1)(x-1) would
// overflow; log(x + sqrt((x+1)(x-1))) otherwise.
template <typename T>
V AcoshReal(Ops& o, Types<T> t) {
  V x = o.h.Parameter(t.real);
  V below = o.Lt(x, o.Real(-1, t.real));
  V nan = o.Real(std::numeric_limits<T>::quiet_NaN(), t.real);
  V huge = o.Ge(x, o.Sqrt(o.Real(std::numeric_limits<T>::max(), t.real)));
  V asymptote = o.Add(o.Log(x), o.Log(o.Real(2, t.real)));
  V one = o.Real(1, t.real);
  V direct = o.Log(o.Add(x, o.Sqrt(o.Mul(o.Add(x, one), o.Sub(x, one)))));
  return o.Sel(below, nan, o.Sel(huge, asymptote, direct));
}

// asin(x) = 2 atan2(x, 1 + sqrt((1 - x)(1 + x)))
template <typename T>
V AsinReal(Ops& o, Types<T> t) {
  V two = o.Real(2, t.real);
  V x = o.h.Parameter(t.real);
  V one = o.Real(1, t.real);
  V root = o.Sqrt(o.Mul(o.Sub(one, x), o.Add(one, x)));
  return o.Mul(two, o.Atan2(x, o.Add(one, root)));
}

// asinh(x) = sign(x) · f(|x|) with f(a) = log(a) + log(2) from sqrt(max) on,
// log1p(a + a²/(1 + sqrt(a² + 1))) up to 1, log(a + sqrt(a² + 1)) between. XLA squares
// `a` once per use, three separate multiplies.
template <typename T>
V AsinhReal(Ops& o, Types<T> t) {
  V x = o.h.Parameter(t.real);
  V sign = o.Sign(x);
  V a = o.Abs(x);
  V huge = o.Ge(a, o.Sqrt(o.Real(std::numeric_limits<T>::max(), t.real)));
  V asymptote = o.Add(o.Log(o.Abs(a)), o.Log(o.Real(2, t.real)));
  V one = o.Real(1, t.real);
  V small = o.Le(a, one);
  V square_over = o.Mul(a, a);
  V hyp_small = o.Sqrt(o.Add(o.Mul(a, a), one));
  V near_zero = o.Log1p(o.Add(a, o.Div(square_over, o.Add(one, hyp_small))));
  V hyp = o.Sqrt(o.Add(o.Mul(a, a), one));
  V middle = o.Log(o.Add(a, hyp));
  return o.Mul(sign, o.Sel(huge, asymptote, o.Sel(small, near_zero, middle)));
}

// cosh(x) = max(e^(x + log ½) + e^(-x + log ½), 1): the halves go into the exponents so
// that e^x does not overflow before halving; the floor of 1 hides rounding below it.
template <typename T>
V CoshReal(Ops& o, Types<T> t) {
  V x = o.h.Parameter(t.real);
  V log_half = o.Log(o.Real(0.5, t.real));
  V up = o.Exp(o.Add(x, log_half));
  V down = o.Exp(o.Add(o.Neg(x), log_half));
  return o.Max(o.Add(up, down), o.Real(1, t.real));
}

// --- complex arguments ---

// acos(z) = -i log(z + i sqrt((1 + z)(1 - z)))
template <typename T>
V AcosComplex(Ops& o, Types<T> t) {
  V i = o.h.Complex(o.Real(0, t.real), o.Real(1, t.real));
  V z = o.h.Parameter(t.complex);
  V one = o.Cplx(1, 0, t.complex);
  V root = o.Sqrt(o.Mul(o.Add(one, z), o.Sub(one, z)));
  return o.Neg(o.Mul(i, o.Log(o.Add(z, o.Mul(i, root)))));
}

// acosh(z) = log(z + sqrt((z + 1)(z - 1)))
template <typename T>
V AcoshComplex(Ops& o, Types<T> t) {
  V z = o.h.Parameter(t.complex);
  V one = o.Cplx(1, 0, t.complex);
  return o.Log(o.Add(z, o.Sqrt(o.Mul(o.Add(z, one), o.Sub(z, one)))));
}

// asin of a complex value by the overflow- and cancellation-safe algorithm of math_impl.h
// (AsinComplex, from the functional_algorithms project): with x = |re z|, y = |im z|,
// r = |z + 1|, s = |z - 1| (each a careful hypot), a = (r + s)/2, the real part is
// atan2(re z, ...) and the imaginary part log(a + sqrt(a² - 1)) computed through a - 1,
// with asymptotic forms past safe_max and for tiny y.
template <typename T>
V AsinOfComplex(Ops& o, Types<T> t, const V& z) {
  const std::string_view f = t.real;
  V signed_x = o.h.Real(z);
  V x = o.Abs(signed_x);
  V signed_y = o.h.Imag(z);
  V y = o.Abs(signed_y);
  const T safe_max_value = std::sqrt(std::numeric_limits<T>::max()) / 8;
  V safe_max = o.Real(safe_max_value, f);
  V one = o.Real(1, f);
  V half = o.Real(0.5, f);
  V zero = o.Real(0, f);
  V two = o.Real(2, f);
  V sqrt_two = o.Real(std::sqrt(T{2}), f);
  // hypot(side, y) without overflow: m·sqrt(1 + (n/m)²), with the cases where that rounds
  // badly (equal sides; a ratio too small to move the square root) done directly.
  auto hypot_with_y = [&](const V& side) {
    V big = o.Max(side, y);
    V small = o.Min(side, y);
    V equal = o.Eq(big, small);
    V diagonal = o.Mul(sqrt_two, big);
    V q = o.Div(small, big);
    V ratio2 = o.Mul(q, q);
    V root = o.Sqrt(o.Add(one, ratio2));
    V lost = o.And(o.Eq(root, one), o.Gt(ratio2, zero));
    V first_order = o.Add(big, o.Div(o.Mul(big, ratio2), two));
    return o.Sel(equal, diagonal, o.Sel(lost, first_order, o.Mul(big, root)));
  };
  V xp1 = o.Add(x, one);
  V r = hypot_with_y(o.Abs(xp1));
  V xm1 = o.Sub(x, one);
  V s = hypot_with_y(o.Abs(xm1));
  V a = o.Mul(half, o.Add(r, s));
  V half_apx = o.Mul(half, o.Add(a, x));
  V yy = o.Mul(y, y);
  V rpxp1 = o.Add(r, xp1);
  V smxm1 = o.Sub(s, xm1);
  V spxm1 = o.Add(s, xm1);
  V inner = o.Sqrt(o.Mul(half_apx, o.Add(o.Div(yy, rpxp1), smxm1)));
  V outer = o.Mul(y, o.Sqrt(o.Add(o.Div(half_apx, rpxp1), o.Div(half_apx, spxm1))));
  V cosine_part = o.Sel(o.Ge(o.Max(x, y), safe_max), y, o.Sel(o.Le(x, one), inner, outer));
  V real = o.Atan2(signed_x, cosine_part);
  // XLA forms these constants as T × double, rounded to T.
  V safe_max_opt = o.Sel(o.Lt(x, o.Real(static_cast<T>(safe_max_value * 1e12), f)),
                         o.Real(static_cast<T>(safe_max_value * 1e-6), f),
                         o.Real(static_cast<T>(safe_max_value * 100.0), f));
  V y_large = o.Ge(y, safe_max_opt);
  V mx = o.Sel(y_large, y, x);
  V finite_y = o.Not(o.Eq(y, o.Real(std::numeric_limits<T>::infinity(), f)));
  V xoy = o.Sel(o.And(y_large, finite_y), o.Div(x, y), zero);
  const T safe_min_value = std::sqrt(std::numeric_limits<T>::min()) * 4;
  V tiny_y = o.And(o.Lt(y, o.Real(safe_min_value, f)), o.Lt(x, one));
  V ap1 = o.Add(a, one);
  V half_yy = o.Mul(half, yy);
  V yy_over = o.Div(half_yy, rpxp1);
  V am1_general =
      o.Sel(o.Ge(x, one), o.Add(yy_over, o.Mul(half, spxm1)),
            o.Sel(o.Le(a, o.Real(1.5, f)), o.Add(yy_over, o.Div(half_yy, smxm1)), o.Sub(a, one)));
  V am1 = o.Sel(tiny_y, o.Neg(o.Div(o.Mul(xp1, xm1), ap1)), am1_general);
  V sq = o.Sqrt(o.Mul(am1, ap1));
  V asymptotic =
      o.Add(o.Add(o.Real(std::log(T{2}), f), o.Log(mx)), o.Mul(half, o.Log1p(o.Mul(xoy, xoy))));
  V imag = o.Sel(o.Ge(mx, o.Sel(y_large, safe_max_opt, safe_max)), asymptotic,
                 o.Sel(tiny_y, o.Div(y, sq), o.Log1p(o.Add(am1, sq))));
  return o.h.Complex(real, o.Sel(o.Lt(signed_y, zero), o.Neg(imag), imag));
}

template <typename T>
V AsinComplex(Ops& o, Types<T> t) {
  return AsinOfComplex(o, t, o.h.Parameter(t.complex));
}

// asinh(z) = i·asin(-i z), written as swaps of parts: asin of (im z, -re z), whose result
// (u, v) gives (±v, u); the sign keeps v for points on the imaginary axis past ±i (the
// branch cuts) and negates it elsewhere.
template <typename T>
V AsinhComplex(Ops& o, Types<T> t) {
  V z = o.h.Parameter(t.complex);
  V re = o.h.Real(z);
  V on_axis = o.Eq(re, o.Real(0, t.real));
  V im = o.h.Imag(z);
  V on_cut = o.And(on_axis, o.Gt(o.Abs(im), o.Real(1, t.real)));
  V w = AsinOfComplex(o, t, o.h.Complex(im, o.Neg(re)));
  V w_im = o.h.Imag(w);
  V re_out = o.Sel(on_cut, w_im, o.Neg(w_im));
  return o.h.Complex(re_out, o.h.Real(w));
}

// Atan(x) = atan2(x, 1), also for complex x (where hlo-run, like XLA's evaluator, has no
// atan2 and refuses).
template <typename T>
V AtanAny(Ops& o, Types<T> t, bool complex) {
  V x = o.h.Parameter(complex ? t.complex : t.real);
  V one = complex ? o.Cplx(1, 0, t.complex) : o.Real(1, t.real);
  return o.Atan2(x, one);
}

template <typename T>
V CoshComplex(Ops& o, Types<T> t) {
  V z = o.h.Parameter(t.complex);
  V log_half = o.Log(o.Cplx(0.5, 0, t.complex));
  V up = o.Exp(o.Add(z, log_half));
  V down = o.Exp(o.Add(o.Neg(z), log_half));
  return o.Add(up, down);
}

// NextAfter(from, to) on the bits, as math.cc does it: the float's bits as an unsigned
// integer of its width step by ±1 towards `to`; from ±0 the result is the smallest
// subnormal with to's sign; equal inputs give `to`, a NaN input gives NaN. Types without
// -0 (the FNUZ floats, where the bits of -0 are NaN) step from -smallest-subnormal towards
// a non-negative `to` to +0 instead.
V NextAfter(Ops& o, std::string_view type, std::string_view bits, int width, bool no_minus_zero) {
  const uint64_t sign_bit = uint64_t{1} << (width - 1);
  const uint64_t all_ones = width == 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
  V from = o.h.Parameter(type);
  V from_nan = o.Ne(from, from);
  V to = o.h.Parameter(type);
  V to_nan = o.Ne(to, to);
  V either_nan = o.Or(from_nan, to_nan);
  // The FNUZ types' one NaN has the sign bit set; HLO text writes it -nan.
  V nan_bits = o.h.BitcastConvert(bits, o.h.Constant(type, no_minus_zero ? "-nan" : "nan"));
  V from_bits = o.h.BitcastConvert(bits, from);
  V to_bits = o.h.BitcastConvert(bits, to);
  V same = o.Eq(from_bits, to_bits);
  V from_magnitude = o.And(from_bits, o.Uint(sign_bit - 1, bits));
  V from_zero = o.Eq(from_magnitude, o.Uint(0, bits));
  V to_magnitude = o.And(to_bits, o.Uint(sign_bit - 1, bits));
  V to_zero = o.Eq(to_magnitude, o.Uint(0, bits));
  V to_sign = o.And(to_bits, o.Uint(sign_bit, bits));
  V smallest_towards = o.Sel(to_zero, to_bits, o.Or(to_sign, o.Uint(1, bits)));
  V shrink = o.Or(o.Gt(from_magnitude, to_magnitude),
                  o.Ne(o.And(from_bits, o.Uint(sign_bit, bits)), to_sign));
  V step = o.Sel(shrink, o.Uint(all_ones, bits), o.Uint(1, bits));
  V stepped = o.Add(from_bits, step);
  if (no_minus_zero) {
    V at_minus_tiny = o.Eq(from_bits, o.Uint(sign_bit | 1, bits));
    V to_non_negative = o.Not(o.h.Convert("pred", to_sign));
    stepped = o.Sel(o.And(at_minus_tiny, to_non_negative), o.Uint(0, bits), stepped);
  }
  V result = o.Sel(from_zero, smallest_towards, stepped);
  result = o.Sel(same, to_bits, result);
  result = o.Sel(either_nan, nan_bits, result);
  return o.h.BitcastConvert(type, result);
}

struct Function {
  std::string_view target;
  int arity;
  std::vector<PrimitiveType> types;
};

const std::vector<Function>& Functions() {
  using P = PrimitiveType;
  static const std::vector<Function> kFunctions = {
      {"xla_builder.math.Acos", 1, {P::kF32, P::kF64, P::kC64, P::kC128}},
      {"xla_builder.math.Acosh", 1, {P::kF32, P::kF64, P::kC64, P::kC128}},
      {"xla_builder.math.Asin", 1, {P::kF32, P::kF64, P::kC64, P::kC128}},
      {"xla_builder.math.Asinh", 1, {P::kF32, P::kF64, P::kC64, P::kC128}},
      {"xla_builder.math.Atan", 1, {P::kF32, P::kF64, P::kC64, P::kC128}},
      {"xla_builder.math.Cosh", 1, {P::kF32, P::kF64, P::kC64, P::kC128}},
      {"xla_builder.math.NextAfter", 2, {P::kF32, P::kF8E5M2FNUZ}},
  };
  return kFunctions;
}

const Function* Find(std::string_view target) {
  for (const Function& f : Functions()) {
    if (f.target == target) return &f;
  }
  return nullptr;
}

// The root of `target`'s computation on `type` (one of its offered types), with T the C++
// type of the (parts of the) element type.
template <typename T>
V Build(Ops& o, std::string_view target, Types<T> t, bool complex) {
  const std::string_view name = target.substr(target.rfind('.') + 1);
  if (name == "Atan") return AtanAny(o, t, complex);
  if (name == "Acos") return complex ? AcosComplex(o, t) : AcosReal(o, t);
  if (name == "Acosh") return complex ? AcoshComplex(o, t) : AcoshReal(o, t);
  if (name == "Asin") return complex ? AsinComplex(o, t) : AsinReal(o, t);
  if (name == "Asinh") return complex ? AsinhComplex(o, t) : AsinhReal(o, t);
  return complex ? CoshComplex(o, t) : CoshReal(o, t);  // Cosh
}

}  // namespace

bool IsXlaBuilderMathTarget(std::string_view target) { return Find(target) != nullptr; }

int XlaBuilderMathArity(std::string_view target) {
  const Function* f = Find(target);
  return f == nullptr ? 0 : f->arity;
}

std::string XlaBuilderMathTypes(std::string_view target) {
  const Function* f = Find(target);
  std::string types;
  if (f == nullptr) return types;
  for (PrimitiveType p : f->types) {
    if (!types.empty()) types += ", ";
    types += PrimitiveTypeName(p);
  }
  return types;
}

std::optional<std::string> XlaBuilderMathModuleText(std::string_view target, PrimitiveType type) {
  const Function* f = Find(target);
  if (f == nullptr) return std::nullopt;
  bool offered = false;
  for (PrimitiveType p : f->types) offered = offered || p == type;
  if (!offered) return std::nullopt;
  ScalarHloText h;
  Ops o{h};
  V root;
  if (f->arity == 2) {  // NextAfter
    root = type == PrimitiveType::kF32 ? NextAfter(o, "f32", "u32", 32, false)
                                       : NextAfter(o, "f8e5m2fnuz", "u8", 8, true);
  } else if (type == PrimitiveType::kF32 || type == PrimitiveType::kC64) {
    root = Build(o, target, Types<float>{"f32", "c64"}, type == PrimitiveType::kC64);
  } else {
    root = Build(o, target, Types<double>{"f64", "c128"}, type == PrimitiveType::kC128);
  }
  return StrCat("HloModule xla_builder_math\n\nENTRY ", h.Text("expansion", root));
}

}  // namespace hloscope::eval
