#include "hlo/computation.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "hlo/module.h"

namespace hloscope {

void Computation::AddInstruction(Instruction* instr) {
  // Most computations in real modules are reducers and comparators of a few instructions:
  // starting at four saves the 1 -> 2 -> 4 regrowth, a measurable part of parsing.
  StringArena& arena = module_->arena();
  if (instructions_.capacity() == 1) instructions_.reserve(4, arena);
  instructions_.push_back(instr, arena);
  module_->set_instruction_names_known_unique(false);
}

bool Computation::SetParameter(Instruction* instr) {
  int64_t n = instr->parameter_number();
  if (n < 0) return false;
  if (static_cast<size_t>(n) >= parameters_.size()) {
    StringArena& arena = module_->arena();
    parameters_.reserve(std::max<size_t>(4, static_cast<size_t>(n) + 1), arena);
    parameters_.resize(static_cast<size_t>(n) + 1, nullptr, arena);
  }
  if (parameters_[static_cast<size_t>(n)] != nullptr) return false;
  parameters_[static_cast<size_t>(n)] = instr;
  return true;
}

bool Computation::RemoveInstruction(Instruction* instr) {
  if (instr->user_count() > 0 || instr == root_ || instr->parent() != this) return false;
  instr->DetachOperands();
  instr->RemoveAllControlEdges();
  instr->parent_ = nullptr;
  needs_compaction_ = true;
  return true;
}

void Computation::CompactInstructions() {
  if (!needs_compaction_) return;
  instructions_.erase(std::remove_if(instructions_.begin(), instructions_.end(),
                                     [](Instruction* i) { return i->parent() == nullptr; }),
                      instructions_.end());
  needs_compaction_ = false;
}

void Computation::MoveAllBefore(absl::Span<const std::pair<Instruction*, Instruction*>> moves) {
  if (moves.empty()) return;
  absl::flat_hash_map<const Instruction*, std::vector<Instruction*>> before;
  absl::flat_hash_set<const Instruction*> moved;
  for (const auto& [instr, anchor] : moves) {
    moved.insert(instr);
    if (anchor != nullptr) before[anchor].push_back(instr);
  }
  std::vector<Instruction*> order;
  order.reserve(instructions_.size());
  absl::flat_hash_set<const Instruction*> emitted;
  // Iterative, so a long chain of anchors cannot overflow the stack: an instruction goes out
  // after everything anchored before it.
  auto emit = [&](Instruction* first) {
    std::vector<std::pair<Instruction*, size_t>> stack = {{first, 0}};
    while (!stack.empty()) {
      auto& [instr, next] = stack.back();
      auto it = before.find(instr);
      if (it != before.end() && next < it->second.size()) {
        Instruction* child = it->second[next++];
        if (!emitted.contains(child)) stack.push_back({child, 0});
        continue;
      }
      if (emitted.insert(instr).second) order.push_back(instr);
      stack.pop_back();
    }
  };
  for (Instruction* instr : instructions_) {
    if (!moved.contains(instr)) emit(instr);
  }
  for (const auto& [instr, anchor] : moves) {
    if (anchor == nullptr) emit(instr);
  }
  for (Instruction* instr : instructions_) {  // anchored to something not in the list
    if (!emitted.contains(instr)) emit(instr);
  }
  instructions_.clear();
  for (Instruction* instr : order) instructions_.push_back(instr, module_->arena());
}

void Computation::MoveBefore(Instruction* instr, Instruction* before) {
  auto it = std::find(instructions_.begin(), instructions_.end(), instr);
  if (it != instructions_.end()) instructions_.erase(it);
  auto pos = std::find(instructions_.begin(), instructions_.end(), before);
  instructions_.insert(pos, instr, module_->arena());
}

}  // namespace hloscope
