// hlo-run --inputs=FILE: one argument per entry parameter, one line each, in HLO literal syntax.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "eval/literal.h"
#include "hlo/module.h"

namespace hloscope {

// Reads the arguments of `module`'s entry from `text` (the contents of `filename`). Blank lines
// and lines starting with '//' are skipped. Errors name `filename:line`.
absl::StatusOr<std::vector<eval::Literal>> ParseInputs(std::string_view text,
                                                       std::string_view filename,
                                                       const Module& module);

}  // namespace hloscope
