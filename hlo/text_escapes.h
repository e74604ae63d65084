// C-style escapes in HLO string literals (`\"`, `\\`, `\n`, octal `\101`, hex `\x41`).
#pragma once

#include <string>
#include <string_view>

namespace hloscope {

// Decodes the escapes of a string body (without quotes). Unknown escapes keep the character.
std::string UnescapeCString(std::string_view body);
// Encodes a string body so that UnescapeCString gives it back.
std::string EscapeCString(std::string_view text);
// `text` (a file name in a message) with every control byte (below 0x20, and 0x7f) written as
// `\xHH`: echoed raw, an ESC sequence in a name could rewrite or recolour the user's terminal.
// Every other byte, UTF-8 included, is kept.
std::string EscapeControlBytes(std::string_view text);

}  // namespace hloscope
