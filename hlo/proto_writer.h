// Module → XLA's HloModuleProto (the wire format of `xla/service/hlo.proto`, through our own
// schema hlo/xla_hlo.proto), so that hloscope's output can be loaded by XLA's tools and read
// back by hlo/proto_reader.
//
//   absl::StatusOr<std::string> bytes = WriteModuleProto(*module, ProtoFormat::kBinary);
//
// The IR keeps most attributes as the text they were written in; the writer decodes each one
// into its typed proto field (ids for instructions and computations, shapes with layouts,
// literals in LiteralProto's typed fields, sharding as OpSharding, dimension numbers, windows,
// replica groups, ...). An attribute the writer cannot place in a field is an error that names
// the instruction and the attribute: nothing the text carries is dropped silently.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "hlo/module.h"

namespace hloscope {

enum class ProtoFormat { kBinary, kText };

// The HloModuleProto of `module`, serialized: the binary wire format (`.hlo.pb`) or protobuf
// text format (`.pbtxt`). Errors name the computation, instruction and attribute that has no
// proto field (or whose text is not what XLA prints for that attribute).
absl::StatusOr<std::string> WriteModuleProto(const Module& module, ProtoFormat format);

}  // namespace hloscope
