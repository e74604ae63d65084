#include <cstdint>

#include "hlo/proto_reader_internal.h"
#include "support/str_util.h"

namespace hloscope {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;

// Messages nest far less than this in any real HLO proto; the bound keeps a hostile input from
// exhausting the stack (protobuf's own parser stops at 100).
constexpr int kMaxDepth = 100;

class WireWalker {
 public:
  explicit WireWalker(std::string_view bytes) : bytes_(bytes) {}

  // Walks [begin, end) as `type` (nullptr: an unknown field, not entered).
  bool Walk(size_t begin, size_t end, const Descriptor* type, int depth) {
    if (depth > kMaxDepth) {
      return Fail(begin, StrCat("messages nested more than ", kMaxDepth, " deep"));
    }
    size_t pos = begin;
    while (pos < end) {
      const size_t field_start = pos;
      uint64_t tag;
      if (!Varint(pos, end, tag)) {
        return Fail(field_start, "a field tag that is cut off or longer than 10 bytes");
      }
      const uint64_t number = tag >> 3;
      const int wire_type = static_cast<int>(tag & 7);
      if (number == 0 || number > 536870911) {
        return Fail(field_start, StrCat("field number ", number, " is not a valid field number"));
      }
      const FieldDescriptor* field =
          type != nullptr ? type->FindFieldByNumber(static_cast<int>(number)) : nullptr;
      // "field 36 (operand_ids)" when the schema knows the field.
      const std::string label = field != nullptr
                                    ? StrCat("field ", number, " (", field->name(), ")")
                                    : StrCat("field ", number);
      switch (wire_type) {
        case 0: {  // varint
          uint64_t ignored;
          if (!Varint(pos, end, ignored)) {
            return Fail(field_start, StrCat(label, ": a varint that is cut off"));
          }
          break;
        }
        case 1:  // fixed64
          if (end - pos < 8) {
            return Fail(field_start,
                        StrCat(label, ": 8 bytes needed, ", end - pos, " left in its message"));
          }
          pos += 8;
          break;
        case 5:  // fixed32
          if (end - pos < 4) {
            return Fail(field_start,
                        StrCat(label, ": 4 bytes needed, ", end - pos, " left in its message"));
          }
          pos += 4;
          break;
        case 2: {  // length-delimited
          uint64_t length;
          const size_t length_start = pos;
          if (!Varint(pos, end, length)) {
            return Fail(length_start, StrCat(label, ": a length that is cut off"));
          }
          if (length > end - pos) {
            // A cut-off file breaks every enclosing length at once: go down into what is there
            // so the offset named is where the bytes actually stop making sense.
            if (field != nullptr && field->type() == FieldDescriptor::TYPE_MESSAGE &&
                !Walk(pos, end, field->message_type(), depth + 1)) {
              return false;
            }
            return Fail(field_start, StrCat(label, ": length ", length, " but only ", end - pos,
                                            " bytes left in its message"));
          }
          const size_t payload = pos;
          pos += length;
          if (field == nullptr) break;
          if (field->type() == FieldDescriptor::TYPE_MESSAGE) {
            if (!Walk(payload, pos, field->message_type(), depth + 1)) return false;
          } else if (field->type() == FieldDescriptor::TYPE_STRING &&
                     !IsUtf8(bytes_.substr(payload, length))) {
            return Fail(payload, StrCat(label, ": a string that is not UTF-8"));
          }
          break;
        }
        case 3:
        case 4:
          return Fail(field_start, StrCat(label, ": group wire types are not used by HLO protos"));
        default:
          return Fail(field_start, StrCat(label, ": wire type ", wire_type, " does not exist"));
      }
    }
    return true;
  }

  const std::optional<std::string>& error() const { return error_; }

 private:
  bool Varint(size_t& pos, size_t end, uint64_t& value) {
    value = 0;
    for (int shift = 0; shift < 70; shift += 7) {
      if (pos >= end) return false;
      const auto b = static_cast<uint8_t>(bytes_[pos++]);
      value |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return true;
    }
    return false;
  }

  static bool IsUtf8(std::string_view s) {
    size_t i = 0;
    while (i < s.size()) {
      const auto c = static_cast<uint8_t>(s[i]);
      int extra;
      if (c < 0x80) {
        extra = 0;
      } else if ((c & 0xe0) == 0xc0 && c >= 0xc2) {
        extra = 1;
      } else if ((c & 0xf0) == 0xe0) {
        extra = 2;
      } else if ((c & 0xf8) == 0xf0 && c <= 0xf4) {
        extra = 3;
      } else {
        return false;
      }
      if (i + static_cast<size_t>(extra) >= s.size() && extra > 0) return false;
      for (int k = 1; k <= extra; ++k) {
        if ((static_cast<uint8_t>(s[i + static_cast<size_t>(k)]) & 0xc0) != 0x80) return false;
      }
      i += static_cast<size_t>(extra) + 1;
    }
    return true;
  }

  bool Fail(size_t offset, std::string what) {
    error_ = StrCat("at byte ", offset, ": ", what);
    return false;
  }

  std::string_view bytes_;
  std::optional<std::string> error_;
};

}  // namespace

std::optional<std::string> FindWireError(std::string_view bytes, const Descriptor& type) {
  WireWalker walker(bytes);
  if (walker.Walk(0, bytes.size(), &type, 0)) return std::nullopt;
  return walker.error();
}

}  // namespace hloscope
