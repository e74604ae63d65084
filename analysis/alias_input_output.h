// The module header attribute `input_output_alias={ {0}: (1, {}, may-alias), ... }`: which
// entry outputs reuse which entry parameter buffers. Decoded here for the alias analysis;
// the parser keeps the attribute as text.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "hlo/shape.h"

namespace hloscope {

struct InputOutputAlias {
  ShapeIndex output_index;
  int64_t parameter = 0;
  ShapeIndex parameter_index;
  bool must_alias = false;  // `must-alias`; `may-alias` or nothing otherwise
};

// Parses the attribute's value (the text after `input_output_alias=`).
absl::StatusOr<std::vector<InputOutputAlias>> ParseInputOutputAlias(std::string_view text);

}  // namespace hloscope
