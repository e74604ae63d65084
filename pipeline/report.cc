#include "pipeline/report.h"

#include <algorithm>
#include <cmath>
#include <string_view>

#include "fmt/format.h"
#include "pipeline/pipeline_report.pb.h"
#include "pipeline/units.h"
#include "support/bytes.h"
#include "support/proto_json.h"
#include "support/str_util.h"

namespace hloscope::pipeline {
namespace {

std::string Size(double value, const ReportOptions& o) {
  return o.sizes_in_bytes ? FormatBytes(value) : fmt::format("{:.2f}", value);
}

std::string Percent(double fraction) { return fmt::format("{:.2f}%", 100.0 * fraction); }

// Whole microseconds as integers (no exponent for long makespans), fractions to 3 places.
std::string Time(double us) {
  if (us == std::floor(us) && std::fabs(us) < 1e15) return fmt::format("{:.0f}", us);
  std::string text = fmt::format("{:.3f}", us);
  while (text.back() == '0') text.pop_back();
  return text;
}

std::string_view SizeUnit(const ReportOptions& o) {
  return o.sizes_in_bytes ? "bytes" : "stage-equivalents";
}

// Left-aligned columns, two spaces apart, trailing blanks trimmed.
std::string Table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width;
  for (const auto& row : rows) {
    width.resize(std::max(width.size(), row.size()));
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      line += row[c];
      if (c + 1 < row.size()) line.append(width[c] - row[c].size() + 2, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    StrAppend(&out, line, "\n");
  }
  return out;
}

std::vector<std::vector<int32_t>> StagesByRank(const Schedule& s) {
  std::vector<std::vector<int32_t>> out(s.num_ranks());
  for (int32_t stage = 0; stage < s.num_stages; ++stage) {
    if (const int32_t r = s.stage_rank[stage]; r >= 0) out[r].push_back(stage);
  }
  return out;
}

int64_t CountComms(const Schedule& s) {
  int64_t n = 0;
  for (const auto& row : s.rows) {
    n += std::count_if(row.begin(), row.end(), [](const Action& a) { return IsComm(a.kind); });
  }
  return n;
}

std::string FitName(Fit fit) {
  switch (fit) {
    case Fit::kYes:
      return "yes";
    case Fit::kNo:
      return "no";
    case Fit::kNotKnown:
      break;
  }
  return "not known";
}

std::string FitText(const Simulation& sim, const ReportOptions& o) {
  if (!o.memory_limit) return "";
  return FitName(ScheduleFit(sim, o));
}

// "static memory: not known (WHY)", one line for all ranks or one per rank that is not known;
// or where the known figures came from. "" when there is nothing to say.
std::string StaticLines(const ReportOptions& o, int32_t ranks) {
  std::vector<std::pair<int32_t, std::string>> unknown;
  for (int32_t r = 0; r < ranks; ++r) {
    if (std::string why = StaticUnknown(o, r); !why.empty()) unknown.emplace_back(r, why);
  }
  std::string out;
  if (!unknown.empty() && static_cast<int32_t>(unknown.size()) == ranks &&
      std::all_of(unknown.begin(), unknown.end(),
                  [&](const auto& u) { return u.second == unknown.front().second; })) {
    return StrCat("static memory: not known (", unknown.front().second,
                  "): the fit counts activations only\n");
  }
  if (!o.static_source.empty()) StrAppend(&out, "static memory: ", o.static_source, "\n");
  for (const auto& [rank, why] : unknown) {
    StrAppend(&out, "static memory of rank ", rank, ": not known (", why,
              "): its fit counts activations only\n");
  }
  return out;
}

}  // namespace

std::string StaticUnknown(const ReportOptions& o, int32_t rank) {
  if (o.static_unknown.empty()) return "";
  if (o.static_unknown.size() == 1) return o.static_unknown[0];
  return rank >= 0 && rank < static_cast<int32_t>(o.static_unknown.size()) ? o.static_unknown[rank]
                                                                           : "";
}

Fit RankFit(const Simulation& sim, const ReportOptions& o, int32_t rank) {
  if (!o.memory_limit) return Fit::kYes;  // nothing to exceed
  if (!Fits(sim, o, rank)) return Fit::kNo;
  return StaticUnknown(o, rank).empty() ? Fit::kYes : Fit::kNotKnown;
}

Fit ScheduleFit(const Simulation& sim, const ReportOptions& o) {
  Fit fit = Fit::kYes;
  for (int32_t r = 0; r < static_cast<int32_t>(sim.ranks.size()); ++r) {
    const Fit f = RankFit(sim, o, r);
    if (f == Fit::kNo) return Fit::kNo;
    if (f == Fit::kNotKnown) fit = Fit::kNotKnown;
  }
  return fit;
}

double StaticBytes(const ReportOptions& o, int32_t rank) {
  if (!StaticUnknown(o, rank).empty()) return 0;
  if (o.static_bytes.empty()) return 0;
  if (o.static_bytes.size() == 1) return o.static_bytes[0];
  return rank < static_cast<int32_t>(o.static_bytes.size()) ? o.static_bytes[rank] : 0;
}

bool Fits(const Simulation& sim, const ReportOptions& o, int32_t rank) {
  if (!o.memory_limit) return true;
  return sim.ranks[rank].peak_bytes + StaticBytes(o, rank) <= *o.memory_limit;
}

bool AllFit(const Simulation& sim, const ReportOptions& o) {
  for (int32_t r = 0; r < static_cast<int32_t>(sim.ranks.size()); ++r) {
    if (!Fits(sim, o, r)) return false;
  }
  return true;
}

// PyTorch's UNSHARD, RESHARD and REDUCE_GRAD: neither compute nor send/recv.
int64_t CountStageActions(const Schedule& s) {
  int64_t n = 0;
  for (const auto& row : s.rows) {
    for (const Action& a : row) n += IsStageAction(a.kind);
  }
  return n;
}

std::string FormatSummary(const Schedule& s, const Simulation& sim, const ReportOptions& o) {
  const int64_t comms = CountComms(s);
  const int64_t stage_actions = CountStageActions(s);
  std::string out = fmt::format(
      "schedule {}: {} ranks, {} stages, {} microbatches, {} compute + {} send/recv{} actions\n",
      s.name, s.num_ranks(), s.num_stages, s.num_microbatches,
      s.CountActions() - comms - stage_actions, comms,
      stage_actions == 0 ? "" : fmt::format(" + {} UNSHARD/RESHARD/REDUCE_GRAD", stage_actions));
  StrAppend(&out, "makespan ", Time(sim.makespan), " us, bubble ", Percent(sim.bubble_fraction),
            " (idle share of ranks x makespan)\n");
  if (o.memory_limit) {
    const Fit fit = ScheduleFit(sim, o);
    StrAppend(&out, "memory limit ", Size(*o.memory_limit, o), " per rank: ",
              fit == Fit::kYes  ? "fits"
              : fit == Fit::kNo ? "does NOT fit"
                                : "fit not known (static memory not known)",
              "\n", StaticLines(o, s.num_ranks()));
  }
  std::vector<std::string> header = {"rank",    "stages",
                                     "busy us", "idle us",
                                     "bubble",  StrCat("peak activations (", SizeUnit(o), ")"),
                                     "live",    "peak at us"};
  if (o.memory_limit) {
    header.insert(header.end(), {"+static", "total", "fits"});
  }
  std::vector<std::vector<std::string>> rows = {header};
  const auto stages = StagesByRank(s);
  for (int32_t r = 0; r < s.num_ranks(); ++r) {
    const RankStats& st = sim.ranks[r];
    std::vector<std::string> row = {StrCat(r),
                                    StrJoin(stages[r], ","),
                                    Time(st.busy_time),
                                    Time(sim.makespan - st.busy_time),
                                    Percent(st.bubble_fraction),
                                    Size(st.peak_bytes, o),
                                    StrCat(st.peak_live),
                                    Time(st.peak_time)};
    if (o.memory_limit) {
      const double extra = StaticBytes(o, r);
      const bool known = StaticUnknown(o, r).empty();
      row.insert(row.end(), {known ? Size(extra, o) : "not known",
                             known ? Size(st.peak_bytes + extra, o) : "not known",
                             FitName(RankFit(sim, o, r))});
    }
    rows.push_back(std::move(row));
  }
  StrAppend(&out, Table(rows));
  return out;
}

std::string SummaryJson(const Schedule& s, const Simulation& sim, const ReportOptions& o) {
  const int64_t comms = CountComms(s);
  const int64_t stage_actions = CountStageActions(s);
  const auto stages = StagesByRank(s);
  report::ScheduleSummary out;
  out.set_schedule(s.name);
  out.set_ranks(s.num_ranks());
  out.set_stages(s.num_stages);
  out.set_microbatches(s.num_microbatches);
  out.set_compute_actions(static_cast<double>(s.CountActions() - comms - stage_actions));
  out.set_comm_actions(static_cast<double>(comms));
  out.set_stage_actions(static_cast<double>(stage_actions));
  out.set_makespan(sim.makespan);
  out.set_bubble_fraction(sim.bubble_fraction);
  out.set_size_unit(std::string(SizeUnit(o)));
  if (o.memory_limit) {
    SetNumberOrNull(out.mutable_memory_limit(), *o.memory_limit);
  } else {
    out.mutable_memory_limit()->set_null_value(google::protobuf::NULL_VALUE);
  }
  if (ScheduleFit(sim, o) != Fit::kNotKnown) out.set_fits(AllFit(sim, o));
  for (int32_t r = 0; r < s.num_ranks(); ++r) {
    const RankStats& st = sim.ranks[r];
    report::RankSummary* rank = out.add_per_rank();
    rank->set_rank(r);
    for (int32_t stage : stages[r]) rank->add_stages(stage);
    rank->set_busy(st.busy_time);
    rank->set_idle(sim.makespan - st.busy_time);
    rank->set_bubble_fraction(st.bubble_fraction);
    rank->set_peak_activation(st.peak_bytes);
    rank->set_peak_live(static_cast<double>(st.peak_live));
    rank->set_peak_time(st.peak_time);
    if (std::string why = StaticUnknown(o, r); !why.empty()) {
      rank->set_static_unknown(why);
    } else {
      rank->set_static_(StaticBytes(o, r));
    }
    if (RankFit(sim, o, r) != Fit::kNotKnown) rank->set_fits(Fits(sim, o, r));
  }
  return ProtoJsonLine(out);
}

std::string FormatCompare(std::span<const CompareEntry> entries, const ReportOptions& o) {
  std::vector<std::string> header = {
      "schedule", "stages", "makespan us", "bubble", StrCat("peak per rank (", SizeUnit(o), ")"),
      "max"};
  if (o.memory_limit) header.push_back(StrCat("fits ", Size(*o.memory_limit, o)));
  std::vector<std::vector<std::string>> rows = {header};
  std::string errors, statics;
  for (const CompareEntry& e : entries) {
    if (e.sim == nullptr) {
      // Dashes keep the table's columns; the reason goes below, where its length harms nothing.
      std::vector<std::string> row(header.size(), "-");
      row[0] = e.name;
      rows.push_back(std::move(row));
      StrAppend(&errors, e.name, ": ", e.error, "\n");
      continue;
    }
    std::vector<std::string> peaks;
    double max_peak = 0;
    for (const RankStats& st : e.sim->ranks) {
      peaks.push_back(Size(st.peak_bytes, o));
      max_peak = std::max(max_peak, st.peak_bytes);
    }
    std::vector<std::string> row = {e.name,
                                    StrCat(e.schedule->num_stages),
                                    Time(e.sim->makespan),
                                    Percent(e.sim->bubble_fraction),
                                    StrJoin(peaks, " "),
                                    Size(max_peak, o)};
    const ReportOptions& eo = e.options != nullptr ? *e.options : o;
    if (o.memory_limit) {
      row.push_back(FitText(*e.sim, eo));
      if (std::string lines = StaticLines(eo, e.schedule->num_ranks()); !lines.empty()) {
        // Each line once: what all ranks share is said once for every schedule; a line of one
        // rank names its schedule.
        for (size_t at = 0, end = 0; at < lines.size(); at = end + 1) {
          end = lines.find('\n', at);
          std::string line = lines.substr(at, end - at);
          if (line.starts_with("static memory of rank")) line = StrCat(e.name, ": ", line);
          if (statics.find(line) == std::string::npos) StrAppend(&statics, line, "\n");
        }
      }
    }
    rows.push_back(std::move(row));
  }
  return Table(rows) + statics + errors;
}

std::string CompareJson(std::span<const CompareEntry> entries, const ReportOptions& o) {
  report::Comparison out;
  out.set_size_unit(std::string(SizeUnit(o)));
  if (o.memory_limit) {
    SetNumberOrNull(out.mutable_memory_limit(), *o.memory_limit);
  } else {
    out.mutable_memory_limit()->set_null_value(google::protobuf::NULL_VALUE);
  }
  for (const CompareEntry& e : entries) {
    report::ComparedSchedule* row = out.add_schedules();
    row->set_schedule(e.name);
    if (e.sim == nullptr) {
      row->set_error(e.error);
      continue;
    }
    row->set_stages(e.schedule->num_stages);
    row->set_makespan(e.sim->makespan);
    row->set_bubble_fraction(e.sim->bubble_fraction);
    double max_peak = 0;
    for (const RankStats& st : e.sim->ranks) {
      row->add_peak_per_rank(st.peak_bytes);
      max_peak = std::max(max_peak, st.peak_bytes);
    }
    row->set_max_peak(max_peak);
    const ReportOptions& eo = e.options != nullptr ? *e.options : o;
    for (int32_t r = 0; o.memory_limit && r < e.schedule->num_ranks(); ++r) {
      // What the fit counted besides activations (without a limit nothing is counted).
      std::string why = StaticUnknown(eo, r);
      row->add_static_per_rank(why.empty() ? StaticBytes(eo, r) : 0);
      if (!why.empty() && !row->has_static_unknown()) row->set_static_unknown(why);
    }
    if (o.memory_limit && ScheduleFit(*e.sim, eo) == Fit::kNotKnown) {
      row->mutable_fits()->set_null_value(google::protobuf::NULL_VALUE);
    } else if (o.memory_limit) {
      row->mutable_fits()->set_bool_value(AllFit(*e.sim, eo));
    } else {
      row->mutable_fits()->set_null_value(google::protobuf::NULL_VALUE);
    }
  }
  return ProtoJsonLine(out);
}

}  // namespace hloscope::pipeline
