// Trim and split for std::string_view. Debian's abseil has its own absl::string_view, so its
// StrSplit/StripAsciiWhitespace do not take std::string_view; these cover what the pipeline needs.
// (hlo/str_util.h supplies StrCat/StrAppend/StrJoin for the same reason.)
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/string_view.h"

namespace hloscope::pipeline {

// absl::Status::message() as a std::string_view.
inline std::string_view StdView(absl::string_view s) { return {s.data(), s.size()}; }

inline bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

inline std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsBlank(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsBlank(s.back())) s.remove_suffix(1);
  return s;
}

// Every piece between separators, empty ones included ("a,,b" gives three).
inline std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    const size_t at = s.find(sep, start);
    if (at == std::string_view::npos) {
      out.push_back(s.substr(start));
      return out;
    }
    out.push_back(s.substr(start, at - start));
    start = at + 1;
  }
}

inline std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

}  // namespace hloscope::pipeline
