// Small pieces the tools' reports share: byte counts for people, and protobuf messages as JSON
// with the proto field names (the schemas in the .proto files are the reports' interface).
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "google/protobuf/message.h"
#include "hlo/str_util.h"

namespace hloscope {

// HumanBytes ("512 B", "1.5 MiB") is hlo/str_util.h's, below the libraries whose reports use it.

// Pretty-printed JSON with proto field names and every field printed (zeros too), so that
// readers see the whole schema; int64 fields are strings, as proto3's JSON mapping says.
absl::StatusOr<std::string> ProtoToJson(const google::protobuf::Message& message);

}  // namespace hloscope
