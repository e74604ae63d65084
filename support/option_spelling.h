// How report text names one of a library's options: the library's printers say which option a
// hint is about ("top", "passes") as the C++ API spells it, and the caller says how its users
// write it: hlo-opt as its flag ("--top"), Python as its keyword argument. So a report's "and 3
// more (--top=N lists more)" is worded by the library and spelled by the tool, as errors are
// (support/option_error.h).
//
//   // library
//   out += fmt::format("and {} more ({}=N lists more)", n, SpellOption(spelling, "top"));
//   // tool
//   options.option_spelling = [](std::string_view option) { return FlagOf(option); };
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace hloscope {

// The caller's spelling of `option`; "" for an option it does not know.
using OptionSpelling = std::function<std::string(std::string_view option)>;

// `spelling(option)`, or `option` itself when `spelling` is unset or gives "".
std::string SpellOption(const OptionSpelling& spelling, std::string_view option);

}  // namespace hloscope
