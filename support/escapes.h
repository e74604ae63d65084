// Escapers, one per output format, in one place: C-style escapes in HLO string literals (`\"`,
// `\\`, `\n`, octal `\101`, hex `\x41`), JSON strings, HTML text, CSV fields, and control bytes
// in file names echoed in messages. The C and JSON forms share their rule for quotes,
// backslashes and line breaks and differ only in how other control bytes are written.
#pragma once

#include <string>
#include <string_view>

namespace hloscope {

// Decodes the escapes of a string body (without quotes). Unknown escapes keep the character.
std::string UnescapeCString(std::string_view body);
// Encodes a string body so that UnescapeCString gives it back (other control bytes as octal).
std::string EscapeCString(std::string_view text);
// `text` as a quoted JSON string (other control bytes as \u00XX).
std::string JsonString(std::string_view text);
// `text` (a file name in a message) with every control byte (below 0x20, and 0x7f) written as
// `\xHH`: echoed raw, an ESC sequence in a name could rewrite or recolour the user's terminal.
// Every other byte, UTF-8 included, is kept, and so are the control bytes in `keep` (a message
// keeps its line breaks and tabs).
std::string EscapeControlBytes(std::string_view text, std::string_view keep = {});
// `text` as HTML text or an attribute value: & < > " as entities.
std::string HtmlEscape(std::string_view text);
// A CSV field (RFC 4180): quoted, with quotes doubled, when it holds a comma, a quote or a line
// break; as it is otherwise. Module, instruction and stage names may hold any of them.
std::string CsvField(std::string_view text);

}  // namespace hloscope
