// Result shapes that XLA's HLO text parser builds itself instead of keeping the written one.
//
// For a few opcodes HloParserImpl::CreateInstruction (xla/hlo/parser/hlo_parser.cc at
// 183fa00cb5) calls an HloInstruction::Create* helper that takes no result shape: send,
// send-done, recv-done, outfeed, after-all and add-dependency get a shape made from their
// operands (or a fixed token[]), and recv and infeed keep only element 0 of the written tuple.
// A module whose written shapes do not fit therefore still verifies in XLA (hlo_verifier_test
// ChannelVerifierAsyncSend); our parser gives these instructions the same shapes so that the
// verifier and everything after it see what XLA sees. docs/parser.md has the audit table.
#pragma once

#include <string>

#include "hlo/module.h"

namespace hloscope {

// Whether XLA's parser replaces (all or part of) the written result shape of `op`.
bool ParserBuildsShape(Opcode op);

// Whether that shape depends on operand 0's shape (send, recv-done, add-dependency), so that
// it can only be built once operand 0 is known and shaped.
bool ParserShapeNeedsOperand(Opcode op);

// The shape XLA's parser gives `instr` (whose written shape is instr.shape()), interned in
// `module`; the written shape itself for opcodes XLA keeps it for. nullptr with *error set
// where XLA's parser rejects the instruction (recv or infeed written without a non-empty
// tuple shape) or would abort (recv-done of an operand that is not a tuple). Operand 0 must
// be linked and shaped when ParserShapeNeedsOperand; an instruction with no operand keeps
// its written shape (the verifier reports the operand count).
const Shape* ParserBuiltShape(const Instruction& instr, Module& module, std::string* error);

// Whether XLA's parser compares the instruction's channel_id with its operand 0's (send-done,
// recv-done): it refuses the instruction when operand 0 is a channel instruction (send, recv,
// their -done forms, the collectives) whose channel_id differs, a missing one included.
bool ParserChecksOperandChannel(Opcode op);

// Why XLA's parser refuses `instr` for that check, or "" when it does not. Operand 0 must be
// linked; `module` interns the attribute keys (the instruction may not be in its computation
// yet).
std::string ParserChannelMismatch(const Instruction& instr, const Module& module);

}  // namespace hloscope
