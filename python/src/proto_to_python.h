// A report's JSON (printed by support/proto_json.h from one of the .proto schemas) as Python
// dicts and lists, through the schema itself: the keys are the proto field names, exactly the
// JSON's, and int64 fields (strings in proto3's JSON mapping) become Python ints. Reading the
// printed JSON back keeps one mapping from the C++ structs to the schema: the printers'.
#pragma once

#include <pybind11/pybind11.h>

#include <string_view>

#include "google/protobuf/message.h"

namespace hloscope::python {

// Parses `json` into `message` (of the schema that printed it) and converts it. Throws
// std::runtime_error when the JSON does not fit the schema (a printer bug, not user input).
pybind11::object JsonReportToPython(std::string_view json, google::protobuf::Message& message);

// Every field of `message` as a dict, repeated fields as lists, enums by name.
pybind11::dict MessageToPython(const google::protobuf::Message& message);

}  // namespace hloscope::python
