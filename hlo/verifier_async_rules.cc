// Step 3 of the verifier, continued: async pairs. A -start returns what its -done needs, so
// every -done is checked against the shape of its operand (the -start, or whatever carries its
// value, such as a get-tuple-element out of a while loop):
//  - async-done, all-gather-done and collective-permute-done return element 1 of it;
//  - copy-done returns element 0 (copy-start gives destination, source and a u32[] context);
//  - all-reduce-done returns all of it (all-reduce-start returns all-reduce's shape), or
//    element 1 of the (operands, results) form XLA's MHLO import tests write.
// async-start returns ((operands...), result, context...), where the result is the root of the
// wrapped computation (`calls=`) when the text names one; then element 0 has one slot per
// parameter of that computation and the operands fill the first slots (late-bound async: fewer
// operands than parameters, as XLA accepts). async-update returns its operand.
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

absl::Status CheckAsyncDone(const Instruction& instr, const VerifierOptions& options) {
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
  return CheckDone(instr, -1, options);
}

// With a wrapped computation, element 0 holds one slot per parameter of that computation
// (XLA's CheckAsyncOpComputationShapes) and the operands fill the first slots: an async-start
// may have fewer operands than the computation has parameters, the rest being bound later
// (late-bound async; XLA's HandleAsyncStart checks only the operands it has).
absl::Status CheckWrappedAsyncStart(const Instruction& instr, const Computation& wrapped,
                                    const VerifierOptions& options) {
  const std::string kind(instr.PrintedOpcode());
  const Shape& slots = *instr.shape().tuple_elements[0];
  const int64_t params = wrapped.parameter_count();
  if (!slots.IsTuple() || static_cast<int64_t>(slots.tuple_elements.size()) != params) {
    return InstrError(
        instr,
        StrCat(kind, " element 0 shape ", ShapeText(slots), " is not a tuple of the ",
               Count(params, "parameter", "parameters"), " of computation '", wrapped.name(), "'"));
  }
  if (instr.operand_count() > params) {
    return InstrError(instr,
                      StrCat(kind, " has ", Count(instr.operand_count(), "operand", "operands"),
                             " but computation '", wrapped.name(), "' has only ",
                             Count(params, "parameter", "parameters")));
  }
  for (int64_t i = 0; i < params; ++i) {
    const Instruction& param = *wrapped.parameter(i);
    const Shape& slot = *slots.tuple_elements[i];
    if (i < instr.operand_count() && !ShapesAgree(slot, instr.operand(i)->shape(), options)) {
      return InstrError(
          instr, StrCat(kind, " element {0,", i, "} shape ", ShapeText(slot), " does not match ",
                        OperandRef(instr, i), " shape ", ShapeText(instr.operand(i)->shape())));
    }
    if (!ShapesAgree(slot, param.shape(), options)) {
      return InstrError(param,
                        StrCat(kind, " parameter ", i, " shape ", ShapeText(param.shape()),
                               " does not match element {0,", i, "} shape ", ShapeText(slot)));
    }
  }
  const Instruction& root = *wrapped.root();
  const Shape& result = *instr.shape().tuple_elements[1];
  if (!root.shape().Compatible(result)) {
    return InstrError(
        root, StrCat(kind, " root shape ", ShapeText(root.shape()), " does not match ", kind,
                     " element 1 shape ", ShapeText(result)));
  }
  return absl::OkStatus();
}

absl::Status CheckAsyncStart(const Instruction& instr, const VerifierOptions& options) {
  const Shape& out = instr.shape();
  if (!out.IsTuple() || out.tuple_elements.size() < 2) {
    return InstrError(instr, StrCat(instr.PrintedOpcode(), " shape ", ShapeText(out),
                                    " is not a tuple of (operands), result and context"));
  }
  // A wrapped op written as sugar (`custom-call-start(...)` without calls=) has no computation
  // in the text: its operands are all there.
  const Computation* wrapped = instr.fused_computation();
  if (wrapped != nullptr) return CheckWrappedAsyncStart(instr, *wrapped, options);
  return CheckFirstOperandsShapesAt(instr, *out.tuple_elements[0], 0, instr.operand_count(),
                                    "operands'", options);
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
