// Orders for unscheduled computations, after XLA's memory schedulers (hlo_memory_scheduler):
//
//   std::vector<const Instruction*> order = ScheduleWith(*computation, ScheduleKind::kList);
//
//  - kPostOrder: post-order from each instruction nobody uses (text order), operands in order.
//  - kDfs: post-order from the root, visiting operands with more extra users (users beyond the
//    first, summed over the operand's subtree) first, then larger subtree bytes, then by name.
//  - kList: greedy, as XLA's list scheduler: of the ready instructions, effective scalars
//    first, then the most bytes freed minus bytes defined (parameters' and constants' storage
//    counts neither way), then the most users, then the one that became ready last. Accounted
//    per storage
//    owner, as XLA's list scheduler accounts per buffer: an instruction reads the top-level
//    storage of each operand (through get-tuple-element, bitcast and the like to the
//    instruction that wrote it) and frees what it is the last reader of; a tuple defines its
//    index table (8 bytes per element) and frees nothing while its elements are read later; a
//    send defines its table and context, not the data it forwards.
//  - kText and kMin are resolved by the caller (kMin: the memory profiler runs list, dfs and
//    post-order and keeps the lowest peak, ties in that order, as XLA's default scheduler).
// Control predecessors always come before their successors.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "hlo/computation.h"

namespace hloscope {

enum class ScheduleKind { kText, kDfs, kList, kPostOrder, kMin };

std::vector<const Instruction*> ScheduleWith(const Computation& computation, ScheduleKind kind);

std::string_view ScheduleKindName(ScheduleKind kind);
std::optional<ScheduleKind> ParseScheduleKind(std::string_view name);

}  // namespace hloscope
