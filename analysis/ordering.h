// Execution ordering: whether one instruction of a module finishes before another starts.
//
//   absl::StatusOr<std::unique_ptr<ExecutionOrdering>> o = ExecutionOrdering::Run(module);
//   if ((*o)->ExecutesBefore(*read, *update)) ...   // `read` is done before `update` runs
//
// Within one computation:
//  - sequential (the module says `is_scheduled=true`): the text order is the schedule, so a
//    runs before b when it comes first;
//  - dependency order (otherwise): a runs before b only when b depends on a through operands
//    or control predecessors, transitively; instructions that do not depend on each other are
//    unordered (ExecutesBefore is false both ways).
//  In both, a parameter runs before every instruction of its computation that is not one.
// Across computations, both instructions are mapped to their ancestors in the innermost
// computation holding both (a computation's ancestor is its calling instruction, for callees
// with exactly one caller of any kind), and those are compared. When both map to the same
// while instruction, the condition runs before the body (one iteration's view). Anything
// that cannot be mapped (shared reducers, unrelated computations) is unordered.
//
// Cost: one topological numbering of every computation at Run. Reachability in dependency
// order is answered from a bitset of ancestors per instruction for computations of up to
// kBitsetLimit instructions (built on first query, at most 512 KiB each), and by a backward search
// bounded by the topological numbering for larger ones, so a 1M-instruction entry costs no
// quadratic memory. The analysis holds pointers into the module, which must outlive it. A pass may
// remove instructions (a removed one must not be queried again) and redirect uses from an
// instruction to one of its operands; both keep the answers for the others true.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "hlo/module.h"

namespace hloscope {

class ExecutionOrdering {
 public:
  // Computations up to this many instructions answer reachability from bitsets.
  static constexpr int64_t kBitsetLimit = 2048;

  // Fails when a computation has a cycle through operands and control predecessors.
  static absl::StatusOr<std::unique_ptr<ExecutionOrdering>> Run(const Module& module);

  bool sequential() const { return sequential_; }

  // a finishes before b starts (false for a == b).
  bool ExecutesBefore(const Instruction& a, const Instruction& b) const;

  // The one instruction calling `c` (while, conditional, call, fusion, reduce, ...), or
  // nullptr for the entry and for computations called from several places.
  const Instruction* CallerOf(const Computation& c) const;
  // `instr` is in `c` or in a computation called (transitively, through unique callers) from
  // an instruction of `c`.
  bool IsNestedIn(const Instruction& instr, const Computation& c) const;
  // Position of `instr` in its computation: schedule index (sequential) or topological index
  // (dependency order). Operands and control predecessors always come first.
  int64_t Position(const Instruction& instr) const { return position_[instr.unique_id()]; }

 private:
  ExecutionOrdering() = default;

  bool BeforeInComputation(const Instruction& a, const Instruction& b) const;
  bool Reaches(const Instruction& a, const Instruction& b) const;

  bool sequential_ = false;
  std::vector<int64_t> position_;  // by unique id
  absl::flat_hash_map<const Computation*, const Instruction*> caller_;
  // Ancestor bitsets of small computations: one row of `words` 64-bit words per position,
  // bit p set when the instruction at position p is an ancestor. Built on first query.
  struct Bitsets {
    size_t words = 0;
    std::vector<uint64_t> bits;
  };
  mutable absl::flat_hash_map<const Computation*, Bitsets> ancestors_;
  // Visit stamps for the bounded search of large computations.
  mutable std::vector<uint32_t> stamp_;
  mutable uint32_t generation_ = 0;
  mutable std::vector<const Instruction*> stack_;
};

}  // namespace hloscope
