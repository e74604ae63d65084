#include "passes/control_edges.h"

#include <algorithm>
#include <vector>

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

void RemoveControlEdge(Instruction* before, Instruction* after) {
  if (!HasControlEdge(*before, *after)) return;
  // Instruction offers only RemoveAllControlEdges: take all of `after`'s edges off and put back
  // every one but this.
  const std::vector<Instruction*> preds(after->control_predecessors().begin(),
                                        after->control_predecessors().end());
  const std::vector<Instruction*> succs(after->control_successors().begin(),
                                        after->control_successors().end());
  after->RemoveAllControlEdges();
  for (Instruction* p : preds) {
    if (p != before) after->AddControlPredecessor(p);
  }
  for (Instruction* s : succs) s->AddControlPredecessor(after);
}

bool HasControlEdge(const Instruction& before, const Instruction& after) {
  const auto preds = after.control_predecessors();
  return std::find(preds.begin(), preds.end(), &before) != preds.end();
}

}  // namespace hloscope
