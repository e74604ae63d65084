#include "pipeline/grid_text.h"

#include <algorithm>
#include <numeric>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "fmt/format.h"
#include "support/str_util.h"

namespace hloscope::pipeline {
namespace {

// Steps shown when a schedule is cut and no mark says where to look.
constexpr int64_t kHeadSteps = 40;

int64_t Key(int32_t rank, int64_t step) { return step * 1'000'003 + rank; }

class GridWriter {
 public:
  GridWriter(const Schedule& schedule, std::span<const GridMark> marks) : s_(schedule) {
    num_steps_ = s_.MaxRowLength();
    for (const GridMark& m : marks) {
      if (m.rank < 0 || m.rank >= s_.num_ranks() || m.step < 0 ||
          m.step >= static_cast<int64_t>(s_.rows[m.rank].size())) {
        continue;
      }
      auto [it, inserted] = marks_.try_emplace(Key(m.rank, m.step), m.note);
      if (!inserted && !m.note.empty()) StrAppend(&it->second, "; ", m.note);
      marked_steps_.push_back(m.step);
    }
    std::sort(marked_steps_.begin(), marked_steps_.end());
  }

  std::string Write(bool cut, int64_t context) {
    std::vector<bool> shown(num_steps_, !cut);
    if (cut) {
      if (marked_steps_.empty()) {
        for (int64_t k = 0; k < std::min(num_steps_, kHeadSteps); ++k) shown[k] = true;
      }
      for (int64_t step : marked_steps_) {
        for (int64_t k = std::max<int64_t>(0, step - context);
             k <= std::min(num_steps_ - 1, step + context); ++k) {
          shown[k] = true;
        }
      }
    }
    // Column widths over the shown steps only, so one long cell far away does not widen all.
    std::vector<size_t> width(s_.num_ranks());
    for (int32_t r = 0; r < s_.num_ranks(); ++r) {
      width[r] = fmt::formatted_size("Rank {}", r);
      for (int64_t k = 0; k < static_cast<int64_t>(s_.rows[r].size()); ++k) {
        if (shown[k]) width[r] = std::max(width[r], Cell(r, k).size());
      }
    }
    const int digits =
        std::max<int>(2, fmt::formatted_size("{}", std::max<int64_t>(0, num_steps_ - 1)));
    const std::string prefix(digits + 7, ' ');  // "Step " + digits + ": "
    std::string out = prefix;
    std::vector<std::string> cells(s_.num_ranks());
    for (int32_t r = 0; r < s_.num_ranks(); ++r) cells[r] = fmt::format("Rank {}", r);
    AppendCells(cells, width, &out);
    bool gap = false;
    for (int64_t k = 0; k < num_steps_; ++k) {
      if (!shown[k]) {
        if (!gap) out += "...\n";
        gap = true;
        continue;
      }
      gap = false;
      std::vector<std::string_view> notes;
      for (int32_t r = 0; r < s_.num_ranks(); ++r) {
        cells[r] = Cell(r, k);
        if (auto it = marks_.find(Key(r, k)); it != marks_.end() && !it->second.empty()) {
          notes.push_back(it->second);
        }
      }
      const size_t line_start = out.size();
      StrAppend(&out, "Step ", fmt::format("{:0{}}", k, digits), ": ");
      AppendCells(cells, width, &out);
      if (!notes.empty()) {
        // Notes start in one column after the widest row, so they read as a list.
        out.pop_back();  // the newline AppendCells wrote
        const size_t full = prefix.size() + std::accumulate(width.begin(), width.end(), size_t{0}) +
                            width.size() - 1;
        out.append(full + 3 - std::min(full, out.size() - line_start), ' ');
        StrAppend(&out, "<-- ", StrJoin(notes, "; "), "\n");
      }
    }
    return out;
  }

 private:
  std::string Cell(int32_t r, int64_t k) const {
    if (k >= static_cast<int64_t>(s_.rows[r].size())) return "";
    std::string text = ToString(s_.rows[r][k]);
    if (marks_.contains(Key(r, k))) return StrCat(">", text, "<");
    return text;
  }

  static void AppendCells(const std::vector<std::string>& cells, const std::vector<size_t>& width,
                          std::string* out) {
    std::string line;
    for (size_t r = 0; r < cells.size(); ++r) {
      line += cells[r];
      if (r + 1 < cells.size()) line.append(width[r] - cells[r].size() + 1, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    StrAppend(out, line, "\n");
  }

  const Schedule& s_;
  int64_t num_steps_ = 0;
  absl::flat_hash_map<int64_t, std::string> marks_;
  std::vector<int64_t> marked_steps_;
};

}  // namespace

std::string FormatStepGrid(const Schedule& schedule) {
  return GridWriter(schedule, {}).Write(/*cut=*/false, 0);
}

std::string FormatCellGrid(const std::vector<std::vector<std::string>>& rows) {
  size_t steps = 0;
  std::vector<size_t> width(rows.size());
  for (size_t r = 0; r < rows.size(); ++r) {
    steps = std::max(steps, rows[r].size());
    width[r] = fmt::formatted_size("Rank {}", r);
    for (const std::string& cell : rows[r]) width[r] = std::max(width[r], cell.size());
  }
  const int digits =
      std::max<int>(2, fmt::formatted_size("{}", steps == 0 ? size_t{0} : steps - 1));
  auto line = [&](std::string head, auto cell_of) {
    for (size_t r = 0; r < rows.size(); ++r) {
      const std::string cell = cell_of(r);
      head += cell;
      if (r + 1 < rows.size()) head.append(width[r] - cell.size() + 1, ' ');
    }
    while (!head.empty() && head.back() == ' ') head.pop_back();
    return head + "\n";
  };
  std::string out =
      line(std::string(digits + 7, ' '), [](size_t r) { return fmt::format("Rank {}", r); });
  for (size_t k = 0; k < steps; ++k) {
    out += line(fmt::format("Step {:0{}}: ", k, digits),
                [&](size_t r) { return k < rows[r].size() ? rows[r][k] : std::string(); });
  }
  return out;
}

std::string FormatMarkedGrid(const Schedule& schedule, std::span<const GridMark> marks,
                             int64_t context) {
  // Small grids are shown whole: the surrounding steps are what makes a mark understandable.
  const bool cut = schedule.MaxRowLength() > kHeadSteps;
  return GridWriter(schedule, marks).Write(cut, context);
}

absl::Status GridError(const Schedule& schedule, std::string_view headline,
                       std::span<const GridMark> marks) {
  // Enough to see a pattern; a thousand copies of one mistake help nobody.
  constexpr size_t kMaxListed = 12;
  std::string text(headline);
  for (size_t i = 0; i < marks.size() && i < kMaxListed; ++i) {
    const GridMark& m = marks[i];
    std::string cell;
    if (m.rank >= 0 && m.rank < schedule.num_ranks() && m.step >= 0 &&
        m.step < static_cast<int64_t>(schedule.rows[m.rank].size())) {
      cell = ToString(schedule.rows[m.rank][m.step]);
    }
    if (m.step >= 0) {
      StrAppend(&text, "\n  rank ", m.rank, ", step ", fmt::format("{:02}", m.step), ": ", cell,
                cell.empty() ? "" : " ", m.note);
    } else {
      StrAppend(&text, "\n  ", m.note);
    }
  }
  if (marks.size() > kMaxListed) {
    StrAppend(&text, "\n  (and ", marks.size() - kMaxListed, " more)");
  }
  const std::span<const GridMark> drawn = marks.subspan(0, std::min(marks.size(), kMaxListed));
  StrAppend(&text, "\n", FormatMarkedGrid(schedule, drawn));
  return absl::InvalidArgumentError(text);
}

}  // namespace hloscope::pipeline
