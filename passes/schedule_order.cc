#include "passes/schedule_order.h"

#include <cstddef>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "hlo/computation.h"
#include "hlo/instruction.h"
#include "hlo/module.h"

namespace hloscope {

bool RestoreScheduleOrder(Computation& computation) {
  const auto instrs = computation.instructions();
  std::vector<Instruction*> order;
  order.reserve(instrs.size());
  absl::flat_hash_set<const Instruction*> placed;
  placed.reserve(instrs.size());
  // Depth-first over operands and control predecessors, iteratively (a long chain of pulled
  // instructions must not overflow the stack): an instruction goes out once all it needs has.
  struct Frame {
    Instruction* instr;
    size_t next;  // operands first, then control predecessors
  };
  std::vector<Frame> stack;
  auto place = [&](Instruction* first) {
    if (placed.contains(first)) return;
    stack.push_back({first, 0});
    while (!stack.empty()) {
      Frame& f = stack.back();
      const size_t operands = f.instr->operands().size();
      const size_t deps = operands + f.instr->control_predecessors().size();
      if (f.next < deps) {
        Instruction* dep = f.next < operands ? f.instr->operand(static_cast<int64_t>(f.next))
                                             : f.instr->control_predecessors()[f.next - operands];
        ++f.next;
        if (dep->parent() == &computation && !placed.contains(dep)) stack.push_back({dep, 0});
        continue;
      }
      if (placed.insert(f.instr).second) order.push_back(f.instr);
      stack.pop_back();
    }
  };
  for (Instruction* instr : instrs) place(instr);
  bool changed = false;
  for (size_t k = 0; k < order.size() && !changed; ++k) changed = order[k] != instrs[k];
  if (!changed) return false;
  // MoveAllBefore applies a whole order in one pass: each instruction anchored before the next,
  // the last one at the end.
  std::vector<std::pair<Instruction*, Instruction*>> moves;
  moves.reserve(order.size());
  for (size_t k = 0; k < order.size(); ++k) {
    moves.emplace_back(order[k], k + 1 < order.size() ? order[k + 1] : nullptr);
  }
  computation.MoveAllBefore(moves);
  return true;
}

bool RestoreScheduleOrder(Module& module) {
  if (!module.is_scheduled()) return false;
  bool changed = false;
  for (Computation* c : module.computations()) changed = RestoreScheduleOrder(*c) || changed;
  return changed;
}

}  // namespace hloscope
