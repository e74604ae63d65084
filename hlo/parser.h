// Text → Module. Accepts the HLO text that XLA prints, old and new styles (see
// docs/parser.md for the grammar notes), and reports errors as
//   file:line:col: error: message
//   <the source line>
//        ^
// The parser never aborts on bad input: every failure is an absl::Status.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "hlo/module.h"

namespace hloscope {

struct ParseOptions {
  // Name used in error messages.
  std::string_view filename = "<input>";
  // Line number of the first line of `text` in the file (for split input).
  int first_line = 1;
};

absl::StatusOr<std::unique_ptr<Module>> ParseModule(std::string_view text,
                                                    const ParseOptions& options = {});

// One module's text inside a file split by lines `// -----`.
struct InputChunk {
  std::string_view text;
  int first_line = 1;  // line of `text`'s first line in the whole file
};
std::vector<InputChunk> SplitInputFile(std::string_view text);

}  // namespace hloscope
