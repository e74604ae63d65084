// Buffers that an asynchronous operation still owns: XLA's copy insertion never copies them.
//
// A send, recv or copy-start hands its buffer to a transfer that runs until the matching
// *-done. When a loop pipelines such an operation (the start in one iteration, the done in the
// next: XLA's partially pipelined send/recv), the loop state carries the pending buffer. A copy
// of it would read bytes the transfer has not written yet (or leave the transfer writing into a
// buffer nobody reads), so XLA's copy insertion adds no copy of such an element. What keeps the
// buffer safe instead is order: the *-done that finishes the previous iteration's transfer must
// run before the *-start that hands the buffer out again, and XLA adds that control edge where
// the dependencies do not already imply it.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "analysis/dataflow.h"
#include "hlo/instruction.h"

namespace hloscope {

// Whether `instr` starts a transfer whose result buffers stay in flight until its *-done:
// send, recv, copy-start.
bool StartsInFlightBuffer(const Instruction& instr);

// Whether `first` runs before `second` by the dependencies alone (operands and control
// predecessors, transitively).
bool RunsBefore(const Instruction* first, const Instruction* second);

// Whether any of `values` is defined by such an instruction (the pending buffer itself, not a
// merge of it).
bool HoldsInFlightBuffer(const DataflowAnalysis& flow, absl::Span<const ValueId> values);

// The transfers whose result holds element `index` of `holder` (a while's init, a body's root):
// a start whose whole result (its tuple) is at `index` or at a tuple above it. One array of a
// start's result held alone (recv-done's data, once the transfer is done) is copyable. A send's data element
// forwards the send's operand, yet it belongs to the transfer until send-done as the rest of
// the send's tuple does: XLA treats every element of an in-flight start's result as
// non-copyable (copy_insertion.cc, IsNonCopyableInWhileInit).
std::vector<Instruction*> InFlightStartsAt(const DataflowAnalysis& flow, const Instruction& holder,
                                           const ShapeIndex& index);

// XLA's copy into a transfer: a start that hands its operand's buffer to the transfer (send's
// data) reads a copy of it when the transfer is pipelined through a loop,
// so that the loop state never holds the operand's own buffer while the transfer owns it.
// `start` reads the copy; inside the loop body, `done` (the previous iteration's *-done) runs
// before the copy is taken. Null done: a start before the loop, nothing to wait for.
struct TransferOperandCopy {
  Instruction* start;
  Instruction* done;
};
// Whether `start` hands its operand 0 (an array) to the transfer: send and copy-start (whose
// result forwards the operand as its source element). XLA's AddCopiesForNonCopyableTransitions
// copies the operand of both alike, and its copy removal has no rule that tells them apart
// (copy_removal.cc asks IsAsynchronousOperationStart, true for both), so it keeps or removes
// such a copy of a copy-start as it does a send's.
bool TransfersOperand(const Instruction& start);
// Whether `start`'s result is carried into a loop (a tuple that a while takes, or a
// computation's root): the transfer runs across iterations.
bool IsPipelinedTransfer(const Instruction& start);
// The pipelined transfer that reads `copy` as the operand it hands over, or null: XLA's
// copy-removal keeps such a copy while its source is still read elsewhere.
const Instruction* TransferReadingCopy(const Instruction& copy);
// The copies into transfers that loop state element `index` of `xla_while` (in flight) needs:
// each start in the while's computation whose result the init holds there (no done), and each
// start of `edges` (done, start: DoneBeforeStartEdges) in the body, after its done. Starts
// that do not hand over their operand are left out; each start is listed once.
std::vector<TransferOperandCopy> TransferOperandCopies(
    const DataflowAnalysis& flow, const Instruction& xla_while, const ShapeIndex& index,
    absl::Span<const std::pair<Instruction*, Instruction*>> edges);

// XLA's placement where a non-copyable chain starts in a loop body: a Pin custom-call reads the
// body parameter's element `index` (a get-tuple-element of it) and gets its own copy, the
// transition into the chain (copy-insertion's in-place operand copy). The element then needs
// no parameter copy: XLA keeps the Pin's copy and the body root's copy, and the element's other
// readers read the parameter's element itself (NonCopyableOneChainInsideWhileLoop). True when
// that holds and every reader comes before the root copy at the body's end: none depends on
// what the root holds at `index`, and the body's text order (its schedule, when scheduled)
// lists every reader before the root.
bool PinnedLoopElement(const Instruction& xla_while, const ShapeIndex& index);
// Whether `c` has a Pin custom-call (cheap, once per loop body, before PinnedLoopElement is
// asked of each element of a large loop state).
bool StartsNonCopyableChain(const Computation& c);

// The (done, start) pairs of the loop state element at `index` of `xla_while`'s body: each
// *-done reading it, with each *-start that writes the body's result at `index`; the done
// must run first. Pairs the dependencies already order are included (the start may still
// need a transition copy of the done's data, read later); a pair whose start feeds its done
// (an edge would close a cycle) is left out.
std::vector<std::pair<Instruction*, Instruction*>> DoneBeforeStartEdges(
    const DataflowAnalysis& flow, const Instruction& xla_while, const ShapeIndex& index);

}  // namespace hloscope
