// Step 3 of the verifier, continued: the element types each elementwise opcode accepts, as XLA's
// shape inference and instruction verifier read them (xla/service/shape_inference.cc:
// InferUnaryOpShape, InferBinaryOpShape, InferElementwiseBinaryOpShape; xla/service/
// hlo_verifier.cc: CheckElementwiseInstruction's comparison types; xla/hlo/parser/hlo_parser.cc:
// compare's required direction; all at ROCm/xla 183fa00cb5d82384463a1a7aed1ab06bc9026974).
// verifier_array_rules.cc checks dimensions and that operand and result types agree; this file
// says which types an opcode may have at all, so that the interpreter never runs e.g. popcnt
// of an f32 (it would make up an answer XLA never gives).
//  - floor, ceil, cbrt, erf, round-nearest-afz, round-nearest-even, is-finite: floating point.
//  - the transcendental functions (exp, log, sin, tanh, sqrt, ...): floating point or complex.
//  - count-leading-zeros, popcnt: integers (not pred). not: pred or integers.
//  - negate: integers, floating point or complex (not pred). sign: signed integers, floating
//    point or complex (abs, real and imag are checked with their result types in
//    verifier_array_rules.cc).
//  - subtract, divide, remainder, power, atan2 and the shifts: no pred operand; atan2's operands
//    are floating point or complex. and, or, xor: pred or integers.
//  - complex: f32 and f32 give c64, f64 and f64 give c128 (XLA has no other component type).
//  - compare: a direction, and a comparison type that fits the operands (FLOAT or TOTALORDER
//    for floating point, FLOAT for complex, SIGNED for signed and UNSIGNED for unsigned
//    integers and pred).
// add, multiply, maximum, minimum, select and clamp take any element type, as in XLA.
#include <string>
#include <string_view>

#include "hlo/attribute_values.h"
#include "hlo/verifier_internal.h"
#include "support/str_util.h"

namespace hloscope::verifier_internal {
namespace {

bool IsIntegral(const PrimitiveTypeInfo& t) { return t.is_signed_int || t.is_unsigned_int; }

absl::Status OperandTypeNot(const Instruction& instr, int64_t i, std::string_view what) {
  return InstrError(
      instr, StrCat(instr.PrintedOpcode(), " ", OperandRef(instr, i), " element type ",
                    PrimitiveTypeName(instr.operand(i)->shape().element_type), " is not ", what,
                    " (XLA's shape inference rejects it)"));
}

// The comparison type XLA gives operands of type `t` when the instruction names none
// (Comparison::DefaultComparisonType in xla/comparison_util.cc).
std::string_view DefaultComparisonType(const PrimitiveTypeInfo& t) {
  if (t.is_float || t.is_complex) return "FLOAT";
  if (t.is_signed_int) return "SIGNED";
  return "UNSIGNED";
}

absl::Status CheckCompare(const Instruction& instr) {
  if (instr.comparison_direction() == ComparisonDirection::kNone) {
    return InstrError(instr, "compare has no direction= (EQ, NE, LT, LE, GT or GE)");
  }
  const std::optional<std::string_view> written = RawAttribute(instr, "type");
  if (!written) return absl::OkStatus();  // XLA takes the default for the operands' type
  const std::string_view type = StripWhitespace(*written);
  if (type != "FLOAT" && type != "TOTALORDER" && type != "SIGNED" && type != "UNSIGNED") {
    return InstrError(
        instr, StrCat("compare type=", type, " is not FLOAT, TOTALORDER, SIGNED or UNSIGNED"));
  }
  // XLA reads operand 1's element type; the array rule has made both operands' agree.
  const PrimitiveType operand = instr.operand(1)->shape().element_type;
  const PrimitiveTypeInfo& t = GetPrimitiveTypeInfo(operand);
  if (t.is_float) {
    if (type == "FLOAT" || type == "TOTALORDER") return absl::OkStatus();
    return InstrError(instr, StrCat("compare type=", type, " does not fit ",
                                    PrimitiveTypeName(operand), " operands (FLOAT or TOTALORDER)"));
  }
  const std::string_view expected = DefaultComparisonType(t);
  if (type == expected) return absl::OkStatus();
  return InstrError(instr, StrCat("compare type=", type, " does not fit ",
                                  PrimitiveTypeName(operand), " operands (", expected, ")"));
}

absl::Status CheckComplex(const Instruction& instr) {
  const PrimitiveType lhs = instr.operand(0)->shape().element_type;
  const PrimitiveType rhs = instr.operand(1)->shape().element_type;
  if (!GetPrimitiveTypeInfo(lhs).is_float) return OperandTypeNot(instr, 0, "floating point");
  PrimitiveType expected;
  if (lhs == PrimitiveType::kF32 && rhs == PrimitiveType::kF32) {
    expected = PrimitiveType::kC64;
  } else if (lhs == PrimitiveType::kF64 && rhs == PrimitiveType::kF64) {
    expected = PrimitiveType::kC128;
  } else {
    return InstrError(instr,
                      StrCat("complex of ", PrimitiveTypeName(lhs), " and ", PrimitiveTypeName(rhs),
                             " parts: XLA composes only f32 and f32 (c64) or f64 and f64 "
                             "(c128)"));
  }
  const PrimitiveType out = instr.shape().element_type;
  if (out == expected) return absl::OkStatus();
  return InstrError(
      instr, StrCat("complex shape ", ShapeText(instr.shape()), " does not have element type ",
                    PrimitiveTypeName(expected), " (of its ", PrimitiveTypeName(lhs), " parts)"));
}

}  // namespace

absl::Status CheckElementTypes(const Instruction& instr) {
  const Opcode op = instr.opcode();
  if (instr.operand_count() == 0) return absl::OkStatus();
  const PrimitiveTypeInfo& t = GetPrimitiveTypeInfo(instr.operand(0)->shape().element_type);
  switch (op) {
    case Opcode::kFloor:
    case Opcode::kCeil:
    case Opcode::kCbrt:
    case Opcode::kErf:
    case Opcode::kRoundNearestAfz:
    case Opcode::kRoundNearestEven:
    case Opcode::kIsFinite:
      if (t.is_float) return absl::OkStatus();
      return OperandTypeNot(instr, 0, "floating point");
    case Opcode::kAcos:
    case Opcode::kAcosh:
    case Opcode::kAsin:
    case Opcode::kAsinh:
    case Opcode::kAtanh:
    case Opcode::kCosine:
    case Opcode::kCosh:
    case Opcode::kSine:
    case Opcode::kSinh:
    case Opcode::kTan:
    case Opcode::kTanh:
    case Opcode::kExponential:
    case Opcode::kExponentialMinusOne:
    case Opcode::kLog:
    case Opcode::kLogPlusOne:
    case Opcode::kLogistic:
    case Opcode::kRsqrt:
    case Opcode::kSqrt:
      if (t.is_float || t.is_complex) return absl::OkStatus();
      return OperandTypeNot(instr, 0, "floating point or complex");
    case Opcode::kClz:
    case Opcode::kPopcnt:
      if (IsIntegral(t)) return absl::OkStatus();
      return OperandTypeNot(instr, 0, "an integer type");
    case Opcode::kNot:
    case Opcode::kAnd:
    case Opcode::kOr:
    case Opcode::kXor:
      if (IsIntegral(t) || t.type == PrimitiveType::kPred) return absl::OkStatus();
      return OperandTypeNot(instr, 0, "pred or an integer type");
    case Opcode::kNegate:
      if (IsIntegral(t) || t.is_float || t.is_complex) return absl::OkStatus();
      return OperandTypeNot(instr, 0, "an integer, floating-point or complex type");
    case Opcode::kSign:
      if (t.is_signed_int || t.is_float || t.is_complex) return absl::OkStatus();
      return OperandTypeNot(instr, 0, "a signed integer, floating-point or complex type");
    case Opcode::kAtan2:
      if (!t.is_float && !t.is_complex)
        return OperandTypeNot(instr, 0, "floating point or complex");
      [[fallthrough]];
    case Opcode::kSubtract:
    case Opcode::kDivide:
    case Opcode::kRemainder:
    case Opcode::kPower:
    case Opcode::kShiftLeft:
    case Opcode::kShiftRightArithmetic:
    case Opcode::kShiftRightLogical:
      for (int64_t i = 0; i < instr.operand_count(); ++i) {
        if (instr.operand(i)->shape().element_type == PrimitiveType::kPred) {
          return OperandTypeNot(instr, i, "an arithmetic type");
        }
      }
      return absl::OkStatus();
    case Opcode::kComplex:
      return CheckComplex(instr);
    case Opcode::kCompare:
      return CheckCompare(instr);
    default:
      return absl::OkStatus();
  }
}

}  // namespace hloscope::verifier_internal
