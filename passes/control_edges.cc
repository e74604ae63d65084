#include "passes/control_edges.h"

#include "hlo/instruction.h"

namespace hloscope {

void AddPrintedControlEdge(Instruction* before, Instruction* after) {
  after->AddControlPredecessor(before);
  if (after->FindAttribute(kAttrControlPredecessors) == nullptr) {
    Attribute printed;  // where the printer writes control-predecessors={...}
    printed.key = kAttrControlPredecessors;
    printed.is_control_predecessors = true;
    InstructionBuilder(after).AddAttribute(printed);
  }
}

}  // namespace hloscope
