// Collectives as one participant sees them (hlo-run runs replica 0 of a single program).
//
// Model: hlo-run runs one replica, and a collective over a group of G participants is computed
// as if every other participant held the same operands as replica 0 (the only values it has).
// With G = 1 this is exactly XLA's one-participant meaning (all-reduce, all-gather, all-to-all
// and reduce-scatter return their operand); with G > 1 the result has the right shape and is
// what replica 0 would get from G identical participants:
//   all-reduce       to_apply folded over G copies: x, f(x, x), f(f(x, x), x), ...
//   all-gather       G copies concatenated along `dimensions`
//   reduce-scatter   the all-reduce, then replica 0's block (the first) along `dimensions`
//   all-to-all       array form: replica 0's block of every participant, concatenated;
//                    tuple form: output j is operand 0 (participant j's block for replica 0)
//   collective-permute  the operand when some source_target_pair sends to replica 0, else zeros
// G comes from the shapes where they differ (all-gather, reduce-scatter, array all-to-all) and
// otherwise from replica_groups (the group that holds replica 0; empty: one participant).
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "eval/kernels.h"
#include "hlo/instruction.h"

namespace hloscope::eval {

// The size of replica 0's group in `replica_groups` ({{0,1},{2,3}} or the iota form
// [2,2]<=[4]); 1 when the attribute is absent or empty.
int64_t GroupSizeOfReplicaZero(const Instruction& instr);

// One collective (`kind`: kAllReduce, kAllGather, kReduceScatter, kAllToAll or
// kCollectivePermute; `instr` may be its -start form) on array `operands`, one result per
// operand with the given shapes. `apply` is to_apply on two scalars (all-reduce and
// reduce-scatter). Errors name the instruction.
absl::StatusOr<std::vector<Bytes>> EvalCollective(const Instruction& instr, Opcode kind,
                                                  absl::Span<const ArrayRef> operands,
                                                  absl::Span<const Shape* const> results,
                                                  const ScalarComputation& apply);

}  // namespace hloscope::eval
