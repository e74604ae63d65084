// Control edges that passes add (copy-insertion orders in-flight buffers and loop readers,
// copy-elision orders loop readers): the edge, and the attribute the printer writes it under.
#pragma once

namespace hloscope {

class Instruction;

// Adds the control edge `before` -> `after`, printed as after's control-predecessors={...}.
void AddPrintedControlEdge(Instruction* before, Instruction* after);

}  // namespace hloscope
