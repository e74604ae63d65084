#include "pipeline/schedule_csv.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "support/status_text.h"
#include "support/str_util.h"

namespace hloscope::pipeline {
namespace {
constexpr std::string_view kUtf8ByteOrderMark = "\xEF\xBB\xBF";
}  // namespace

absl::StatusOr<Schedule> ParseScheduleCsv(std::string_view text, std::string name) {
  // Spreadsheet programs save CSV as UTF-8 with a byte-order mark in front; it is no part of
  // the first cell (columns still count from the first byte after it).
  if (text.starts_with(kUtf8ByteOrderMark)) text.remove_prefix(kUtf8ByteOrderMark.size());
  std::vector<std::string_view> lines = Split(text, '\n');
  // A final newline ends the last row; it does not start an empty rank.
  if (!lines.empty() && StripWhitespace(lines.back()).empty()) lines.pop_back();
  std::vector<std::vector<Action>> rows;
  rows.reserve(lines.size());
  // The cell with the largest index, and where it is: see the check after the loop.
  int64_t actions = 0;
  int32_t largest = -1;
  size_t largest_line = 0, largest_column = 0;
  for (size_t line = 0; line < lines.size(); ++line) {
    std::string_view content = lines[line];
    if (!content.empty() && content.back() == '\r') content.remove_suffix(1);
    std::vector<Action> row;
    size_t column = 1;
    for (std::string_view cell : Split(content, ',')) {
      // Spreadsheets quote cells now and then; an action never contains a quote.
      std::string_view bare = cell;
      if (bare.size() >= 2 && bare.front() == '"' && bare.back() == '"') {
        bare = bare.substr(1, bare.size() - 2);
      }
      absl::StatusOr<std::vector<Action>> cell_actions = ParseCell(bare);
      if (!cell_actions.ok()) {
        return absl::InvalidArgumentError(StrCat(name, ":", line + 1, ":", column, ": rank ", line,
                                                 ": ", StatusText(cell_actions.status())));
      }
      for (const Action& action : *cell_actions) {
        row.push_back(action);
        if (action.is_idle()) continue;
        ++actions;
        if (std::max(action.stage, action.microbatch) > largest) {
          largest = std::max(action.stage, action.microbatch);
          largest_line = line;
          largest_column = column;
        }
      }
      column += cell.size() + 1;
    }
    while (!row.empty() && row.back().is_idle()) row.pop_back();
    rows.push_back(std::move(row));
  }
  if (rows.empty()) return absl::InvalidArgumentError(StrCat(name, ": no rows (ranks)"));
  // Rows of empty cells only would be a schedule of 0 microbatches, with nothing to simulate.
  if (actions == 0) {
    return absl::InvalidArgumentError(
        StrCat(name, ": no actions: every cell is empty (a schedule needs at least one F)"));
  }
  // A valid schedule has a forward for every (stage, microbatch), so no index reaches the
  // number of actions. Rejecting such an index here keeps a typo like 0F2000000000 from sizing
  // per-stage and per-microbatch tables by it.
  if (largest >= actions) {
    return absl::InvalidArgumentError(
        StrCat(name, ":", largest_line + 1, ":", largest_column, ": rank ", largest_line,
               ": index ", largest, " is out of range for a schedule of ", actions, " actions"));
  }
  return MakeSchedule(std::move(name), std::move(rows));
}

std::string DumpScheduleCsv(const Schedule& schedule) {
  std::string out;
  for (const auto& row : schedule.rows) {
    std::vector<std::string> cells = RowCells(row);
    while (!cells.empty() && cells.back().empty()) cells.pop_back();
    for (size_t k = 0; k < cells.size(); ++k) {
      if (k > 0) out += ',';
      out += cells[k];
    }
    out += '\n';
  }
  return out;
}

absl::StatusOr<Schedule> ReadScheduleCsvFile(const std::string& path) {
  // A directory opens as a stream that reads nothing ("no rows"); a device or pipe may never
  // end (/dev/zero), so it is read up to a bound.
  constexpr std::streamsize kMaxStreamBytes = std::streamsize{1} << 30;
  struct stat info;
  bool regular = true;
  if (::stat(path.c_str(), &info) == 0) {
    if (S_ISDIR(info.st_mode)) {
      return absl::InvalidArgumentError(
          StrCat("cannot read schedule CSV '", path, "': ", std::strerror(EISDIR)));
    }
    regular = S_ISREG(info.st_mode);
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(StrCat("cannot open schedule CSV '", path, "'"));
  if (regular) {
    std::stringstream buffer;
    buffer << in.rdbuf();
    return ParseScheduleCsv(buffer.str(), path);
  }
  std::string text;
  char chunk[1 << 16];
  while (in.read(chunk, sizeof(chunk)) || in.gcount() > 0) {
    text.append(chunk, static_cast<size_t>(in.gcount()));
    if (static_cast<std::streamsize>(text.size()) > kMaxStreamBytes) {
      return absl::InvalidArgumentError(StrCat("cannot read schedule CSV '", path, "': more than ",
                                               kMaxStreamBytes,
                                               " bytes from something that is not a regular file"));
    }
  }
  return ParseScheduleCsv(text, path);
}

absl::Status WriteScheduleCsvFile(const Schedule& schedule, const std::string& path) {
  std::ofstream out(path, std::ios::binary);
  out << DumpScheduleCsv(schedule);
  out.close();
  if (!out) return absl::UnavailableError(StrCat("cannot write '", path, "'"));
  return absl::OkStatus();
}

}  // namespace hloscope::pipeline
