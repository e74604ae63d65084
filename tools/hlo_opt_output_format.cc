#include "tools/hlo_opt_output_format.h"

#include "absl/status/statusor.h"
#include "hlo/proto_writer.h"

namespace hloscope {

const char kOutputFormatFlagHelp[] =
    R"(  --output-format=FMT    How to write the module: 'hlo' (HLO text), 'pb' (XLA's
                         HloModuleProto, binary) or 'pbtxt' (the same in protobuf text
                         format). Default: from -o's extension ('.pb' binary, '.pbtxt' or
                         '.textproto' text format), else HLO text. A proto holds one module:
                         not with --split-input-file, --stats, --check-in-place or an
                         analysis report. An attribute with no HloModuleProto field is an
                         error (exit 1) naming the instruction and attribute.
)";

std::optional<OutputFormat> ParseOutputFormatName(std::string_view name) {
  if (name == "hlo") return OutputFormat::kHloText;
  if (name == "pb") return OutputFormat::kBinaryProto;
  if (name == "pbtxt") return OutputFormat::kTextProto;
  return std::nullopt;
}

OutputFormat ChooseOutputFormat(std::optional<OutputFormat> forced, std::string_view output_path) {
  if (forced) return *forced;
  if (output_path.ends_with(".pb")) return OutputFormat::kBinaryProto;
  if (output_path.ends_with(".pbtxt") || output_path.ends_with(".textproto")) {
    return OutputFormat::kTextProto;
  }
  return OutputFormat::kHloText;
}

absl::Status AppendModuleProto(const Module& module, OutputFormat format, std::string& out) {
  absl::StatusOr<std::string> bytes = WriteModuleProto(
      module, format == OutputFormat::kTextProto ? ProtoFormat::kText : ProtoFormat::kBinary);
  if (!bytes.ok()) {
    return absl::Status(bytes.status().code(),
                        std::string("cannot write the module as HloModuleProto: ") +
                            std::string(bytes.status().message()));
  }
  out += *bytes;
  return absl::OkStatus();
}

}  // namespace hloscope
