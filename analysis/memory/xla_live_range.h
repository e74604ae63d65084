// XLA's live ranges over one whole-module timeline (XLA's HloLiveRange with module-scoped
// analysis): every computation a call, conditional, while or asynchronous op runs is flattened
// into its caller's sequence just before the calling instruction, and every dataflow value
// gets a [start, end] range of logical times on that one timeline.
//
//   absl::StatusOr<XlaLiveRanges> r = ComputeXlaLiveRanges(module, alias);
//   const XlaLiveRange& range = r->ranges[value_id];   // r->ranges[v].defined: in the timeline
//
// The rules (xla/hlo/utils/hlo_live_range.cc, read at openxla/xla commit
// 0e56610aa9f3f65543971d5dd68e4e0e5d7179f9):
//  - Flattening. Before a call or conditional: its callees (in called-computation order);
//    before a while: its condition, then its body; for an asynchronous chain (async-start,
//    async-update..., async-done) the wrapped computation goes before the first op of the chain
//    whose operands and result are fully bound (all the wrapped computation's parameters are
//    among its operand tuple and its result is the computation's result), so a late-bound
//    chain runs its computation where its last operand arrives (a wrapped form such as
//    custom-call-start has no computation to flatten). A computation is flattened
//    once; one on an execution thread outside `execution_threads` is not flattened at all.
//    Each computation spans [its first time, the time after its last instruction).
//  - A value starts where its instruction is; a parameter at its computation's start. A root's
//    value lasts to its computation's end. Values inside an asynchronous computation (and what
//    it calls) start at the start of the computation holding the async op and last at least to
//    the async-done.
//  - A value ends at the latest of: its definition end, the time of each other position that
//    holds it (a root position: its computation's end), and its last use. A use by a call whose
//    callee is flattened does not count (the callee's own reads do); a use by a while counts at
//    the body's parameter when the body is flattened.
//  - An entry parameter that input_output_alias does not donate lasts to the end of the
//    timeline (the caller owns it).
//  - Values sharing a buffer are made disjoint in order of (start, end, id): each one ends where
//    the next one starts, and the next one takes over the longer end.
// Uses follow XLA's MayUseOperandValue: get-tuple-element and copy read only the operand's top
// level, tuple and domain read nothing, every other operand read is a use.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "analysis/alias.h"
#include "hlo/module.h"

namespace hloscope {

struct XlaLiveRange {
  bool defined = false;  // false: the value's instruction is not on the timeline
  int64_t start = 0;     // logical times, inclusive
  int64_t end = 0;
  // The latest position holding the value (XLA's end_position; the defining one unless a
  // later position, such as a root, holds it): what a user sharing the value's buffer must use.
  const Instruction* end_instruction = nullptr;
  int32_t end_position = 0;  // position (pre-order index) in end_instruction's output
};

struct XlaLiveRangeOptions {
  // Execution threads to flatten; empty: every thread. The main thread is "main" (a
  // computation without execution_thread=).
  std::vector<std::string> execution_threads = {};
};

struct XlaLiveRanges {
  std::vector<const Instruction*> sequence;  // the flattened timeline, by logical time
  absl::flat_hash_map<const Instruction*, int64_t> time;
  // [start, end) of each flattened computation.
  absl::flat_hash_map<const Computation*, std::pair<int64_t, int64_t>> span;
  std::vector<XlaLiveRange> ranges;  // by ValueId
  int64_t end_time() const { return static_cast<int64_t>(sequence.size()); }
};

// A module that is_scheduled=true is flattened in text order; otherwise in the profiler's
// topological order (instruction_sequence.h).
absl::StatusOr<XlaLiveRanges> ComputeXlaLiveRanges(const Module& module, const AliasAnalysis& alias,
                                                   const XlaLiveRangeOptions& options = {});

}  // namespace hloscope
