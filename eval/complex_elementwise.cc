// Elementwise ops on complex numbers (c64, c128), and complex/real/imag. The arithmetic runs
// in std::complex of the component type (float for c64, double for c128), as XLA's evaluator
// does, so that results agree bit for bit with it on the same standard library (libstdc++'s
// complex division and transcendental functions). Ops XLA does not define on complex numbers
// (ordering comparisons, maximum, floor, ...) are refused naming the op, not run on one part.
#include <cmath>
#include <complex>
#include <cstring>
#include <optional>

#include "absl/status/status.h"
#include "eval/element_io.h"
#include "eval/kernels.h"
#include "eval/layout_util.h"
#include "support/str_util.h"

namespace hloscope::eval {
namespace {

template <typename T>
std::optional<std::complex<T>> ComplexUnary(Opcode op, std::complex<T> x) {
  using C = std::complex<T>;
  switch (op) {
    case Opcode::kNegate:
      return -x;
    case Opcode::kExponential:
      return std::exp(x);
    case Opcode::kLog:
      return std::log(x);
    case Opcode::kSqrt:
      return std::sqrt(x);
    case Opcode::kRsqrt:
      return C(1) / std::sqrt(x);
    case Opcode::kSign: {
      // XLA: x / |x|, and 0 for 0.
      T magnitude = std::abs(x);
      return magnitude == T(0) ? C(0) : x / magnitude;
    }
    case Opcode::kTanh:
      return std::tanh(x);
    case Opcode::kSine:
      return std::sin(x);
    case Opcode::kCosine:
      return std::cos(x);
    case Opcode::kTan:
      return std::tan(x);
    case Opcode::kSinh:
      return std::sinh(x);
    case Opcode::kCosh:
      return std::cosh(x);
    case Opcode::kAsin:
      return std::asin(x);
    case Opcode::kAcos:
      return std::acos(x);
    case Opcode::kAsinh:
      return std::asinh(x);
    case Opcode::kAcosh:
      return std::acosh(x);
    case Opcode::kAtanh:
      return std::atanh(x);
    case Opcode::kLogistic:
      return C(1) / (C(1) + std::exp(-x));
    default:
      return std::nullopt;
  }
}

template <typename T>
std::optional<std::complex<T>> ComplexBinary(Opcode op, std::complex<T> x, std::complex<T> y) {
  switch (op) {
    case Opcode::kAdd:
      return x + y;
    case Opcode::kSubtract:
      return x - y;
    case Opcode::kMultiply:
      return x * y;
    case Opcode::kDivide:
      return x / y;
    case Opcode::kPower:
      // XLA: 0^0 = 1 and 0^y = 0 for y with positive real part; std::pow(0, y) is exp(y log 0).
      if (x == std::complex<T>(0)) {
        if (y == std::complex<T>(0)) return std::complex<T>(1);
        if (y.real() > 0) return std::complex<T>(0);
      }
      return std::pow(x, y);
    default:
      return std::nullopt;
  }
}

std::complex<double> Widen(std::complex<float> c) { return {c.real(), c.imag()}; }

// One op on complex values of `type` (c64 computes in float, c128 in double).
std::optional<std::complex<double>> ApplyUnaryComplex(Opcode op, PrimitiveType type,
                                                      std::complex<double> x) {
  if (type == PrimitiveType::kC64) {
    auto r = ComplexUnary<float>(op, {static_cast<float>(x.real()), static_cast<float>(x.imag())});
    if (!r) return std::nullopt;
    return Widen(*r);
  }
  return ComplexUnary<double>(op, x);
}

std::optional<std::complex<double>> ApplyBinaryComplex(Opcode op, PrimitiveType type,
                                                       std::complex<double> x,
                                                       std::complex<double> y) {
  if (type == PrimitiveType::kC64) {
    auto r = ComplexBinary<float>(op, {static_cast<float>(x.real()), static_cast<float>(x.imag())},
                                  {static_cast<float>(y.real()), static_cast<float>(y.imag())});
    if (!r) return std::nullopt;
    return Widen(*r);
  }
  return ComplexBinary<double>(op, x, y);
}

// |x| in the component type (hypot without undue overflow, as std::abs does).
double ComplexAbs(PrimitiveType type, std::complex<double> x) {
  if (type == PrimitiveType::kC64) {
    return std::abs(
        std::complex<float>(static_cast<float>(x.real()), static_cast<float>(x.imag())));
  }
  return std::abs(x);
}

absl::Status Refuse(const Instruction& instr, PrimitiveType type) {
  return absl::UnimplementedError(StrCat("the interpreter does not run '", instr.PrintedOpcode(),
                                         "' on ", PrimitiveTypeName(type),
                                         " values: XLA does not define it for complex numbers "
                                         "(instruction %",
                                         instr.name(), ")"));
}

}  // namespace

bool NeedsComplexElementwise(const Instruction& instr, absl::Span<const ArrayRef> operands) {
  switch (instr.opcode()) {
    case Opcode::kComplex:
    case Opcode::kReal:
    case Opcode::kImag:
      return true;
    case Opcode::kSelect:          // moves whole elements
    case Opcode::kBitcastConvert:  // reinterprets bytes
      return false;
    default:
      break;
  }
  if (IsComplexType(instr.shape().element_type)) return true;
  for (const ArrayRef& o : operands) {
    if (IsComplexType(o.shape->element_type)) return true;
  }
  return false;
}

Scalar ApplyComplexBinary(Opcode op, PrimitiveType type, const Scalar& a, const Scalar& b) {
  Scalar r;
  // Reduce and scatter only reach here with ops the evaluator accepted for complex elementwise
  // instructions; anything else leaves NaN rather than a plausible number.
  std::optional<std::complex<double>> v = ApplyBinaryComplex(op, type, {a.f, a.im}, {b.f, b.im});
  std::complex<double> c = v.value_or(std::complex<double>(NAN, NAN));
  r.f = c.real();
  r.im = c.imag();
  return r;
}

absl::StatusOr<Bytes> EvalComplexElementwise(const Instruction& instr,
                                             absl::Span<const ArrayRef> operands) {
  const Shape& out = instr.shape();
  const PrimitiveType out_type = out.element_type;
  const Opcode op = instr.opcode();
  const int64_t n = out.ElementCount();
  Bytes result(static_cast<size_t>(DenseBytes(out)));

  // Each operand in the result's physical order (rank-0 operands broadcast with stride 0).
  const OperandsInResultOrder in_order = InResultOrder(out, operands);
  const std::vector<const uint8_t*>& data = in_order.data;
  const std::vector<int64_t>& step = in_order.step;
  const PrimitiveType in_type = operands[0].shape->element_type;
  auto load = [&](size_t k, int64_t i) {
    return LoadComplex(operands[k].shape->element_type, data[k] + i * step[k]);
  };
  const int out_bytes = ElementBytes(out_type);

  // Checks that do not depend on the elements, so that an empty array is refused alike.
  switch (op) {
    case Opcode::kComplex:
      if (!IsComplexType(out_type) || IsComplexType(in_type)) {
        return absl::InvalidArgumentError(StrCat("cannot run %", instr.name(),
                                                 ": complex needs two real operands and a "
                                                 "complex result"));
      }
      break;
    case Opcode::kReal:
    case Opcode::kImag:
      if (IsComplexType(out_type) || !(IsComplexType(in_type) || IsFloatType(in_type))) {
        return absl::InvalidArgumentError(StrCat("cannot run %", instr.name(), ": ",
                                                 instr.PrintedOpcode(),
                                                 " needs a complex or float operand and a real "
                                                 "result"));
      }
      break;
    case Opcode::kConvert:
      if (IsComplexType(in_type) && !IsComplexType(out_type)) {
        // XLA's shape inference refuses it too: which part would survive is not defined.
        return absl::UnimplementedError(
            StrCat("the interpreter does not convert ", PrimitiveTypeName(in_type), " to ",
                   PrimitiveTypeName(out_type),
                   ": XLA does not define a conversion from complex to real (use real or imag; "
                   "instruction %",
                   instr.name(), ")"));
      }
      break;
    case Opcode::kCompare: {
      ComparisonDirection dir = instr.comparison_direction();
      if (dir != ComparisonDirection::kEq && dir != ComparisonDirection::kNe) {
        return absl::UnimplementedError(
            StrCat("the interpreter compares ", PrimitiveTypeName(in_type),
                   " values only for EQ and NE: complex numbers have no order (instruction %",
                   instr.name(), ")"));
      }
      break;
    }
    case Opcode::kAbs:
      if (IsComplexType(out_type)) return Refuse(instr, in_type);
      break;
    default: {
      std::complex<double> probe(1, 1);
      bool known = operands.size() == 1 ? ApplyUnaryComplex(op, in_type, probe).has_value()
                   : operands.size() == 2
                       ? ApplyBinaryComplex(op, in_type, probe, probe).has_value()
                       : false;
      if (!known || out_type != in_type) return Refuse(instr, in_type);
      break;
    }
  }

  for (int64_t i = 0; i < n; ++i) {
    uint8_t* dst = result.data() + i * out_bytes;
    switch (op) {
      case Opcode::kComplex:
        StoreComplex(out_type, dst, {load(0, i).real(), load(1, i).real()});
        break;
      case Opcode::kReal:
        StoreDouble(out_type, dst, load(0, i).real());
        break;
      case Opcode::kImag:
        StoreDouble(out_type, dst, load(0, i).imag());
        break;
      case Opcode::kConvert:
        if (IsComplexType(in_type) || IsFloatType(in_type)) {
          StoreComplex(out_type, dst, load(0, i));
        } else {
          // Integers: through StoreInt, which rounds to the component type once.
          StoreInt(out_type, dst, LoadInt(in_type, data[0] + i * step[0]), IsUnsignedType(in_type));
        }
        break;
      case Opcode::kCompare: {
        bool equal = load(0, i) == load(1, i);
        dst[0] = (instr.comparison_direction() == ComparisonDirection::kEq) == equal ? 1 : 0;
        break;
      }
      case Opcode::kAbs:
        StoreDouble(out_type, dst, ComplexAbs(in_type, load(0, i)));
        break;
      default:
        if (operands.size() == 1) {
          StoreComplex(out_type, dst, *ApplyUnaryComplex(op, in_type, load(0, i)));
        } else {
          StoreComplex(out_type, dst, *ApplyBinaryComplex(op, in_type, load(0, i), load(1, i)));
        }
        break;
    }
  }
  return result;
}

}  // namespace hloscope::eval
