#include "support/proto_json.h"

#include <cmath>

#include "absl/status/status.h"
#include "fmt/core.h"
#include "google/protobuf/util/json_util.h"
#include "support/escapes.h"
#include "support/status_text.h"

namespace hloscope {

absl::StatusOr<std::string> PrintProtoJson(const google::protobuf::Message& message,
                                           ProtoJsonLayout layout) {
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;  // snake_case, as the reports have always had
  if (layout == ProtoJsonLayout::kPretty) {
    options.always_print_primitive_fields = true;
    options.add_whitespace = true;
  }
  std::string out;
  const auto status = google::protobuf::util::MessageToJsonString(message, &out, options);
  if (!status.ok()) {
    return absl::InternalError(fmt::format("JSON printing failed: {}", status.ToString()));
  }
  return out;
}

absl::StatusOr<std::string> ProtoToJson(const google::protobuf::Message& message) {
  return PrintProtoJson(message, ProtoJsonLayout::kPretty);
}

std::string ProtoJsonLine(const google::protobuf::Message& message) {
  auto json = PrintProtoJson(message, ProtoJsonLayout::kOneLine);
  if (!json.ok()) return "{\"error\":" + JsonString(StatusText(json.status())) + "}\n";
  return *json + "\n";
}

void SetNumberOrNull(google::protobuf::Value* out, double value) {
  if (std::isfinite(value)) {
    out->set_number_value(value);
  } else {
    out->set_null_value(google::protobuf::NULL_VALUE);
  }
}

}  // namespace hloscope
