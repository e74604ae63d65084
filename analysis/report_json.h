// Reports as JSON: a protobuf message pretty-printed with the proto field names (the .proto
// schemas are the reports' interface). The analysis printers (dataflow_report.h, the memory
// report) and the tools' own reports print through it.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "google/protobuf/message.h"

namespace hloscope {

// Pretty-printed JSON with proto field names and every field printed (zeros too), so that
// readers see the whole schema; int64 fields are strings, as proto3's JSON mapping says.
// (pipeline/proto_json.h prints one compact line per report instead: hlo-pipeline's format.)
absl::StatusOr<std::string> ProtoToJson(const google::protobuf::Message& message);

}  // namespace hloscope
