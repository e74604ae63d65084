// The module header attribute `input_output_alias={ {0}: (1, {}, may-alias), ... }`: which entry
// outputs reuse which entry parameter buffers (XLA's HloInputOutputAliasConfig). The parser
// decodes it once into the module (Module::input_output_aliases()); the verifier checks it
// against the entry computation (verifier_alias_rule.cc). The text stays a header attribute too,
// printed as written.
#pragma once

#include <cstddef>
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

// Parses the attribute's value (the text after `input_output_alias=`). On failure the message
// says what was expected, and *error_offset (when given) is the byte offset in `text` where.
absl::StatusOr<std::vector<InputOutputAlias>> ParseInputOutputAlias(std::string_view text,
                                                                    size_t* error_offset = nullptr);

}  // namespace hloscope
