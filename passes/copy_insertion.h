// Copy insertion (`copy-insertion`): adds the copies XLA's CopyInsertion adds before it removes
// the unnecessary ones, so that every value of the module can live in the buffer the alias
// analysis gives it without being overwritten while still needed. `copy-elision` is the
// removal phase: `--passes=copy-insertion,copy-elision` is XLA's copy insertion.
//
//   CopyInsertion pass;
//   absl::StatusOr<bool> changed = pass.Run(module);
//   for (const InsertedCopy& c : pass.report().copies) ...   // name, rule, what it protects
//
// Rules (each added copy names one; CopyRuleName gives its text):
//  - in-place-operand: the operand of an instruction that writes its output into that operand's
//    buffer (analysis/in_place_pairs.h: dynamic-update-slice, scatter, in-place fusions,
//    output_to_operand_aliasing, ...) is copied for that use, whatever it is: a read-only
//    value, a value read later, or nothing of the kind (then copy-elision removes the copy).
//  - while-init, while-body-parameter, while-body-root: for every array element of a while's
//    state that the body changes (the value at the while's result is not the init value, or
//    either may hold several values), the init is copied before the loop, the body parameter's
//    element at the body's start and the body root's element at its end.
//  - conditional-branch-root: every element of a conditional's result that is a merge of
//    different branch values is copied at the root of every branch.
//  - input-output-alias: an entry parameter that input_output_alias donates is copied where
//    it is donated (before anything reads it), and the output it is donated to at the root.
//  - entry-root-read-only: an entry output that may hold a constant or a parameter that is
//    not donated (read-only data must not become an output buffer).
//  - entry-root-duplicated: an entry output whose buffer an earlier output holds too (outputs
//    are distinct buffers); when the later output is donated, the earlier one is copied. Also
//    an output holding a donated parameter's copy (input-output-alias) whose buffer another
//    output takes: once copy-elision removes that copy, the output would hold the donated
//    buffer (XLA finds this after its removal phase and copies the output then).
//  - root-ambiguous: a root element of a control-flow computation that may be in several
//    buffers.
// Array elements only: tokens and other non-array leaves are never copied.
//
// Order: as in XLA, each while element's root copy has a control edge from its parameter
// copy (the root copy must not overwrite the loop state before the parameter copy read it),
// and a donated parameter's copy one to its output's copy; copy-elision drops a removed copy's
// edges, as XLA's removal does. The copies are also placed in the text where that order holds
// (parameter copies right after the parameter, root copies at the end, the others right
// before the instruction that needs them), so a scheduled module keeps a valid schedule.
//
// Difference from XLA, by construction: XLA adds the entry-root copies after its removal
// phase; here they are added with the rest, and copy-elision keeps them by its own rules
// (read-only data never becomes an output, outputs stay distinct buffers, a copy whose
// source may hold several values stays). A few modules keep a copy more than XLA's
// (testdata/xla/copy_insertion/ names them).
// The pass starts with flatten-call-graph (XLA requires a flat call graph for copy insertion)
// and ends with tuple-simplify and dce, as XLA's does, to fold the tuples and
// get-tuple-elements of the deep copies. A module must verify before and verifies after.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "passes/pass.h"

namespace hloscope {

enum class CopyRule {
  kInPlaceOperand,
  kWhileInit,
  kWhileBodyParameter,
  kWhileBodyRoot,
  kConditionalBranchRoot,
  kInputOutputAlias,
  kEntryRootReadOnly,
  kEntryRootDuplicated,
  kRootAmbiguous,
  kInFlightTransition,
};
inline constexpr int kCopyRuleCount = 10;

// "in-place-operand", "while-init", ... (the names above).
std::string_view CopyRuleName(CopyRule rule);

struct InsertedCopy {
  std::string name;
  std::string computation;
  CopyRule rule = CopyRule::kInPlaceOperand;
  std::string detail;  // what the copy protects, naming the instructions involved
  int64_t bytes = 0;   // the copy's result
};

// A control edge copy-insertion adds instead of a copy: XLA never copies a buffer an
// asynchronous transfer still owns (passes/in_flight_buffers.h), it orders the transfer's
// *-done before the next *-start.
struct AddedControlEdge {
  std::string computation;
  std::string predecessor;  // runs first (the *-done)
  std::string successor;    // the *-start
  std::string detail;
};

struct CopyInsertionReport {
  std::vector<InsertedCopy> copies;  // in the order they were added
  std::vector<AddedControlEdge> control_edges;
};

struct CopyInsertionOptions {
  // Rules not applied (all are, by default). Only for tests: a copy insertion that skips a
  // rule leaves modules unsafe, and the differential harness must notice.
  std::vector<CopyRule> skip_rules;
  // Copy loop state that holds a buffer still in flight (send, recv, copy-start) like any other
  // element, and leave b(...) (non-copyable) buffers unordered, as hloscope did before issue 30.
  // Only for tests: the broken variant that the harness properties "no copy of an in-flight
  // async buffer is ever inserted" and "the output is buffer-safe" must catch.
  bool copy_in_flight_buffers = false;
};

class CopyInsertion : public Pass {
 public:
  CopyInsertion() = default;
  explicit CopyInsertion(CopyInsertionOptions options) : options_(std::move(options)) {}

  std::string_view name() const override { return "copy-insertion"; }
  std::string_view description() const override {
    return "Adds the copies XLA's copy insertion adds (in-place operands, while state, "
           "conditional results, entry outputs); copy-elision then removes the ones not needed. "
           "Never copies a buffer still in flight (send, recv, copy-start) or a b(...) buffer: "
           "orders its readers with control edges, named in the pass's report.";
  }
  absl::StatusOr<bool> RunOnModule(Module& module, AnalysisCache& analyses) override;
  // The report below, for tools (passes/copy_elision_report.h).
  std::unique_ptr<PassReport> LastReport() const override;

  const CopyInsertionReport& report() const { return report_; }

 private:
  CopyInsertionOptions options_;
  CopyInsertionReport report_;
};

}  // namespace hloscope
