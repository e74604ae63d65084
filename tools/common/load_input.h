// The one place where hlo-opt learns what form its input is in: HLO text passes through, an
// XLA module proto (binary `.pb`/`.hlo.pb` or text format `.pbtxt`/`.textproto`, an HloProto or
// an HloModuleProto) is turned into the HLO text XLA would print for it (hlo/proto_reader.h),
// and everything after reads that text as if the user had given it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "hlo/proto_reader.h"

namespace hloscope {

// The input as HLO text, and the name its messages use.
struct HloTextInput {
  std::string_view text;
  // The input's name for a text input; for a converted proto "<name> (as HLO text)", since a
  // parse or verifier error's line and column point into the converted text, not the file.
  std::string filename;
};

// The HLO text of the input `bytes` read from `filename`: `bytes` itself when it is HLO text,
// else the text converted into `*storage` (which must outlive the returned view). `forced`
// (--input-format) overrides detection by content and extension. An error is bad input: a
// proto that cannot be decoded or is not a module, with the file name and, where there is
// one, the byte offset or line and column.
absl::StatusOr<HloTextInput> InputAsHloText(std::string_view filename, std::string_view bytes,
                                            std::optional<InputFormat> forced,
                                            std::string* storage);

}  // namespace hloscope
