#include "hlo/computation.h"

#include <algorithm>

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

void Computation::MoveBefore(Instruction* instr, Instruction* before) {
  auto it = std::find(instructions_.begin(), instructions_.end(), instr);
  if (it != instructions_.end()) instructions_.erase(it);
  auto pos = std::find(instructions_.begin(), instructions_.end(), before);
  instructions_.insert(pos, instr, module_->arena());
}

}  // namespace hloscope
