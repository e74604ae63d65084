// Dataflow analysis: for every (instruction, shape index) of a module, the set of values that
// may be there at run time. A value is created ("defined") at one position; most instructions
// define a value at every index of their output, while tuple, get-tuple-element, bitcast (by
// default), copy's nested elements, call, domain, opt-barrier, add-dependency and the halves
// of asynchronous pairs forward values they receive (the table in dataflow_rules.cc).
//
//   absl::StatusOr<std::unique_ptr<DataflowAnalysis>> df = DataflowAnalysis::Run(module);
//   for (ValueId v : (*df)->ValuesAt(*gte, {}))
//     std::cout << (*df)->value(v).ToString() << "\n";   // e.g. "param{1}"
//
// The analysis is computed once by Run and answers queries after; it holds pointers into the
// module, which must outlive it and must not change meanwhile.
//
// Merge points. A while's result, its body and condition parameters, and a conditional's
// result receive values from several places (the loop's init and the body's root; each
// branch's root).
//  - SSA form (default): each such position holds exactly one value. A phi value is defined
//    there, then removed again wherever it would only ever stand for one other value (a loop
//    element the body passes through unchanged holds the init value itself, in the while
//    result, the body parameter and the condition parameter). Every position then holds
//    exactly one value.
//  - Union form (`ssa_form = false`): no phis; a merge position holds the union of what
//    reaches it.
//
// Bitcast. With `bitcast_defines_value = false` (default) a bitcast is an alias: its result
// holds its operand's values, so a buffer seen through bitcasts is still the same buffer (XLA's
// GPU and TPU backends treat bitcasts this way). With true, a bitcast defines a new value.
//
// Call sites (analysis/call_graph.h). Parameters of the entry, of uncalled computations and of
// embedded computations (fusion, reduce's to_apply, ...) define their values. Parameters of
// control-flow callees (while body/condition, conditional branch, call, async-start's computation)
// hold the caller's values; a callee with several call sites (two loops sharing a body, a
// computation called twice) holds the union over its sites, a phi where a loop or conditional is
// among them, as in XLA. Run fails only for a computation called both as control flow and embedded,
// naming it and suggesting `--passes=flatten-call-graph` (XLA rejects it too).
//
// Cost: one walk over the module (the only time the analysis reads every instruction; it
// prefetches ahead of itself), which settles nearly every forwarding instruction on the way,
// then a worklist fixed point over the rest, in flat arrays: per position one 32-bit word (the
// value when a set holds one, which in SSA form is every set), per instruction id its first
// position, and one 32-byte HloValue per value. No table is keyed by pointers or holds a heap
// block per instruction, so the time per instruction grows little with the module's size,
// even past the caches (bench: dataflow+alias).
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "analysis/call_graph.h"
#include "analysis/dataflow_options.h"
#include "analysis/dataflow_positions.h"
#include "analysis/hlo_value.h"
#include "hlo/module.h"

namespace hloscope {

// Phi minimization (ssa_form) re-resolves, round after round, the members of a loop of phis
// that no outside value reaches directly; nested loops that all carry a changing value need
// as many rounds as they are deep. The rounds stop at a budget of work linear in the phi
// graph, leaving the rest as phis (coarser, as XLA's phi graph is, never wrong). Tests set a
// budget (0: no second round at all) to check that the coarse answer keeps the passes safe;
// nullopt restores the default. Not thread-safe: call it before any analysis runs.
void SetPhiRefinementBudgetForTesting(std::optional<size_t> budget);

class DataflowAnalysis {
 public:
  // dataflow_options.h: one struct for this analysis and everything built on it.
  using Options = DataflowOptions;

  // Called for every instruction of the module, in module order, during the analysis's own
  // walk: a client that needs per-instruction facts (AliasAnalysis: which instructions are
  // loops or update in place) gets them without walking a large module a second time.
  using InstructionVisitor = absl::FunctionRef<void(const Instruction&)>;

  static absl::StatusOr<std::unique_ptr<DataflowAnalysis>> Run(const Module& module,
                                                               const Options& options);
  static absl::StatusOr<std::unique_ptr<DataflowAnalysis>> Run(const Module& module,
                                                               const Options& options,
                                                               InstructionVisitor visit);
  static absl::StatusOr<std::unique_ptr<DataflowAnalysis>> Run(const Module& module) {
    return Run(module, Options{});
  }
  // With the module's call graph already built (AnalysisCache's): the walk does not collect
  // the calls again. Null: as above.
  static absl::StatusOr<std::unique_ptr<DataflowAnalysis>> Run(
      const Module& module, const Options& options, std::shared_ptr<const CallGraph> calls,
      const InstructionVisitor* visit = nullptr);

  const Module& module() const { return module_; }
  const Options& options() const { return options_; }
  // The call graph the analysis used (built from its walk unless one was given): who calls each
  // computation, and how.
  const CallGraph& call_graph() const { return *call_graph_; }
  const std::shared_ptr<const CallGraph>& shared_call_graph() const { return call_graph_; }

  absl::Span<const HloValue> values() const { return values_; }
  const HloValue& value(ValueId id) const { return values_[id]; }

  // The values that may be at `index` of `instr`'s output, sorted by id. Empty when the
  // instruction is not in the module or the index does not exist.
  absl::Span<const ValueId> ValuesAt(const Instruction& instr, const ShapeIndex& index = {}) const;
  // The value defined at (instr, index), or kNoValue when that position forwards values.
  ValueId ValueDefinedAt(const Instruction& instr, const ShapeIndex& index = {}) const;
  bool DefinesValueAt(const Instruction& instr, const ShapeIndex& index = {}) const {
    return ValueDefinedAt(instr, index) != kNoValue;
  }

  // Positions of one instruction, in pre-order of its shape (position 0 is index {}).
  int32_t PositionCount(const Instruction& instr) const;
  ShapeIndex IndexAt(const Instruction& instr, int32_t position) const;
  absl::Span<const ValueId> ValuesAtPosition(const Instruction& instr, int32_t position) const;

  // Every position (instruction, index) whose value set contains `id`. Linear in the module.
  struct Position {
    const Instruction* instruction;
    ShapeIndex index;
  };
  std::vector<Position> PositionsOf(ValueId id) const;

 private:
  DataflowAnalysis(const Module& module, const Options& options)
      : module_(module), options_(options) {}
  friend class DataflowBuilder;

  // sets_ words: a value id (the set of that one value), kEmptySet, or kMultiSet | i for
  // multi_[i] (sets of two or more values, which only the union form has).
  static constexpr uint32_t kEmptySet = kNoValue;
  static constexpr uint32_t kMultiSet = uint32_t{1} << 31;
  static constexpr uint32_t kNoBase = std::numeric_limits<uint32_t>::max();

  // Index of `instr`'s first position in sets_, or -1.
  int64_t Base(const Instruction& instr) const;
  absl::Span<const ValueId> SetAt(size_t position) const;

  const Module& module_;
  Options options_;
  std::shared_ptr<const CallGraph> call_graph_;
  std::vector<HloValue> values_;
  // Per instruction (by unique_id): its first position, or kNoBase.
  std::vector<uint32_t> base_;
  // Per position: its value set (see kMultiSet) and whether it defines that value.
  std::vector<uint32_t> sets_;
  std::vector<bool> defines_;
  std::vector<std::vector<ValueId>> multi_;
  mutable ShapePositions positions_;
};

}  // namespace hloscope
