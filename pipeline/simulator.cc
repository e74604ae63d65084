#include "pipeline/simulator.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "fmt/format.h"
#include "pipeline/grid_text.h"
#include "pipeline/validate.h"
#include "support/str_util.h"

namespace hloscope::pipeline {
namespace {

// The facts an action can wait for, one table each, indexed by stage * M + microbatch.
enum Table : int32_t {
  kForwardEnd,  // F ended
  kGradEnd,     // B or I ended
  kSendFStart,  // SEND_F started
  kSendBStart,  // SEND_B started
  kRecvFEnd,    // RECV_F ended
  kRecvBEnd,    // RECV_B ended
  kNumTables,
};

constexpr double kNotYet = std::numeric_limits<double>::quiet_NaN();

struct Dep {
  int64_t key = -1;  // table * S * M + stage * M + microbatch
  double lag = 0;
};

class Simulator {
 public:
  Simulator(const Schedule& s, const CostModel& c)
      : s_(s),
        c_(c),
        sm_(static_cast<int64_t>(s.num_stages) * s.num_microbatches),
        lowered_(s.HasComms()),
        value_(kNumTables * sm_, kNotYet),
        waiters_(kNumTables * sm_, -1),
        next_waiter_(s.num_ranks(), -1),
        blocked_on_(s.num_ranks(), -1),
        pc_(s.num_ranks(), 0),
        clock_(s.num_ranks(), 0.0),
        live_(s.num_ranks(), 0.0),
        live_count_(s.num_ranks(), 0) {}

  absl::StatusOr<Simulation> Run() {
    const int32_t p = s_.num_ranks();
    out_.timing.resize(p);
    out_.memory.resize(p);
    out_.ranks.resize(p);
    for (int32_t r = 0; r < p; ++r) out_.timing[r].resize(s_.rows[r].size());
    for (int32_t r = p - 1; r >= 0; --r) ready_.push_back(r);
    while (!ready_.empty()) {
      const int32_t r = ready_.back();
      ready_.pop_back();
      Advance(r);
    }
    for (int32_t r = 0; r < p; ++r) {
      if (pc_[r] < s_.rows[r].size()) return Deadlock();
    }
    Summarize();
    return std::move(out_);
  }

 private:
  int64_t Key(Table t, int32_t stage, int32_t mb) const {
    return t * sm_ + static_cast<int64_t>(stage) * s_.num_microbatches + mb;
  }

  // Inputs of `a` on rank r; at most two.
  int Deps(int32_t r, const Action& a, Dep* deps) const {
    const int32_t s = a.stage, m = a.microbatch, last = s_.num_stages - 1;
    int n = 0;
    // The neighbour's output: directly if on this rank, through a RECV if lowered, else a hop.
    auto input = [&](int32_t from, Table produced, Table received) {
      if (s_.stage_rank[from] == r) {
        deps[n++] = {Key(produced, from, m), 0};
      } else if (lowered_) {
        deps[n++] = {Key(received, s, m), 0};
      } else {
        deps[n++] = {Key(produced, from, m), c_.comm_time};
      }
    };
    switch (a.kind) {
      case ActionKind::kIdle:
      case ActionKind::kUnshard:  // no inputs in the model (see simulator.h)
      case ActionKind::kReshard:
      case ActionKind::kReduceGrad:
        break;
      case ActionKind::kForward:
        if (s > 0) input(s - 1, kForwardEnd, kRecvFEnd);
        break;
      case ActionKind::kBackward:
      case ActionKind::kBackwardInput:
        deps[n++] = {Key(kForwardEnd, s, m), 0};
        if (s < last) input(s + 1, kGradEnd, kRecvBEnd);
        break;
      case ActionKind::kBackwardWeight:
        deps[n++] = {Key(kGradEnd, s, m), 0};
        break;
      case ActionKind::kSendForward:
        deps[n++] = {Key(kForwardEnd, s, m), 0};
        break;
      case ActionKind::kSendBackward:
        deps[n++] = {Key(kGradEnd, s, m), 0};
        break;
      case ActionKind::kRecvForward:
        deps[n++] = {Key(kSendFStart, s - 1, m), c_.comm_time};
        break;
      case ActionKind::kRecvBackward:
        deps[n++] = {Key(kSendBStart, s + 1, m), c_.comm_time};
        break;
    }
    return n;
  }

  void Publish(int64_t key, double value) {
    value_[key] = value;
    for (int32_t w = waiters_[key]; w >= 0;) {
      const int32_t next = next_waiter_[w];
      next_waiter_[w] = -1;
      blocked_on_[w] = -1;
      ready_.push_back(w);
      w = next;
    }
    waiters_[key] = -1;
  }

  // Rank r waits for `key`: woken by Publish.
  void Wait(int32_t r, int64_t key) {
    next_waiter_[r] = waiters_[key];
    waiters_[key] = r;
    blocked_on_[r] = key;
  }

  // Runs rank r until it finishes or waits for an input that is not there yet.
  void Advance(int32_t r) {
    const auto& row = s_.rows[r];
    auto& timing = out_.timing[r];
    double clock = clock_[r];
    size_t k = pc_[r];
    Dep deps[2];
    for (; k < row.size(); ++k) {
      const Action& a = row[k];
      if (a.overlaps_next && (k == 0 || !row[k - 1].overlaps_next)) {
        // An OVERLAP_F_B group starts once every part's input is there, as PyTorch places it
        // (validate.h refuses a part that needs another part of its group).
        double group_start = clock;
        bool blocked = false;
        for (size_t j = k; j < row.size() && !blocked; ++j) {
          const int n = Deps(r, row[j], deps);
          for (int i = 0; i < n && !blocked; ++i) {
            const double v = value_[deps[i].key];
            if (std::isnan(v)) {
              Wait(r, deps[i].key);
              blocked = true;
            } else {
              group_start = std::max(group_start, v + deps[i].lag);
            }
          }
          if (!row[j].overlaps_next) break;
        }
        if (blocked) break;
        clock = group_start;
        // Its results leave the rank when the whole group is done: PyTorch sends after the cell.
        group_end_ = group_start;
        for (size_t j = k; j < row.size(); ++j) {
          group_end_ += c_.Duration(row[j]);
          if (!row[j].overlaps_next) break;
        }
      }
      double start = clock;
      const int n = Deps(r, a, deps);
      bool blocked = false;
      for (int i = 0; i < n; ++i) {
        const double v = value_[deps[i].key];
        if (std::isnan(v)) {
          Wait(r, deps[i].key);
          blocked = true;
          break;
        }
        start = std::max(start, v + deps[i].lag);
      }
      if (blocked) break;
      const double end = start + c_.Duration(a);
      timing[k] = {start, end};
      clock = end;
      const bool in_group = a.overlaps_next || (k > 0 && row[k - 1].overlaps_next);
      Finish(r, a, start, end, in_group ? group_end_ : end);
    }
    pc_[r] = k;
    clock_[r] = clock;
  }

  // `ready`: when other actions may use the result (the end, or the end of its OVERLAP_F_B group).
  void Finish(int32_t r, const Action& a, double start, double end, double ready) {
    const int32_t s = a.stage, m = a.microbatch;
    RankStats& st = out_.ranks[r];
    switch (a.kind) {
      case ActionKind::kIdle:
      case ActionKind::kUnshard:
      case ActionKind::kReshard:
      case ActionKind::kReduceGrad:
        return;
      case ActionKind::kForward:
        st.busy_time += end - start;
        Publish(Key(kForwardEnd, s, m), ready);
        live_[r] += c_.Bytes(s, m);
        ++live_count_[r];
        out_.memory[r].push_back({start, live_[r]});
        if (live_[r] > st.peak_bytes) {
          st.peak_bytes = live_[r];
          st.peak_time = start;
        }
        st.peak_live = std::max(st.peak_live, live_count_[r]);
        return;
      case ActionKind::kBackward:
      case ActionKind::kBackwardWeight:
        st.busy_time += end - start;
        if (a.kind == ActionKind::kBackward) Publish(Key(kGradEnd, s, m), ready);
        live_[r] -= c_.Bytes(s, m);
        --live_count_[r];
        out_.memory[r].push_back({end, live_[r]});
        return;
      case ActionKind::kBackwardInput:
        st.busy_time += end - start;
        Publish(Key(kGradEnd, s, m), ready);
        return;
      case ActionKind::kSendForward:
        Publish(Key(kSendFStart, s, m), start);
        return;
      case ActionKind::kSendBackward:
        Publish(Key(kSendBStart, s, m), start);
        return;
      case ActionKind::kRecvForward:
        Publish(Key(kRecvFEnd, s, m), end);
        return;
      case ActionKind::kRecvBackward:
        Publish(Key(kRecvBEnd, s, m), end);
        return;
    }
  }

  void Summarize() {
    for (int32_t r = 0; r < s_.num_ranks(); ++r) {
      out_.ranks[r].end_time = clock_[r];
      out_.makespan = std::max(out_.makespan, clock_[r]);
    }
    double busy = 0;
    for (RankStats& st : out_.ranks) {
      busy += st.busy_time;
      st.bubble_fraction = out_.makespan > 0 ? 1.0 - st.busy_time / out_.makespan : 0.0;
    }
    const double area = out_.makespan * s_.num_ranks();
    out_.bubble_fraction = area > 0 ? 1.0 - busy / area : 0.0;
  }

  // The actions that can satisfy `key`: B or I for a gradient, else one kind.
  void KindsOf(int64_t key, ActionKind kinds[2]) const {
    kinds[0] = kinds[1] = ActionKind::kIdle;
    switch (static_cast<Table>(key / sm_)) {
      case kForwardEnd:
        kinds[0] = ActionKind::kForward;
        break;
      case kGradEnd:
        kinds[0] = ActionKind::kBackward;
        kinds[1] = ActionKind::kBackwardInput;
        break;
      case kSendFStart:
        kinds[0] = ActionKind::kSendForward;
        break;
      case kSendBStart:
        kinds[0] = ActionKind::kSendBackward;
        break;
      case kRecvFEnd:
        kinds[0] = ActionKind::kRecvForward;
        break;
      case kRecvBEnd:
        kinds[0] = ActionKind::kRecvBackward;
        break;
      default:
        break;
    }
  }

  absl::Status Deadlock() const {
    // Where each awaited action sits, found in one pass over the schedule.
    struct Where {
      int32_t rank = -1;
      size_t step = 0;
    };
    absl::flat_hash_map<int64_t, Where> awaited;                 // by key
    absl::flat_hash_map<int64_t, std::vector<int64_t>> by_cell;  // stage*M+mb -> keys
    for (int32_t r = 0; r < s_.num_ranks(); ++r) {
      const int64_t key = blocked_on_[r];
      if (key >= 0 && awaited.try_emplace(key).second) by_cell[key % sm_].push_back(key);
    }
    for (int32_t q = 0; q < s_.num_ranks(); ++q) {
      for (size_t k = 0; k < s_.rows[q].size(); ++k) {
        const Action& a = s_.rows[q][k];
        if (a.is_idle()) continue;
        if (IsStageAction(a.kind)) continue;
        auto it = by_cell.find(static_cast<int64_t>(a.stage) * s_.num_microbatches + a.microbatch);
        if (it == by_cell.end()) continue;
        for (int64_t key : it->second) {
          ActionKind kinds[2];
          KindsOf(key, kinds);
          Where& where = awaited[key];
          if (where.rank < 0 && (a.kind == kinds[0] || a.kind == kinds[1])) where = {q, k};
        }
      }
    }
    std::vector<GridMark> marks;
    int64_t not_run = 0;
    for (int32_t r = 0; r < s_.num_ranks(); ++r) {
      const size_t k = pc_[r];
      if (k >= s_.rows[r].size()) continue;
      for (size_t j = k; j < s_.rows[r].size(); ++j) not_run += !s_.rows[r][j].is_idle();
      const int64_t key = blocked_on_[r];
      const Where where = awaited.at(key);
      ActionKind kinds[2];
      KindsOf(key, kinds);
      const int32_t stage = static_cast<int32_t>((key % sm_) / s_.num_microbatches);
      const int32_t mb = static_cast<int32_t>(key % s_.num_microbatches);
      std::string note;
      if (where.rank < 0) {
        note = StrCat("waits for ", ToString(Action{stage, mb, kinds[0]}), ", which no rank runs");
      } else {
        note = fmt::format("waits for {} (rank {}, step {:02}{})",
                           ToString(s_.rows[where.rank][where.step]), where.rank, where.step,
                           pc_[where.rank] < where.step ? ", not reached yet" : "");
      }
      marks.push_back({r, static_cast<int64_t>(k), std::move(note)});
    }
    return GridError(
        s_,
        StrCat("schedule '", s_.name, "' deadlocks: ", marks.size(), " of ", s_.num_ranks(),
               " ranks wait for each other, ", not_run, " actions never run:"),
        marks);
  }

  const Schedule& s_;
  const CostModel& c_;
  const int64_t sm_;
  const bool lowered_;
  std::vector<double> value_;         // per key: when the fact became true, NaN if not yet
  std::vector<int32_t> waiters_;      // per key: first rank waiting for it, -1 if none
  std::vector<int32_t> next_waiter_;  // per rank: next rank waiting for the same key
  std::vector<int64_t> blocked_on_;   // per rank: the key it waits for, -1 if not blocked
  std::vector<size_t> pc_;
  std::vector<double> clock_;
  std::vector<double> live_;
  std::vector<int64_t> live_count_;
  std::vector<int32_t> ready_;
  double group_end_ = 0;  // end of the OVERLAP_F_B group being run (groups never block inside)
  Simulation out_;
};

}  // namespace

absl::StatusOr<Simulation> Simulate(const Schedule& schedule, const CostModel& costs) {
  if (absl::Status st = ValidateSchedule(schedule); !st.ok()) return st;
  if (absl::Status st = costs.CheckCovers(schedule); !st.ok()) return st;
  return Simulator(schedule, costs).Run();
}

absl::StatusOr<Schedule> AlignToSteps(const Schedule& schedule) {
  absl::StatusOr<Simulation> sim = Simulate(schedule, CostModel::UnitSteps(schedule));
  if (!sim.ok()) return sim.status();
  Schedule aligned = schedule;
  for (int32_t r = 0; r < schedule.num_ranks(); ++r) {
    std::vector<Action>& row = aligned.rows[r];
    row.assign(static_cast<size_t>(sim->ranks[r].end_time), Action::Idle());
    for (size_t k = 0; k < schedule.rows[r].size(); ++k) {
      const Action& a = schedule.rows[r][k];
      if (a.is_idle()) continue;
      // The parts of an OVERLAP_F_B run at steps of their own here, so they are not regrouped.
      Action placed = a;
      placed.overlaps_next = false;
      row[static_cast<size_t>(sim->timing[r][k].start)] = placed;
    }
  }
  return aligned;
}

}  // namespace hloscope::pipeline
