// hlo-opt's flag for each library option an error or a report's hint may name
// (support/option_error.h, support/option_spelling.h): the libraries name MemoryOptions' and the
// printers' fields ("stage_regex", "dim_value", "top"); hlo-opt prints the flag a user gave
// ("--stage-regex", "--dim-value", "--top").
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"

namespace hloscope {

struct OptionFlag {
  std::string_view option;  // as the library's API spells it
  std::string_view flag;    // the hlo-opt flag that sets it
  std::string_view text;    // what the message says in the option's place
};

// Every option hlo-opt sets from a flag and a library error or hint may name.
const std::vector<OptionFlag>& HloOptOptionFlags();

// `status` with the option it names, if any, spelled as hlo-opt's flag.
absl::Status WithHloOptFlag(const absl::Status& status);

// The hlo-opt flag that sets `option` ("--top" for "top"); "" for one it has none for. Reports
// take it as their OptionSpelling (support/option_spelling.h), so their hints name the flag.
std::string HloOptFlagOf(std::string_view option);

}  // namespace hloscope
