// Elementwise kernels: every element of the result from the elements at the same logical index
// of the operands. Floats are computed in double and rounded to the result type on store
// (bf16/f16 via f32, see element_io.h); integers wrap at their width.
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "absl/status/status.h"
#include "eval/attributes.h"
#include "eval/element_io.h"
#include "eval/kernels.h"
#include "eval/layout_util.h"
#include "support/str_util.h"

namespace hloscope::eval {

int64_t DenseBytes(const Shape& shape) {
  return shape.ElementCount() * ElementBytes(shape.element_type);
}

Scalar LoadScalar(PrimitiveType type, const uint8_t* p) {
  Scalar s;
  if (IsComplexType(type)) {
    std::complex<double> c = LoadComplex(type, p);
    s.f = c.real();
    s.im = c.imag();
  } else if (IsFloatType(type)) {
    s.f = LoadDouble(type, p);
  } else {
    s.i = LoadInt(type, p);
  }
  return s;
}

void StoreScalar(PrimitiveType type, uint8_t* p, const Scalar& s) {
  if (IsComplexType(type)) {
    StoreComplex(type, p, {s.f, s.im});
  } else if (IsFloatType(type)) {
    StoreDouble(type, p, s.f);
  } else {
    StoreInt(type, p, s.i);
  }
}

namespace {

// Sign-extends or zero-extends the low `bits` of v as `type` reads it back.
int64_t Normalize(PrimitiveType type, int64_t v) {
  uint8_t buf[8];
  StoreInt(type, buf, v);
  return LoadInt(type, buf);
}

uint64_t Mask(int bits) { return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1; }

// Total order key of a float (−NaN < −inf < … < −0 < +0 < … < +inf < +NaN).
int64_t TotalOrderKey(PrimitiveType type, double v) {
  if (type == PrimitiveType::kF64) {
    auto bits = std::bit_cast<int64_t>(v);
    return bits < 0 ? bits ^ std::numeric_limits<int64_t>::max() : bits;
  }
  auto bits = static_cast<int64_t>(std::bit_cast<int32_t>(static_cast<float>(v)));
  return bits < 0 ? bits ^ std::numeric_limits<int32_t>::max() : bits;
}

double RoundHalfAwayFromZero(double v) { return std::round(v); }

Scalar ApplyUnary(Opcode op, PrimitiveType in, PrimitiveType out, const Scalar& a) {
  Scalar r;
  if (IsFloatType(in)) {
    double x = a.f;
    switch (op) {
      case Opcode::kAbs:
        r.f = std::fabs(x);
        break;
      case Opcode::kCeil:
        r.f = std::ceil(x);
        break;
      case Opcode::kFloor:
        r.f = std::floor(x);
        break;
      case Opcode::kCosine:
        r.f = std::cos(x);
        break;
      case Opcode::kSine:
        r.f = std::sin(x);
        break;
      case Opcode::kTan:
        r.f = std::tan(x);
        break;
      case Opcode::kExponential:
        r.f = std::exp(x);
        break;
      case Opcode::kExponentialMinusOne:
        r.f = std::expm1(x);
        break;
      case Opcode::kLog:
        r.f = std::log(x);
        break;
      case Opcode::kLogPlusOne:
        r.f = std::log1p(x);
        break;
      case Opcode::kLogistic:
        r.f = 1.0 / (1.0 + std::exp(-x));
        break;
      case Opcode::kNegate:
        r.f = -x;
        break;
      case Opcode::kRoundNearestAfz:
        r.f = RoundHalfAwayFromZero(x);
        break;
      case Opcode::kRoundNearestEven:
        r.f = std::nearbyint(x);
        break;
      case Opcode::kRsqrt:
        r.f = 1.0 / std::sqrt(x);
        break;
      case Opcode::kSqrt:
        r.f = std::sqrt(x);
        break;
      case Opcode::kCbrt:
        r.f = std::cbrt(x);
        break;
      case Opcode::kTanh:
        r.f = std::tanh(x);
        break;
      case Opcode::kAcos:
        r.f = std::acos(x);
        break;
      case Opcode::kAcosh:
        r.f = std::acosh(x);
        break;
      case Opcode::kAsin:
        r.f = std::asin(x);
        break;
      case Opcode::kAsinh:
        r.f = std::asinh(x);
        break;
      case Opcode::kAtanh:
        r.f = std::atanh(x);
        break;
      case Opcode::kCosh:
        r.f = std::cosh(x);
        break;
      case Opcode::kSinh:
        r.f = std::sinh(x);
        break;
      case Opcode::kErf:
        r.f = std::erf(x);
        break;
      case Opcode::kSign:
        r.f = std::isnan(x) ? x : (x > 0 ? 1.0 : (x < 0 ? -1.0 : x));
        break;
      case Opcode::kIsFinite:
        r.i = std::isfinite(x) ? 1 : 0;
        return r;
      default:
        break;
    }
    r.f = RoundToType(out, r.f);
    return r;
  }
  int bits = BitWidth(in);
  int64_t x = a.i;
  switch (op) {
    case Opcode::kAbs:
      r.i = x < 0 ? -static_cast<int64_t>(static_cast<uint64_t>(x)) : x;
      break;
    case Opcode::kNegate:
      r.i = static_cast<int64_t>(0 - static_cast<uint64_t>(x));
      break;
    case Opcode::kNot:
      r.i = in == PrimitiveType::kPred ? (x == 0) : ~x;
      break;
    case Opcode::kSign:
      r.i = IsUnsignedType(in) ? (x != 0) : (x > 0) - (x < 0);
      break;
    case Opcode::kPopcnt:
      r.i = std::popcount(static_cast<uint64_t>(x) & Mask(bits));
      break;
    case Opcode::kClz:
      r.i = std::countl_zero(static_cast<uint64_t>(x) & Mask(bits)) - (64 - bits);
      break;
    default:
      r.i = x;
      break;
  }
  r.i = Normalize(out, r.i);
  return r;
}

bool Compare(ComparisonDirection dir, PrimitiveType type, bool total_order, const Scalar& a,
             const Scalar& b) {
  auto test = [dir](auto x, auto y) {
    switch (dir) {
      case ComparisonDirection::kEq:
        return x == y;
      case ComparisonDirection::kNe:
        return x != y;
      case ComparisonDirection::kLt:
        return x < y;
      case ComparisonDirection::kLe:
        return x <= y;
      case ComparisonDirection::kGt:
        return x > y;
      case ComparisonDirection::kGe:
        return x >= y;
      default:
        return false;
    }
  };
  if (IsFloatType(type)) {
    if (total_order) return test(TotalOrderKey(type, a.f), TotalOrderKey(type, b.f));
    return test(a.f, b.f);
  }
  if (IsUnsignedType(type) || type == PrimitiveType::kPred) {
    return test(static_cast<uint64_t>(a.i), static_cast<uint64_t>(b.i));
  }
  return test(a.i, b.i);
}

}  // namespace

Scalar ApplyBinary(Opcode op, PrimitiveType type, const Scalar& a, const Scalar& b) {
  if (IsComplexType(type)) return ApplyComplexBinary(op, type, a, b);
  Scalar r;
  if (IsFloatType(type)) {
    double x = a.f, y = b.f;
    switch (op) {
      case Opcode::kAdd:
        r.f = x + y;
        break;
      case Opcode::kSubtract:
        r.f = x - y;
        break;
      case Opcode::kMultiply:
        r.f = x * y;
        break;
      case Opcode::kDivide:
        r.f = x / y;
        break;
      case Opcode::kRemainder:
        r.f = std::fmod(x, y);
        break;
      case Opcode::kPower:
        r.f = std::pow(x, y);
        break;
      case Opcode::kAtan2:
        r.f = std::atan2(x, y);
        break;
      // XLA's maximum/minimum propagate NaN.
      case Opcode::kMaximum:
        r.f = std::isnan(x) || std::isnan(y) ? NAN : (x >= y ? x : y);
        break;
      case Opcode::kMinimum:
        r.f = std::isnan(x) || std::isnan(y) ? NAN : (x <= y ? x : y);
        break;
      default:
        break;
    }
    r.f = RoundToType(type, r.f);
    return r;
  }
  bool is_unsigned = IsUnsignedType(type) || type == PrimitiveType::kPred;
  int bits = BitWidth(type);
  auto ux = static_cast<uint64_t>(a.i), uy = static_cast<uint64_t>(b.i);
  int64_t x = a.i, y = b.i;
  switch (op) {
    case Opcode::kAdd:
      r.i = static_cast<int64_t>(ux + uy);
      break;
    case Opcode::kSubtract:
      r.i = static_cast<int64_t>(ux - uy);
      break;
    case Opcode::kMultiply:
      r.i = static_cast<int64_t>(ux * uy);
      break;
    case Opcode::kMulhi:
      // The high half of the double-width product, signed or unsigned as the type (XLA's
      // HandleMulhi); the operands are already sign- or zero-extended to 64 bits.
      if (is_unsigned) {
        r.i = static_cast<int64_t>(static_cast<uint64_t>(
            (static_cast<unsigned __int128>(ux & Mask(bits)) * (uy & Mask(bits))) >> bits));
      } else {
        r.i = static_cast<int64_t>((static_cast<__int128>(x) * y) >> bits);
      }
      break;
    case Opcode::kDivide:
      // XLA: x / 0 = -1 (all ones), INT_MIN / -1 = INT_MIN.
      if (uy == 0) {
        r.i = -1;
      } else if (is_unsigned) {
        r.i = static_cast<int64_t>(ux / uy);
      } else if (y == -1) {
        r.i = static_cast<int64_t>(0 - ux);
      } else {
        r.i = x / y;
      }
      break;
    case Opcode::kRemainder:
      // XLA: x % 0 = x, INT_MIN % -1 = 0.
      if (uy == 0) {
        r.i = x;
      } else if (is_unsigned) {
        r.i = static_cast<int64_t>(ux % uy);
      } else if (y == -1) {
        r.i = 0;
      } else {
        r.i = x % y;
      }
      break;
    case Opcode::kMaximum:
      r.i = is_unsigned ? static_cast<int64_t>(std::max(ux, uy)) : std::max(x, y);
      break;
    case Opcode::kMinimum:
      r.i = is_unsigned ? static_cast<int64_t>(std::min(ux, uy)) : std::min(x, y);
      break;
    case Opcode::kAnd:
      r.i = x & y;
      break;
    case Opcode::kOr:
      r.i = x | y;
      break;
    case Opcode::kXor:
      r.i = x ^ y;
      break;
    case Opcode::kPower: {
      // Integer power by squaring; negative exponents give 0 except for bases 1 and -1.
      if (!is_unsigned && y < 0) {
        r.i = x == 1 ? 1 : (x == -1 ? ((y & 1) ? -1 : 1) : 0);
        break;
      }
      uint64_t result = 1, base = ux, e = uy;
      while (e != 0) {
        if (e & 1) result *= base;
        base *= base;
        e >>= 1;
      }
      r.i = static_cast<int64_t>(result);
      break;
    }
    case Opcode::kShiftLeft:
      r.i = uy >= static_cast<uint64_t>(bits) ? 0 : static_cast<int64_t>(ux << uy);
      break;
    case Opcode::kShiftRightLogical:
      r.i = uy >= static_cast<uint64_t>(bits) ? 0 : static_cast<int64_t>((ux & Mask(bits)) >> uy);
      break;
    case Opcode::kShiftRightArithmetic: {
      // Read the operand as signed at its width, whatever the element type's signedness.
      int64_t sx = bits >= 64 ? x : (static_cast<int64_t>(ux << (64 - bits)) >> (64 - bits));
      r.i = uy >= static_cast<uint64_t>(bits) ? (sx < 0 ? -1 : 0) : (sx >> uy);
      break;
    }
    default:
      break;
  }
  r.i = Normalize(type, r.i);
  return r;
}

bool IsSupportedElementwise(Opcode op) {
  switch (op) {
    case Opcode::kAbs:
    case Opcode::kCeil:
    case Opcode::kFloor:
    case Opcode::kCosine:
    case Opcode::kSine:
    case Opcode::kTan:
    case Opcode::kExponential:
    case Opcode::kExponentialMinusOne:
    case Opcode::kLog:
    case Opcode::kLogPlusOne:
    case Opcode::kLogistic:
    case Opcode::kNegate:
    case Opcode::kRoundNearestAfz:
    case Opcode::kRoundNearestEven:
    case Opcode::kRsqrt:
    case Opcode::kSqrt:
    case Opcode::kCbrt:
    case Opcode::kTanh:
    case Opcode::kAcos:
    case Opcode::kAcosh:
    case Opcode::kAsin:
    case Opcode::kAsinh:
    case Opcode::kAtanh:
    case Opcode::kCosh:
    case Opcode::kSinh:
    case Opcode::kErf:
    case Opcode::kSign:
    case Opcode::kIsFinite:
    case Opcode::kNot:
    case Opcode::kPopcnt:
    case Opcode::kClz:
    case Opcode::kAdd:
    case Opcode::kSubtract:
    case Opcode::kMultiply:
    case Opcode::kMulhi:
    case Opcode::kDivide:
    case Opcode::kRemainder:
    case Opcode::kPower:
    case Opcode::kAtan2:
    case Opcode::kMaximum:
    case Opcode::kMinimum:
    case Opcode::kAnd:
    case Opcode::kOr:
    case Opcode::kXor:
    case Opcode::kShiftLeft:
    case Opcode::kShiftRightLogical:
    case Opcode::kShiftRightArithmetic:
    case Opcode::kCompare:
    case Opcode::kSelect:
    case Opcode::kClamp:
    case Opcode::kConvert:
    case Opcode::kBitcastConvert:
    case Opcode::kComplex:
    case Opcode::kReal:
    case Opcode::kImag:
      return true;
    default:
      return false;
  }
}

absl::StatusOr<Bytes> EvalElementwise(const Instruction& instr,
                                      absl::Span<const ArrayRef> operands) {
  const Shape& out = instr.shape();
  PrimitiveType out_type = out.element_type;
  int64_t n = out.ElementCount();
  Bytes result(static_cast<size_t>(DenseBytes(out)));
  Opcode op = instr.opcode();
  if (NeedsComplexElementwise(instr, operands)) return EvalComplexElementwise(instr, operands);
  if (op == Opcode::kMulhi && (IsFloatType(out_type) || out_type == PrimitiveType::kPred)) {
    // XLA's evaluator computes mulhi of integers only (UnsupportedTypeError otherwise).
    return absl::UnimplementedError(StrCat("the interpreter computes mulhi of integers only, not ",
                                           PrimitiveTypeName(out_type), " (instruction %",
                                           instr.name(), ")"));
  }
  if ((op == Opcode::kShiftLeft || op == Opcode::kShiftRightLogical ||
       op == Opcode::kShiftRightArithmetic) &&
      IsFloatType(out_type)) {
    // XLA's shape inference lets a shift take floating point; its evaluator shifts integers
    // only (UnsupportedTypeError, hlo_evaluator_typed_visitor.h at ROCm/xla 183fa00cb5).
    return absl::UnimplementedError(StrCat("the interpreter shifts integers only, not ",
                                           PrimitiveTypeName(out_type), " (instruction %",
                                           instr.name(), ")"));
  }

  if (op == Opcode::kBitcastConvert) {
    const Shape& in = *operands[0].shape;
    if (BitcastConvertBits(in.element_type) != BitcastConvertBits(out_type)) {
      return EvalBitcastConvertWidths(instr, operands[0]);
    }
    if (in.dims != out.dims) {
      return absl::InvalidArgumentError(
          StrCat("cannot run %", instr.name(),
                 ": bitcast-convert between types of one width keeps the dimensions"));
    }
    Shape relabeled = in;
    relabeled.element_type = out_type;
    Relayout(relabeled, operands[0].data, out, result.data());
    return result;
  }

  // Each operand in the result's physical order (rank-0 operands broadcast with stride 0).
  const OperandsInResultOrder in_order = InResultOrder(out, operands);
  const std::vector<const uint8_t*>& data = in_order.data;
  const std::vector<int64_t>& step = in_order.step;
  int out_bytes = ElementBytes(out_type);
  PrimitiveType in_type = operands[0].shape->element_type;
  bool total_order = false;
  if (op == Opcode::kCompare) {
    if (auto t = RawAttribute(instr, "type")) total_order = *t == "TOTALORDER";
  }
  auto at = [&](size_t k, int64_t i) { return data[k] + i * step[k]; };
  for (int64_t i = 0; i < n; ++i) {
    uint8_t* dst = result.data() + i * out_bytes;
    switch (op) {
      case Opcode::kSelect: {
        bool pick = LoadInt(operands[0].shape->element_type, at(0, i)) != 0;
        std::memcpy(dst, pick ? at(1, i) : at(2, i), static_cast<size_t>(out_bytes));
        break;
      }
      case Opcode::kClamp: {
        // clamp(min, x, max)
        PrimitiveType t = operands[1].shape->element_type;
        Scalar lo = LoadScalar(t, at(0, i)), x = LoadScalar(t, at(1, i)),
               hi = LoadScalar(t, at(2, i));
        Scalar r = ApplyBinary(Opcode::kMinimum, t, ApplyBinary(Opcode::kMaximum, t, x, lo), hi);
        StoreScalar(out_type, dst, r);
        break;
      }
      case Opcode::kCompare: {
        bool r = Compare(instr.comparison_direction(), in_type, total_order,
                         LoadScalar(in_type, at(0, i)), LoadScalar(in_type, at(1, i)));
        dst[0] = r ? 1 : 0;
        break;
      }
      case Opcode::kConvert: {
        if (IsFloatType(in_type)) {
          StoreDouble(out_type, dst, LoadDouble(in_type, at(0, i)));
        } else {
          StoreInt(out_type, dst, LoadInt(in_type, at(0, i)), IsUnsignedType(in_type));
        }
        break;
      }
      default:
        if (operands.size() == 1) {
          StoreScalar(out_type, dst,
                      ApplyUnary(op, in_type, out_type, LoadScalar(in_type, at(0, i))));
        } else {
          StoreScalar(out_type, dst,
                      ApplyBinary(op, in_type, LoadScalar(in_type, at(0, i)),
                                  LoadScalar(in_type, at(1, i))));
        }
        break;
    }
  }
  return result;
}

OperandsInResultOrder InResultOrder(const Shape& out, absl::Span<const ArrayRef> operands) {
  OperandsInResultOrder r;
  r.scratch.resize(operands.size());
  r.data.resize(operands.size());
  r.step.resize(operands.size());
  for (size_t k = 0; k < operands.size(); ++k) {
    const Shape& s = *operands[k].shape;
    const int eb = ElementBytes(s.element_type);
    if (s.rank() == 0 && out.rank() > 0) {
      r.data[k] = operands[k].data;
      r.step[k] = 0;
      continue;
    }
    r.step[k] = eb;
    if (PhysicalStrides(s) == PhysicalStrides(out)) {
      r.data[k] = operands[k].data;
    } else {
      r.scratch[k].resize(static_cast<size_t>(s.ElementCount() * eb));
      Shape target = out;
      target.element_type = s.element_type;
      Relayout(s, operands[k].data, target, r.scratch[k].data());
      r.data[k] = r.scratch[k].data();
    }
  }
  return r;
}

}  // namespace hloscope::eval
