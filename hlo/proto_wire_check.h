// Where a binary proto stops being decodable. protobuf's parser only says that parsing failed;
// a user with a truncated download or a damaged file wants to know where. This walks the wire
// format itself, guided by the message's descriptor so that nested messages are entered and
// strings checked for UTF-8 (proto3 requires it), and reports the first field it cannot read.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "google/protobuf/descriptor.h"

namespace hloscope {

// The first decoding problem in `bytes` read as `type`: "at byte N: <what>", with N the
// offset of the field (or length, or byte) that cannot be read. nullopt when the walk finds
// nothing wrong.
std::optional<std::string> FindWireError(std::string_view bytes,
                                         const google::protobuf::Descriptor& type);

}  // namespace hloscope
