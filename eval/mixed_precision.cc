#include "eval/mixed_precision.h"

#include <algorithm>

#include "eval/element_io.h"

namespace hloscope::eval {
namespace {

// Whether operand k (of `count`) is one the op computes with or moves (the others, select's
// predicate and the start indices of dynamic-slice, are read as they are); none for ops
// outside the rule. A predicate, not a list: the interpreter asks on every instruction.
bool IsValueOperand(Opcode op, size_t k, size_t count) {
  switch (op) {
    // These define their own operand types (a convert's is any type) or are not computations
    // on floats (map's to_apply gets each operand in its own type).
    case Opcode::kConvert:
    case Opcode::kBitcastConvert:
    case Opcode::kStochasticConvert:
    case Opcode::kMap:
    case Opcode::kCopy:
    case Opcode::kIota:
      return false;
    case Opcode::kSelect:
      return count == 3 && k >= 1;
    case Opcode::kConcatenate:
      return true;
    case Opcode::kDynamicUpdateSlice:
      return count >= 2 && k <= 1;
    case Opcode::kBroadcast:
    case Opcode::kTranspose:
    case Opcode::kReshape:
    case Opcode::kSlice:
    case Opcode::kDynamicSlice:
    case Opcode::kPad:  // the padding value is converted already (data_movement.cc)
    case Opcode::kReverse:
    case Opcode::kGather:
      return k == 0;
    default:
      return IsElementwise(op);
  }
}

// Ops that only move elements: converting before the move or after it gives the same bits.
bool MovesElements(Opcode op) { return op == Opcode::kSelect || !IsElementwise(op); }

// A 16-bit type cannot hold every f8e8m0fnu value (2^-127 to 2^127): XLA normalizes that type
// to f32 (FloatSupport(F8E8M0FNU, F32) in cpu_compiler.cc and gpu_compiler.cc).
bool Holds(PrimitiveType wide, PrimitiveType narrow) {
  if (narrow == PrimitiveType::kF8E8M0FNU) return BitWidth(wide) >= 32;
  return BitWidth(wide) > BitWidth(narrow) || wide == narrow;
}

}  // namespace

std::vector<PrimitiveType> MixedPrecisionOperandTypes(const Instruction& instr,
                                                      absl::Span<const Shape* const> operands) {
  const Opcode op = instr.opcode();
  const Shape& out = instr.shape();
  if (!out.IsArray()) return {};
  // The types in play: the value operands' and, unless it is a comparison's pred, the result's.
  // They must all be floating point, and not all one type; `wide` is the widest.
  const bool with_result = op != Opcode::kCompare;
  PrimitiveType first = PrimitiveType::kInvalid, wide = PrimitiveType::kInvalid;
  bool mixed = false;
  const auto take = [&](PrimitiveType t) {
    if (!IsFloatType(t)) return false;
    if (first == PrimitiveType::kInvalid) first = wide = t;
    mixed |= t != first;
    if (BitWidth(t) > BitWidth(wide)) wide = t;
    return true;
  };
  bool any = false;
  for (size_t k = 0; k < operands.size(); ++k) {
    if (!IsValueOperand(op, k, operands.size())) continue;
    if (operands[k] == nullptr || !operands[k]->IsArray() || !take(operands[k]->element_type)) {
      return {};
    }
    any = true;
  }
  if (!any || (with_result && !take(out.element_type)) || !mixed) return {};
  // The high precision type must hold each of the others exactly (f16 and bf16 together have
  // none: no XLA pass normalizes that pair, so it stays refused).
  for (size_t k = 0; k < operands.size(); ++k) {
    if (IsValueOperand(op, k, operands.size()) && !Holds(wide, operands[k]->element_type)) {
      return {};
    }
  }
  if (with_result && !Holds(wide, out.element_type)) return {};
  const PrimitiveType to = MovesElements(op) ? out.element_type : wide;
  std::vector<PrimitiveType> result;
  for (size_t k = 0; k < operands.size(); ++k) {
    const Shape* s = operands[k];
    result.push_back(IsValueOperand(op, k, operands.size()) ? to
                     : s == nullptr                         ? PrimitiveType::kInvalid
                                                            : s->element_type);
  }
  return result;
}

std::vector<PrimitiveType> MixedAllReduceTypes(absl::Span<const Shape* const> operands,
                                               absl::Span<const Shape* const> results) {
  if (operands.size() != results.size()) return {};
  std::vector<PrimitiveType> wide;
  bool mixed = false;
  for (size_t k = 0; k < operands.size(); ++k) {
    const Shape* in = operands[k];
    const Shape* out = results[k];
    if (in == nullptr || out == nullptr || !in->IsArray() || !out->IsArray()) return {};
    const PrimitiveType a = in->element_type, b = out->element_type;
    if (a == b) {
      wide.push_back(a);
      continue;
    }
    if (!IsFloatType(a) || !IsFloatType(b)) return {};
    const PrimitiveType w = BitWidth(a) >= BitWidth(b) ? a : b;
    if (!Holds(w, a) || !Holds(w, b)) return {};
    wide.push_back(w);
    mixed = true;
  }
  if (!mixed) return {};
  return wide;
}

Bytes ConvertElements(const Shape& shape, const uint8_t* data, PrimitiveType to) {
  const int64_t n = shape.ElementCount();
  const int from_bytes = ElementBytes(shape.element_type);
  const int to_bytes = ElementBytes(to);
  Shape converted = shape;
  converted.element_type = to;
  Bytes out(static_cast<size_t>(std::max<int64_t>(DenseBytes(converted), n * to_bytes)));
  for (int64_t i = 0; i < n; ++i) {
    StoreDouble(to, out.data() + i * to_bytes,
                LoadDouble(shape.element_type, data + i * from_bytes));
  }
  return out;
}

const Shape* ConvertedShapes::Get(const Shape& shape, PrimitiveType to) {
  auto [it, inserted] = made_.try_emplace(std::make_pair(&shape, to), nullptr);
  // A shape at an address that held another before (a run-time shape freed and reused) is
  // made again.
  Shape expected = shape;
  expected.element_type = to;
  if (inserted || !(*it->second == expected)) {
    it->second = &shapes_.emplace_back(std::move(expected));
  }
  return it->second;
}

}  // namespace hloscope::eval
