#include "analysis/pipeline/generators.h"

#include <algorithm>
#include <charconv>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "analysis/pipeline/string_pieces.h"
#include "hlo/str_util.h"

namespace hloscope::pipeline {
namespace {

using Row = std::vector<Action>;

Action F(int32_t stage, int32_t mb) { return {stage, mb, ActionKind::kForward}; }
Action B(int32_t stage, int32_t mb) { return {stage, mb, ActionKind::kBackward}; }
Action I(int32_t stage, int32_t mb) { return {stage, mb, ActionKind::kBackwardInput}; }
Action W(int32_t stage, int32_t mb) { return {stage, mb, ActionKind::kBackwardWeight}; }

Row GPipeRow(int32_t r, int32_t m) {
  Row row;
  row.reserve(2 * m);
  for (int32_t k = 0; k < m; ++k) row.push_back(F(r, k));
  for (int32_t k = 0; k < m; ++k) row.push_back(B(r, k));
  return row;
}

// Runs `warmup` forwards, then F/B pairs while forwards remain, then the remaining backwards.
// 1F1B and interleaved 1F1B differ only in the orders and the warm-up count.
Row OneFOneBRow(const Row& forwards, const Row& backwards, size_t warmup) {
  Row row;
  row.reserve(forwards.size() + backwards.size());
  warmup = std::min(warmup, forwards.size());
  size_t f = 0, b = 0;
  while (f < warmup) row.push_back(forwards[f++]);
  while (f < forwards.size()) {
    row.push_back(forwards[f++]);
    row.push_back(backwards[b++]);
  }
  while (b < backwards.size()) row.push_back(backwards[b++]);
  return row;
}

Row OneFOneB(int32_t r, int32_t p, int32_t m) {
  Row fw, bw;
  for (int32_t k = 0; k < m; ++k) {
    fw.push_back(F(r, k));
    bw.push_back(B(r, k));
  }
  return OneFOneBRow(fw, bw, static_cast<size_t>(p - r - 1));
}

// Megatron's interleaved order: microbatches in rounds of p; within a round, all of chunk 0,
// then chunk 1, ...; backwards the same with chunks reversed.
Row Interleaved(int32_t r, int32_t p, int32_t v, int32_t m) {
  Row fw, bw;
  for (int32_t start = 0; start < m; start += p) {
    for (int32_t c = 0; c < v; ++c) {
      for (int32_t j = 0; j < p; ++j) fw.push_back(F(c * p + r, start + j));
    }
    for (int32_t c = v - 1; c >= 0; --c) {
      for (int32_t j = 0; j < p; ++j) bw.push_back(B(c * p + r, start + j));
    }
  }
  const size_t warmup = static_cast<size_t>(2 * (p - r - 1) + (v - 1) * p);
  return OneFOneBRow(fw, bw, warmup);
}

Row LoopedBfs(int32_t r, int32_t p, int32_t v, int32_t m) {
  Row row;
  for (int32_t c = 0; c < v; ++c) {
    for (int32_t k = 0; k < m; ++k) row.push_back(F(c * p + r, k));
  }
  for (int32_t c = v - 1; c >= 0; --c) {
    for (int32_t k = 0; k < m; ++k) row.push_back(B(c * p + r, k));
  }
  return row;
}

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
// a steady state of F-I-W on both stages, then drain inputs first and weights last.
class ZeroBubbleVRow {
 public:
  ZeroBubbleVRow(int32_t r, int32_t p, int32_t m) : r_(r), p_(p), m_(m) {
    chunk_[0] = r;
    chunk_[1] = 2 * p - 1 - r;
  }

  Row Build() {
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
    while (next_f_[1] < m_) {
      Forward(0);
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
    while (next_i_[0] < m_) {
      Input(0);
      Weight(0);
    }
    while (next_w_[1] < m_) Weight(1);
    while (next_w_[0] < m_) Weight(0);
    return std::move(row_);
  }

 private:
  // Each emits the chunk's next action of that kind, if any remain.
  void Forward(int c) {
    if (next_f_[c] < m_) row_.push_back(F(chunk_[c], next_f_[c]++));
  }
  void Input(int c) {
    if (next_i_[c] < next_f_[c]) row_.push_back(I(chunk_[c], next_i_[c]++));
  }
  void Weight(int c) {
    if (next_w_[c] < next_i_[c]) row_.push_back(W(chunk_[c], next_w_[c]++));
  }

  int32_t r_, p_, m_;
  int32_t chunk_[2];
  int32_t next_f_[2] = {0, 0}, next_i_[2] = {0, 0}, next_w_[2] = {0, 0};
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
};

}  // namespace

std::string_view KnownScheduleNames() {
  return "gpipe, 1f1b, interleaved:V, looped-bfs:V, zb-h1, zb-v";
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
  }
  return "?";
}

absl::StatusOr<Schedule> GenerateSchedule(const ScheduleSpec& spec, int32_t p, int32_t m) {
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
  const int64_t actions = 3LL * p * m * std::max(v, 2);
  if (actions > kMaxComputeActions) {
    return absl::InvalidArgumentError(StrCat(name, ": ", p, " ranks x ", m,
                                             " microbatches is too large (over ",
                                             kMaxComputeActions, " actions)"));
  }
  if (spec.family == ScheduleFamily::kZeroBubbleV && m < 2 * p - 1) {
    // The first rank fills the V with 2p-1 forwards before its second stage has input.
    return absl::InvalidArgumentError(
        StrCat(name, ": needs at least 2*ranks-1 = ", 2 * p - 1, " microbatches (got ", m, ")"));
  }
  if (spec.family == ScheduleFamily::kInterleaved1F1B && m % p != 0) {
    // Megatron's warm-up count assumes whole rounds of p microbatches; with a partial last round
    // the order it gives deadlocks (a rank waits for a forward it has queued behind a backward).
    return absl::InvalidArgumentError(
        StrCat(name, ": needs the microbatches (", m, ") to be a multiple of the ranks (", p, ")"));
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
        rows[r] = Interleaved(r, p, v, m);
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
    }
  }
  return MakeSchedule(name, std::move(rows));
}

}  // namespace hloscope::pipeline
