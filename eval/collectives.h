// Collectives among the participants of one group.
//
// Single replica (hlo-run without --replicas): hlo-run is replica 0, and the other participants
// of its group are taken to hold the same operands as replica 0 (the only values it has). With
// a group of one this is exactly XLA's one-participant meaning (all-reduce, all-gather,
// all-to-all and reduce-scatter return their operand); with G > 1 the result has the right shape
// and is what replica 0 would get from G identical participants. G comes from the shapes where
// they differ (all-gather, reduce-scatter) and otherwise from replica_groups.
//
// N replicas (--replicas=N, eval/replicas.h): every participant's own operands, exchanged.
//   all-reduce       to_apply folded over the participants in group order
//   all-gather       the participants' operands concatenated along `dimensions`
//   reduce-scatter   the all-reduce, then this participant's block along `dimensions`
//   all-to-all       array form: block `me` of every participant, concatenated along the
//                    dimension; tuple form: output j is participant j's operand `me`
//   collective-permute  the operand of the source of a pair (source, me), else zeros
//   collective-broadcast  the operand of the group's first participant
//   ragged-all-to-all  blocks of rows by offsets and sizes (ragged_all_to_all.cc)
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "eval/kernels.h"
#include "hlo/instruction.h"

namespace hloscope::eval {

struct CollectiveGroup {
  std::vector<int64_t> replicas;  // the participants' replica ids, in group order
  size_t me = 0;                  // this replica's position in `replicas`
};

// The group of `replica` in `replica_groups` ({{0,1},{2,3}} or the iota form [2,2]<=[4], with
// T(...) transposes); an absent or empty attribute is every replica (0..replica_count-1).
// replica_count 0: the single-replica model (an empty attribute is the group {0}).
absl::StatusOr<CollectiveGroup> GroupOf(const Instruction& instr, int64_t replica,
                                        int64_t replica_count);

// The single-replica model's group for collective `kind` on operands / results of these shapes:
// GroupOf(instr, 0, 0), widened to the shapes' factor for all-gather and reduce-scatter.
absl::StatusOr<CollectiveGroup> SingleReplicaGroup(const Instruction& instr, Opcode kind,
                                                   const Shape& operand, const Shape& result);

// One collective (`kind`: kAllReduce, kAllGather, kReduceScatter, kAllToAll,
// kCollectivePermute or kCollectiveBroadcast; `instr` may be its -start or wrapped form).
// `operands[p]` are participant p's array operands (p in group order); one result per operand, of
// the given shapes. `apply` is to_apply on two scalars (all-reduce and reduce-scatter). Errors name
// the instruction.
absl::StatusOr<std::vector<Bytes>> EvalCollective(const Instruction& instr, Opcode kind,
                                                  const CollectiveGroup& group,
                                                  absl::Span<const std::vector<ArrayRef>> operands,
                                                  absl::Span<const Shape* const> results,
                                                  const ScalarComputation& apply);

// ragged-all-to-all among the group (ragged_all_to_all.cc): `operands[p]` are participant p's
// six operands; one result, the output operand with the blocks received written.
absl::StatusOr<std::vector<Bytes>> EvalRaggedAllToAll(
    const Instruction& instr, const CollectiveGroup& group,
    absl::Span<const std::vector<ArrayRef>> operands, absl::Span<const Shape* const> results);

}  // namespace hloscope::eval
