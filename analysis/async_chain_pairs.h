// In-place pairs along an async chain that an async-start's output_to_operand_aliasing implies,
// late-bound chains included (hlo/async_chain.h): XLA's AliasInfo::GetInPlaceInputOutputPairs
// for kAsyncStart / kAsyncUpdate / kAsyncDone (xla/hlo/analysis/alias_info.cc at ROCm/xla
// 183fa00cb5d82384463a1a7aed1ab06bc9026974). The start's entries name the wrapped computation's
// parameters and the chain's shape, so each instruction of the chain takes the entries that
// concern it:
//  - async-start: an entry whose parameter it binds, unless the result it names is `()` at the
//    start or the output index is not in the start's shape;
//  - async-update: an entry whose parameter it binds (its operand 1 + parameter - the number
//    bound before it), under the same two conditions against the update's shape;
//  - async-done: every entry naming the result ({1, r...}) whose r is in the done's shape pairs
//    the done's output r with its chain operand at {0, parameter, parameter index}, the element
//    the chain carries the bound operand in. This is what gives the done's result the buffer of
//    the operand aliased with it when the operand or the result is bound late.
//
//   std::vector<InPlacePair> pairs;
//   if (absl::Status s = AppendAsyncChainPairs(*done, pairs); !s.ok()) ...
//
// The short forms (`custom-call-start`, `fusion-start`) carry the wrapped op's aliasing, not
// the start's (in_place_pairs.cc reads them): their chains get no pairs here. An async-done
// whose chain crosses a while loop finds its start through the loop state, as XLA's
// async_chain_start() does (hlo/async_chain_start.h); a start or update that does not reach
// its async-start through operand 0 gets no pairs (XLA's update needs its operand 0 to be an
// async op, and for the bound-operand count walks the chain, which is left for later).
#pragma once

#include <vector>

#include "absl/status/status.h"
#include "analysis/in_place_pairs.h"
#include "hlo/instruction.h"

namespace hloscope {

// Appends the pairs above for an async-start, -update or -done (nothing for other opcodes).
// An entry XLA CHECK-fails on (an empty output index; an operand index the bound operand's
// shape does not have) is left out and reported as the returned error; the others are
// appended all the same.
absl::Status AppendAsyncChainPairs(const Instruction& instr, std::vector<InPlacePair>& out);

// The operands of an async-start or -update that bind a parameter its chain's start aliases
// with an output, whether or not that output is bound yet (sorted, once each). Copy insertion
// copies each: when the result is bound later, XLA's pairs put the done's result in the
// operand's buffer (async-done above) but name no operand of the binder to copy.
std::vector<int64_t> AsyncChainAliasedOperands(const Instruction& binder);

}  // namespace hloscope
