#include "tools/hlo-opt/hlo_opt_output_format.h"

#include "absl/status/statusor.h"
#include "hlo/proto_writer.h"
#include "support/status_text.h"

namespace hloscope {

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
    return absl::Status(
        bytes.status().code(),
        std::string("cannot write the module as HloModuleProto: ") + StatusText(bytes.status()));
  }
  out += *bytes;
  return absl::OkStatus();
}

}  // namespace hloscope
