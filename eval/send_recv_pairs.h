// Cross-replica send/recv (hlo-run --replicas): XLA names who sends to whom in the frontend
// attribute `_xla_send_recv_source_target_pairs={{0,1},{1,2}}` (quoted or not) of a send and
// its recv. Each pair (source, target) carries the source replica's send to the target
// replica's recv of the same channel_id, in order: the k-th send of the source on that channel
// meets the k-th recv of the target. A replica that no pair targets receives zeros (XLA:GPU's
// receive clears the buffer when there is no source peer); a replica that is no pair's source
// sends nothing.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "hlo/instruction.h"
#include "hlo/module.h"

namespace hloscope::eval {

inline constexpr std::string_view kSendRecvPairsAttribute = "_xla_send_recv_source_target_pairs";

using SourceTargetPair = std::pair<int64_t, int64_t>;

// The pairs of `instr`'s frontend attribute; nullopt when it has none; InvalidArgument naming
// the instruction when the value is not `{{a,b},...}` of non-negative integers.
absl::StatusOr<std::optional<std::vector<SourceTargetPair>>> SendRecvPairs(
    const Instruction& instr);

// The highest replica the pairs name, plus one (0 for no pairs): the replicas a run needs.
int64_t ReplicasNamed(const std::vector<SourceTargetPair>& pairs);

// The replicas a module's send/recv pairs need (the most over its instructions); 0 when no
// instruction has pairs or a value does not parse.
int64_t ReplicasForSendRecv(const Module& module);

}  // namespace hloscope::eval
