#include "analysis/report_json.h"

#include "absl/status/status.h"
#include "fmt/core.h"
#include "google/protobuf/util/json_util.h"

namespace hloscope {

absl::StatusOr<std::string> ProtoToJson(const google::protobuf::Message& message) {
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  options.always_print_primitive_fields = true;
  options.add_whitespace = true;
  std::string out;
  auto status = google::protobuf::util::MessageToJsonString(message, &out, options);
  if (!status.ok()) {
    return absl::InternalError(fmt::format("JSON printing failed: {}", status.ToString()));
  }
  return out;
}

}  // namespace hloscope
