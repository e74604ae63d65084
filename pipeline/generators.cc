#include "pipeline/generators.h"

#include <algorithm>
#include <charconv>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "support/status_text.h"
#include "support/str_util.h"

namespace hloscope::pipeline {
namespace {

using Row = std::vector<Action>;

Action F(int32_t stage, int32_t mb) { return {stage, mb, ActionKind::kForward}; }
Action B(int32_t stage, int32_t mb) { return {stage, mb, ActionKind::kBackward}; }
Action I(int32_t stage, int32_t mb) { return {stage, mb, ActionKind::kBackwardInput}; }
Action W(int32_t stage, int32_t mb) { return {stage, mb, ActionKind::kBackwardWeight}; }

Action Idle() { return Action::Idle(); }

// Each generator writes its rank's row in PyTorch's pipeline_order layout: the actions in program
// order with the idle cells PyTorch places to suggest a step grid. GenerateSchedule drops the
// idle cells (they do not change what runs); GeneratePytorchOrder keeps them.

void AppendIdle(Row& row, int64_t n) {
  for (int64_t k = 0; k < n; ++k) row.push_back(Idle());
}

Row GPipeRow(int32_t r, int32_t m) {
  Row row;
  row.reserve(2 * m);
  for (int32_t k = 0; k < m; ++k) row.push_back(F(r, k));
  for (int32_t k = 0; k < m; ++k) row.push_back(B(r, k));
  return row;
}

// Rank r runs p-r-1 warm-up forwards, then F/B pairs while forwards remain, then the remaining
// backwards. (The order PyTorch's Schedule1F1B executes; see the docs for its pipeline_order.)
Row OneFOneB(int32_t r, int32_t p, int32_t m) {
  Row row;
  row.reserve(2 * m);
  const int32_t warmup = std::min(m, p - r - 1);
  int32_t f = 0, b = 0;
  while (f < warmup) row.push_back(F(r, f++));
  while (f < m) {
    row.push_back(F(r, f++));
    row.push_back(B(r, b++));
  }
  while (b < m) row.push_back(B(r, b++));
  return row;
}

// Breadth first: all forwards of each local stage in turn, then the stages' backwards in reverse,
// each stage's microbatches last to first (the reverse of the forward order, as PyTorch runs it).
Row LoopedBfs(int32_t r, int32_t p, int32_t v, int32_t m) {
  Row row;
  AppendIdle(row, r);
  for (int32_t c = 0; c < v; ++c) {
    for (int32_t k = 0; k < m; ++k) row.push_back(F(c * p + r, k));
  }
  AppendIdle(row, 2 * (p - 1 - r));
  for (int32_t c = v - 1; c >= 0; --c) {
    for (int32_t k = m - 1; k >= 0; --k) row.push_back(B(c * p + r, k));
  }
  return row;
}

// Microbatches go in rounds: rounds = max(1, m / p) of m / rounds microbatches each, which must
// divide m (PyTorch's flexible rule; Megatron's needs m a multiple of p).
struct Rounds {
  int32_t count = 1;
  int32_t size = 1;  // microbatches per round
};

absl::StatusOr<Rounds> MicrobatchRounds(std::string_view name, int32_t p, int32_t m) {
  Rounds rounds;
  rounds.count = std::max(1, m / p);
  rounds.size = m / rounds.count;
  if (m % rounds.count != 0) {
    return absl::InvalidArgumentError(StrCat(name, ": the microbatches (", m,
                                             ") must be a multiple of the number of rounds (",
                                             rounds.count, " = max(1, microbatches / ranks))"));
  }
  return rounds;
}

// Interleaved 1F1B and its zero-bubble variant (ZB1P) on rank r of p, with v stages per rank in
// loop placement (stage c*p + r). Operation k < v*m is a forward, taken round by round: the
// round's microbatches on local stage 0, then on stage 1, ... The backward paired with operation
// k (counting from the end of the warm-up) walks the stages in reverse the same way. Warm-up:
// (v-1) rounds plus `hop` operations per rank below the last; then F/B pairs; then the remaining
// backwards. The zero-bubble variant splits B into I and W and runs W(k) after the pair of
// operation k+r, draining the rest at the end.
class InterleavedRow {
 public:
  InterleavedRow(int32_t r, int32_t p, int32_t v, int32_t m, Rounds rounds, bool zero_bubble)
      : r_(r), p_(p), v_(v), m_(m), per_round_(rounds.size), zero_bubble_(zero_bubble) {
    const int64_t hop = zero_bubble ? 1 : 2;
    warmup_ = static_cast<int32_t>(
        std::min<int64_t>(int64_t{v - 1} * per_round_ + hop * (p - 1 - r), int64_t{m} * v));
    next_f_.assign(v, 0);
    next_b_.assign(v, 0);
    next_w_.assign(v, 0);
  }

  Row Build() {
    const int32_t ops = v_ * m_;
    // The idle steps PyTorch leaves after the warm-up so that the first backward lines up.
    const int64_t settle =
        zero_bubble_ ? p_ - r_ - 1 : int64_t{v_} * p_ + 2 * (p_ - 1 - r_) - (warmup_ + r_);
    AppendIdle(row_, r_);
    for (int32_t op = 0; op < ops + warmup_; ++op) {
      if (op < warmup_) {
        Forward(op);
        if (op == warmup_ - 1) AppendIdle(row_, std::max<int64_t>(0, settle));
        continue;
      }
      if (op < ops) {
        Forward(op);
      } else if (!zero_bubble_) {
        row_.push_back(Idle());
      }
      Backward(op);
      if (zero_bubble_ && op - warmup_ >= r_) Weight();
    }
    while (zero_bubble_ && weights_done_ < backward_ops_.size()) Weight();
    return std::move(row_);
  }

 private:
  int32_t ForwardChunk(int32_t op) const { return (op / per_round_) % v_; }
  int32_t BackwardChunk(int32_t op) const { return v_ - 1 - ((op - warmup_) / per_round_) % v_; }
  int32_t Stage(int32_t chunk) const { return chunk * p_ + r_; }

  void Forward(int32_t op) {
    const int32_t c = ForwardChunk(op);
    row_.push_back(F(Stage(c), next_f_[c]++));
  }
  void Backward(int32_t op) {
    const int32_t c = BackwardChunk(op);
    row_.push_back(zero_bubble_ ? I(Stage(c), next_b_[c]++) : B(Stage(c), next_b_[c]++));
    backward_ops_.push_back(op);
  }
  void Weight() {
    const int32_t c = BackwardChunk(backward_ops_[weights_done_++]);
    row_.push_back(W(Stage(c), next_w_[c]++));
  }

  int32_t r_, p_, v_, m_, per_round_;
  bool zero_bubble_;
  int32_t warmup_ = 0;
  std::vector<int32_t> next_f_, next_b_, next_w_;
  std::vector<int32_t> backward_ops_;
  size_t weights_done_ = 0;
  Row row_;
};

// PyTorch's ZB1P rows are written without regard to timing; it then walks all ranks in lockstep
// and holds back (with an idle cell) a forward whose previous stage's forward has not run in an
// earlier step. This reproduces that layout.
}  // namespace

// PyTorch loops forever when every rank waits; here that is an error.
absl::Status AddForwardBubbles(std::vector<std::vector<Action>>& rows, int32_t stages, int32_t m) {
  const int32_t p = static_cast<int32_t>(rows.size());
  std::vector<Row> out(p);
  std::vector<size_t> next(p, 0);
  std::vector<char> done(static_cast<size_t>(stages) * m, 0);  // F(stage, mb) ran
  std::vector<int64_t> finished_now;
  for (;;) {
    bool any = false, progress = false;
    finished_now.clear();
    for (int32_t r = 0; r < p; ++r) {
      if (next[r] >= rows[r].size()) continue;
      any = true;
      const Action& a = rows[r][next[r]];
      if (a.is_idle()) {
        ++next[r];
        out[r].push_back(Idle());
        progress = true;
        continue;
      }
      const bool wait = a.kind == ActionKind::kForward && a.stage > 0 &&
                        !done[static_cast<size_t>(a.stage - 1) * m + a.microbatch];
      if (wait) {
        out[r].push_back(Idle());
        continue;
      }
      out[r].push_back(a);
      if (a.kind == ActionKind::kForward) {
        finished_now.push_back(static_cast<int64_t>(a.stage) * m + a.microbatch);
      }
      ++next[r];
      progress = true;
    }
    for (int64_t key : finished_now) done[key] = 1;
    if (!any) break;
    if (!progress) {
      return absl::InvalidArgumentError(
          "every rank waits for a forward that never runs (the order deadlocks at these sizes)");
    }
  }
  rows = std::move(out);
  return absl::OkStatus();
}

namespace {

Row ZeroBubbleH1(int32_t r, int32_t p, int32_t m) {
  Row row;
  for (int32_t x = 0; x < m + p - 1; ++x) {
    if (x < m) row.push_back(F(r, x));
    if (const int32_t i = x - (p - 1 - r); i >= 0 && i < m) row.push_back(I(r, i));
    if (const int32_t w = x - (p - 1); w >= 0 && w < m) row.push_back(W(r, w));
  }
  return row;
}

// ZB-V on rank r, which holds the down-going stage c0 = r and the up-going stage c1 = 2p-1-r.
// Phases: fill with forwards of c0 (more on the early ranks, which wait longest for c1's
// input), interleave the first forwards of c1, run c1's first microbatches through F-I-W, then
// a steady state of F-I-W on both stages, then drain inputs first and weights last. The phases
// are laid out for at least 2p-1 microbatches; with fewer, the cells of the missing ones become
// idle (PyTorch's rule), which keeps the order of the others.
class ZeroBubbleVRow {
 public:
  ZeroBubbleVRow(int32_t r, int32_t p, int32_t m)
      : r_(r), p_(p), m_(m), n_(std::max(m, 2 * p - 1)) {
    chunk_[0] = r;
    chunk_[1] = 2 * p - 1 - r;
  }

  Row Build() {
    AppendIdle(row_, r_);
    for (int32_t k = 0; k < 2 * (p_ - r_) - 1; ++k) Forward(0);
    for (int32_t k = 0; k < r_; ++k) {
      Forward(1);
      Forward(0);
    }
    for (int32_t k = 0; k < p_ - r_; ++k) {
      Forward(1);
      Input(1);
      Weight(1);
    }
    while (next_f_[1] < next_f_[0] || next_f_[0] < n_) {
      if (next_f_[0] < n_) Forward(0);
      Input(0);
      Weight(0);
      Forward(1);
      Input(1);
      Weight(1);
    }
    for (int32_t k = 0; k < r_; ++k) {
      Input(0);
      Input(1);
    }
    for (int32_t k = 0; k < p_ - r_; ++k) {
      Input(0);
      Weight(0);
    }
    while (next_w_[1] < next_i_[1]) Weight(1);
    while (next_w_[0] < next_i_[0]) Weight(0);
    return std::move(row_);
  }

 private:
  void Emit(Action a) { row_.push_back(a.microbatch < m_ ? a : Idle()); }
  void Forward(int c) { Emit(F(chunk_[c], next_f_[c]++)); }
  void Input(int c) { Emit(I(chunk_[c], next_i_[c]++)); }
  void Weight(int c) { Emit(W(chunk_[c], next_w_[c]++)); }

  int32_t r_, p_, m_, n_;
  int32_t chunk_[2];
  int32_t next_f_[2] = {0, 0}, next_i_[2] = {0, 0}, next_w_[2] = {0, 0};
  Row row_;
};

// DualPipeV (DeepSeek's DualPipe folded into a V, as PyTorch schedules it) on rank r, stages
// c0 = r and c1 = 2p-1-r. Eight phases: forwards of c0; pairs F(c0) F(c1); I(c1) + a deferred W
// + F(c1); the main phase of overlapped F(c0)+B(c1) and F(c1)+B(c0) cells (the last rank runs
// its first pair separately); B(c1) + overlapped F(c1)+B(c0); backwards of both stages, switching
// to I (W deferred) half way; W + backward of c0; the remaining W. Microbatch numbers come from
// per-stage counters; W runs in the order of the I's it completes.
class DualPipeVRow {
 public:
  DualPipeVRow(int32_t r, int32_t p, int32_t m) : r_(r), p_(p), m_(m) {
    chunk_[0] = r;
    chunk_[1] = 2 * p - 1 - r;
  }

  Row Build() {
    const int32_t c0 = 0, c1 = 1;
    for (int32_t k = 0; k < 2 * (p_ - r_ - 1); ++k) Forward(c0);
    for (int32_t k = 0; k < r_ + 1; ++k) {
      Forward(c0);
      Forward(c1);
    }
    for (int32_t k = 0; k < p_ - r_ - 1; ++k) {
      Input(c1);
      DeferredWeight();
      Forward(c1);
    }
    for (int32_t k = 0; k < m_ - 2 * p_ + r_ + 1; ++k) {
      if (k == 0 && r_ == p_ - 1) {
        Forward(c0);
        Backward(c1);
      } else {
        Overlapped(c0, c1);
      }
      Overlapped(c1, c0);
    }
    for (int32_t k = 0; k < p_ - r_ - 1; ++k) {
      Backward(c1);
      Overlapped(c1, c0);
    }
    const int32_t tail = r_ + 1;
    bool split = false;
    for (int32_t k = 0; k < tail; ++k) {
      if (k == tail / 2 && r_ % 2 == 1) split = true;
      split ? Input(c1) : Backward(c1);
      if (k == tail / 2 && r_ % 2 == 0) split = true;
      split ? Input(c0) : Backward(c0);
    }
    for (int32_t k = 0; k < p_ - r_ - 1; ++k) {
      DeferredWeight();
      split ? Input(c0) : Backward(c0);
    }
    for (int32_t k = 0; k < r_ + 1; ++k) DeferredWeight();
    return std::move(row_);
  }

 private:
  void Forward(int c) { row_.push_back(F(chunk_[c], next_f_[c]++)); }
  // B and I share one counter: both are "the next backward" of the stage.
  void Backward(int c) { row_.push_back(B(chunk_[c], next_b_[c]++)); }
  void Input(int c) {
    pending_w_.push_back({chunk_[c], next_b_[c]});
    row_.push_back(I(chunk_[c], next_b_[c]++));
  }
  void DeferredWeight() {
    if (pending_w_head_ >= pending_w_.size()) return;
    const auto [stage, mb] = pending_w_[pending_w_head_++];
    row_.push_back(W(stage, mb));
  }
  void Overlapped(int forward_chunk, int backward_chunk) {
    Action f = F(chunk_[forward_chunk], next_f_[forward_chunk]++);
    f.overlaps_next = true;
    row_.push_back(f);
    Backward(backward_chunk);
  }

  int32_t r_, p_, m_;
  int32_t chunk_[2];
  int32_t next_f_[2] = {0, 0}, next_b_[2] = {0, 0};
  std::vector<std::pair<int32_t, int32_t>> pending_w_;
  size_t pending_w_head_ = 0;
  Row row_;
};

struct NameEntry {
  std::string_view name;
  ScheduleFamily family;
  int32_t default_v;
  bool takes_v;
};

constexpr NameEntry kNames[] = {
    {"gpipe", ScheduleFamily::kGPipe, 1, false},
    {"1f1b", ScheduleFamily::kOneFOneB, 1, false},
    {"interleaved", ScheduleFamily::kInterleaved1F1B, 2, true},
    {"interleaved1f1b", ScheduleFamily::kInterleaved1F1B, 2, true},
    {"looped-bfs", ScheduleFamily::kLoopedBfs, 2, true},
    {"loopedbfs", ScheduleFamily::kLoopedBfs, 2, true},
    {"zb-h1", ScheduleFamily::kZeroBubbleH1, 1, false},
    {"zbh1", ScheduleFamily::kZeroBubbleH1, 1, false},
    {"zb-v", ScheduleFamily::kZeroBubbleV, 2, false},
    {"zbv", ScheduleFamily::kZeroBubbleV, 2, false},
    {"zbvzerobubble", ScheduleFamily::kZeroBubbleV, 2, false},
    {"interleaved-zb", ScheduleFamily::kInterleavedZeroBubble, 2, true},
    {"interleavedzerobubble", ScheduleFamily::kInterleavedZeroBubble, 2, true},
    {"dualpipev", ScheduleFamily::kDualPipeV, 2, false},
    {"dualpipe-v", ScheduleFamily::kDualPipeV, 2, false},
};

}  // namespace

std::string_view KnownScheduleNames() {
  return "gpipe, 1f1b, interleaved:V, looped-bfs:V, interleaved-zb:V, zb-h1, zb-v, dualpipev";
}

absl::StatusOr<ScheduleSpec> ParseScheduleSpec(std::string_view text) {
  std::string name = Lower(text);
  std::replace(name.begin(), name.end(), '_', '-');
  std::string_view arg;
  const size_t colon = name.find(':');
  std::string_view base = name;
  if (colon != std::string::npos) {
    base = std::string_view(name).substr(0, colon);
    arg = std::string_view(name).substr(colon + 1);
  }
  for (const NameEntry& e : kNames) {
    if (e.name != base) continue;
    ScheduleSpec spec{e.family, e.default_v};
    if (colon == std::string::npos) return spec;
    if (!e.takes_v) {
      return absl::InvalidArgumentError(
          StrCat("schedule '", text, "': ", e.name, " takes no ':V' argument"));
    }
    int32_t v = 0;
    auto [end, ec] = std::from_chars(arg.data(), arg.data() + arg.size(), v);
    if (ec != std::errc() || end != arg.data() + arg.size() || v < 1) {
      return absl::InvalidArgumentError(
          StrCat("schedule '", text, "': expected a positive number of stages per rank after ':'"));
    }
    spec.stages_per_rank = v;
    return spec;
  }
  return absl::InvalidArgumentError(
      StrCat("unknown schedule '", text, "' (known: ", KnownScheduleNames(), ")"));
}

std::string SpecName(const ScheduleSpec& spec) {
  switch (spec.family) {
    case ScheduleFamily::kGPipe:
      return "gpipe";
    case ScheduleFamily::kOneFOneB:
      return "1f1b";
    case ScheduleFamily::kInterleaved1F1B:
      return StrCat("interleaved:", spec.stages_per_rank);
    case ScheduleFamily::kLoopedBfs:
      return StrCat("looped-bfs:", spec.stages_per_rank);
    case ScheduleFamily::kZeroBubbleH1:
      return "zb-h1";
    case ScheduleFamily::kZeroBubbleV:
      return "zb-v";
    case ScheduleFamily::kInterleavedZeroBubble:
      return StrCat("interleaved-zb:", spec.stages_per_rank);
    case ScheduleFamily::kDualPipeV:
      return "dualpipev";
  }
  return "?";
}

absl::StatusOr<Schedule> GeneratePytorchOrder(const ScheduleSpec& spec, int32_t p, int32_t m) {
  const std::string name = SpecName(spec);
  if (p < 1 || m < 1) {
    return absl::InvalidArgumentError(StrCat(name,
                                             ": needs at least one rank and one microbatch (got ",
                                             p, " ranks, ", m, " microbatches)"));
  }
  const int32_t v = spec.stages_per_rank;
  // Far beyond any real pipeline (10^6 actions simulate in well under a second), and small
  // enough that a mistyped --microbatches fails here instead of exhausting memory.
  constexpr int64_t kMaxComputeActions = 64'000'000;
  const int64_t actions = 3LL * p * std::max<int64_t>(m, 2 * p) * std::max(v, 2);
  if (actions > kMaxComputeActions) {
    return absl::InvalidArgumentError(StrCat(name, ": ", p, " ranks x ", m,
                                             " microbatches is too large (over ",
                                             kMaxComputeActions, " actions)"));
  }
  if (spec.family == ScheduleFamily::kDualPipeV && m < 2 * p) {
    // Its phase lengths go negative: the main phase needs m - 2p + r + 1 >= 1 on rank 0.
    return absl::InvalidArgumentError(
        StrCat(name, ": needs at least as many microbatches as stages (2*ranks = ", 2 * p, "; got ",
               m, ")"));
  }
  Rounds rounds;
  if (spec.family == ScheduleFamily::kInterleaved1F1B ||
      spec.family == ScheduleFamily::kInterleavedZeroBubble) {
    absl::StatusOr<Rounds> r = MicrobatchRounds(name, p, m);
    if (!r.ok()) return r.status();
    rounds = *r;
  }
  std::vector<Row> rows(p);
  for (int32_t r = 0; r < p; ++r) {
    switch (spec.family) {
      case ScheduleFamily::kGPipe:
        rows[r] = GPipeRow(r, m);
        break;
      case ScheduleFamily::kOneFOneB:
        rows[r] = OneFOneB(r, p, m);
        break;
      case ScheduleFamily::kInterleaved1F1B:
        rows[r] = InterleavedRow(r, p, v, m, rounds, /*zero_bubble=*/false).Build();
        break;
      case ScheduleFamily::kInterleavedZeroBubble:
        rows[r] = InterleavedRow(r, p, v, m, rounds, /*zero_bubble=*/true).Build();
        break;
      case ScheduleFamily::kLoopedBfs:
        rows[r] = LoopedBfs(r, p, v, m);
        break;
      case ScheduleFamily::kZeroBubbleH1:
        rows[r] = ZeroBubbleH1(r, p, m);
        break;
      case ScheduleFamily::kZeroBubbleV:
        rows[r] = ZeroBubbleVRow(r, p, m).Build();
        break;
      case ScheduleFamily::kDualPipeV:
        rows[r] = DualPipeVRow(r, p, m).Build();
        break;
    }
  }
  if (spec.family == ScheduleFamily::kInterleavedZeroBubble) {
    if (absl::Status st = AddForwardBubbles(rows, p * v, m); !st.ok()) {
      return absl::InvalidArgumentError(StrCat(name, ": ", StatusText(st)));
    }
  }
  return MakeSchedule(name, std::move(rows));
}

absl::StatusOr<Schedule> GenerateSchedule(const ScheduleSpec& spec, int32_t p, int32_t m) {
  absl::StatusOr<Schedule> order = GeneratePytorchOrder(spec, p, m);
  if (!order.ok()) return order.status();
  return DropIdle(*order);
}

}  // namespace hloscope::pipeline
