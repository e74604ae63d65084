// Reading inputs and writing outputs for the command-line tools, where '-' names standard
// input or output and errors come back as messages that name the file and the system's reason.
#pragma once

#include <string>
#include <string_view>

namespace hloscope {

// Appends all of `path` ('-' = standard input) to *text; false with *error set on failure
// ("cannot open 'x.hlo': No such file or directory").
bool ReadInput(const std::string& path, std::string* text, std::string* error);

// Writes `text` to `path` ('-' = standard output); false with *error set on failure.
bool WriteOutput(const std::string& path, std::string_view text, std::string* error);

}  // namespace hloscope
