// The async-start of a chain that may cross a while loop: XLA's
// HloAsyncInstruction::async_chain_start (FindAsyncChainStart, FindAsyncChainProducer and
// FindAsyncChainDataflow in xla/hlo/ir/hlo_instructions.cc at ROCm/xla
// 183fa00cb5d82384463a1a7aed1ab06bc9026974). A chain carried through a loop reaches its
// async-done (or a later async-update) through the loop state: a get-tuple-element of the
// while, the body's parameter, the tuple the body returns. hlo/async_chain.h follows operand 0
// only and gives nullptr there; this follows the dataflow as XLA does:
//  - get-tuple-element: the element of its operand; tuple: the operand the element names (with
//    no element named, the first operand that leads to one); a one-operand opt-barrier and a
//    copy: their operand;
//  - a while body's parameter (the body of exactly one while): the while's operand, then the
//    body's root (the value one iteration hands the next);
//  - a while: its body's root, then its operand.
// The first async-start or async-update met is the producer; from an update, the search goes
// on from its operand 0 until an async-start. XLA also steps over custom-calls it allows
// between chain ops (IsAllowedAsyncIntermediaryCustomCall); this does not.
//
//   const Instruction* start = FindAsyncChainStartAcrossLoops(*done);  // nullptr: none
#pragma once

#include "hlo/instruction.h"

namespace hloscope {

// The async-start of `op`'s chain (`op` an async-start, -update or -done), or nullptr when
// none is found (or the search passes its step budget, a guard against hostile nests).
const Instruction* FindAsyncChainStartAcrossLoops(const Instruction& op);

// Whether `op`'s chain reaches its async-start only through a loop: operand 0 links do not
// lead to it, the dataflow search does.
bool AsyncChainCrossesLoop(const Instruction& op);

}  // namespace hloscope
