// Step 3 of the verifier, continued: ops that move data to or from outside the computation and
// order themselves with tokens.
//  - send(data, token) returns (data, u32[] context, token[]); send-done returns token[].
//  - recv(token) returns (data, u32[] context, token[]); recv-done returns (data, token[]),
//    the data of its operand (the recv, or a value carrying it through a loop).
//  - infeed(token) returns (data, token[]); outfeed(data, token) returns token[] (its
//    outfeed_shape attribute is kept as text and not compared).
// The token operands themselves are not checked: XLA's tests pass other values where the
// order does not matter.
#include <cstdint>
#include <string>

#include "hlo/verifier_internal.h"
#include "support/str_util.h"

namespace hloscope::verifier_internal {
namespace {

bool IsTupleOf(const Shape& s, size_t n) { return s.IsTuple() && s.tuple_elements.size() == n; }

absl::Status NotForm(const Instruction& instr, std::string_view form) {
  return InstrError(
      instr, StrCat(instr.PrintedOpcode(), " shape ", ShapeText(instr.shape()), " is not ", form));
}

absl::Status RequireToken(const Instruction& instr) {
  if (instr.shape().IsToken()) return absl::OkStatus();
  return NotForm(instr, "token[]");
}

// send and recv-done pass their data on unconverted: XLA's ShapeVerifier::CheckShape compares
// their shapes with ShapesSame, mixed precision or not (xla/service/hlo_verifier.cc), and the
// interpreter copies the bytes as they are (an f16 recv read as f32 overran its buffer).
VerifierOptions ExactTypes(const VerifierOptions& options) {
  VerifierOptions exact = options;
  exact.allow_mixed_precision = false;
  return exact;
}

absl::Status CheckSend(const Instruction& instr, const VerifierOptions& options) {
  const Shape& out = instr.shape();
  const Shape& data = instr.operand(0)->shape();
  if (IsTupleOf(out, 3) && ShapesAgree(*out.tuple_elements[0], data, ExactTypes(options)) &&
      IsScalarOf(*out.tuple_elements[1], PrimitiveType::kU32) && out.tuple_elements[2]->IsToken()) {
    return absl::OkStatus();
  }
  return NotForm(instr,
                 StrCat("(", ShapeText(data), ", u32[], token[]) for ", OperandRef(instr, 0)));
}

absl::Status CheckRecv(const Instruction& instr, const VerifierOptions&) {
  const Shape& out = instr.shape();
  if (IsTupleOf(out, 3) && IsScalarOf(*out.tuple_elements[1], PrimitiveType::kU32) &&
      out.tuple_elements[2]->IsToken()) {
    return absl::OkStatus();
  }
  return NotForm(instr, "(data, u32[], token[])");
}

absl::Status CheckRecvDone(const Instruction& instr, const VerifierOptions& options) {
  const Shape& out = instr.shape();
  const Shape& recv = instr.operand(0)->shape();
  if (!IsTupleOf(out, 2) || !out.tuple_elements[1]->IsToken()) {
    return NotForm(instr, "(data, token[])");
  }
  if (IsTupleOf(recv, 3) &&
      !ShapesAgree(*out.tuple_elements[0], *recv.tuple_elements[0], ExactTypes(options))) {
    return InstrError(instr,
                      StrCat("recv-done element 0 shape ", ShapeText(*out.tuple_elements[0]),
                             " does not match element 0 shape ", ShapeText(*recv.tuple_elements[0]),
                             " of ", OperandRef(instr, 0)));
  }
  return absl::OkStatus();
}

absl::Status CheckInfeed(const Instruction& instr, const VerifierOptions&) {
  const Shape& out = instr.shape();
  if (IsTupleOf(out, 2) && out.tuple_elements[1]->IsToken()) return absl::OkStatus();
  return NotForm(instr, "(data, token[])");
}

absl::Status CheckTokenResult(const Instruction& instr, const VerifierOptions&) {
  return RequireToken(instr);
}

}  // namespace

ShapeRule TokenShapeRule(Opcode op) {
  switch (op) {
    case Opcode::kSend:
      return CheckSend;
    case Opcode::kSendDone:
      return CheckTokenResult;
    case Opcode::kRecv:
      return CheckRecv;
    case Opcode::kRecvDone:
      return CheckRecvDone;
    case Opcode::kInfeed:
      return CheckInfeed;
    case Opcode::kOutfeed:
      return CheckTokenResult;
    default:
      return nullptr;
  }
}

}  // namespace hloscope::verifier_internal
