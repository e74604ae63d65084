// The proto reader's parts (hlo/proto_reader.h is its interface), declared here for each other
// and for tests; not installed (the generated schema header they need is not).
//
// proto_module_text.cc: an HloModuleProto as the HLO text XLA's printer writes for the same
// module (canonical style: no `%`, no operand shapes, no computation signatures; every
// attribute the proto carries).
//
// proto_literal_text.cc: a LiteralProto as the text of `constant(...)`: the values in logical
// (row-major) order, written as XLA's printer writes them on one line (`1`, `{1, 2}`,
// `{ { 1, 2 }, { 3, 4 } }`, `true`, `(1, 2)` for complex, a tuple of literals in parentheses).
//
// proto_wire_check.cc: where a binary proto stops being decodable. protobuf's parser only says
// that parsing failed; a user with a truncated download or a damaged file wants to know where.
// The wire format is walked again, guided by the message's descriptor so that nested messages
// are entered and strings checked for UTF-8 (proto3 requires it), and the first field that
// cannot be read is reported.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "google/protobuf/descriptor.h"
#include "hlo/xla_hlo.pb.h"

namespace hloscope {

// The text of `module`. Errors name the computation and instruction whose proto does not make
// a module: an id that names nothing, a literal that does not fit its shape, a name that is no
// HLO identifier. `config` (HloModuleProtoWithConfig's, or nullptr) adds its attributes to the
// module header.
absl::StatusOr<std::string> HloModuleProtoToText(const xla::HloModuleProto& module,
                                                 const xla::HloModuleConfigProto* config = nullptr);

// Appends the text of `literal`, whose shape is `shape` (the constant's; the literal's own
// shape, when it has one, gives the order of the stored values). An error says what does not
// fit: a value count that is not the shape's element count, or an element type with no values.
absl::Status AppendLiteralText(const xla::LiteralProto& literal, const xla::ShapeProto& shape,
                               std::string& out);

// The first decoding problem in `bytes` read as `type`: "at byte N: <what>", with N the
// offset of the field (or length, or byte) that cannot be read. nullopt when the walk finds
// nothing wrong.
std::optional<std::string> FindWireError(std::string_view bytes,
                                         const google::protobuf::Descriptor& type);

}  // namespace hloscope
