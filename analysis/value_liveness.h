// Live ranges of dataflow values, and whether two values may need storage at the same time:
// copy-elision's question, in the partial ExecutionOrdering. (The memory profiler's live
// ranges are of buffers, over one total schedule: memory/buffer_live_ranges.h.)
//
//   ValueLiveness live(flow, ordering);
//   LiveRangeOrder o = live.StrictlyBefore(a, b);   // does a's last read come before b exists?
//   if (live.MayInterfere(a, b)) ...               // neither ends before the other begins
//
// A value lives from its definition to its last use. Its uses are the instructions that read
// it at any position holding it (UseNotion::kValueRead in value_uses.h: get-tuple-element,
// tuple, bitcast as an alias, the nested elements of a copy, domain, opt-barrier and
// add-dependency only pass it on). Ranges are
// compared with the ExecutionOrdering; the rules, in the order they apply (a before b means
// every use of a runs before b is defined):
//  - a value in the entry's result lives to the end: never before anything;
//  - a use at b's defining instruction is before b only when that instruction may write its
//    output at b's index into the operand's buffer (in-place pairs, elementwise users:
//    CanShareOperandBufferWithUser), since the read happens while b is written;
//  - a while (conditional, call) reading a as its operand hands a to its callee: that use is
//    before everything defined inside the callee, except that a loop state element the body
//    passes through unchanged (a itself in the body's parameter) is read on every iteration;
//  - a use at an async-update or async-done is before every value its chain's wrapped op
//    defines (XLA's rule: it keeps the op's operands alive, and an op writing its result into
//    one of them does so itself);
//  - a use inside a while body or condition of a value defined outside that loop is read on
//    every iteration: it is not before anything the loop defines;
//  - otherwise a use in one branch of a conditional is before a definition in another branch
//    (XLA's kRunExclusiveAfter): one run of the conditional runs one branch only;
//  - a phi at a while or conditional result is defined when the loop or branch ends: uses
//    inside it come first;
//  - otherwise ExecutesBefore(use, b's defining instruction);
//  - and a value in the root of a computation C lives to C's end: not before any value
//    defined in C (or nested in it).
// A value without uses ends where it is defined: before b when its definition is.
//
// The index is built once from a DataflowAnalysis (linear in positions). ForwardUses records
// a pass's rewrite of "users of value v now read value x" (a removed copy), so a pass can go
// on asking questions after changing the module without rebuilding the dataflow.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "analysis/dataflow.h"
#include "analysis/in_place_pairs.h"
#include "analysis/ordering.h"
#include "analysis/value_uses.h"

namespace hloscope {

// Why a live range is or is not before another value's definition.
enum class LiveRangeRule : uint8_t {
  kBefore,           // every use is before the definition
  kLiveOut,          // the value is in the entry's result
  kComputationRoot,  // the value is in the root of a computation the definition is in
  kReadAfter,        // a use runs after (or unordered with) the definition
  kNotInPlace,       // read by the defining instruction, which cannot reuse its buffer
  kEveryIteration,   // read inside a loop, on every iteration, that defines the other value
  kDefinedAfter,     // no uses, and its definition is not before the other's
};

struct LiveRangeOrder {
  LiveRangeRule rule = LiveRangeRule::kBefore;
  // The use that decided (kReadAfter, kNotInPlace, kEveryIteration), the computation
  // (kComputationRoot) or the loop (kEveryIteration: loop is the while).
  const ValueUse* use = nullptr;
  const Computation* computation = nullptr;
  const Instruction* loop = nullptr;
  bool before() const { return rule == LiveRangeRule::kBefore; }
};

class ValueLiveness {
 public:
  ValueLiveness(const DataflowAnalysis& flow, const ExecutionOrdering& ordering);

  absl::Span<const ValueUse> uses(ValueId v) const { return uses_[v]; }
  bool live_out(ValueId v) const { return live_out_[v]; }
  // Computations whose root holds v.
  absl::Span<const Computation* const> roots_of(ValueId v) const { return roots_of_[v]; }
  // An instruction whose whole output is v, to name it by: its definition when defined at
  // index {}, else the first get-tuple-element that extracts it; nullptr when none.
  const Instruction* NamingInstruction(ValueId v) const { return naming_[v]; }

  // a's live range ends before b is defined (rules above); the first rule that fails.
  LiveRangeOrder StrictlyBefore(ValueId a, ValueId b) const;
  // One use of `a` (the value at the operand position `use` reads) against b's definition:
  // kBefore when the read comes first by the rules above, else the rule that failed. What XLA's
  // UsesBeforeValueDefinition asks of each use it is given (`hlo-opt --ordering-query`); `use`
  // must outlive the answer, which points at it.
  LiveRangeOrder UseBeforeDefinition(ValueId a, const ValueUse& use, ValueId b) const {
    LiveRangeOrder out;
    if (!UseBefore(flow_.value(a), use, flow_.value(b), out)) return out;
    return {};
  }
  // a is defined before b: b's defining instruction runs after a's, or b is a phi of a while
  // or conditional result and a is defined inside that loop or branch (XLA's IsDefinedBefore).
  bool IsDefinedBefore(ValueId a, ValueId b) const {
    return DefinedBefore(flow_.value(a), flow_.value(b));
  }
  bool MayInterfere(ValueId a, ValueId b) const {
    return !StrictlyBefore(a, b).before() && !StrictlyBefore(b, a).before();
  }

  // The module changed so that every reader of `from` reads `into` instead, and `dropped`
  // (which read `into` and defined `from`) is gone: `into` takes over `from`'s uses, result
  // and root marks.
  void ForwardUses(ValueId from, ValueId into, const Instruction* dropped);

  // What ForwardUses changes for one value, so a pass can try a rewrite and take it back.
  struct SavedValue {
    ValueId id = kNoValue;
    std::vector<ValueUse> uses;
    bool live_out = false;
    absl::InlinedVector<const Computation*, 1> roots_of;
  };
  SavedValue Save(ValueId v) const { return {v, uses_[v], live_out_[v], roots_of_[v]}; }
  void Restore(SavedValue saved);

  const DataflowAnalysis& dataflow() const { return flow_; }
  const ExecutionOrdering& ordering() const { return ordering_; }

 private:
  bool UseBefore(const HloValue& a, const ValueUse& use, const HloValue& b,
                 LiveRangeOrder& out) const;
  bool DefinedBefore(const HloValue& a, const HloValue& b) const;

  const DataflowAnalysis& flow_;
  const ExecutionOrdering& ordering_;
  DataflowOptions in_place_;
  std::vector<std::vector<ValueUse>> uses_;
  std::vector<bool> live_out_;
  std::vector<absl::InlinedVector<const Computation*, 1>> roots_of_;
  std::vector<const Instruction*> naming_;
};

}  // namespace hloscope
