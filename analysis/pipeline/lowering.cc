#include "analysis/pipeline/lowering.h"

#include <vector>

#include "absl/status/status.h"
#include "analysis/pipeline/validate.h"
#include "hlo/str_util.h"

namespace hloscope::pipeline {

absl::StatusOr<Schedule> AddSendRecv(const Schedule& compute) {
  if (compute.HasComms()) {
    return absl::InvalidArgumentError(
        StrCat("schedule '", compute.name, "' already has SEND/RECV actions"));
  }
  if (absl::Status st = ValidateSchedule(compute); !st.ok()) return st;
  Schedule out;
  out.name = compute.name;
  out.num_stages = compute.num_stages;
  out.num_microbatches = compute.num_microbatches;
  out.stage_rank = compute.stage_rank;
  out.rows.resize(compute.rows.size());
  const int32_t last = compute.num_stages - 1;
  auto crosses = [&](int32_t from, int32_t to) {
    return compute.stage_rank[from] != compute.stage_rank[to];
  };
  for (int32_t r = 0; r < compute.num_ranks(); ++r) {
    std::vector<Action>& row = out.rows[r];
    row.reserve(compute.rows[r].size() * 2);
    for (const Action& a : compute.rows[r]) {
      const int32_t s = a.stage, m = a.microbatch;
      switch (a.kind) {
        case ActionKind::kForward:
          if (s > 0 && crosses(s - 1, s)) row.push_back({s, m, ActionKind::kRecvForward});
          row.push_back(a);
          if (s < last && crosses(s, s + 1)) row.push_back({s, m, ActionKind::kSendForward});
          break;
        case ActionKind::kBackward:
        case ActionKind::kBackwardInput:
          if (s < last && crosses(s + 1, s)) row.push_back({s, m, ActionKind::kRecvBackward});
          row.push_back(a);
          if (s > 0 && crosses(s, s - 1)) row.push_back({s, m, ActionKind::kSendBackward});
          break;
        case ActionKind::kBackwardWeight:
          row.push_back(a);
          break;
        default:
          break;  // idle
      }
    }
  }
  return out;
}

}  // namespace hloscope::pipeline
