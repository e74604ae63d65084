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

// The (done, start) pairs of the loop state element at `index` of `xla_while`'s body: each
// *-done reading it, with each *-start that writes the body's result at `index`; the done
// must run first. Pairs the dependencies already order are included (the start may still
// need a transition copy of the done's data, read later); a pair whose start feeds its done
// (an edge would close a cycle) is left out.
std::vector<std::pair<Instruction*, Instruction*>> DoneBeforeStartEdges(
    const DataflowAnalysis& flow, const Instruction& xla_while, const ShapeIndex& index);

}  // namespace hloscope
