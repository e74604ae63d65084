#include "analysis/memory/instruction_sequence.h"

#include <algorithm>
#include <cstdint>
#include <utility>

namespace hloscope {

std::vector<const Instruction*> InstructionSequence(const Computation& computation,
                                                    bool scheduled) {
  absl::Span<Instruction* const> instrs = computation.instructions();
  std::vector<const Instruction*> order;
  order.reserve(instrs.size());
  if (scheduled) {
    order.assign(instrs.begin(), instrs.end());
    return order;
  }
  // Position in the text; instructions of other computations (never operands, but be safe)
  // are not placed.
  // Indexed by unique_id (dense per module), -1 for instructions of other computations.
  uint32_t max_id = 0;
  for (const Instruction* in : instrs) max_id = std::max(max_id, in->unique_id());
  std::vector<int64_t> text_pos(instrs.empty() ? 0 : max_id + 1, -1);
  for (size_t i = 0; i < instrs.size(); ++i) {
    text_pos[instrs[i]->unique_id()] = static_cast<int64_t>(i);
  }
  enum : uint8_t { kNew, kOpen, kDone };
  std::vector<uint8_t> state(instrs.size(), kNew);
  // Explicit stack of (instruction position, next predecessor to look at).
  std::vector<std::pair<int64_t, size_t>> stack;
  auto predecessor = [&](const Instruction* in, size_t k) -> const Instruction* {
    size_t n = static_cast<size_t>(in->operand_count());
    if (k < n) return in->operand(static_cast<int64_t>(k));
    return in->control_predecessors()[k - n];
  };
  for (size_t root = 0; root < instrs.size(); ++root) {
    if (state[root] != kNew) continue;
    stack.push_back({static_cast<int64_t>(root), 0});
    state[root] = kOpen;
    while (!stack.empty()) {
      auto& [pos, next] = stack.back();
      const Instruction* in = instrs[static_cast<size_t>(pos)];
      const size_t preds =
          static_cast<size_t>(in->operand_count()) + in->control_predecessors().size();
      bool pushed = false;
      while (next < preds) {
        const Instruction* p = predecessor(in, next++);
        const int64_t at = p->unique_id() <= max_id ? text_pos[p->unique_id()] : -1;
        if (at < 0 || instrs[static_cast<size_t>(at)] != p ||
            state[static_cast<size_t>(at)] != kNew) {
          continue;
        }
        state[static_cast<size_t>(at)] = kOpen;
        stack.push_back({at, 0});
        pushed = true;
        break;
      }
      if (pushed) continue;
      state[static_cast<size_t>(pos)] = kDone;
      order.push_back(in);
      stack.pop_back();
    }
  }
  return order;
}

}  // namespace hloscope
