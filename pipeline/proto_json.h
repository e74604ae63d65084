// The pipeline library's JSON goes through protobuf's JSON printer: one object on one line,
// fields under their .proto names in declaration order, then a newline.
#pragma once

#include <string>

#include "google/protobuf/message.h"
#include "google/protobuf/struct.pb.h"

namespace hloscope::pipeline {

// `message` as compact JSON and "\n". The printer fails only on google.protobuf.Any it cannot
// resolve, which the pipeline's schemas do not use; should it fail, the result is a JSON object
// {"error": ...} naming why, so the output stays JSON.
std::string ProtoJsonLine(const google::protobuf::Message& message);

// A JSON number, or null when `value` is not finite (JSON has no infinities).
void SetNumberOrNull(google::protobuf::Value* out, double value);

}  // namespace hloscope::pipeline
