// Where a late-bound async chain runs its wrapped computation: the first op of the chain that
// has bound every parameter and the result, as XLA's HloLiveRange flattens the computation
// there (IsFirstFullyBound, xla/hlo/analysis/hlo_live_range.cc at ROCm/xla
// 183fa00cb5d82384463a1a7aed1ab06bc9026974) and its evaluator runs it there. Before that op
// the computation cannot run: a parameter it reads is bound later.
//
//   if (const Instruction* at = AsyncChainRunsAt(*start)) ... order the body at `at` ...
#pragma once

#include "hlo/instruction.h"

namespace hloscope {

// For an async-start of the plain form (`async-start(...), calls=`): the start itself when it
// binds everything, else the first async-update (following users that read the previous op as
// operand 0) that does, else the async-done; nullptr when the chain ends before a done (a chain
// carried out of its computation, a malformed one) or `start` is no such async-start.
const Instruction* AsyncChainRunsAt(const Instruction& start);

// Whether `root`, the root of the wrapped computation of the plain async-start `start`, writes
// its output `root_index` into its operand `operand_number` at `operand_index` because the
// start says so: an output_to_operand_aliasing entry {1, root_index...}: (p, operand_index)
// with that operand being the computation's parameter p. The chain computes that result in
// the operand's buffer (XLA's alias_info pairs the chain's operand with it), so the root's
// write is in place even when the root itself (a custom-call without aliasing, say) has no
// in-place pair.
bool WrappedRootWritesInPlace(const Instruction& start, const Instruction& root,
                              int64_t operand_number, const ShapeIndex& operand_index,
                              const ShapeIndex& root_index);

}  // namespace hloscope
