// String concatenation for std::string_view and integers, splitting, skipping or stripping
// whitespace, and whole-string integer parsing. Byte counts for people are in support/bytes.h.
//
// Debian's abseil is built with its own absl::string_view (ABSL_OPTION_USE_STD_STRING_VIEW=0),
// so absl::StrCat does not accept std::string_view; these few lines give the same convenience
// without converting at every call.
#pragma once

#include <charconv>
#include <concepts>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hloscope {

// `s` without leading and trailing spaces, tabs and line breaks.
inline std::string_view StripWhitespace(std::string_view s) {
  auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!s.empty() && blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && blank(s.back())) s.remove_suffix(1);
  return s;
}

// The position of the first character at or after `pos` that is neither whitespace nor inside a
// /*...*/ comment (XLA prints /*index=5*/ inside long literals); text.size() if none.
inline size_t SkipSpaceAndBlockComments(std::string_view text, size_t pos) {
  while (pos < text.size()) {
    char c = text[pos];
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
      ++pos;
    } else if (text.substr(pos, 2) == "/*") {
      size_t end = text.find("*/", pos + 2);
      pos = end == std::string_view::npos ? text.size() : end + 2;
    } else {
      break;
    }
  }
  return pos;
}

namespace str_internal {
inline void AppendPiece(std::string& out, std::string_view s) { out.append(s.data(), s.size()); }
inline void AppendPiece(std::string& out, const char* s) { out.append(s); }
inline void AppendPiece(std::string& out, const std::string& s) { out.append(s); }
inline void AppendPiece(std::string& out, char c) { out.push_back(c); }
template <std::integral T>
requires(!std::same_as<T, char> && !std::same_as<T, bool>) void AppendPiece(std::string& out, T v) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  out.append(buf, end);
}
}  // namespace str_internal

template <typename... Args>
void StrAppend(std::string* out, const Args&... args) {
  (str_internal::AppendPiece(*out, args), ...);
}

template <typename... Args>
std::string StrCat(const Args&... args) {
  std::string out;
  (str_internal::AppendPiece(out, args), ...);
  return out;
}

// Joins integers or strings with `sep`.
template <typename Range>
std::string StrJoin(const Range& items, std::string_view sep) {
  std::string out;
  bool first = true;
  for (const auto& item : items) {
    if (!first) out.append(sep);
    first = false;
    str_internal::AppendPiece(out, item);
  }
  return out;
}

// `text`, whole, as a decimal integer of type T: true with *out set, or false (empty, a sign
// where T has none, anything after the digits, out of T's range) with *out unchanged. The tools
// read their flags' numbers with it, so every tool takes and refuses the same spellings.
template <std::integral T>
bool ParseInteger(std::string_view text, T* out) {
  T value{};
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return false;
  *out = value;
  return true;
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

// `s` with ASCII capitals lowered (units and names compared case-insensitively).
inline std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

}  // namespace hloscope
