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
// an error prefix, and a final newline. Control bytes are shown as by TerminalSafe.
std::string ErrorLine(std::string_view tool, std::string_view message);

// `text` for a terminal: every control byte but newline and tab (below 0x20, and 0x7f) written
// as `\xHH`. Messages quote what users typed and named (file names, flag values); an ESC
// sequence echoed raw could rewrite or recolour their terminal. Text already escaped (the
// parser's messages) passes unchanged.
std::string TerminalSafe(std::string_view text);

}  // namespace hloscope
