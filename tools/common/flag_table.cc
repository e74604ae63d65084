#include "tools/common/flag_table.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "fmt/format.h"

namespace hloscope {

absl::Status FlagError(std::string message) {
  return absl::InvalidArgumentError(std::move(message));
}

Flag SwitchFlag(std::vector<std::string> names, bool* out, std::string help) {
  return {.names = std::move(names),
          .help = std::move(help),
          .handler = [out](std::optional<std::string_view>) {
            *out = true;
            return absl::OkStatus();
          }};
}

FlagTable::FlagTable(Wording wording) : wording_(std::move(wording)) {}

void FlagTable::Section(std::string heading, size_t column) {
  sections_.push_back({std::move(heading), column, flags_.size()});
}

void FlagTable::Add(Flag flag) {
  for (const std::string& name : flag.names) {
    if (!by_name_.emplace(name, flags_.size()).second) {
      // Two handlers for one name: whichever ran would silently hide the other.
      fmt::print(stderr, "internal error: flag '{}' is declared twice\n", name);
      std::abort();
    }
  }
  if (sections_.empty()) Section("", 0);
  flags_.push_back(std::move(flag));
}

void FlagTable::Positional(std::function<absl::Status(std::string_view arg)> handler) {
  positional_ = std::move(handler);
}

absl::Status FlagTable::Unknown(std::string_view arg, std::string_view name) const {
  std::string message = wording_.unknown(arg, name);
  if (std::optional<std::string> near = Nearest(name)) {
    message += fmt::format("; did you mean '{}'?", *near);
  }
  return FlagError(std::move(message));
}

absl::Status FlagTable::Parse(int argc, const char* const* argv) const {
  bool options_done = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (options_done || arg == "-" || !arg.starts_with("-")) {
      if (positional_ == nullptr) {
        return FlagError(fmt::format("unexpected argument '{}'", arg));
      }
      if (absl::Status s = positional_(arg); !s.ok()) return s;
      continue;
    }
    if (arg == "--") {
      options_done = true;
      continue;
    }
    std::string_view name = arg;
    std::optional<std::string_view> value;
    if (size_t eq = arg.find('='); eq != std::string_view::npos) {
      name = arg.substr(0, eq);
      value = arg.substr(eq + 1);
    }
    // This abseil's string_view is its own type, not std::string_view.
    auto it = by_name_.find(absl::string_view(name.data(), name.size()));
    if (it == by_name_.end()) return Unknown(arg, name);
    const Flag& flag = flags_[it->second];
    switch (flag.value) {
      case FlagValue::kNone:
        if (value) return FlagError(wording_.takes_no_value(name));
        break;
      case FlagValue::kOptional:
        break;
      case FlagValue::kRequired:
        if (!value && i + 1 < argc) value = argv[++i];
        break;
    }
    if (absl::Status s = flag.handler(value); !s.ok()) return s;
  }
  return absl::OkStatus();
}

std::string FlagLabel(const Flag& flag) {
  if (!flag.label.empty()) return flag.label;
  std::string label;
  for (size_t i = 0; i < flag.names.size(); ++i) {
    if (i > 0) label += ", ";
    label += flag.names[i];
  }
  if (flag.placeholder.empty() || flag.names.empty()) return label;
  const bool long_name = flag.names.back().starts_with("--");
  switch (flag.value) {
    case FlagValue::kNone:
      break;
    case FlagValue::kRequired:
      label += (long_name ? "=" : " ") + flag.placeholder;
      break;
    case FlagValue::kOptional:
      label += fmt::format("[={}]", flag.placeholder);
      break;
  }
  return label;
}

namespace {

// `line` broken at spaces into pieces of at most `width` characters (a longer word stays
// whole).
std::vector<std::string_view> Wrap(std::string_view line, size_t width) {
  std::vector<std::string_view> out;
  while (line.size() > width) {
    size_t cut = line.rfind(' ', width);
    if (cut == std::string_view::npos || cut == 0) cut = line.find(' ', width);
    if (cut == std::string_view::npos) break;
    out.push_back(line.substr(0, cut));
    line.remove_prefix(cut + 1);
  }
  out.push_back(line);
  return out;
}

// Damerau-Levenshtein distance (optimal string alignment): a swapped pair of letters, the
// commonest typo, counts as one edit.
size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

}  // namespace

std::string FlagTable::Help(size_t width) const {
  std::string out;
  for (size_t s = 0; s < sections_.size(); ++s) {
    const SectionInfo& section = sections_[s];
    if (s > 0) out += "\n";
    if (!section.heading.empty()) out += section.heading + "\n";
    const size_t end = s + 1 < sections_.size() ? sections_[s + 1].first_flag : flags_.size();
    const size_t text_width = width > section.column ? width - section.column : 1;
    const std::string indent(section.column, ' ');
    for (size_t f = section.first_flag; f < end; ++f) {
      const Flag& flag = flags_[f];
      if (flag.help.empty()) continue;  // documented by the row before
      std::string row = "  " + FlagLabel(flag);
      // The text starts on the label's line when at least one space fits between them.
      bool at_column = row.size() + 1 <= section.column;
      if (at_column) {
        row.resize(section.column, ' ');
      } else {
        row += "\n";
      }
      std::string_view help = flag.help;
      bool first = true;
      while (true) {
        const size_t newline = help.find('\n');
        for (std::string_view piece : Wrap(help.substr(0, newline), text_width)) {
          if (!(first && at_column)) row += indent;
          row += piece;
          row += "\n";
          first = false;
        }
        if (newline == std::string_view::npos) break;
        help.remove_prefix(newline + 1);
      }
      out += row;
    }
  }
  return out;
}

std::optional<std::string> FlagTable::Nearest(std::string_view name) const {
  // Single-letter flags are too short for a guess to mean anything.
  if (!name.starts_with("--")) return std::nullopt;
  const std::string_view stem = name.substr(2);
  std::optional<std::string> best;
  size_t best_distance = std::max<size_t>(2, stem.size() / 3) + 1;
  for (const Flag& flag : flags_) {
    for (const std::string& candidate : flag.names) {
      if (!candidate.starts_with("--")) continue;
      const size_t d = EditDistance(stem, std::string_view(candidate).substr(2));
      if (d < best_distance) {
        best_distance = d;
        best = candidate;
      }
    }
  }
  return best;
}

}  // namespace hloscope
