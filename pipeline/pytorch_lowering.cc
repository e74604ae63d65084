#include "pipeline/pytorch_lowering.h"

#include <algorithm>
#include <span>
#include <vector>

#include "absl/status/status.h"
#include "pipeline/validate.h"
#include "support/str_util.h"

namespace hloscope::pipeline {
namespace {

using Row = std::vector<Action>;

// A row without idle cells, cut into cells: an OVERLAP_F_B group is one cell.
std::vector<std::span<const Action>> Cells(const Row& row) {
  std::vector<std::span<const Action>> cells;
  for (size_t k = 0; k < row.size();) {
    if (row[k].is_idle()) {
      ++k;
      continue;
    }
    size_t end = k;
    while (end + 1 < row.size() && row[end].overlaps_next) ++end;
    cells.emplace_back(row.data() + k, end - k + 1);
    k = end + 1;
  }
  return cells;
}

Schedule WithRows(const Schedule& in, std::vector<Row> rows) {
  Schedule out = in;
  out.rows = std::move(rows);
  return out;
}

}  // namespace

Schedule AddUnshardReshard(const Schedule& schedule, int32_t max_active) {
  std::vector<Row> rows(schedule.rows.size());
  for (size_t r = 0; r < schedule.rows.size(); ++r) {
    const std::vector<std::span<const Action>> cells = Cells(schedule.rows[r]);
    // next[c]: the first `max_active` distinct stages from cell c on (a group counts whole), built
    // from the back so that a row costs O(cells * max_active), not a scan to its end per cell.
    // (PyTorch scans forward and, after a group, stops once it has at least `max_active`; a
    // group in the middle of the window can therefore give it one more stage than here.)
    std::vector<std::vector<int32_t>> upcoming(cells.size() + 1);
    for (size_t c = cells.size(); c-- > 0;) {
      std::vector<int32_t>& next = upcoming[c];
      for (const Action& a : cells[c]) {
        if (std::find(next.begin(), next.end(), a.stage) == next.end()) next.push_back(a.stage);
      }
      const size_t limit = std::max(next.size(), static_cast<size_t>(std::max(max_active, 1)));
      for (int32_t s : upcoming[c + 1]) {
        if (next.size() >= limit) break;
        if (std::find(next.begin(), next.end(), s) == next.end()) next.push_back(s);
      }
    }
    std::vector<int32_t> active;  // in the order they were unsharded
    Row& out = rows[r];
    for (size_t c = 0; c < cells.size(); ++c) {
      const std::vector<int32_t>& next = upcoming[c];
      std::vector<int32_t> evict;
      for (int32_t s : active) {
        if (std::find(next.begin(), next.end(), s) == next.end()) evict.push_back(s);
      }
      std::sort(evict.begin(), evict.end());
      for (int32_t s : evict) {
        out.push_back({s, -1, ActionKind::kReshard});
        active.erase(std::find(active.begin(), active.end(), s));
      }
      for (int32_t s : next) {
        if (std::find(active.begin(), active.end(), s) != active.end()) continue;
        out.push_back({s, -1, ActionKind::kUnshard});
        active.push_back(s);
      }
      out.insert(out.end(), cells[c].begin(), cells[c].end());
    }
    std::sort(active.begin(), active.end());
    for (int32_t s : active) out.push_back({s, -1, ActionKind::kReshard});
  }
  return WithRows(schedule, std::move(rows));
}

Schedule AddReduceGrad(const Schedule& schedule) {
  std::vector<int32_t> backwards(schedule.num_stages, 0);
  std::vector<Row> rows(schedule.rows.size());
  for (size_t r = 0; r < schedule.rows.size(); ++r) {
    for (std::span<const Action> cell : Cells(schedule.rows[r])) {
      rows[r].insert(rows[r].end(), cell.begin(), cell.end());
      for (const Action& a : cell) {
        if (a.kind != ActionKind::kBackward && a.kind != ActionKind::kBackwardWeight) continue;
        if (++backwards[a.stage] == schedule.num_microbatches) {
          rows[r].push_back({a.stage, -1, ActionKind::kReduceGrad});
        }
      }
    }
  }
  return WithRows(schedule, std::move(rows));
}

absl::StatusOr<Schedule> AddSendRecvEager(const Schedule& compute) {
  if (compute.HasComms()) {
    return absl::InvalidArgumentError(
        StrCat("schedule '", compute.name, "' already has SEND/RECV actions"));
  }
  if (absl::Status st = ValidateSchedule(compute); !st.ok()) return st;
  const int32_t p = compute.num_ranks();
  const int32_t last = compute.num_stages - 1;
  const int64_t sm = static_cast<int64_t>(compute.num_stages) * compute.num_microbatches;
  // placed[kind][stage * M + mb]: the action is in its rank's output. Each action of a valid
  // schedule is on one rank, so "placed on this rank" is "placed and the stage is here".
  enum Fact { kF, kGrad, kRecvF, kRecvB, kNumFacts };
  std::vector<char> placed(kNumFacts * sm, 0);
  auto key = [&](Fact f, int32_t s, int32_t mb) {
    return f * sm + int64_t{s} * compute.num_microbatches + mb;
  };
  auto on = [&](int32_t stage, int32_t r) { return compute.stage_rank[stage] == r; };
  auto ready = [&](const Action& a, int32_t r) {
    const int32_t s = a.stage, mb = a.microbatch;
    if (a.kind == ActionKind::kForward && s > 0) {
      return placed[key(kRecvF, s, mb)] || (on(s - 1, r) && placed[key(kF, s - 1, mb)]);
    }
    if (IsInputGradient(a.kind) && s < last) {
      return placed[key(kRecvB, s, mb)] || (on(s + 1, r) && placed[key(kGrad, s + 1, mb)]);
    }
    return true;
  };
  std::vector<std::vector<std::span<const Action>>> cells(p);
  for (int32_t r = 0; r < p; ++r) cells[r] = Cells(compute.rows[r]);
  std::vector<size_t> next(p, 0);
  std::vector<Row> rows(p);
  int32_t remaining = 0;
  for (int32_t r = 0; r < p; ++r) remaining += !cells[r].empty();
  while (remaining > 0) {
    bool progress = false;
    for (int32_t r = 0; r < p; ++r) {
      if (next[r] >= cells[r].size()) continue;
      const std::span<const Action> cell = cells[r][next[r]];
      if (!std::all_of(cell.begin(), cell.end(), [&](const Action& a) { return ready(a, r); })) {
        continue;
      }
      rows[r].insert(rows[r].end(), cell.begin(), cell.end());
      for (const Action& a : cell) {
        const int32_t s = a.stage, mb = a.microbatch;
        if (a.kind == ActionKind::kForward) {
          placed[key(kF, s, mb)] = 1;
          if (s < last && !on(s + 1, r)) {
            rows[r].push_back({s, mb, ActionKind::kSendForward});
            rows[compute.stage_rank[s + 1]].push_back({s + 1, mb, ActionKind::kRecvForward});
            placed[key(kRecvF, s + 1, mb)] = 1;
          }
        } else if (IsInputGradient(a.kind)) {
          placed[key(kGrad, s, mb)] = 1;
          if (s > 0 && !on(s - 1, r)) {
            rows[r].push_back({s, mb, ActionKind::kSendBackward});
            rows[compute.stage_rank[s - 1]].push_back({s - 1, mb, ActionKind::kRecvBackward});
            placed[key(kRecvB, s - 1, mb)] = 1;
          }
        }
      }
      if (++next[r] == cells[r].size()) --remaining;
      progress = true;
    }
    if (!progress) {
      return absl::InvalidArgumentError(
          StrCat("schedule '", compute.name,
                 "': cannot place its sends and receives: every rank's next action waits for "
                 "one that is never placed (PyTorch: malformed compute schedule)"));
    }
  }
  return WithRows(compute, std::move(rows));
}

absl::StatusOr<Schedule> LockstepGrid(const Schedule& lowered) {
  if (absl::Status st = ValidateSchedule(lowered); !st.ok()) return st;
  const int32_t p = lowered.num_ranks();
  const int32_t last = lowered.num_stages - 1;
  const int64_t sm = static_cast<int64_t>(lowered.num_stages) * lowered.num_microbatches;
  enum Fact { kF, kGrad, kSendF, kSendB, kRecvF, kRecvB, kNumFacts };
  std::vector<char> placed(kNumFacts * sm, 0);
  auto key = [&](Fact f, int32_t s, int32_t mb) {
    return f * sm + int64_t{s} * lowered.num_microbatches + mb;
  };
  auto here = [&](int32_t a, int32_t b) { return lowered.stage_rank[a] == lowered.stage_rank[b]; };
  auto ready = [&](const Action& a) {
    const int32_t s = a.stage, mb = a.microbatch;
    switch (a.kind) {
      case ActionKind::kForward:
        return s == 0 || placed[key(kRecvF, s, mb)] ||
               (here(s - 1, s) && placed[key(kF, s - 1, mb)]);
      case ActionKind::kBackward:
      case ActionKind::kBackwardInput:
        return s == last || placed[key(kRecvB, s, mb)] ||
               (here(s + 1, s) && placed[key(kGrad, s + 1, mb)]);
      case ActionKind::kSendForward:
        return placed[key(kF, s, mb)] != 0;
      case ActionKind::kSendBackward:
        return placed[key(kGrad, s, mb)] != 0;
      case ActionKind::kRecvForward:
        return placed[key(kSendF, s - 1, mb)] != 0;
      case ActionKind::kRecvBackward:
        return placed[key(kSendB, s + 1, mb)] != 0;
      default:
        return true;  // W, idle, and the stage actions
    }
  };
  auto place = [&](const Action& a) {
    const int32_t s = a.stage, mb = a.microbatch;
    switch (a.kind) {
      case ActionKind::kForward:
        placed[key(kF, s, mb)] = 1;
        break;
      case ActionKind::kBackward:
      case ActionKind::kBackwardInput:
        placed[key(kGrad, s, mb)] = 1;
        break;
      case ActionKind::kSendForward:
        placed[key(kSendF, s, mb)] = 1;
        break;
      case ActionKind::kSendBackward:
        placed[key(kSendB, s, mb)] = 1;
        break;
      case ActionKind::kRecvForward:
        placed[key(kRecvF, s, mb)] = 1;
        break;
      case ActionKind::kRecvBackward:
        placed[key(kRecvB, s, mb)] = 1;
        break;
      default:
        break;
    }
  };
  std::vector<Row> queue(p);
  for (int32_t r = 0; r < p; ++r) {
    for (Action a : lowered.rows[r]) {
      if (a.is_idle()) continue;
      a.overlaps_next = false;
      queue[r].push_back(a);
    }
  }
  std::vector<size_t> next(p, 0);
  std::vector<Row> rows(p);
  auto pending = [&](int32_t r) { return next[r] < queue[r].size(); };
  for (;;) {
    bool any = false, progress = false;
    for (int32_t r = 0; r < p; ++r) {
      if (!pending(r)) continue;
      any = true;
      const Action& a = queue[r][next[r]];
      if (ready(a)) {
        rows[r].push_back(a);
        place(a);
        ++next[r];
        progress = true;
      } else {
        rows[r].push_back(Action::Idle());
      }
    }
    if (!any) break;
    // A rank that idled may have been unblocked by a later rank in this step.
    for (int32_t r = 0; r < p; ++r) {
      if (!pending(r) || rows[r].empty() || !rows[r].back().is_idle()) continue;
      const Action& a = queue[r][next[r]];
      if (!ready(a)) continue;
      rows[r].back() = a;
      place(a);
      ++next[r];
    }
    if (!progress) {
      return absl::InvalidArgumentError(StrCat("schedule '", lowered.name,
                                               "' is not progressing in the lockstep grid "
                                               "(PyTorch's _simulate_comms_compute)"));
    }
  }
  return WithRows(lowered, std::move(rows));
}

}  // namespace hloscope::pipeline
