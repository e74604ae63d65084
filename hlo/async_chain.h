// Late-bound async chains (XLA's docs/async_ops.md, "Late Binding"): an async-start may bind
// only the first K of its wrapped computation's N parameters; each async-update after it binds
// the next ones with its operands after the first (left to right), and element 0 of every
// shape in the chain is the tuple of the operands bound so far. The result (element 1) may be
// `()` until an update or the done binds it, or, for a tuple result, a prefix of it bound so
// far (IsAsyncShapePrefix), and the context elements may change shape along the chain.
//
//   const Computation* w = AsyncChainComputation(*update);   // the start's calls=
//   AsyncBinding b = FindAsyncParameterBinding(*start, 3);     // who binds parameter 3
//   if (b.binder != nullptr) ... b.binder->operand(b.operand_number) ...
//
// The verifier (verifier_async_rules.cc) and the dataflow (analysis/dataflow_rules.cc) read
// the chain through these.
#pragma once

#include <cstdint>

#include "absl/functional/function_ref.h"
#include "hlo/computation.h"
#include "hlo/instruction.h"

namespace hloscope {

// The wrapped computation of an async-start (its calls=, or the callee of a `call-start`), or
// of the start an async-update / async-done reads through a chain of async-updates; nullptr
// when the chain does not reach such a start (another `<op>-start` written as sugar, or a
// value carried through a loop).
const Computation* AsyncChainComputation(const Instruction& op);

// How many parameters an async-start / -update has bound: the elements of its element 0;
// -1 when its shape is not a tuple whose element 0 is a tuple.
int64_t AsyncBoundCount(const Instruction& op);

// Whether a shape is the `()` of a result not bound yet.
bool IsUnboundAsyncResult(const Shape& shape);

// Whether `prefix` is what a chain may have bound of `shape` so far, as XLA's verifier reads it
// (ShapeUtil::IsPrefix, xla/shape_util.cc at ROCm/xla 183fa00cb5): `same` holds for them, or
// `prefix` is `()`, or both are tuples and each element of `prefix` is, in order, a prefix of
// the element of `shape` at its index. A tuple result is so bound one element at a time:
// `()`, then `(f32[3])`, then `(f32[3], f32[3])` (XLA's AsyncUpdate_BindOutput_Tuple).
bool IsAsyncShapePrefix(const Shape& prefix, const Shape& shape,
                        absl::FunctionRef<bool(const Shape&, const Shape&)> same);

struct AsyncBinding {
  const Instruction* binder = nullptr;  // the start or update binding the parameter
  int64_t operand_number = -1;          // its operand holding the parameter's value
};
// Which instruction of the chain starting at `start` binds parameter `n`: the start for
// n < its operand count, else the async-update (the first user of the chain, at each step,
// that is an async-update reading it as operand 0) whose operands after the first fill slot n.
// {nullptr, -1} when no update of the chain binds it.
AsyncBinding FindAsyncParameterBinding(const Instruction& start, int64_t n);

}  // namespace hloscope

namespace hloscope {

// The fused computation that `in` runs on its own operands (operand i as the body's parameter
// i), or nullptr: a fusion's calls=, and an async fusion's in either form XLA writes it. XLA
// has one async fusion, an async-start whose wrapped computation is parameters and a fusion of
// them; its printer may show it as `fusion-start(...), calls=body` (the short form) or as
// `async-start(...), calls=%async_computation` with the fusion inside (the long form, what
// current XLA:GPU dumps print, while our proto reader builds the short form). The analyses
// ask this so that both forms give one answer.
const Computation* FusedComputationRunBy(const Instruction& in);

// Whether `c` could be the wrapped computation of a long-form async fusion: only parameters
// and a fusion of them in order. Analyses that step over fusion bodies step over such a
// computation of an async-start too (its fusion is the start's).
bool IsAsyncFusionWrapper(const Computation& c);

}  // namespace hloscope
