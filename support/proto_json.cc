#include "support/proto_json.h"

#include <cmath>
#include <memory>
#include <string_view>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "fmt/core.h"
#include "google/protobuf/util/json_util.h"
#include "support/escapes.h"
#include "support/status_text.h"

namespace hloscope {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

// The length of the UTF-8 sequence starting at text[i], or 0 when none does there (RFC 3629: no
// overlong forms, no surrogates, nothing past U+10FFFF).
size_t Utf8SequenceAt(std::string_view text, size_t i) {
  const auto at = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char b = at(i);
  if (b < 0x80) return 1;
  size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // the second byte's range
  if (b >= 0xC2 && b <= 0xDF) {
    n = 2;
  } else if (b >= 0xE0 && b <= 0xEF) {
    n = 3;
    if (b == 0xE0) lo = 0xA0;
    if (b == 0xED) hi = 0x9F;
  } else if (b >= 0xF0 && b <= 0xF4) {
    n = 4;
    if (b == 0xF0) lo = 0x90;
    if (b == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + n > text.size() || at(i + 1) < lo || at(i + 1) > hi) return 0;
  for (size_t k = 2; k < n; ++k) {
    if (at(i + k) < 0x80 || at(i + k) > 0xBF) return 0;
  }
  return n;
}

bool IsUtf8(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    const size_t n = Utf8SequenceAt(text, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

// `text` with each byte outside a UTF-8 sequence written as the four characters \xHH.
std::string EscapeNonUtf8(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    const size_t n = Utf8SequenceAt(text, i);
    if (n == 0) {
      out += fmt::format("\\x{:02X}", static_cast<unsigned char>(text[i]));
      ++i;
    } else {
      out.append(text.substr(i, n));
      i += n;
    }
  }
  return out;
}

// Calls visit(m, field, index, value) for each string field (not bytes) of `message`, and of
// the messages inside it, whose value is not UTF-8 (index -1 for a field that is not
// repeated), until visit returns false; returns false when it did. One walk for both uses:
// `M` const to look, not const to rewrite.
template <typename M, typename Visit>
bool VisitNonUtf8Strings(M& message, const Visit& visit) {
  const google::protobuf::Reflection* r = message.GetReflection();
  std::vector<const FieldDescriptor*> fields;
  r->ListFields(message, &fields);
  for (const FieldDescriptor* f : fields) {
    const int n = f->is_repeated() ? r->FieldSize(message, f) : 1;
    for (int i = 0; i < n; ++i) {
      if (f->type() == FieldDescriptor::TYPE_STRING) {
        std::string scratch;
        const std::string& value = f->is_repeated()
                                       ? r->GetRepeatedStringReference(message, f, i, &scratch)
                                       : r->GetStringReference(message, f, &scratch);
        if (!IsUtf8(value) && !visit(message, f, f->is_repeated() ? i : -1, value)) return false;
      } else if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
        M* inner;
        if constexpr (std::is_const_v<M>) {
          inner =
              f->is_repeated() ? &r->GetRepeatedMessage(message, f, i) : &r->GetMessage(message, f);
        } else {
          inner = f->is_repeated() ? r->MutableRepeatedMessage(&message, f, i)
                                   : r->MutableMessage(&message, f);
        }
        if (!VisitNonUtf8Strings(*inner, visit)) return false;
      }
    }
  }
  return true;
}

bool HasNonUtf8Strings(const Message& message) {
  return !VisitNonUtf8Strings(message, [](const Message&, const FieldDescriptor*, int,
                                          const std::string&) { return false; });
}

// Rewrites every string field of `message` (and of the messages inside it) that is not UTF-8
// by EscapeNonUtf8.
void EscapeNonUtf8Strings(Message& message) {
  VisitNonUtf8Strings(
      message, [](Message& m, const FieldDescriptor* f, int index, const std::string& value) {
        std::string escaped = EscapeNonUtf8(value);
        if (index < 0) {
          m.GetReflection()->SetString(&m, f, std::move(escaped));
        } else {
          m.GetReflection()->SetRepeatedString(&m, f, index, std::move(escaped));
        }
        return true;
      });
}

}  // namespace

absl::StatusOr<std::string> PrintProtoJson(const google::protobuf::Message& message,
                                           ProtoJsonLayout layout) {
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;  // snake_case, as the reports have always had
  if (layout == ProtoJsonLayout::kPretty) {
    options.always_print_primitive_fields = true;
    options.add_whitespace = true;
  }
  // protobuf's printer drops the bytes of a string field that are not UTF-8 (a JSON string must
  // be), saying so only in its log: a name in a report would silently lose them (metadata read
  // from HLO text may hold any bytes). They are written as \xHH text instead, on a copy.
  const Message* printed = &message;
  std::unique_ptr<Message> escaped;
  if (HasNonUtf8Strings(message)) {
    escaped.reset(message.New());
    escaped->CopyFrom(message);
    EscapeNonUtf8Strings(*escaped);
    printed = escaped.get();
  }
  std::string out;
  const auto status = google::protobuf::util::MessageToJsonString(*printed, &out, options);
  if (!status.ok()) {
    return absl::InternalError(fmt::format("JSON printing failed: {}", status.ToString()));
  }
  return out;
}

absl::StatusOr<std::string> ProtoToJson(const google::protobuf::Message& message) {
  return PrintProtoJson(message, ProtoJsonLayout::kPretty);
}

std::string ProtoJsonLine(const google::protobuf::Message& message) {
  auto json = PrintProtoJson(message, ProtoJsonLayout::kOneLine);
  if (!json.ok()) return "{\"error\":" + JsonString(StatusText(json.status())) + "}\n";
  return *json + "\n";
}

void SetNumberOrNull(google::protobuf::Value* out, double value) {
  if (std::isfinite(value)) {
    out->set_number_value(value);
  } else {
    out->set_null_value(google::protobuf::NULL_VALUE);
  }
}

}  // namespace hloscope
