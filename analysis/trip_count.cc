#include "analysis/trip_count.h"

#include <algorithm>
#include <string>

#include "absl/strings/numbers.h"
#include "hlo/computation.h"
#include "support/checked_int.h"

namespace hloscope {

namespace {

std::optional<int64_t> IntegerConstant(const Instruction* instr) {
  if (instr == nullptr || instr->opcode() != Opcode::kConstant || instr->shape().rank() != 0) {
    return std::nullopt;
  }
  int64_t value = 0;
  const std::string text(instr->literal());
  if (!absl::SimpleAtoi(text, &value)) return std::nullopt;
  return value;
}

// A constant, possibly behind copies: copy insertion copies a loop's constant init so the loop
// can update it in place, and the copy holds the same number.
std::optional<int64_t> IntegerConstantThroughCopies(const Instruction* instr) {
  for (int guard = 0; instr != nullptr && guard < 64; ++guard) {
    if (instr->opcode() != Opcode::kCopy) return IntegerConstant(instr);
    instr = instr->operand_count() == 1 ? instr->operand(0) : nullptr;
  }
  return std::nullopt;
}

// `instr` with the copies in front of it skipped: a copy holds its operand's value.
const Instruction* SkipCopies(const Instruction* instr) {
  for (int guard = 0; instr != nullptr && instr->opcode() == Opcode::kCopy && guard < 64; ++guard) {
    instr = instr->operand_count() == 1 ? instr->operand(0) : nullptr;
  }
  return instr != nullptr && instr->opcode() == Opcode::kCopy ? nullptr : instr;
}

// The state element `instr` reads: get-tuple-element(parameter 0, index=k) → k, also through
// copies (copy insertion copies each element of the body's parameter and root).
std::optional<int64_t> StateElement(const Instruction* instr) {
  instr = SkipCopies(instr);
  if (instr == nullptr || instr->opcode() != Opcode::kGetTupleElement ||
      instr->operand_count() != 1 || instr->operand(0)->opcode() != Opcode::kParameter) {
    return std::nullopt;
  }
  return instr->tuple_index();
}

}  // namespace

std::optional<int64_t> WhileTripCount(const Instruction& w) {
  if (w.opcode() != Opcode::kWhile) return std::nullopt;
  if (std::optional<int64_t> known = w.known_trip_count()) return known;
  const Computation* cond = w.while_condition();
  const Computation* body = w.while_body();
  if (cond == nullptr || body == nullptr || w.operand_count() != 1) return std::nullopt;
  const Instruction* compare = cond->root();
  if (compare == nullptr || compare->opcode() != Opcode::kCompare ||
      compare->operand_count() != 2) {
    return std::nullopt;
  }
  // Normalize to `element OP bound`.
  ComparisonDirection dir = compare->comparison_direction();
  std::optional<int64_t> element = StateElement(compare->operand(0));
  std::optional<int64_t> bound = IntegerConstant(compare->operand(1));
  if (!element || !bound) {
    element = StateElement(compare->operand(1));
    bound = IntegerConstant(compare->operand(0));
    if (dir == ComparisonDirection::kGt) {
      dir = ComparisonDirection::kLt;
    } else if (dir == ComparisonDirection::kGe) {
      dir = ComparisonDirection::kLe;
    } else {
      return std::nullopt;
    }
  }
  if (!element || !bound) return std::nullopt;
  if (dir != ComparisonDirection::kLt && dir != ComparisonDirection::kLe) return std::nullopt;
  // init: tuple(..., constant(start), ...)
  const Instruction* init = w.operand(0);
  if (init->opcode() != Opcode::kTuple || *element >= init->operand_count()) return std::nullopt;
  std::optional<int64_t> start = IntegerConstantThroughCopies(init->operand(*element));
  if (!start) return std::nullopt;
  // body root: tuple(..., add(gte(param, k), constant(1)), ...)
  const Instruction* root = body->root();
  if (root == nullptr || root->opcode() != Opcode::kTuple || *element >= root->operand_count()) {
    return std::nullopt;
  }
  const Instruction* next = SkipCopies(root->operand(*element));
  if (next == nullptr || next->opcode() != Opcode::kAdd || next->operand_count() != 2) {
    return std::nullopt;
  }
  const bool counts =
      (StateElement(next->operand(0)) == element && IntegerConstant(next->operand(1)) == 1) ||
      (StateElement(next->operand(1)) == element && IntegerConstant(next->operand(0)) == 1);
  if (!counts) return std::nullopt;
  // s64 bounds far apart (start -2^63, bound 2^63-1) give a count past int64: unknown, not a
  // wrapped (negative, so 0) count.
  std::optional<int64_t> trips = CheckedSub(*bound, *start);
  if (trips && dir == ComparisonDirection::kLe) trips = CheckedAdd(*trips, 1);
  if (!trips) return std::nullopt;
  return std::max<int64_t>(*trips, 0);
}

}  // namespace hloscope
