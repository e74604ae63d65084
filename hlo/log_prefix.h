// HLO copied out of a log. XLA and JAX print modules through glog, so text pasted from a log
// carries a prefix on every line:
//
//   I0521 12:04:45.883483    1509 service.cc:186] HloModule m
//   I0521 12:04:45.883483    1509 service.cc:186] ENTRY e {
//
// ParseModule accepts such text: when its first non-blank line starts with a prefix, every
// prefix is overwritten with spaces before parsing. Blanking (instead of cutting) keeps every
// line:col in error messages that of the file the user has.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace hloscope {

// Length of the glog prefix at the start of `line` (severity letter IWEF, `mmdd hh:mm:ss.frac`,
// thread id, `file:line]`, and one space after it if there is one), or 0 when there is none.
size_t LogPrefixLength(std::string_view line);

// When the first non-blank line of `text` has a log prefix: a copy of `text` with every line's
// prefix replaced by spaces. Otherwise nullopt (the text is used as is).
std::optional<std::string> BlankLogPrefixes(std::string_view text);

}  // namespace hloscope
