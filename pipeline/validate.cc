#include "pipeline/validate.h"

#include <optional>
#include <string>
#include <vector>

#include "pipeline/grid_text.h"
#include "support/str_util.h"

namespace hloscope::pipeline {
namespace {

struct Pos {
  int32_t rank = -1;
  int32_t step = -1;
  bool found() const { return rank >= 0; }
};

// First occurrence and count of every (kind, stage, microbatch), in flat arrays: validation runs
// on every simulated schedule, including the 10^6-action benchmark.
class ActionIndex {
 public:
  ActionIndex(int32_t stages, int32_t microbatches)
      : stages_(stages),
        microbatches_(microbatches),
        pos_(static_cast<size_t>(kNumActionKinds) * stages * microbatches),
        count_(pos_.size()) {}

  bool InRange(const Action& a) const {
    return a.stage >= 0 && a.stage < stages_ && a.microbatch >= 0 && a.microbatch < microbatches_;
  }
  // Returns the number of times the action was seen before this one.
  int Add(const Action& a, int32_t rank, int32_t step) {
    const size_t i = Index(a.kind, a.stage, a.microbatch);
    if (count_[i] == 0) pos_[i] = {rank, step};
    const int before = count_[i];
    if (count_[i] < 255) ++count_[i];
    return before;
  }
  Pos Find(ActionKind kind, int32_t stage, int32_t mb) const {
    if (stage < 0 || stage >= stages_) return {};
    return pos_[Index(kind, stage, mb)];
  }
  int Count(ActionKind kind, int32_t stage, int32_t mb) const {
    return count_[Index(kind, stage, mb)];
  }

 private:
  size_t Index(ActionKind kind, int32_t stage, int32_t mb) const {
    return (static_cast<size_t>(kind) * stages_ + stage) * microbatches_ + mb;
  }
  int32_t stages_;
  int32_t microbatches_;
  std::vector<Pos> pos_;
  std::vector<uint8_t> count_;
};

std::string Name(ActionKind kind, int32_t stage, int32_t mb) {
  return ToString(Action{stage, mb, kind});
}

class Validator {
 public:
  explicit Validator(const Schedule& s) : s_(s), lowered_(s.HasComms()) {}

  absl::Status Run() {
    if (s_.num_ranks() == 0) return absl::InvalidArgumentError("schedule has no ranks");
    if (static_cast<int32_t>(s_.stage_rank.size()) != s_.num_stages) {
      return absl::InternalError("schedule's stage_rank does not cover its stages");
    }
    // Every (stage, microbatch) needs its own forward, so a schedule with fewer actions than
    // that names indices it cannot cover. Checked first: the index below is S * M large, and
    // one stray "0F2000000000" in a CSV must not turn into a 100 GB allocation.
    const int64_t cells = static_cast<int64_t>(s_.num_stages) * s_.num_microbatches;
    if (cells > s_.CountActions()) return TooFewActions(cells);
    index_.emplace(s_.num_stages, s_.num_microbatches);
    IndexActions();
    if (marks_.empty()) CheckOrderAndPairs();
    if (marks_.empty()) CheckComplete();
    if (marks_.empty()) return absl::OkStatus();
    return GridError(s_,
                     StrCat("schedule '", s_.name, "' is invalid (", marks_.size(),
                            marks_.size() == 1 ? " problem):" : " problems):"),
                     marks_);
  }

 private:
  void Mark(int32_t rank, int32_t step, std::string note) {
    marks_.push_back({rank, step, std::move(note)});
  }

  absl::Status TooFewActions(int64_t cells) {
    // Point at the cells that name the largest stage and microbatch: usually the typo.
    for (int32_t r = 0; r < s_.num_ranks(); ++r) {
      for (int32_t k = 0; k < static_cast<int32_t>(s_.rows[r].size()); ++k) {
        const Action& a = s_.rows[r][k];
        if (!a.is_idle() &&
            (a.stage == s_.num_stages - 1 || a.microbatch == s_.num_microbatches - 1)) {
          Mark(r, k, "names the largest index");
          if (marks_.size() >= 4) break;
        }
      }
    }
    return GridError(s_,
                     StrCat("schedule '", s_.name, "' is invalid: it names ", s_.num_stages,
                            " stages and ", s_.num_microbatches, " microbatches (", cells,
                            " forwards needed) but has only ", s_.CountActions(), " actions:"),
                     marks_);
  }

  // Pass 1: ranges, placement, duplicates; records where everything is.
  void IndexActions() {
    for (int32_t r = 0; r < s_.num_ranks(); ++r) {
      const auto& row = s_.rows[r];
      for (int32_t k = 0; k < static_cast<int32_t>(row.size()); ++k) {
        const Action& a = row[k];
        if (a.is_idle()) continue;
        if (a.overlaps_next && (k + 1 >= static_cast<int32_t>(row.size()) ||
                                !IsCompute(row[k + 1].kind) || !IsCompute(a.kind))) {
          Mark(r, k, "starts an OVERLAP_F_B group that has no compute action after it");
        }
        if (IsStageAction(a.kind)) {
          // Per stage, any number of times (UNSHARD/RESHARD once per prefetch window).
          if (a.stage >= s_.num_stages || s_.stage_rank[a.stage] != r) {
            Mark(r, k,
                 StrCat("names stage ", a.stage, ", which has no compute action on this rank"));
          }
          continue;
        }
        if (!index_->InRange(a)) {
          Mark(r, k,
               StrCat("is out of range (", s_.num_stages, " stages, ", s_.num_microbatches,
                      " microbatches)"));
          continue;
        }
        const int32_t home = s_.stage_rank[a.stage];
        if (home != r) {
          Mark(r, k,
               home < 0 ? StrCat("names stage ", a.stage, ", which has no compute action")
                        : StrCat("runs stage ", a.stage, " here, but the stage is on rank ", home,
                                 " (a stage belongs to one rank)"));
        }
        if (index_->Add(a, r, k) > 0) {
          const Pos first = index_->Find(a.kind, a.stage, a.microbatch);
          Mark(r, k,
               StrCat("is a duplicate (first at rank ", first.rank, ", step ", first.step, ")"));
        }
      }
    }
  }

  // (kind, stage, mb) must be on rank r before step k; marks the cell when it is not.
  void Require(int32_t r, int32_t k, ActionKind kind, int32_t stage, int32_t mb,
               std::string_view why) {
    const Pos p = index_->Find(kind, stage, mb);
    if (p.found() && p.rank == r && p.step >= group_start_ && p.step < k) {
      // PyTorch places an OVERLAP_F_B cell only when all its parts' inputs are there, so a part
      // cannot use another part's output: its _add_send_recv reports such a schedule malformed.
      Mark(r, k,
           StrCat("needs ", Name(kind, stage, mb), " (", why,
                  ") from its own OVERLAP_F_B group, whose parts start together"));
      return;
    }
    if (p.found() && p.rank == r && p.step < k) return;
    if (!p.found()) {
      Mark(r, k, StrCat("needs ", Name(kind, stage, mb), " (", why, "), which is missing"));
    } else if (p.rank != r) {
      Mark(r, k,
           StrCat("needs ", Name(kind, stage, mb), " (", why, ") on this rank, but it is on rank ",
                  p.rank));
    } else {
      Mark(r, k, StrCat("comes before ", Name(kind, stage, mb), " (", why, ", step ", p.step, ")"));
    }
  }

  // The backward (B or I) of (stage, mb), whichever the schedule uses.
  ActionKind GradKind(int32_t stage, int32_t mb) const {
    return index_->Find(ActionKind::kBackwardInput, stage, mb).found() ? ActionKind::kBackwardInput
                                                                       : ActionKind::kBackward;
  }

  // Pass 2: same-rank order and SEND/RECV pairing.
  void CheckOrderAndPairs() {
    const int32_t last = s_.num_stages - 1;
    for (int32_t r = 0; r < s_.num_ranks(); ++r) {
      const auto& row = s_.rows[r];
      for (int32_t k = 0; k < static_cast<int32_t>(row.size()); ++k) {
        const Action& a = row[k];
        const int32_t s = a.stage, m = a.microbatch;
        if (k == 0 || !row[k - 1].overlaps_next) group_start_ = k;
        switch (a.kind) {
          case ActionKind::kIdle:
          case ActionKind::kUnshard:
          case ActionKind::kReshard:
          case ActionKind::kReduceGrad:
            break;
          case ActionKind::kForward:
            if (s > 0) RequireInput(r, k, a, s - 1, ActionKind::kForward, ActionKind::kRecvForward);
            break;
          case ActionKind::kBackward:
          case ActionKind::kBackwardInput:
            Require(r, k, ActionKind::kForward, s, m, "its forward");
            if (s < last)
              RequireInput(r, k, a, s + 1, GradKind(s + 1, m), ActionKind::kRecvBackward);
            if (a.kind == ActionKind::kBackward &&
                index_->Find(ActionKind::kBackwardWeight, s, m).found()) {
              Mark(r, k, "has both a full backward B and a weight backward W");
            }
            break;
          case ActionKind::kBackwardWeight:
            Require(r, k, ActionKind::kBackwardInput, s, m, "its input backward");
            break;
          case ActionKind::kSendForward:
            Require(r, k, ActionKind::kForward, s, m, "the data it sends");
            CheckPeer(r, k, a, s + 1, ActionKind::kRecvForward);
            break;
          case ActionKind::kSendBackward:
            Require(r, k, GradKind(s, m), s, m, "the data it sends");
            CheckPeer(r, k, a, s - 1, ActionKind::kRecvBackward);
            break;
          case ActionKind::kRecvForward:
            CheckPeer(r, k, a, s - 1, ActionKind::kSendForward);
            break;
          case ActionKind::kRecvBackward:
            CheckPeer(r, k, a, s + 1, ActionKind::kSendBackward);
            break;
        }
      }
    }
  }

  // Action `a` consumes the output of stage `from` (forward: from = s-1; backward: from = s+1).
  void RequireInput(int32_t r, int32_t k, const Action& a, int32_t from, ActionKind producer,
                    ActionKind recv) {
    if (s_.stage_rank[from] == r) {
      Require(r, k, producer, from, a.microbatch, "its input, on this rank");
    } else if (lowered_) {
      Require(r, k, recv, a.stage, a.microbatch, "its input from another rank");
    }
  }

  // A SEND or RECV of stage a.stage talks to stage `peer`, whose action `peer_kind` must exist.
  void CheckPeer(int32_t r, int32_t k, const Action& a, int32_t peer, ActionKind peer_kind) {
    if (peer < 0 || peer >= s_.num_stages) {
      Mark(r, k, StrCat("has no peer: stage ", peer, " does not exist"));
      return;
    }
    if (s_.stage_rank[peer] == r) {
      Mark(r, k,
           StrCat("is not needed: stages ", a.stage, " and ", peer,
                  " are both on this rank and pass data directly"));
      return;
    }
    if (!index_->Find(peer_kind, peer, a.microbatch).found()) {
      Mark(r, k, StrCat("has no matching ", Name(peer_kind, peer, a.microbatch)));
    }
  }

  // Pass 3: every (stage, microbatch) has its forward and a backward.
  void CheckComplete() {
    for (int32_t s = 0; s < s_.num_stages; ++s) {
      const int32_t r = s_.stage_rank[s];
      for (int32_t m = 0; m < s_.num_microbatches; ++m) {
        const bool f = index_->Count(ActionKind::kForward, s, m) > 0;
        const bool b = index_->Count(ActionKind::kBackward, s, m) > 0;
        const bool i = index_->Count(ActionKind::kBackwardInput, s, m) > 0;
        const bool w = index_->Count(ActionKind::kBackwardWeight, s, m) > 0;
        const std::string where = StrCat("stage ", s, " (rank ", r, "), microbatch ", m);
        if (!f)
          marks_.push_back(
              {r, -1, StrCat(where, ": no forward ", Name(ActionKind::kForward, s, m))});
        if (!b && !i) {
          marks_.push_back({r, -1,
                            StrCat(where, ": no backward (", Name(ActionKind::kBackward, s, m),
                                   " or ", Name(ActionKind::kBackwardInput, s, m), ")")});
        } else if (i && !w) {
          marks_.push_back(
              {r, -1,
               StrCat(where, ": ", Name(ActionKind::kBackwardInput, s, m),
                      " has no weight backward ", Name(ActionKind::kBackwardWeight, s, m))});
        }
      }
    }
  }

  const Schedule& s_;
  std::optional<ActionIndex> index_;  // built once the sizes are known to be sane
  const bool lowered_;
  std::vector<GridMark> marks_;
  int32_t group_start_ = 0;  // first cell of the OVERLAP_F_B group of the cell being checked
};

}  // namespace

absl::Status ValidateSchedule(const Schedule& schedule) { return Validator(schedule).Run(); }

}  // namespace hloscope::pipeline
