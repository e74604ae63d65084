// Which operand reads are uses of a dataflow value: one place for the rule both liveness
// notions read, and one computation of each value's uses.
//
//   std::vector<std::vector<ValueUse>> uses = ComputeValueUses(flow, UseNotion::kValueRead);
//   for (const ValueUse& u : uses[v]) ...   // (user, operand number, index in the operand)
//
// A use is (user, operand k, index): `user` reads operand k at `index` while the value sits
// there, as XLA's HloValue::GetUses. What the opcode alone decides is in the opcode table
// (hlo/opcodes.def: kOpForwardsOperands); the rest (operand number, index, the bitcast
// option) is here. The two notions differ on purpose (the named difference):
//  - kValueRead (copy-elision's ValueLiveness): a read of the value's contents. Instructions
//    that only pass it on do not read it: tuple, get-tuple-element, domain and opt-barrier at
//    any index, a bitcast that is an alias at {}, a copy at a nested index (it copies only the
//    top-level buffer), add-dependency's operand 0. The value's readers are then the readers
//    of those instructions' positions, which hold it too.
//  - kBufferTouch (the memory profiler's buffer live range): every operand position the
//    instruction reads when it runs, so a buffer stays allocated up to it; tuple and
//    get-tuple-element read only their operand's top-level index table ({}), whose elements
//    are read by whoever uses the forwarded values.
// Against XLA's MayUseOperandValue (xla/service/hlo_value.cc): XLA counts a
// get-tuple-element's and a copy's read at {} and nothing nested, no read by tuple or domain,
// and every other read (opt-barrier and add-dependency included). kValueRead leaves out
// get-tuple-element at {} too (the index table is never a value copy-elision merges) and
// opt-barrier and add-dependency's operand 0 (they pass the value on: its readers are theirs);
// kBufferTouch counts tuple and get-tuple-element at {} and domain and opt-barrier everywhere
// (the profiler keeps the buffer live through them). Unifying the two would move reported
// peaks or copy-elision's decisions; they stay as they are (docs/analyses.md).
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/dataflow.h"

namespace hloscope {

struct ValueUse {
  const Instruction* instruction = nullptr;
  int64_t operand_number = 0;
  ShapeIndex operand_index;
};

enum class UseNotion : uint8_t {
  kValueRead,    // copy-elision's value liveness
  kBufferTouch,  // the memory profiler's buffer live ranges
};

// Which positions of an operand `user` may use, by opcode alone: none, the top level only, or
// any (then IsUse decides per index). Lets a walk over a wide tuple's users stay linear.
enum class UsedPositions : uint8_t { kNone, kTopLevel, kAny };
UsedPositions PositionsUsedBy(UseNotion notion, Opcode user);

// Whether `user` reading operand `k` at `index` uses the value there. `bitcast_defines_value`
// as DataflowOptions: a bitcast that defines a value reads its operand.
bool IsUse(UseNotion notion, const Instruction& user, int64_t k, const ShapeIndex& index,
           bool bitcast_defines_value);

// Each value's uses under `notion`, by ValueId, with the analysis's bitcast option. Ordered by
// computation, instruction, position, user and operand number (the module's order), so the
// first use a caller reports is stable.
std::vector<std::vector<ValueUse>> ComputeValueUses(const DataflowAnalysis& flow, UseNotion notion);

}  // namespace hloscope
