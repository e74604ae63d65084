// Reports as JSON through protobuf's JSON printer, with the .proto field names (the schemas are
// the reports' interface). One printer, two layouts: hlo-opt's reports are pretty-printed with
// every field (zeros too, so readers see the whole schema); hlo-pipeline's are one compact line
// per report.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "google/protobuf/message.h"
#include "google/protobuf/struct.pb.h"

namespace hloscope {

enum class ProtoJsonLayout {
  kPretty,   // indented, every field printed (zeros too)
  kOneLine,  // one line, default values left out
};

// `message` as JSON with proto field names (int64 fields are strings, as proto3's JSON mapping
// says). A string field that is not UTF-8 (HLO text may put any bytes in a name or metadata)
// has each stray byte written as the four characters \xHH; protobuf's printer would drop it.
// Fails ("JSON printing failed: ...") only on a google.protobuf.Any the printer cannot
// resolve, which our schemas do not use.
absl::StatusOr<std::string> PrintProtoJson(const google::protobuf::Message& message,
                                           ProtoJsonLayout layout);

// Pretty-printed JSON (kPretty).
absl::StatusOr<std::string> ProtoToJson(const google::protobuf::Message& message);

// `message` as one line of JSON and "\n" (kOneLine). Should the printer fail, the line is a JSON
// object {"error": ...} naming why, so the output stays JSON.
std::string ProtoJsonLine(const google::protobuf::Message& message);

// A JSON number, or null when `value` is not finite (JSON has no infinities).
void SetNumberOrNull(google::protobuf::Value* out, double value);

}  // namespace hloscope
