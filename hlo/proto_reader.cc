#include "hlo/proto_reader.h"

#include <climits>
#include <cstdint>
#include <set>

#include "google/protobuf/arena.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/stubs/logging.h"
#include "google/protobuf/text_format.h"
#include "hlo/parser.h"
#include "hlo/proto_reader_internal.h"
#include "hlo/xla_hlo.pb.h"
#include "support/status_text.h"
#include "support/str_util.h"

namespace hloscope {
namespace {

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool IsIdentChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// The first field name of a text-format proto and whether `:` or `{` follows it, after
// whitespace and `#` comments; empty when the text does not start like that.
std::string_view FirstTextProtoField(std::string_view bytes) {
  size_t i = 0;
  while (i < bytes.size()) {
    const char c = bytes[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      ++i;
    } else if (c == '#') {
      while (i < bytes.size() && bytes[i] != '\n') ++i;
    } else {
      break;
    }
  }
  const size_t start = i;
  while (i < bytes.size() && IsIdentChar(bytes[i])) ++i;
  const std::string_view name = bytes.substr(start, i - start);
  while (i < bytes.size() && (bytes[i] == ' ' || bytes[i] == '\t')) ++i;
  if (name.empty() || i >= bytes.size() || (bytes[i] != ':' && bytes[i] != '{')) return {};
  return name;
}

bool IsHloProtoOrModuleField(std::string_view name) {
  const std::string n(name);
  return xla::HloProto::descriptor()->FindFieldByName(n) != nullptr ||
         xla::HloModuleProto::descriptor()->FindFieldByName(n) != nullptr;
}

// Bytes that text never holds: C0 controls other than tab, newline and carriage return.
bool HasBinaryBytes(std::string_view bytes) {
  const size_t n = std::min<size_t>(bytes.size(), 4096);
  for (size_t i = 0; i < n; ++i) {
    const auto c = static_cast<unsigned char>(bytes[i]);
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f) return true;
  }
  return false;
}

std::string_view SkipLeadingSpace(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) ++i;
  return s.substr(i);
}

std::string TopLevelFieldNumbers(std::string_view bytes) {
  // Best effort, for the message only: the numbers of the fields that decode at the top level.
  std::set<uint64_t> numbers;
  size_t pos = 0;
  auto varint = [&](uint64_t& v) {
    v = 0;
    for (int shift = 0; shift < 70 && pos < bytes.size(); shift += 7) {
      const auto b = static_cast<uint8_t>(bytes[pos++]);
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return true;
    }
    return false;
  };
  while (pos < bytes.size() && numbers.size() < 16) {
    uint64_t tag;
    if (!varint(tag)) break;
    numbers.insert(tag >> 3);
    uint64_t skip = 0;
    switch (tag & 7) {
      case 0:
        if (!varint(skip)) return StrJoin(numbers, ", ");
        skip = 0;
        break;
      case 1:
        skip = 8;
        break;
      case 5:
        skip = 4;
        break;
      case 2:
        if (!varint(skip)) return StrJoin(numbers, ", ");
        break;
      default:
        return StrJoin(numbers, ", ");
    }
    if (skip > bytes.size() - pos) break;
    pos += skip;
  }
  return StrJoin(numbers, ", ");
}

// `FILE: message`, with no `error:` of its own: a byte offset is no line and column, so the
// tools put their `<tool>: error:` in front, as for every message without a position.
absl::Status FileError(std::string_view filename, std::string_view message) {
  return absl::InvalidArgumentError(StrCat(filename, ": ", message));
}

// The module a proto holds, with its config when it came as HloModuleProtoWithConfig; both live
// in the arena.
struct DecodedModule {
  const xla::HloModuleProto* module = nullptr;
  const xla::HloModuleConfigProto* config = nullptr;
};

// The decoded module lives in `arena`: tens of thousands of small messages are allocated and
// freed in one block each way (malloc and free of the pieces were a third of the reading time).
absl::StatusOr<DecodedModule> DecodeBinary(std::string_view bytes, std::string_view filename,
                                           google::protobuf::Arena* arena) {
  if (bytes.size() > static_cast<size_t>(INT_MAX)) {
    return FileError(filename, "binary proto larger than 2 GiB, which protobuf cannot read");
  }
  const int size = static_cast<int>(bytes.size());
  // protobuf logs why a string field failed to parse; the error returned here says it better.
  google::protobuf::LogSilencer quiet;
  // An HloProto's field 1 is the module; an HloModuleProto's field 1 is its name. Both decode
  // as either often enough that the module's computations decide.
  // HloModuleProtoWithConfig (what hlo-opt writes for a header with config attributes) shares
  // field 1 with HloProto and adds the config as field 2, which XLA's HloProto leaves unused.
  auto* with_config = google::protobuf::Arena::CreateMessage<xla::HloModuleProtoWithConfig>(arena);
  if (with_config->ParseFromArray(bytes.data(), size) &&
      with_config->hlo_module().computations_size() > 0) {
    return DecodedModule{with_config->mutable_hlo_module(),
                         with_config->has_config() ? &with_config->config() : nullptr};
  }
  xla::HloProto* hlo_proto = google::protobuf::Arena::CreateMessage<xla::HloProto>(arena);
  const bool as_hlo_proto = hlo_proto->ParseFromArray(bytes.data(), size);
  if (as_hlo_proto && hlo_proto->hlo_module().computations_size() > 0) {
    return DecodedModule{hlo_proto->mutable_hlo_module()};
  }
  auto* module = google::protobuf::Arena::CreateMessage<xla::HloModuleProto>(arena);
  const bool as_module = module->ParseFromArray(bytes.data(), size);
  if (as_module && module->computations_size() > 0) return DecodedModule{module};
  // An HloSnapshot holds an HloProto as its field 1.
  auto* snapshot = google::protobuf::Arena::CreateMessage<xla::HloSnapshot>(arena);
  if (snapshot->ParseFromArray(bytes.data(), size) &&
      snapshot->hlo().hlo_module().computations_size() > 0) {
    return DecodedModule{snapshot->mutable_hlo()->mutable_hlo_module()};
  }
  if (!as_hlo_proto && !as_module) {
    // Corrupt or truncated: report where, read as whichever message gets further.
    std::optional<std::string> a = FindWireError(bytes, *xla::HloProto::descriptor());
    std::optional<std::string> b = FindWireError(bytes, *xla::HloModuleProto::descriptor());
    auto offset = [](const std::optional<std::string>& e) -> int64_t {
      if (!e.has_value()) return -1;
      return std::strtoll(e->c_str() + sizeof("at byte ") - 1, nullptr, 10);
    };
    const std::optional<std::string>& where = offset(a) >= offset(b) ? a : b;
    // Text read as a binary proto (a forced --input-format, a misnamed file) fails at once;
    // say so rather than leave the user puzzling over wire types.
    const std::string_view hint =
        HasBinaryBytes(bytes) ? "" : " (the file looks like text, not a binary proto)";
    if (where.has_value()) {
      return FileError(filename, StrCat("corrupt or truncated binary proto (", bytes.size(),
                                        " bytes): ", *where, hint));
    }
    return FileError(filename,
                     "binary proto that protobuf cannot decode as HloProto or HloModuleProto "
                     "(its wire format reads, so no byte offset can be named)");
  }
  if (bytes.empty()) {
    return FileError(filename, "not an HloModuleProto or HloProto: the file is empty");
  }
  return FileError(filename, StrCat("not an HloModuleProto or HloProto: it decodes, but holds no "
                                    "computations (top-level fields: ",
                                    TopLevelFieldNumbers(bytes), ")"));
}

// Keeps protobuf's first text-format error with its position.
class FirstErrorCollector : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string& message) override {
    if (has_error_) return;
    has_error_ = true;
    line_ = line;
    column_ = column;
    message_ = message;
  }

  bool has_error() const { return has_error_; }
  std::string Format(std::string_view filename) const {
    return StrCat(filename, ":", line_ + 1, ":", column_ + 1, ": error: ", message_);
  }

 private:
  bool has_error_ = false;
  int line_ = 0;
  int column_ = 0;
  std::string message_;
};

absl::StatusOr<DecodedModule> DecodeText(std::string_view bytes, std::string_view filename,
                                         google::protobuf::Arena* arena) {
  if (bytes.size() > static_cast<size_t>(INT_MAX)) {
    return FileError(filename, "text proto larger than 2 GiB, which protobuf cannot read");
  }
  FirstErrorCollector errors;
  google::protobuf::TextFormat::Parser parser;
  parser.RecordErrorsTo(&errors);
  // An HloProto's buffer assignment and fields of newer XLA versions are not in our schema.
  parser.AllowUnknownField(true);
  parser.AllowUnknownExtension(true);
  const bool is_hlo_proto = FirstTextProtoField(bytes) == "hlo_module";
  google::protobuf::io::ArrayInputStream input(bytes.data(), static_cast<int>(bytes.size()));
  xla::HloModuleProto* module = nullptr;
  const xla::HloModuleConfigProto* config = nullptr;
  bool ok;
  if (is_hlo_proto) {
    // HloProto or HloModuleProtoWithConfig: the latter's fields are HloProto's module and the
    // config (HloProto's buffer assignment is skipped as an unknown field either way).
    auto* with_config =
        google::protobuf::Arena::CreateMessage<xla::HloModuleProtoWithConfig>(arena);
    ok = parser.Parse(&input, with_config);
    module = with_config->mutable_hlo_module();
    if (with_config->has_config()) config = &with_config->config();
  } else {
    module = google::protobuf::Arena::CreateMessage<xla::HloModuleProto>(arena);
    ok = parser.Parse(&input, module);
  }
  if (!ok) {
    if (errors.has_error()) return absl::InvalidArgumentError(errors.Format(filename));
    return FileError(filename, "text proto that protobuf cannot parse");
  }
  if (module->computations_size() == 0) {
    return FileError(filename,
                     "not an HloModuleProto or HloProto: the text proto holds no computations");
  }
  return DecodedModule{module, config};
}

}  // namespace

std::optional<InputFormat> ParseInputFormatName(std::string_view name) {
  if (name == "hlo") return InputFormat::kHloText;
  if (name == "pb") return InputFormat::kBinaryProto;
  if (name == "pbtxt") return InputFormat::kTextProto;
  return std::nullopt;
}

std::string_view InputFormatName(InputFormat format) {
  switch (format) {
    case InputFormat::kHloText:
      return "hlo";
    case InputFormat::kBinaryProto:
      return "pb";
    case InputFormat::kTextProto:
      return "pbtxt";
  }
  return "hlo";
}

InputFormat DetectInputFormat(std::string_view path, std::string_view bytes) {
  // HLO text may open with `//` or `#` comment lines (lit tests, copied dumps).
  std::string_view start = SkipLeadingSpace(bytes);
  while (start.starts_with("//") || start.starts_with("#")) {
    const size_t eol = start.find('\n');
    start =
        eol == std::string_view::npos ? std::string_view() : SkipLeadingSpace(start.substr(eol));
  }
  if (start.starts_with("HloModule") || start.starts_with("ENTRY")) return InputFormat::kHloText;
  if (HasBinaryBytes(bytes)) return InputFormat::kBinaryProto;
  if (IsHloProtoOrModuleField(FirstTextProtoField(bytes))) return InputFormat::kTextProto;
  if (EndsWith(path, ".pb")) return InputFormat::kBinaryProto;
  if (EndsWith(path, ".pbtxt") || EndsWith(path, ".textproto")) return InputFormat::kTextProto;
  return InputFormat::kHloText;
}

absl::StatusOr<std::string> ProtoToHloText(std::string_view bytes, InputFormat format,
                                           std::string_view filename) {
  google::protobuf::Arena arena;
  absl::StatusOr<DecodedModule> decoded = format == InputFormat::kTextProto
                                              ? DecodeText(bytes, filename, &arena)
                                              : DecodeBinary(bytes, filename, &arena);
  if (!decoded.ok()) return decoded.status();
  absl::StatusOr<std::string> text = HloModuleProtoToText(*decoded->module, decoded->config);
  if (!text.ok()) return FileError(filename, StatusText(text.status()));
  return text;
}

absl::StatusOr<std::unique_ptr<Module>> ParseModuleProto(std::string_view bytes, InputFormat format,
                                                         std::string_view filename) {
  absl::StatusOr<std::string> text = ProtoToHloText(bytes, format, filename);
  if (!text.ok()) return text.status();
  const std::string name = StrCat(filename, " (as HLO text)");
  ParseOptions options;
  options.filename = name;
  return ParseModule(*text, options);
}

}  // namespace hloscope
