// Keeping a scheduled module's order a valid schedule after a pass added instructions.
//
// In a module marked is_scheduled=true each computation's instruction order is its schedule
// (XLA's parser builds the HloSchedule from it, and our ordering and memory profiler take it as
// the execution order), so every operand and control predecessor must come before its user. A
// pass that places new instructions by anchors can break that when one new instruction later
// becomes the operand of another placed earlier (copy-insertion's deep copies of a while
// body's parameter and root). XLA updates its schedule after such passes (HloSchedule::Update);
// this is our counterpart.
#pragma once

namespace hloscope {

class Computation;
class Module;

// Reorders `computation` so that every instruction comes after its operands and control
// predecessors, moving as little as possible: instructions keep their order, except that one
// found after a user is pulled to just before the first user that needs it (with whatever it
// needs in turn). Returns whether the order changed. The computation must be acyclic.
bool RestoreScheduleOrder(Computation& computation);

// RestoreScheduleOrder on every computation of a scheduled module (nothing otherwise).
// Returns whether any order changed.
bool RestoreScheduleOrder(Module& module);

}  // namespace hloscope
