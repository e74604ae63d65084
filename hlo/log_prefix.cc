#include "hlo/log_prefix.h"

namespace hloscope {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Consumes exactly `n` digits at `*p`.
bool Digits(std::string_view s, size_t* p, size_t n) {
  for (size_t k = 0; k < n; ++k, ++*p) {
    if (*p >= s.size() || !IsDigit(s[*p])) return false;
  }
  return true;
}

// Consumes one or more digits at `*p`.
bool SomeDigits(std::string_view s, size_t* p) {
  size_t start = *p;
  while (*p < s.size() && IsDigit(s[*p])) ++*p;
  return *p > start;
}

bool Char(std::string_view s, size_t* p, char c) {
  if (*p >= s.size() || s[*p] != c) return false;
  ++*p;
  return true;
}

}  // namespace

size_t LogPrefixLength(std::string_view line) {
  if (line.empty() || std::string_view("IWEF").find(line[0]) == std::string_view::npos) return 0;
  size_t p = 1;  // after the severity letter
  // mmdd hh:mm:ss.frac
  if (!Digits(line, &p, 4) || !Char(line, &p, ' ') || !Digits(line, &p, 2) ||
      !Char(line, &p, ':') || !Digits(line, &p, 2) || !Char(line, &p, ':') ||
      !Digits(line, &p, 2) || !Char(line, &p, '.') || !SomeDigits(line, &p)) {
    return 0;
  }
  // thread id, padded with spaces on the left
  if (!Char(line, &p, ' ')) return 0;
  while (p < line.size() && line[p] == ' ') ++p;
  if (!SomeDigits(line, &p) || !Char(line, &p, ' ')) return 0;
  // file:line]
  size_t file_start = p;
  while (p < line.size() && line[p] != ']' && line[p] != ' ' && line[p] != '\n') ++p;
  if (p >= line.size() || line[p] != ']') return 0;
  std::string_view location = line.substr(file_start, p - file_start);
  size_t colon = location.rfind(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == location.size()) return 0;
  for (char c : location.substr(colon + 1)) {
    if (!IsDigit(c)) return 0;
  }
  ++p;  // ']'
  if (p < line.size() && line[p] == ' ') ++p;
  return p;
}

std::optional<std::string> BlankLogPrefixes(std::string_view text) {
  size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return std::nullopt;
  size_t line_start = text.rfind('\n', first);
  line_start = line_start == std::string_view::npos ? 0 : line_start + 1;
  if (first != line_start || LogPrefixLength(text.substr(first)) == 0) return std::nullopt;
  std::string out(text);
  size_t pos = 0;
  while (pos < out.size()) {
    size_t nl = out.find('\n', pos);
    size_t end = nl == std::string::npos ? out.size() : nl;
    size_t n = LogPrefixLength(std::string_view(out).substr(pos, end - pos));
    for (size_t k = 0; k < n; ++k) out[pos + k] = ' ';
    if (nl == std::string::npos) break;
    pos = nl + 1;
  }
  return out;
}

}  // namespace hloscope
