// A computation: a named list of instructions with one root. The list order is the text order,
// which is the schedule when the module has is_scheduled=true.
#pragma once

#include <string_view>
#include <utility>
#include <vector>

#include "absl/types/span.h"
#include "hlo/arena_vector.h"
#include "hlo/instruction.h"

namespace hloscope {

class Module;

class Computation {
 public:
  Computation(std::string_view name, Module* module) : name_(name), module_(module) {}
  Computation(const Computation&) = delete;
  Computation& operator=(const Computation&) = delete;

  std::string_view name() const { return name_; }
  Module* module() const { return module_; }
  bool is_entry() const { return is_entry_; }
  Instruction* root() const { return root_; }
  // Instructions in order (dead ones removed by RemoveInstruction are not listed).
  absl::Span<Instruction* const> instructions() const { return instructions_; }
  int64_t instruction_count() const { return static_cast<int64_t>(instructions_.size()); }
  // Parameters by parameter number (parameters_[i]->parameter_number() == i).
  absl::Span<Instruction* const> parameters() const { return parameters_; }
  Instruction* parameter(int64_t i) const { return parameters_[static_cast<size_t>(i)]; }
  int64_t parameter_count() const { return static_cast<int64_t>(parameters_.size()); }
  // `execution_thread="..."` written after the closing brace; empty for the main thread.
  std::string_view execution_thread() const { return execution_thread_; }
  // Whether the text gave the computation a signature, `name (p: f32[]) -> f32[] {` (the
  // printer writes the canonical form either way; flatten-call-graph's clones keep the flag).
  bool had_signature() const { return had_signature_; }

  // Appends an instruction created by Module::CreateInstruction to this computation.
  void AddInstruction(Instruction* instr);
  void set_root(Instruction* root) { root_ = root; }
  void set_is_entry(bool v) { is_entry_ = v; }
  void set_execution_thread(std::string_view t) { execution_thread_ = t; }
  void set_had_signature(bool v) { had_signature_ = v; }
  // Registers `instr` as parameter number instr->parameter_number(); fails on a duplicate.
  bool SetParameter(Instruction* instr);
  // Removes an instruction with no users that is not the root; its operands lose it as a user.
  // Returns false (and changes nothing) when it has users, is the root, or is not ours.
  // Removal only marks the instruction; CompactInstructions() drops marked ones in one sweep.
  [[nodiscard]] bool RemoveInstruction(Instruction* instr);
  // Drops removed instructions from the list (RemoveInstruction only marks them).
  void CompactInstructions();
  // Inserts `instr` (already appended) right before `before` in the order.
  void MoveBefore(Instruction* instr, Instruction* before);
  // MoveBefore for many instructions in one pass over the list (MoveBefore scans the list each
  // time): each (instr, before) pair puts an appended instruction right before `before`, in the
  // order given; `before` may itself be one of them, and null leaves `instr` at the end.
  void MoveAllBefore(absl::Span<const std::pair<Instruction*, Instruction*>> moves);

 private:
  friend class Module;  // memory accounting reads the lists' storage
  std::string_view name_;
  Module* module_;
  // Storage comes from the module's arena (see ArenaVector): most computations are reducers
  // of a few instructions, and a heap block per list was a measurable part of parsing.
  ArenaVector<Instruction*, 1> instructions_;
  ArenaVector<Instruction*, 1> parameters_;
  Instruction* root_ = nullptr;
  std::string_view execution_thread_;
  bool is_entry_ = false;
  bool had_signature_ = false;
  bool needs_compaction_ = false;
};

// Runs ahead of a sweep over every instruction of a list of computations, in order, and
// prefetches one cache line of each instruction `distance` instructions before the sweep
// reaches it (call Advance() once per instruction swept). A whole-module sweep at a million
// instructions is bound by loading each instruction once; most computations are a dozen
// instructions, so a prefetch inside one computation cannot run far enough ahead, and the
// cursor crosses into the next computations. A hint only: a stale position prefetches a
// useless line, never reads out of bounds.
class InstructionPrefetcher {
 public:
  // `line`: which 64-byte line of an Instruction the sweep reads (instruction.h orders its
  // fields by line).
  InstructionPrefetcher(absl::Span<Computation* const> computations, size_t line, size_t distance)
      : computations_(computations), offset_(line * 64) {
    for (size_t i = 0; i < distance; ++i) Advance();
  }
  void Advance() {
    while (next_computation_ < computations_.size()) {
      absl::Span<Instruction* const> instrs = computations_[next_computation_]->instructions();
      if (next_instruction_ < instrs.size()) {
        __builtin_prefetch(reinterpret_cast<const char*>(instrs[next_instruction_++]) + offset_);
        return;
      }
      // Entering the next computation: the chain computation -> instruction list ->
      // instruction is started early too, the object three computations ahead and the list
      // (from an object prefetched two entries ago) one ahead.
      ++next_computation_;
      next_instruction_ = 0;
      const size_t n = computations_.size();
      if (next_computation_ + 3 < n) __builtin_prefetch(computations_[next_computation_ + 3]);
      if (next_computation_ + 1 < n) {
        __builtin_prefetch(computations_[next_computation_ + 1]->instructions().data());
      }
    }
  }

 private:
  absl::Span<Computation* const> computations_;
  size_t offset_;
  size_t next_computation_ = 0;
  size_t next_instruction_ = 0;
};

}  // namespace hloscope
