// Step 3 of the verifier, continued: async pairs. A -start returns what its -done needs, so
// every -done is checked against the shape of its operand (the -start, or whatever carries its
// value, such as a get-tuple-element out of a while loop):
//  - async-done, all-gather-done and collective-permute-done return element 1 of it;
//  - copy-done returns element 0 (copy-start gives destination, source and a u32[] context);
//  - all-reduce-done returns all of it (all-reduce-start returns all-reduce's shape), or
//    element 1 of the (operands, results) form XLA's MHLO import tests write.
// async-start returns ((operands...), result, context...), where the result is the root of the
// wrapped computation (`calls=`) when the text names one; async-update returns its operand.
// Late binding (XLA's async chains): an async-start may bind fewer operands than its
// computation has parameters (and leave the result `()`); each async-update then binds its
// operands after the first, appended to the operand tuple, and the update (or the done) that
// completes the chain carries the result.
// copy-start returns (operand, operand, u32[]). The collectives' -start rules are in
// verifier_collective_rules.cc.
//
// Old HLO (and XLA's MHLO export tests) wrote all-gather-start and collective-permute-start
// returning the collective's result itself, not a tuple; a -done of such an operand returns
// the operand's shape.
#include <cstdint>
#include <string>

#include "hlo/str_util.h"
#include "hlo/verifier_internal.h"

namespace hloscope::verifier_internal {
namespace {

// Element `k` of an async value, or the value itself in the old non-tuple form.
const Shape& AsyncElement(const Shape& s, int64_t k) {
  if (k >= 0 && s.IsTuple() && k < static_cast<int64_t>(s.tuple_elements.size())) {
    return *s.tuple_elements[k];
  }
  return s;
}

absl::Status CheckDone(const Instruction& instr, int64_t element, const VerifierOptions& options) {
  const Shape& started = instr.operand(0)->shape();
  const Shape& expected = AsyncElement(started, element);
  if (ShapesAgree(instr.shape(), expected, options)) return absl::OkStatus();
  return InstrError(
      instr, StrCat(instr.PrintedOpcode(), " shape ", ShapeText(instr.shape()), " does not match ",
                    &expected == &started ? std::string() : StrCat("element ", element, " "),
                    "shape ", ShapeText(expected), " of ", OperandRef(instr, 0)));
}

// The computation an async chain wraps: named by the op itself or by the chain's async-start.
const Computation* ChainComputation(const Instruction& instr) {
  const Instruction* at = &instr;
  for (int guard = 0; at != nullptr && guard < 1 << 16; ++guard) {
    if (const Computation* c = at->fused_computation()) return c;
    if (at->opcode() == Opcode::kAsyncStart || at->operand_count() == 0) return nullptr;
    at = at->operand(0);
  }
  return nullptr;
}

bool IsEmptyTuple(const Shape& s) { return s.IsTuple() && s.tuple_elements.empty(); }

absl::Status CheckAsyncDone(const Instruction& instr, const VerifierOptions& options) {
  // Late binding: the result was not bound before the done; it is the wrapped root's.
  const Shape& started = instr.operand(0)->shape();
  const Computation* wrapped = ChainComputation(instr);
  if (IsEmptyTuple(AsyncElement(started, 1)) && wrapped != nullptr && wrapped->root() != nullptr &&
      ShapesAgree(instr.shape(), wrapped->root()->shape(), options)) {
    return absl::OkStatus();
  }
  return CheckDone(instr, 1, options);
}

absl::Status CheckCopyDone(const Instruction& instr, const VerifierOptions& options) {
  return CheckDone(instr, 0, options);
}

// all-reduce-done of the (operands, results) form of all-reduce-start returns element 1.
absl::Status CheckAllReduceDone(const Instruction& instr, const VerifierOptions& options) {
  const Shape& started = instr.operand(0)->shape();
  if (started.IsTuple() && started.tuple_elements.size() == 2 &&
      ShapesAgree(instr.shape(), *started.tuple_elements[1], options)) {
    return absl::OkStatus();
  }
  return CheckDone(instr, -1, options);
}

absl::Status CheckAsyncUpdate(const Instruction& instr, const VerifierOptions& options) {
  if (instr.operand_count() == 1) return CheckDone(instr, -1, options);
  // Late binding: the operands after the first join the operand tuple, after the earlier ones;
  // a result not bound before may be bound here (the wrapped root's shape); the rest passes on.
  const Shape& out = instr.shape();
  const Shape& before = instr.operand(0)->shape();
  auto mismatch = [&](std::string_view what) {
    return InstrError(
        instr, StrCat("async-update shape ", ShapeText(out), " ", what, ": ", OperandRef(instr, 0),
                      " has shape ", ShapeText(before), " and the update binds ",
                      Count(instr.operand_count() - 1, "operand", "operands")));
  };
  if (!out.IsTuple() || !before.IsTuple() ||
      out.tuple_elements.size() != before.tuple_elements.size() || out.tuple_elements.size() < 2) {
    return mismatch("is not a tuple like its operand's");
  }
  const Shape& bound = *out.tuple_elements[0];
  const Shape& earlier = *before.tuple_elements[0];
  const int64_t added = instr.operand_count() - 1;
  if (!bound.IsTuple() || !earlier.IsTuple() ||
      bound.tuple_elements.size() != earlier.tuple_elements.size() + static_cast<size_t>(added)) {
    return mismatch("does not append the operands it binds to element 0");
  }
  for (size_t i = 0; i < bound.tuple_elements.size(); ++i) {
    const Shape& want =
        i < earlier.tuple_elements.size()
            ? *earlier.tuple_elements[i]
            : instr.operand(static_cast<int64_t>(1 + i - earlier.tuple_elements.size()))->shape();
    if (!ShapesAgree(*bound.tuple_elements[i], want, options)) {
      return mismatch(StrCat("element {0,", i, "} does not match the operand bound there"));
    }
  }
  for (size_t k = 1; k < out.tuple_elements.size(); ++k) {
    if (ShapesAgree(*out.tuple_elements[k], *before.tuple_elements[k], options)) continue;
    const Computation* wrapped = ChainComputation(instr);
    if (k == 1 && IsEmptyTuple(*before.tuple_elements[1]) && wrapped != nullptr &&
        wrapped->root() != nullptr &&
        ShapesAgree(*out.tuple_elements[1], wrapped->root()->shape(), options)) {
      continue;
    }
    return mismatch(StrCat("element {", k, "} does not match its operand's"));
  }
  return absl::OkStatus();
}

absl::Status CheckAsyncStart(const Instruction& instr, const VerifierOptions& options) {
  const Shape& out = instr.shape();
  if (!out.IsTuple() || out.tuple_elements.size() < 2) {
    return InstrError(instr, StrCat(instr.PrintedOpcode(), " shape ", ShapeText(out),
                                    " is not a tuple of (operands), result and context"));
  }
  if (absl::Status s = CheckFirstOperandsShapesAt(instr, *out.tuple_elements[0], 0,
                                                  instr.operand_count(), "operands'", options);
      !s.ok()) {
    return s;
  }
  // A wrapped op written as sugar (`custom-call-start(...)` without calls=) has no computation
  // in the text.
  const Computation* wrapped = instr.fused_computation();
  if (wrapped == nullptr) return absl::OkStatus();
  const std::string kind(instr.PrintedOpcode());
  if (instr.operand_count() < wrapped->parameter_count()) {
    // Late binding: async-updates after the start bind the remaining parameters (and the
    // result, which is `()` until bound). The operands bound here must fit their parameters.
    for (int64_t i = 0; i < instr.operand_count(); ++i) {
      const Instruction& param = *wrapped->parameter(i);
      if (!param.shape().Compatible(instr.operand(i)->shape())) {
        return InstrError(param, StrCat(kind, " parameter ", i, " shape ", ShapeText(param.shape()),
                                        " does not match ", OperandRef(instr, i), " shape ",
                                        ShapeText(instr.operand(i)->shape())));
      }
    }
    const Shape& result = *out.tuple_elements[1];
    const bool unbound = result.IsTuple() && result.tuple_elements.empty();
    if (unbound || result.Compatible(wrapped->root()->shape())) return absl::OkStatus();
  }
  return CheckCallee(instr, wrapped, kind, "calls", *out.tuple_elements[1],
                     StrCat(kind, " element 1 shape"));
}

absl::Status CheckCopyStart(const Instruction& instr, const VerifierOptions& options) {
  const Shape& out = instr.shape();
  const Shape& in = instr.operand(0)->shape();
  const bool fits = out.IsTuple() && out.tuple_elements.size() == 3 &&
                    ShapesAgree(*out.tuple_elements[0], in, options) &&
                    ShapesAgree(*out.tuple_elements[1], in, options) &&
                    IsScalarOf(*out.tuple_elements[2], PrimitiveType::kU32);
  if (fits) return absl::OkStatus();
  return InstrError(instr, StrCat("copy-start shape ", ShapeText(out), " is not (", ShapeText(in),
                                  ", ", ShapeText(in), ", u32[]) for ", OperandRef(instr, 0)));
}

}  // namespace

ShapeRule AsyncShapeRule(Opcode op) {
  switch (op) {
    case Opcode::kAsyncStart:
      return CheckAsyncStart;
    case Opcode::kAsyncUpdate:
      return CheckAsyncUpdate;
    case Opcode::kAsyncDone:
    case Opcode::kAllGatherDone:
    case Opcode::kCollectivePermuteDone:
      return CheckAsyncDone;
    case Opcode::kAllReduceDone:
      return CheckAllReduceDone;
    case Opcode::kCopyStart:
      return CheckCopyStart;
    case Opcode::kCopyDone:
      return CheckCopyDone;
    default:
      return nullptr;
  }
}

}  // namespace hloscope::verifier_internal
