// The one form of every error message the tools print: a message about a place in an input
// starts with `FILE:LINE:COL: error:` (parse and verifier errors make that prefix themselves);
// every other one starts with `<tool>: error:`, so scripts can tell errors from output by the
// first line.
#pragma once

#include <string>
#include <string_view>

namespace hloscope {

// Whether `message` already starts with `FILE:LINE:COL: error: ` or `NAME: error: `.
bool HasErrorPrefix(std::string_view message);

// `message` as one or more lines for stderr: `<tool>: error: ` in front unless it already has
// an error prefix, and a final newline.
std::string ErrorLine(std::string_view tool, std::string_view message);

}  // namespace hloscope
