// Orders for unscheduled computations, after XLA's memory schedulers (hlo_memory_scheduler):
//
//   std::vector<const Instruction*> order = ScheduleWith(*computation, ScheduleKind::kList);
//
//  - kPostOrder: post-order from each instruction nobody uses (text order), operands in order.
//  - kDfs: post-order from the root, visiting operands with more extra users (users beyond the
//    first, summed over the operand's subtree) first, then larger subtree bytes, then by name.
//  - kList: greedy; of the ready instructions, parameters and constants first, then the one
//    with the most bytes freed (operands it is the last unscheduled user of) minus bytes
//    defined, then text order.
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
