// The sequence in which one computation's instructions run, one after another, for the memory
// profiler (and, with scheduled=false, the interpreter in eval, which needs operands first
// whatever the text).
//
//   std::vector<const Instruction*> order = InstructionSequence(*computation, scheduled);
//
// Three notions of order, not to be confused: this one is a total order of one computation's
// instructions (the profiler steps through it); ExecutionOrdering (analysis/ordering.h) is a
// partial order over a whole module's instructions, answering whether one surely finishes
// before another starts (copy-elision's question: unordered pairs may overlap); and
// pipeline::Schedule (pipeline/schedule.h) is no HLO at all, but each pipeline rank's sequence
// of forward/backward actions over stages and microbatches.
// A module marked `is_scheduled=true` runs in text order. Otherwise the order is text order
// adjusted to be topological: before an instruction are placed, depth-first in operand order,
// its operands and control predecessors that the text lists later. Text that is already
// topological comes back unchanged, so the order is deterministic and close to what a reader
// sees. Linear in instructions plus edges; no recursion (chains can be very long).
#pragma once

#include <vector>

#include "hlo/computation.h"

namespace hloscope {

std::vector<const Instruction*> InstructionSequence(const Computation& computation, bool scheduled);

}  // namespace hloscope
