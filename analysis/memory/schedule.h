// The order in which a computation's instructions run, for the memory profiler (and, with
// scheduled=false, the interpreter in eval, which needs operands first whatever the text).
//
//   std::vector<const Instruction*> order = ScheduleOf(*computation);
//
// A module marked `is_scheduled=true` runs in text order. Otherwise the order is text order
// adjusted to be topological: before an instruction are placed, depth-first in operand order,
// its operands and control predecessors that the text lists later. Text that is already
// topological comes back unchanged, so the order is deterministic and close to what a reader
// sees. Linear in instructions plus edges; no recursion (chains can be very long).
#pragma once

#include <vector>

#include "hlo/computation.h"

namespace hloscope {

std::vector<const Instruction*> ScheduleOf(const Computation& computation, bool scheduled);

}  // namespace hloscope
