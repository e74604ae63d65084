// Step 3 of the verifier, continued: async pairs. A -start returns what its -done needs, so
// every -done is checked against the shape of its operand (the -start, or whatever carries its
// value, such as a get-tuple-element out of a while loop):
//  - async-done, all-gather-done and collective-permute-done return element 1 of it;
//  - copy-done returns element 0 (copy-start gives destination, source and a u32[] context);
//  - all-reduce-done returns all of it (all-reduce-start returns all-reduce's shape; the
//    (operands, results) form XLA's MHLO import tests write is rejected, as in XLA).
// async-start returns ((operands...), result, context...), where the result is the root of the
// wrapped computation (`calls=`) when the text names one. With a computation the chain may
// bind late (below, hlo/async_chain.h): element 0 holds the operands bound so far, element 1
// may be `()` until bound, the context may change. Otherwise async-update returns its operand.
// copy-start returns (operand, operand, u32[]). The collectives' -start rules are in
// verifier_collective_rules.cc.
//
// Old HLO (and XLA's MHLO export tests) wrote all-gather-start and collective-permute-start
// returning the collective's result itself, not a tuple; a -done of such an operand returns
// the operand's shape.
#include <cstdint>
#include <string>

#include "hlo/async_chain.h"
#include "hlo/attribute_values.h"
#include "hlo/shape_inference.h"
#include "hlo/verifier_internal.h"
#include "support/str_util.h"

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

// copy-start and copy-done move bytes unconverted: XLA's ShapeVerifier::CheckShape compares
// their shapes with ShapesSame, mixed precision or not (xla/service/hlo_verifier.cc), and the
// interpreter copies the operand's bytes (an f16 copy of an f32 operand overran its buffer).
VerifierOptions ExactTypes(const VerifierOptions& options) {
  VerifierOptions exact = options;
  exact.allow_mixed_precision = false;
  return exact;
}

absl::Status CheckCopyDone(const Instruction& instr, const VerifierOptions& options) {
  return CheckDone(instr, 0, ExactTypes(options));
}

// all-reduce-done returns its operand's shape (InferAllReduceDoneShape in XLA).
absl::Status CheckAllReduceDone(const Instruction& instr, const VerifierOptions& options) {
  return CheckDone(instr, -1, options);
}

// Late binding (hlo/async_chain.h, XLA's docs/async_ops.md): with a wrapped computation,
// element 0 of a start or update is the tuple of the operands bound so far (parameters
// 0..K-1, each of the parameter's shape), element 1 the computation's result or `()` until
// bound, and the context elements after them may change along the chain.

// Element 1 of a start or update: the wrapped root's shape, `()` not bound yet, or a prefix of
// a tuple result bound so far (IsAsyncShapePrefix; XLA's CheckAsyncOpComputationShapes).
absl::Status CheckAsyncResultSlot(const Instruction& instr, const Computation& wrapped,
                                  const std::string& kind) {
  const Shape& result = *instr.shape().tuple_elements[1];
  const Instruction& root = *wrapped.root();
  const auto compatible = [](const Shape& a, const Shape& b) { return a.Compatible(b); };
  if (IsAsyncShapePrefix(result, root.shape(), compatible)) return absl::OkStatus();
  const char* what = result.IsTuple() && root.shape().IsTuple()
                         ? " does not match, nor begin with, "
                         : " does not match ";
  return InstrError(root, StrCat(kind, " root shape ", ShapeText(root.shape()), what, kind,
                                 " element 1 shape ", ShapeText(result)));
}

// Slot i of element 0 has parameter i's shape.
absl::Status CheckSlotParameter(const Instruction& instr, const Computation& wrapped, int64_t i,
                                const std::string& kind, const VerifierOptions& options) {
  const Instruction& param = *wrapped.parameter(i);
  const Shape& slot = *instr.shape().tuple_elements[0]->tuple_elements[i];
  if (ShapesAgree(slot, param.shape(), options)) return absl::OkStatus();
  return InstrError(param, StrCat(kind, " parameter ", i, " shape ", ShapeText(param.shape()),
                                  " does not match element {0,", i, "} shape ", ShapeText(slot)));
}

// Element 0 is a tuple of at most the computation's parameter count.
absl::Status CheckSlots(const Instruction& instr, const Computation& wrapped,
                        const std::string& kind) {
  const Shape& slots = *instr.shape().tuple_elements[0];
  const int64_t params = wrapped.parameter_count();
  if (!slots.IsTuple()) {
    return InstrError(instr, StrCat(kind, " element 0 shape ", ShapeText(slots),
                                    " is not a tuple of the operands bound to computation '",
                                    wrapped.name(), "'"));
  }
  if (static_cast<int64_t>(slots.tuple_elements.size()) > params) {
    return InstrError(
        instr, StrCat(kind, " element 0 shape ", ShapeText(slots), " binds ",
                      slots.tuple_elements.size(), " operands but computation '", wrapped.name(),
                      "' has only ", Count(params, "parameter", "parameters")));
  }
  return absl::OkStatus();
}

absl::Status CheckWrappedAsyncStart(const Instruction& instr, const Computation& wrapped,
                                    const VerifierOptions& options) {
  const std::string kind(instr.PrintedOpcode());
  if (instr.operand_count() > wrapped.parameter_count()) {
    return InstrError(instr,
                      StrCat(kind, " has ", Count(instr.operand_count(), "operand", "operands"),
                             " but computation '", wrapped.name(), "' has only ",
                             Count(wrapped.parameter_count(), "parameter", "parameters")));
  }
  if (absl::Status s = CheckSlots(instr, wrapped, kind); !s.ok()) return s;
  const Shape& slots = *instr.shape().tuple_elements[0];
  if (static_cast<int64_t>(slots.tuple_elements.size()) != instr.operand_count()) {
    return InstrError(instr, StrCat(kind, " element 0 shape ", ShapeText(slots),
                                    " is not a tuple of the shapes of its ",
                                    Count(instr.operand_count(), "operand", "operands")));
  }
  for (int64_t i = 0; i < instr.operand_count(); ++i) {
    const Shape& slot = *slots.tuple_elements[i];
    if (!ShapesAgree(slot, instr.operand(i)->shape(), options)) {
      return InstrError(
          instr, StrCat(kind, " element {0,", i, "} shape ", ShapeText(slot), " does not match ",
                        OperandRef(instr, i), " shape ", ShapeText(instr.operand(i)->shape())));
    }
    if (absl::Status s = CheckSlotParameter(instr, wrapped, i, kind, options); !s.ok()) return s;
  }
  return CheckAsyncResultSlot(instr, wrapped, kind);
}

// `dot-start(lhs, rhs)` wraps a dot with the start's dimension numbers and element 1 as its
// result; XLA's parser builds that computation and its verifier checks the dot like any other
// (HandleDot; hlo_parser_test's DesugarParsingTest_DotStart gives a dot without contracting
// dimensions an f32[128,128] result). Other sugar-wrapped ops are not checked here.
absl::Status CheckSugarDot(const Instruction& instr) {
  if (instr.async_wrapped_opcode() != Opcode::kDot || instr.operand_count() != 2) {
    return absl::OkStatus();
  }
  const Shape& lhs = instr.operand(0)->shape();
  const Shape& rhs = instr.operand(1)->shape();
  const Shape& result = *instr.shape().tuple_elements[1];
  if (!lhs.IsArray() || !rhs.IsArray() || !result.IsArray()) return absl::OkStatus();
  const DotDimensionNumbers dnums = ReadDotDimensionNumbers(instr);
  if (!DotDimensionsInRange(lhs, rhs, dnums)) {
    return InstrError(instr, StrCat(instr.PrintedOpcode(), " dimension numbers do not fit lhs ",
                                    ShapeText(lhs), " and rhs ", ShapeText(rhs)));
  }
  const Shape dot = InferDotShape(lhs, rhs, dnums, result.element_type);
  if (DimsAre(result, dot.dims)) return absl::OkStatus();
  return InstrError(
      instr, StrCat(instr.PrintedOpcode(), " element 1 shape ", ShapeText(result),
                    " does not match ", ShapeText(ExpectedArray(result.element_type, dot.dims)),
                    " (its wrapped dot: batch dimensions, then the free dimensions "
                    "of lhs and rhs)"));
}

// XLA's rule for an async-start's own output_to_operand_aliasing (CheckAsyncStartAliasConfig in
// xla/service/hlo_verifier.cc at ROCm/xla 183fa00cb5): the entries are read against the whole
// chain, not the start alone. The operand number is a parameter of the wrapped computation
// (bound by the start or by a later update), and the output index one of the chain's shape
// ((all parameters), the computation's result, the start's context...), which is non-empty.
// A late-bound start may therefore alias a parameter it does not bind yet, or a result it
// writes `()` for.
absl::Status CheckChainAliasing(const Instruction& instr, const Computation& wrapped) {
  const Shape& start = instr.shape();
  const int64_t params = wrapped.parameter_count();
  auto chain_text = [&] {
    std::string params_text;
    for (int64_t i = 0; i < params; ++i) {
      params_text += StrCat(i == 0 ? "" : ", ", ShapeText(wrapped.parameter(i)->shape()));
    }
    std::string text = StrCat("((", params_text, "), ", ShapeText(wrapped.root()->shape()));
    for (size_t i = 2; i < start.tuple_elements.size(); ++i) {
      text += StrCat(", ", ShapeText(*start.tuple_elements[i]));
    }
    return text + ")";
  };
  for (const OperandAlias& alias : instr.output_to_operand_aliasing()) {
    const std::string entry = StrCat(instr.PrintedOpcode(), " output_to_operand_aliasing entry ",
                                     ShapeIndexToString(alias.output_index), ": (", alias.operand,
                                     ", ", ShapeIndexToString(alias.operand_index), ")");
    if (alias.operand < 0 || alias.operand >= params) {
      return InstrError(instr,
                        StrCat(entry, " names parameter ", alias.operand, ", but computation '",
                               wrapped.name(), "' has ", Count(params, "parameter", "parameters")));
    }
    const Shape& param = wrapped.parameter(alias.operand)->shape();
    const Shape* from = Subshape(param, alias.operand_index);
    if (from == nullptr) {
      return InstrError(
          instr,
          StrCat(entry, " names shape index ", ShapeIndexToString(alias.operand_index),
                 " of parameter ", alias.operand, " shape ", ShapeText(param), ", which has none"));
    }
    const ShapeIndex& out = alias.output_index;
    if (out.empty()) {
      return InstrError(instr, StrCat(entry, " names the whole chain, not an element of it"));
    }
    const ShapeIndex rest(out.begin() + 1, out.end());
    const Shape* to = nullptr;
    if (out[0] == 0 && !rest.empty() && rest[0] >= 0 && rest[0] < params) {
      to = Subshape(wrapped.parameter(rest[0])->shape(), ShapeIndex(rest.begin() + 1, rest.end()));
    } else if (out[0] == 0 && rest.empty()) {
      // The tuple of all the parameters, which no parameter's subshape can equal.
      return InstrError(
          instr, StrCat(entry, " aliases output {0}, the tuple of the parameters of computation '",
                        wrapped.name(), "', with ", ShapeText(*from), ": the shapes differ"));
    } else if (out[0] == 1) {
      to = Subshape(wrapped.root()->shape(), rest);
    } else if (out[0] >= 2) {
      to = Subshape(start, out);
    }
    if (to == nullptr) {
      return InstrError(instr, StrCat(entry, " names output shape index ", ShapeIndexToString(out),
                                      " of the chain's shape ", chain_text(), ", which has none"));
    }
    if (!to->Compatible(*from)) {
      return InstrError(instr, StrCat(entry, " aliases output ", ShapeText(*to), " with ",
                                      ShapeText(*from), ": the shapes differ"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckAsyncStart(const Instruction& instr, const VerifierOptions& options) {
  const Shape& out = instr.shape();
  if (!out.IsTuple() || out.tuple_elements.size() < 2) {
    return InstrError(instr, StrCat(instr.PrintedOpcode(), " shape ", ShapeText(out),
                                    " is not a tuple of (operands), result and context"));
  }
  // XLA's verifier checks the aliasing of the custom-call or fusion it wraps; ours are the
  // start's own attribute, of the wrapped op's result at element {1} (in_place_pairs.cc).
  const Opcode wrapped_op = instr.async_wrapped_opcode();
  const bool aliasing_is_wrapped_ops =
      wrapped_op == Opcode::kCustomCall || wrapped_op == Opcode::kFusion;
  // A wrapped op written as sugar (`custom-call-start(...)` without calls=) has no computation
  // in the text: its operands are all there.
  const Computation* wrapped = AsyncChainComputation(instr);
  absl::Status aliasing =
      wrapped != nullptr && !aliasing_is_wrapped_ops
          ? CheckChainAliasing(instr, *wrapped)
          : CheckOperandAliasing(instr, aliasing_is_wrapped_ops ? ShapeIndex{1} : ShapeIndex{});
  if (!aliasing.ok()) return aliasing;
  if (wrapped != nullptr) return CheckWrappedAsyncStart(instr, *wrapped, options);
  if (absl::Status s = CheckFirstOperandsShapesAt(instr, *out.tuple_elements[0], 0,
                                                  instr.operand_count(), "operands'", options);
      !s.ok()) {
    return s;
  }
  return CheckSugarDot(instr);
}

// An async-update of a chain with a computation: it keeps the slots bound before it, binds the
// next ones with its operands after the first (and, with one operand more, the result buffer),
// keeps a bound result, and may change the context.
absl::Status CheckLateBoundUpdate(const Instruction& instr, const Computation& wrapped,
                                  const VerifierOptions& options) {
  const std::string kind(instr.PrintedOpcode());
  const Instruction& prev = *instr.operand(0);
  const Shape& out = instr.shape();
  if (!out.IsTuple() || out.tuple_elements.size() < 2) {
    return InstrError(instr, StrCat(kind, " shape ", ShapeText(out),
                                    " is not a tuple of (operands), result and context"));
  }
  if (absl::Status s = CheckSlots(instr, wrapped, kind); !s.ok()) return s;
  const int64_t before = AsyncBoundCount(prev);
  if (before < 0) {
    return InstrError(
        instr, StrCat(kind, " reads ", OperandRef(instr, 0), " of shape ", ShapeText(prev.shape()),
                      ", not an async value with a tuple of bound operands"));
  }
  const int64_t after = AsyncBoundCount(instr);
  const int64_t extra = instr.operand_count() - 1;
  if (after < before || extra < after - before || extra > after - before + 1) {
    return InstrError(
        instr, StrCat(kind, " element 0 binds ", Count(after, "operand", "operands"), " and ",
                      OperandRef(instr, 0), " ", before, ", but the update has ",
                      Count(extra, "operand", "operands"), " after its first to bind them"));
  }
  const Shape& prev_slots = *prev.shape().tuple_elements[0];
  for (int64_t i = 0; i < after; ++i) {
    const Shape& slot = *out.tuple_elements[0]->tuple_elements[i];
    const Shape& from =
        i < before ? *prev_slots.tuple_elements[i] : instr.operand(1 + i - before)->shape();
    if (!ShapesAgree(slot, from, options)) {
      return InstrError(
          instr,
          StrCat(kind, " element {0,", i, "} shape ", ShapeText(slot), " does not match ",
                 i < before ? StrCat("element {0,", i, "} of ") : std::string(),
                 OperandRef(instr, i < before ? 0 : 1 + i - before), " shape ", ShapeText(from)));
    }
    if (absl::Status s = CheckSlotParameter(instr, wrapped, i, kind, options); !s.ok()) return s;
  }
  // What the operand has bound of the result stays bound: a prefix of this element 1 (XLA's
  // CheckAsyncUpdateOperands), all of it once the result is whole.
  const Shape& prev_result = *prev.shape().tuple_elements[1];
  const Shape& result = *out.tuple_elements[1];
  const auto agree = [&](const Shape& a, const Shape& b) { return ShapesAgree(a, b, options); };
  if (!IsAsyncShapePrefix(prev_result, result, agree)) {
    const bool whole = wrapped.root()->shape().Compatible(prev_result);
    const char* what = whole ? " does not match the result " : " does not extend the result ";
    return InstrError(
        instr, StrCat(kind, " element 1 shape ", ShapeText(result), what, ShapeText(prev_result),
                      " already bound by ", OperandRef(instr, 0)));
  }
  if (extra == after - before + 1) {  // the last operand is the result's buffer
    const int64_t last = instr.operand_count() - 1;
    const Shape& buffer = instr.operand(last)->shape();
    if (!IsUnboundAsyncResult(prev_result)) {
      return InstrError(
          instr, StrCat(kind, " binds ", OperandRef(instr, last), " as the result buffer, but ",
                        OperandRef(instr, 0), " has bound the result already"));
    }
    if (!ShapesAgree(result, buffer, options)) {
      return InstrError(
          instr, StrCat(kind, " binds ", OperandRef(instr, last), " shape ", ShapeText(buffer),
                        " as the result buffer of element 1 shape ", ShapeText(result)));
    }
  }
  return CheckAsyncResultSlot(instr, wrapped, kind);
}

// Without a computation to bind to (sugar, or a value carried through a loop), an update binds
// nothing: it keeps its operand's elements {0} (the operands) and {1} (the result), and may
// drop, add or change context elements {2}, ...: XLA's verifier compares only those two
// elements along a chain and leaves the context to the backend (CheckAsyncUpdateOperands in
// xla/service/hlo_verifier.cc at ROCm/xla 183fa00cb5; its dataflow tests
// AsyncUpdate{Drops,Adds,Changes}Context verify such updates).
absl::Status CheckUnboundUpdate(const Instruction& instr, const VerifierOptions& options) {
  const Shape& out = instr.shape();
  const Shape& in = instr.operand(0)->shape();
  const bool async_tuples = out.IsTuple() && in.IsTuple() && out.tuple_elements.size() >= 2 &&
                            in.tuple_elements.size() >= 2;
  if (!async_tuples) return CheckDone(instr, -1, options);
  for (int64_t k = 0; k < 2; ++k) {
    const Shape& kept = *in.tuple_elements[k];
    const Shape& own = *out.tuple_elements[k];
    if (ShapesAgree(own, kept, options)) continue;
    return InstrError(instr, StrCat(instr.PrintedOpcode(), " element ", k, " shape ",
                                    ShapeText(own), " does not match element ", k, " shape ",
                                    ShapeText(kept), " of ", OperandRef(instr, 0),
                                    k == 0 ? " (it binds no operands)" : " (it binds no result)"));
  }
  return absl::OkStatus();
}

// An async-update's own output_to_operand_aliasing may only alias its context with the previous
// async value's context: operand 0, both indices under element {2} (XLA's
// CheckAsyncUpdateAliasConfig in xla/service/hlo_verifier.cc at ROCm/xla 183fa00cb5).
absl::Status CheckUpdateAliasing(const Instruction& instr) {
  const Shape& prev = instr.operand(0)->shape();
  for (const OperandAlias& alias : instr.output_to_operand_aliasing()) {
    const std::string entry = StrCat(instr.PrintedOpcode(), " output_to_operand_aliasing entry ",
                                     ShapeIndexToString(alias.output_index), ": (", alias.operand,
                                     ", ", ShapeIndexToString(alias.operand_index), ")");
    if (alias.operand != 0) {
      return InstrError(instr, StrCat(entry, " names operand ", alias.operand,
                                      ": an async-update aliases only operand 0, the async value "
                                      "before it"));
    }
    const Shape* from = Subshape(prev, alias.operand_index);
    if (alias.operand_index.empty() || alias.operand_index[0] != 2 || from == nullptr) {
      return InstrError(
          instr, StrCat(entry, " names shape index ", ShapeIndexToString(alias.operand_index),
                        " of ", OperandRef(instr, 0), " shape ", ShapeText(prev),
                        ", not an element of its context ({2, ...})"));
    }
    const Shape* to = Subshape(instr.shape(), alias.output_index);
    if (alias.output_index.empty() || alias.output_index[0] != 2 || to == nullptr) {
      return InstrError(
          instr, StrCat(entry, " names output shape index ", ShapeIndexToString(alias.output_index),
                        " of shape ", ShapeText(instr.shape()),
                        ", not an element of its context ({2, ...})"));
    }
    if (!to->Compatible(*from)) {
      return InstrError(instr, StrCat(entry, " aliases output ", ShapeText(*to), " with ",
                                      ShapeText(*from), ": the shapes differ"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckAsyncUpdate(const Instruction& instr, const VerifierOptions& options) {
  if (absl::Status s = CheckUpdateAliasing(instr); !s.ok()) return s;
  const Computation* wrapped = AsyncChainComputation(instr);
  // XLA compares the elements by ShapesSame.
  if (wrapped == nullptr) return CheckUnboundUpdate(instr, ExactTypes(options));
  return CheckLateBoundUpdate(instr, *wrapped, ExactTypes(options));
}

// The generic async-done: every parameter is bound by then; it returns the bound result, or,
// when none was bound, the computation's result.
// XLA's HandleAsyncDone compares the result with the start's element 1 by ShapesSame: the
// done hands that value on unconverted (an f64 done of an f32 negate-start was read past its
// bytes).
absl::Status CheckGenericAsyncDone(const Instruction& instr, const VerifierOptions& options) {
  const Computation* wrapped = AsyncChainComputation(instr);
  if (wrapped == nullptr) return CheckDone(instr, 1, ExactTypes(options));
  const std::string kind(instr.PrintedOpcode());
  const Instruction& prev = *instr.operand(0);
  const int64_t bound = AsyncBoundCount(prev);
  if (bound >= 0 && bound != wrapped->parameter_count()) {
    return InstrError(instr, StrCat(kind, " reads ", OperandRef(instr, 0), ", which binds ",
                                    Count(bound, "operand", "operands"), " of the ",
                                    Count(wrapped->parameter_count(), "parameter", "parameters"),
                                    " of computation '", wrapped->name(), "'"));
  }
  // A result not bound, or bound only in part (a prefix of a tuple result), before the done:
  // the done binds the rest, and returns the whole root (XLA compares every async-done with
  // the computation's result).
  const Shape& prev_shape = prev.shape();
  const Shape& root = wrapped->root()->shape();
  if (prev_shape.IsTuple() && prev_shape.tuple_elements.size() >= 2 &&
      !root.Compatible(*prev_shape.tuple_elements[1])) {
    const bool none = IsUnboundAsyncResult(*prev_shape.tuple_elements[1]);
    if (root.Compatible(instr.shape())) return absl::OkStatus();
    return InstrError(
        instr, StrCat(kind, " shape ", ShapeText(instr.shape()), " does not match the root shape ",
                      ShapeText(root), " of computation '", wrapped->name(), "' (",
                      none ? "no result" : "only a part of the result", " bound before it)"));
  }
  return CheckDone(instr, 1, ExactTypes(options));
}

absl::Status CheckCopyStart(const Instruction& instr, const VerifierOptions& options) {
  const Shape& out = instr.shape();
  const Shape& in = instr.operand(0)->shape();
  const bool fits = out.IsTuple() && out.tuple_elements.size() == 3 &&
                    ShapesAgree(*out.tuple_elements[0], in, ExactTypes(options)) &&
                    ShapesAgree(*out.tuple_elements[1], in, ExactTypes(options)) &&
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
      return CheckGenericAsyncDone;
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
