// Reading the module protos XLA writes: `HloProto` (what `--xla_dump_hlo_as_proto` leaves as
// `*.hlo.pb`) and a bare `HloModuleProto`, in protobuf's binary form or its text format
// (`.pbtxt`, `.textproto`), through our schema hlo/xla_hlo.proto; also the module of a binary
// `HloSnapshot` (XLA's replay files).
//
// A proto is turned into the HLO text XLA's printer writes for the same module, and that text
// goes through ParseModule: one parser, one verifier and one set of typed attributes for every
// input form, so a module read from a proto is indistinguishable from one read from its text
// dump (docs/formats.md, "Input formats").
//
//   InputFormat format = DetectInputFormat(path, bytes);
//   if (format != InputFormat::kHloText) {
//     absl::StatusOr<std::string> text = ProtoToHloText(bytes, format, path);
//     ...
//   }
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "hlo/module.h"

namespace hloscope {

enum class InputFormat {
  kHloText,      // HLO text (`hlo`)
  kBinaryProto,  // binary HloProto or HloModuleProto (`pb`)
  kTextProto,    // the same in protobuf text format (`pbtxt`)
};

// "hlo", "pb", "pbtxt" (the values of the tools' --input-format); nullopt for anything else.
std::optional<InputFormat> ParseInputFormatName(std::string_view name);
std::string_view InputFormatName(InputFormat format);

// What `bytes` (the content of `path`) is. The content decides when it is clear (HLO text
// starts with `HloModule` or `ENTRY`; a binary proto has bytes no text has; a text-format proto
// starts with a field of HloProto or HloModuleProto), the extension otherwise: `.pb` is binary,
// `.pbtxt` and `.textproto` text format, anything else HLO text.
InputFormat DetectInputFormat(std::string_view path, std::string_view bytes);

// The HLO text of the module in `bytes`, a binary or text-format HloProto or HloModuleProto.
// `filename` names the input in errors. Errors: a corrupt or truncated binary proto names the
// byte offset where decoding failed; a text-format error its line and column; a proto of
// another message says it is not an HloModuleProto or HloProto; an operand, control
// predecessor, called computation or scheduled instruction whose id names nothing names the
// instruction or computation that refers to it.
absl::StatusOr<std::string> ProtoToHloText(std::string_view bytes, InputFormat format,
                                           std::string_view filename);

// ProtoToHloText, then ParseModule on the text. Parse errors then point into that text, which
// is named "<filename> (as HLO text)".
absl::StatusOr<std::unique_ptr<Module>> ParseModuleProto(std::string_view bytes, InputFormat format,
                                                         std::string_view filename);

}  // namespace hloscope
