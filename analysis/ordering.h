// Execution ordering: whether one instruction of a module finishes before another starts.
// A partial order over the whole module, not a sequence: InstructionSequence
// (memory/instruction_sequence.h) is one total order of a computation's instructions, and
// pipeline::Schedule (pipeline/schedule.h) the actions of pipeline ranks, not HLO.
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
//  In sequential order a computation's root is before nothing (it lives to the end, even when
//  the schedule lists instructions after it), as in XLA's SequentialHloOrdering.
//  In both, a parameter runs before every instruction of its computation that is not one.
// Across computations, both instructions are mapped to their ancestors in the innermost
// computation holding both (a computation's ancestor is its calling instruction, for callees
// with exactly one caller of any kind), and those are compared. When both map to the same
// while instruction, the condition runs before the body (one iteration's view). When both map
// to the same conditional through different branches, they are mutually exclusive (only one
// branch runs): like XLA's HloOrdering, the earlier branch counts as executing before the later
// one, so values of different branches never interfere. async-update and async-done are not
// callers of the computation their async-start runs: what it does maps to the start, and the
// done reads the start's result, so the wrapped op reads its operands from the start and
// writes its result by the done. A late-bound chain's computation maps to the first op of
// the chain that has bound everything instead (analysis/async_chain_runs_at.h, where XLA's
// HloLiveRange places it; XLA's HloOrdering maps it to the start, before an update has bound
// what it reads). Anything that cannot be mapped (computations with several callers,
// unrelated computations) is unordered.
// An async-start, -update or -done and the instruction it wraps (the root of the wrapped
// computation of the `async-start(...), calls=` form) are one operation: neither executes
// before the other (XLA's kIsSame; a short form such as `fusion-start` wraps no instruction of
// its own). Everything else the wrapped computation holds maps to the start (or the op that
// binds the last of it), as above.
// Constraint() gives XLA's HloOrdering::GetExecutionConstraint for a pair
// (xla/hlo/analysis/hlo_ordering.cc at ROCm/xla 183fa00cb5), and ExecutesBefore is true for its
// three "before" answers but one: an instruction of a conditional's branch is kRunBeforeEnd of
// the conditional itself (it finishes first), where ExecutesBefore stays false (XLA: true), a
// pinned difference (docs/xla_buffer_semantics_tests.md, hlo_ordering_test.cc). One of a loop's
// body or a call's callee is unordered with its while or call, as in XLA.
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

// XLA's HloOrdering::ExecutionConstraint: how a runs relative to b.
enum class ExecutionConstraint : uint8_t {
  kIsSame,              // the same instruction, or an async op and the instruction it wraps
  kRunBeforeStart,      // a finishes before b starts
  kRunBeforeEnd,        // a finishes before b ends (a nested in b's conditional, say)
  kRunExclusiveBefore,  // a and b in different branches of one conditional, a's branch first
  kRunExclusiveAfter,   // the same, b's branch first
  kRunAfter,            // b finishes before a starts (or a is b's conditional)
  kUnordered,
};
// "is-same", "run-before-start", ...: the words `hlo-opt --ordering-query` prints.
const char* ExecutionConstraintName(ExecutionConstraint c);

class ExecutionOrdering {
 public:
  // Computations up to this many instructions answer reachability from bitsets.
  static constexpr int64_t kBitsetLimit = 2048;

  // Fails when a computation has a cycle through operands and control predecessors.
  static absl::StatusOr<std::unique_ptr<ExecutionOrdering>> Run(const Module& module);

  bool sequential() const { return sequential_; }

  // a finishes before b starts or ends: Constraint(a, b) is kRunBeforeStart, kRunBeforeEnd or
  // kRunExclusiveBefore, except a in a branch of the conditional b (above); false for a == b.
  bool ExecutesBefore(const Instruction& a, const Instruction& b) const;
  ExecutionConstraint Constraint(const Instruction& a, const Instruction& b) const;

  // The instruction an async-start, -update or -done wraps (its chain's `calls=` computation's
  // root, for the plain `async-start` form), or nullptr.
  static const Instruction* AsyncWrappedInstruction(const Instruction& op);

  // a and b are in different branches of one conditional (directly or nested): never both run.
  bool MutuallyExclusive(const Instruction& a, const Instruction& b) const;

  // The one instruction calling `c` (while, conditional, call, fusion, reduce, ...), or
  // nullptr for the entry and for computations called from several places.
  const Instruction* CallerOf(const Computation& c) const;
  // `instr` is in `c` or in a computation called (transitively, through unique callers) from
  // an instruction of `c`. Constant time (intervals of the caller forest).
  bool IsNestedIn(const Instruction& instr, const Computation& c) const;
  // The innermost instruction that (transitively, through unique callers) calls computations
  // holding both `a` and `b`, with its callee that holds `a`; {nullptr, nullptr} when none.
  struct CommonCaller {
    const Instruction* caller = nullptr;
    const Computation* a_callee = nullptr;
  };
  CommonCaller InnermostCommonCaller(const Instruction& a, const Instruction& b) const;
  // Position of `instr` in its computation: schedule index (sequential) or topological index
  // (dependency order). Operands and control predecessors always come first.
  int64_t Position(const Instruction& instr) const { return position_[instr.unique_id()]; }

 private:
  ExecutionOrdering() = default;

  // Where the caller chains of two instructions meet: their ancestors a and b in the innermost
  // computation holding both, and the callees they were reached from (nullptr for the
  // instruction itself). a is nullptr when the chains do not meet.
  struct Meeting {
    const Instruction* a = nullptr;
    const Instruction* b = nullptr;
    const Computation* a_callee = nullptr;
    const Computation* b_callee = nullptr;
  };
  Meeting Meet(const Instruction& a, const Instruction& b) const;
  // The caller forest: computations as nodes, each below the computation of its unique
  // caller (the entry, shared computations and uncalled ones are roots).
  void BuildCallerForest(const Module& module);
  int32_t NodeOf(const Computation& c) const;  // -1 when not in the module
  int32_t Ancestor(int32_t node, int32_t levels) const;
  bool BeforeInComputation(const Instruction& a, const Instruction& b) const;
  bool Reaches(const Instruction& a, const Instruction& b) const;

  bool sequential_ = false;
  std::vector<int64_t> position_;  // by unique id
  absl::flat_hash_map<const Computation*, const Instruction*> caller_;
  std::vector<const Computation*> computations_;  // by node
  absl::flat_hash_map<const Computation*, int32_t> node_;
  std::vector<int32_t> depth_, pre_, post_;  // by node
  std::vector<std::vector<int32_t>> up_;     // [j][node]: 2^j levels up, -1 past a root
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
