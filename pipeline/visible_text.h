// Text from a user's file (a CSV cell) as a message shows it: what cannot be seen is written as
// an escape, so that "unknown kind 'F'" never names a kind that looks right (issue 34). A cell
// pasted from a web page or a spreadsheet can hold a zero-width space, a no-break space or a
// byte-order mark; a control byte (an ESC sequence) echoed raw could rewrite the terminal.
#pragma once

#include <string>
#include <string_view>

namespace hloscope::pipeline {

// `text` with control bytes (below 0x20, 0x7f) as `\xHH`, invisible or blank Unicode code
// points other than the plain space (U+00A0 no-break space, U+00AD soft hyphen, U+200B..U+200F,
// U+2028..U+202F, U+2060..U+206F, U+FEFF, U+3000, ...) as `\uXXXX`, and bytes that are not
// UTF-8 as `\xHH`. Visible characters, UTF-8 included, are kept.
std::string VisibleText(std::string_view text);

}  // namespace hloscope::pipeline
