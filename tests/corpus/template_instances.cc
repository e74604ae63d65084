#include "tests/corpus/template_instances.h"

#include <algorithm>
#include <map>
#include <string>

#include "absl/status/status.h"
#include "fmt/core.h"
#include "support/escapes.h"

namespace hloscope {
namespace {

std::vector<std::string_view> SplitTabs(std::string_view line) {
  std::vector<std::string_view> cols;
  while (true) {
    size_t t = line.find('\t');
    cols.push_back(line.substr(0, t));
    if (t == std::string_view::npos) return cols;
    line.remove_prefix(t + 1);
  }
}

}  // namespace

absl::StatusOr<TemplateInstanceTable> ParseTemplateInstances(std::string_view text,
                                                             std::string_view name) {
  TemplateInstanceTable table;
  int line_number = 0;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line[0] == '#') continue;
    auto error = [&](std::string_view message) {
      return absl::InvalidArgumentError(
          fmt::format("{}:{}: error: {}", name, line_number, message));
    };
    std::vector<std::string_view> cols = SplitTabs(line);
    if (cols.size() != 4) {
      return error(fmt::format(
          "expected 4 tab-separated columns (file, placeholder, value, source), found {}",
          cols.size()));
    }
    if (cols[0].empty()) return error("empty file name");
    if (cols[1].empty()) return error("empty placeholder");
    if (cols[3].empty()) return error("empty source: say where the value was read");
    // `text#N`: the N-th occurrence of text only (StrFormat's sequential %s).
    std::string_view placeholder = cols[1];
    int occurrence = 0;
    if (size_t hash = placeholder.rfind('#'); hash != std::string_view::npos && hash > 0 &&
                                              hash + 1 < placeholder.size() &&
                                              placeholder.size() - hash <= 7) {
      std::string_view digits = placeholder.substr(hash + 1);
      if (std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        occurrence = std::stoi(std::string(digits));
        if (occurrence == 0) {
          return error(fmt::format("placeholder '{}': occurrences count from #1", cols[1]));
        }
        placeholder = placeholder.substr(0, hash);
      }
    }
    std::vector<TemplateSubstitution>& subs = table[std::string(cols[0])];
    for (const TemplateSubstitution& s : subs) {
      if (s.placeholder == placeholder && s.occurrence == occurrence) {
        return error(fmt::format("placeholder '{}' of {} is already given on line {}", cols[1],
                                 cols[0], s.line));
      }
    }
    subs.push_back(TemplateSubstitution{std::string(placeholder), UnescapeCString(cols[2]),
                                        std::string(cols[3]), line_number, occurrence});
  }
  return table;
}

std::string InstantiateTemplate(std::string_view text,
                                const std::vector<TemplateSubstitution>& substitutions) {
  // Longest first, so the first match found at a position is the longest one there.
  std::vector<const TemplateSubstitution*> order;
  for (const TemplateSubstitution& s : substitutions) {
    if (!s.placeholder.empty()) order.push_back(&s);
  }
  std::stable_sort(order.begin(), order.end(), [](const auto* a, const auto* b) {
    return a->placeholder.size() > b->placeholder.size();
  });
  std::map<std::string_view, int> seen;  // occurrences of each placeholder text so far
  std::string out;
  out.reserve(text.size());
  size_t k = 0;
  while (k < text.size()) {
    const TemplateSubstitution* match = nullptr;
    for (const TemplateSubstitution* s : order) {
      if (text.substr(k).starts_with(s->placeholder)) {
        match = s;
        break;
      }
    }
    if (match == nullptr) {
      out += text[k++];
      continue;
    }
    // The longest text matches here; of its substitutions, the one for this occurrence.
    const std::string_view matched = match->placeholder;
    const int n = ++seen[matched];
    const TemplateSubstitution* every = nullptr;
    const TemplateSubstitution* this_one = nullptr;
    for (const TemplateSubstitution* s : order) {
      if (s->placeholder != matched) continue;
      if (s->occurrence == n) this_one = s;
      if (s->occurrence == 0) every = s;
    }
    const TemplateSubstitution* use = this_one != nullptr ? this_one : every;
    out += use != nullptr ? std::string_view(use->value) : matched;
    k += matched.size();
  }
  return out;
}

}  // namespace hloscope
