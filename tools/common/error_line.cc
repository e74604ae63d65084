#include "tools/common/error_line.h"

#include "fmt/format.h"
#include "support/escapes.h"

namespace hloscope {

namespace {

bool EndsWithLineAndColumn(std::string_view where) {
  for (int part = 0; part < 2; ++part) {
    size_t digits = where.size();
    while (digits > 0 && where[digits - 1] >= '0' && where[digits - 1] <= '9') --digits;
    if (digits == where.size() || digits == 0 || where[digits - 1] != ':') return false;
    where = where.substr(0, digits - 1);
  }
  return !where.empty();
}

}  // namespace

bool HasErrorPrefix(std::string_view message) {
  // The first ": error: " on the first line, after `FILE:LINE:COL` (a path may hold spaces and
  // ':') or after a tool name without spaces.
  std::string_view first_line = message.substr(0, message.find('\n'));
  size_t at = first_line.find(": error: ");
  if (at == std::string_view::npos || at == 0) return false;
  std::string_view where = first_line.substr(0, at);
  return EndsWithLineAndColumn(where) || where.find_first_of(" :") == std::string_view::npos;
}

std::string TerminalSafe(std::string_view text) { return EscapeControlBytes(text, "\n\t"); }

std::string ErrorLine(std::string_view tool, std::string_view message) {
  const std::string safe = TerminalSafe(message);
  std::string line = HasErrorPrefix(safe) ? safe : fmt::format("{}: error: {}", tool, safe);
  if (!line.ends_with('\n')) line += '\n';
  return line;
}

}  // namespace hloscope
