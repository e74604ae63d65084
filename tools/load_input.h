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

// The HLO text of the input `bytes` read from `path`: `bytes` itself when it is HLO text,
// else the text converted into `*storage` (which must outlive the returned view). `forced`
// (--input-format) overrides detection by content and extension. An error is bad input: a
// proto that cannot be decoded or is not a module, with the file name and, where there is
// one, the byte offset or line and column.
absl::StatusOr<std::string_view> InputAsHloText(std::string_view path, std::string_view bytes,
                                                std::optional<InputFormat> forced,
                                                std::string* storage);

}  // namespace hloscope
