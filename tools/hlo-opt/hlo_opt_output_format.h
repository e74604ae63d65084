// hlo-opt's output format: the module as HLO text (the default), or as XLA's HloModuleProto,
// binary (`.pb`) or in protobuf text format (`.pbtxt`, `.textproto`), chosen by -o's extension
// or forced with --output-format=hlo|pb|pbtxt.
//
//   hlo-opt model.hlo --passes=dce -o model.hlo.pb      # binary HloModuleProto
//   hlo-opt model.hlo --output-format=pbtxt             # text format on standard output
//
// The proto is hlo/proto_writer's (docs/formats.md, "Output formats"); it holds one
// module, so it does not combine with --split-input-file, and it is the module itself, so not
// with the reports that replace the printed module (--stats, --check-in-place, analyses).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "hlo/module.h"

namespace hloscope {

enum class OutputFormat { kHloText, kBinaryProto, kTextProto };

// "hlo", "pb", "pbtxt"; nullopt for anything else.
std::optional<OutputFormat> ParseOutputFormatName(std::string_view name);

// The format `forced` names, else the one `output_path`'s extension names: `.pb` binary proto,
// `.pbtxt` / `.textproto` text-format proto, anything else (and '-') HLO text.
OutputFormat ChooseOutputFormat(std::optional<OutputFormat> forced, std::string_view output_path);

// Appends `module` in a proto format to `out`. The error names the instruction and attribute
// that has no HloModuleProto field (hlo/proto_writer.h).
absl::Status AppendModuleProto(const Module& module, OutputFormat format, std::string& out);

}  // namespace hloscope
