#include "pipeline/schedule.h"

#include <algorithm>
#include <utility>

namespace hloscope::pipeline {

bool Schedule::HasComms() const {
  for (const auto& row : rows) {
    for (const Action& a : row) {
      if (IsComm(a.kind)) return true;
    }
  }
  return false;
}

int64_t Schedule::CountActions() const {
  int64_t n = 0;
  for (const auto& row : rows) {
    n += std::count_if(row.begin(), row.end(), [](const Action& a) { return !a.is_idle(); });
  }
  return n;
}

int64_t Schedule::MaxRowLength() const {
  int64_t n = 0;
  for (const auto& row : rows) n = std::max<int64_t>(n, static_cast<int64_t>(row.size()));
  return n;
}

Schedule MakeSchedule(std::string name, std::vector<std::vector<Action>> rows) {
  Schedule s;
  s.name = std::move(name);
  s.rows = std::move(rows);
  for (const auto& row : s.rows) {
    for (const Action& a : row) {
      if (a.is_idle()) continue;
      s.num_stages = std::max(s.num_stages, a.stage + 1);
      s.num_microbatches = std::max(s.num_microbatches, a.microbatch + 1);
    }
  }
  s.stage_rank.assign(s.num_stages, -1);
  for (int32_t r = 0; r < s.num_ranks(); ++r) {
    for (const Action& a : s.rows[r]) {
      if (IsCompute(a.kind) && s.stage_rank[a.stage] < 0) s.stage_rank[a.stage] = r;
    }
  }
  return s;
}

Schedule DropIdle(const Schedule& schedule) {
  Schedule out = schedule;
  for (auto& row : out.rows) {
    std::erase_if(row, [](const Action& a) { return a.is_idle(); });
  }
  return out;
}

}  // namespace hloscope::pipeline
