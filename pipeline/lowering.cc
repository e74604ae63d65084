#include "pipeline/lowering.h"

#include <vector>

#include "absl/status/status.h"
#include "pipeline/validate.h"
#include "support/str_util.h"

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
  // The transfer an action receives before it runs, and the one it sends after; kIdle if none.
  auto recv_of = [&](const Action& a) -> Action {
    const int32_t s = a.stage, m = a.microbatch;
    if (a.kind == ActionKind::kForward && s > 0 && crosses(s - 1, s)) {
      return {s, m, ActionKind::kRecvForward};
    }
    if (IsInputGradient(a.kind) && s < last && crosses(s + 1, s)) {
      return {s, m, ActionKind::kRecvBackward};
    }
    return Action::Idle();
  };
  auto send_of = [&](const Action& a) -> Action {
    const int32_t s = a.stage, m = a.microbatch;
    if (a.kind == ActionKind::kForward && s < last && crosses(s, s + 1)) {
      return {s, m, ActionKind::kSendForward};
    }
    if (IsInputGradient(a.kind) && s > 0 && crosses(s, s - 1)) {
      return {s, m, ActionKind::kSendBackward};
    }
    return Action::Idle();
  };
  for (int32_t r = 0; r < compute.num_ranks(); ++r) {
    std::vector<Action> row_in;
    row_in.reserve(compute.rows[r].size());
    for (const Action& a : compute.rows[r]) {
      if (!a.is_idle()) row_in.push_back(a);
    }
    std::vector<Action>& row = out.rows[r];
    row.reserve(row_in.size() * 2);
    // An OVERLAP_F_B group stays together: its parts' RECVs before it, their SENDs after it.
    for (size_t k = 0; k < row_in.size();) {
      size_t end = k;
      while (end + 1 < row_in.size() && row_in[end].overlaps_next) ++end;
      for (size_t j = k; j <= end; ++j) {
        if (Action recv = recv_of(row_in[j]); !recv.is_idle()) row.push_back(recv);
      }
      row.insert(row.end(), row_in.begin() + k, row_in.begin() + end + 1);
      for (size_t j = k; j <= end; ++j) {
        if (Action send = send_of(row_in[j]); !send.is_idle()) row.push_back(send);
      }
      k = end + 1;
    }
  }
  return out;
}

}  // namespace hloscope::pipeline
