// Splitting std::string_view, and absl messages as one. Debian's abseil has its own
// absl::string_view, so its StrSplit does not take std::string_view; this covers what the
// pipeline needs. (hlo/str_util.h supplies StrCat, StrJoin and StripWhitespace for the same
// reason.)
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/string_view.h"
#include "hlo/str_util.h"

namespace hloscope::pipeline {

// absl::Status::message() as a std::string_view.
inline std::string_view StdView(absl::string_view s) { return {s.data(), s.size()}; }

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
