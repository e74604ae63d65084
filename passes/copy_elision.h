// Copy elision (`copy-elision`): removes copies whose source and destination can share one
// buffer, and says for every copy why it went or stayed.
//
//   CopyElision pass({.dataflow = {.bitcast_defines_value = true}});
//   absl::StatusOr<bool> changed = pass.Run(module);
//   for (const CopyDecision& d : pass.report().copies) ...   // removed or kept, and why
//
// First the module as given must be buffer-safe (analysis/buffer_consistency.h: no value of a
// buffer overwritten while another is live, nothing written into read-only storage). A module
// that is not (a dump taken before XLA's copy insertion) is left unchanged: the report says
// why, lists no copy and claims no savings; `--passes=copy-insertion,copy-elision` is the way
// to run it on such a module.
//
// For each `copy` in a computation that runs as control flow (not inside fusions or
// reducers), removing it forwards its operand to its users, which merges the buffer of the
// copy's source value with the buffer of its destination (alias.h). It is removed when every
// value of the merged buffer stays free of interference (value_liveness.h) under
// the execution ordering (ordering.h: the schedule when the module is scheduled, dependencies
// otherwise):
//  - the source value, now also read by the copy's users, against every value of both
//    buffers, and every other source value against every destination value;
//  - never: a copy that changes the layout or memory space, of a tuple, with control edges
//    to anything but other copies (copy-insertion's edges go with a removed copy),
//    or whose source may hold several values;
//  - never: a merge that makes a read-only buffer (a constant, or an entry parameter that
//    input_output_alias does not donate) written by another value of the merged buffer, or
//    part of the entry's result; unless, as XLA does after its removal phase
//    (AddSpecialCaseCopies), the read-only array is copied where it is defined and that copy
//    takes its place in the merged buffer (not with bitcast_defines_value; the report lists the
//    new copy as kept, "added: ...");
//  - never: a merge that puts one buffer at two array positions of the entry's result (XLA
//    gives every output its own buffer), which also keeps a donated parameter's buffer at its
//    input_output_alias output only.
// A copy kept only because a reader of a donated entry parameter and the writer of that
// buffer's next value are unordered goes with a control edge reader -> writer (XLA's copy
// removal, order_unordered_readers); so does a while body's parameter/root copy pair whose
// readers can run before the writer (order_loop_readers). Each edge is in the report.
// Storage is reasoned about as it is at run time, where a bitcast shares its operand's bytes.
// With `bitcast_defines_value` the same checks run a second time on the analyses where a
// bitcast defines a new value (a fusion then cannot update in place through one), and a copy
// goes only when both views allow it: the option keeps more copies, never fewer.
// Copies are visited in module order and revisited until a sweep removes none (a removal can
// make another copy removable), so the result is deterministic. The analyses are built once;
// each removal updates the buffers and live ranges it touches.
//
// Report: per copy, its name, computation, decision, the rule that kept it naming the
// instructions involved, bytes per execution, and executions per step (the product of the
// trip counts of the while loops around it, trip_count.h; a loop of unknown trip count counts
// once and clears `executions_known`).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "analysis/dataflow_options.h"
#include "passes/pass.h"

namespace hloscope {

struct CopyElisionOptions {
  // dataflow.bitcast_defines_value: with true, a bitcast inside a fusion hides an in-place
  // update, and the paxml copies stay. Removals must also be safe with bitcasts as aliases (the
  // header comment), so true removes a subset of what false does. dataflow.ssa_form is not
  // read: the analyses are the alias analysis's, built in SSA form.
  DataflowOptions dataflow = {};
  // XLA's region analysis in while bodies: a kept pair of copies of one loop state element (the
  // body parameter's, read by the body, and the root's, with copy-insertion's edge between them)
  // goes when every reader of the old element can run before the instruction that computes the
  // new one: control edges order them, each named in the report. Applied only when the result
  // passes the buffer-safety check. On by default, as in XLA.
  bool order_loop_readers = true;
  // XLA's copy removal (CopyRemover::TryElideCopy, its region analysis forcing the order of
  // unordered instructions): a copy kept only because a reader of one value and the writer of
  // another value of the merged buffer are unordered (same computation, no dependency either
  // way) goes when control edges reader -> writer order them; each edge is named in the
  // report. The removal is decided on analyses rebuilt with the edges in place, so every rule
  // above still holds; an attempt that fails takes its edges back. Not in scheduled modules
  // (the schedule orders everything) nor with bitcast_defines_value. On by default, as in XLA
  // (the input/output-alias case: AddControlDependencyForInputOutputAlias). Pass option
  // `order-unordered-readers`.
  bool order_unordered_readers = true;
  // XLA's CopyInsertion with use_region_based_live_range_analysis=-1, as many of XLA's tests
  // construct it (off by default, as in XLA). Three rules on top of the live ranges:
  //  - XLA's ordered value lists (CopyRemover): each buffer's values sorted by definition; a
  //    copy goes only if the source's list can be spliced in at the copy's place, the copy
  //    defining the destination's first value or reading the source's last, with every value
  //    before the splice point ending before every value after it. Where they refuse, XLA's
  //    region-based interference test decides, as in XLA (copy_region_interference.h; it
  //    answers "interfere" where XLA would add control edges, so this may keep a copy XLA
  //    removes), and the live ranges must agree.
  //  - order_unordered_readers also orders any reader (a copy or not) of a value that is not
  //    read-only before the writer (XLA's ForceRuntimeOrder; not for copies of broadcasts,
  //    which XLA's region analysis skips);
  //  - a copy kept only because the instruction it copies cannot write over an operand of the
  //    merged buffer (a reverse reading the buffer it would write) goes, and the operand is
  //    copied where it is defined instead: XLA's region analysis removes the first, and its
  //    special-case phase adds the second. Tried on a reparsed copy of the module first and
  //    applied only if the result is buffer-safe.
  // Not with bitcast_defines_value; a view rebuilt for control edges starts its lists afresh.
  // Pass option `region-analysis`.
  bool xla_region_analysis = false;
  // Only for tests: add those edges and remove the copies without the safety check (the broken
  // variant the harness must catch): loop state pairs without checking the result, for
  // order_unordered_readers the first edge found without deciding again with it in place, and
  // for xla_region_analysis a copy moved to its source's operand without checking the result.
  bool skip_order_check = false;
};

struct CopyDecision {
  std::string name;
  std::string computation;
  bool removed = false;
  std::string reason;  // empty for removed copies
  int64_t bytes = 0;   // the copy's result, per execution
  // The product of the enclosing loops' trip counts; kInt64Max (with executions_known false)
  // when that product does not fit in int64.
  int64_t executions_per_step = 1;
  bool executions_known = true;
};

struct CopyElisionReport {
  bool bitcast_defines_value = false;
  // False when the module as given already overwrites a live value in place
  // (analysis/buffer_consistency.h): then nothing was changed or decided, `copies` is empty,
  // and `not_buffer_safe` names the first conflict.
  bool buffer_safe = true;
  std::string not_buffer_safe;
  std::vector<CopyDecision> copies;  // module order
  int64_t removed = 0;
  int64_t kept = 0;
  // Sum over removed copies of bytes × executions_per_step (both sums saturate at kInt64Max).
  int64_t bytes_saved_per_step = 0;
  // Sum over kept copies of bytes × executions_per_step.
  int64_t bytes_kept_per_step = 0;
  int64_t sweeps = 0;
  // Control edges added to remove copies (order_loop_readers, order_unordered_readers) and
  // still in the module: "%reader -> %writer in body: why". An edge added for one removal and
  // dropped with a copy removed later (as XLA strips a removed copy's edges) is not listed.
  std::vector<std::string> added_edges;
  // The same edges by name, in the same order, for the JSON report.
  struct AddedEdge {
    std::string computation;
    std::string predecessor;  // runs first (the reader)
    std::string successor;    // the writer
  };
  std::vector<AddedEdge> added_edge_names;
};

class CopyElision : public Pass {
 public:
  CopyElision() : CopyElision(CopyElisionOptions{}) {}
  explicit CopyElision(CopyElisionOptions options);

  std::string_view name() const override { return "copy-elision"; }
  std::string_view description() const override {
    return "Removes copies whose source and destination can share a buffer without "
           "interference; reports why each copy stays. In while bodies, orders readers of a "
           "loop state element before its new value's writer with control edges when that "
           "lets both of its copies go (XLA's region analysis), and orders a donated entry "
           "parameter's "
           "unordered reader before the writer of its buffer when that lets a copy go (XLA's "
           "copy removal), each edge named in the pass's report.";
  }
  absl::StatusOr<bool> RunOnModule(Module& module, AnalysisCache& analyses) override;
  // The report below, for tools (passes/copy_elision_report.h).
  std::unique_ptr<PassReport> LastReport() const override;
  // A module that is not buffer-safe as given is left unchanged (the header comment).
  bool LeavesUnsafeModulesAlone() const override { return true; }

  void set_options(const CopyElisionOptions& options) { options_ = options; }
  const CopyElisionOptions& options() const { return options_; }
  // The report of the last Run.
  const CopyElisionReport& report() const { return report_; }

 private:
  CopyElisionOptions options_;
  CopyElisionReport report_;
};

}  // namespace hloscope
