// hlo-opt --split-input-file over an input in protobuf text format: XLA's importer tests hold
// several HloModuleProtos in one file, separated by `// -----` lines, and XLA's hlo-translate
// splits first and reads each part as its own proto. Converting the whole file instead fails
// at the first separator (`//` is no comment in the text format), losing every module.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "hlo/parser.h"

namespace hloscope {

// Each part of the input as the HLO text XLA prints for its module, or why it has none.
struct SplitProtoParts {
  std::vector<InputChunk> chunks;    // HLO text, first_line 1 (views into `storage`)
  std::vector<absl::Status> errors;  // one per chunk: OK, or the part's conversion error
  std::vector<std::unique_ptr<std::string>> storage;
};

// Splits `text` (read from `filename`) at `// -----` lines, leaves out blank parts (as a
// trailing separator makes) and converts each part (hlo/proto_reader.h). A conversion error
// names `filename` and the line and column in the whole file, not in the part.
SplitProtoParts ConvertProtoParts(std::string_view filename, std::string_view text);

}  // namespace hloscope
