// Control edges that passes add (copy-insertion orders in-flight buffers and loop readers,
// copy-elision orders loop readers and unordered readers before writers): the edge, and the
// attribute the printer writes it under.
#pragma once

namespace hloscope {

class Instruction;

// Adds the control edge `before` -> `after`, printed as after's control-predecessors={...}.
void AddPrintedControlEdge(Instruction* before, Instruction* after);

// Removes the control edge `before` -> `after` if there is one (a pass taking back an edge it
// tried). `after` keeps its other edges and the order of its control predecessors; it moves to
// the end of the predecessor lists of its own successors, which changes no ordering.
void RemoveControlEdge(Instruction* before, Instruction* after);

// Whether `before` -> `after` is a control edge.
bool HasControlEdge(const Instruction& before, const Instruction& after);

}  // namespace hloscope
