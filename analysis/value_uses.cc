#include "analysis/value_uses.h"

#include <utility>

#include "hlo/computation.h"

namespace hloscope {

UsedPositions PositionsUsedBy(UseNotion notion, Opcode user) {
  switch (notion) {
    case UseNotion::kValueRead:
      return ForwardsOperands(user) ? UsedPositions::kNone : UsedPositions::kAny;
    case UseNotion::kBufferTouch:
      return user == Opcode::kTuple || user == Opcode::kGetTupleElement ? UsedPositions::kTopLevel
                                                                        : UsedPositions::kAny;
  }
  return UsedPositions::kAny;
}

bool IsUse(UseNotion notion, const Instruction& user, int64_t k, const ShapeIndex& index,
           bool bitcast_defines_value) {
  switch (PositionsUsedBy(notion, user.opcode())) {
    case UsedPositions::kNone:
      return false;
    case UsedPositions::kTopLevel:
      return index.empty();
    case UsedPositions::kAny:
      break;
  }
  if (notion == UseNotion::kBufferTouch) return true;
  switch (user.opcode()) {
    case Opcode::kBitcast:  // an alias passes its operand on
      return bitcast_defines_value || !index.empty();
    case Opcode::kCopy:  // a copy defines only its top-level buffer
      return index.empty();
    case Opcode::kAddDependency:  // operand 0 passes on; operand 1 is read for ordering
      return k != 0;
    default:
      return true;
  }
}

std::vector<std::vector<ValueUse>> ComputeValueUses(const DataflowAnalysis& flow,
                                                    UseNotion notion) {
  std::vector<std::vector<ValueUse>> uses(flow.values().size());
  const bool bitcast_defines = flow.options().bitcast_defines_value;
  std::vector<std::pair<const Instruction*, int64_t>> reads;
  for (const Computation* c : flow.module().computations()) {
    for (const Instruction* instr : c->instructions()) {
      // The (user, operand) pairs that may read a position of `instr`. Users that use none of
      // what they read (tuple, get-tuple-element, ... under kValueRead) are left out here:
      // that keeps a wide loop state linear, its while having one position and one
      // get-tuple-element user per element.
      reads.clear();
      bool any_beyond_top = false;
      for (const Instruction* user : instr->users()) {
        const UsedPositions used = PositionsUsedBy(notion, user->opcode());
        if (used == UsedPositions::kNone) continue;
        any_beyond_top = any_beyond_top || used == UsedPositions::kAny;
        for (int64_t k = 0; k < user->operand_count(); ++k) {
          if (user->operand(k) == instr) reads.push_back({user, k});
        }
      }
      if (reads.empty()) continue;
      const int32_t positions = any_beyond_top ? flow.PositionCount(*instr) : 1;
      for (int32_t p = 0; p < positions; ++p) {
        absl::Span<const ValueId> values = flow.ValuesAtPosition(*instr, p);
        if (values.empty()) continue;
        ShapeIndex index;
        if (p != 0) index = flow.IndexAt(*instr, p);
        for (ValueId v : values) {
          for (const auto& [user, k] : reads) {
            if (IsUse(notion, *user, k, index, bitcast_defines))
              uses[v].push_back({user, k, index});
          }
        }
      }
    }
  }
  return uses;
}

}  // namespace hloscope
