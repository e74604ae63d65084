#include "pipeline/proto_json.h"

#include <cmath>

#include "pipeline/units.h"
#include "google/protobuf/util/json_util.h"

namespace hloscope::pipeline {

std::string ProtoJsonLine(const google::protobuf::Message& message) {
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;  // snake_case, as the reports have always had
  std::string out;
  const auto status = google::protobuf::util::MessageToJsonString(message, &out, options);
  if (!status.ok()) {
    const auto text = status.message();
    return "{\"error\":" + JsonString(std::string_view(text.data(), text.size())) + "}\n";
  }
  return out + "\n";
}

void SetNumberOrNull(google::protobuf::Value* out, double value) {
  if (std::isfinite(value)) {
    out->set_number_value(value);
  } else {
    out->set_null_value(google::protobuf::NULL_VALUE);
  }
}

}  // namespace hloscope::pipeline
