#include "tools/hlo-opt/hlo_opt_split_proto.h"

#include <utility>

#include "absl/status/statusor.h"
#include "hlo/proto_reader.h"

namespace hloscope {
namespace {

bool IsBlank(std::string_view text) {
  return text.find_first_not_of(" \t\r\n") == std::string_view::npos;
}

}  // namespace

SplitProtoParts ConvertProtoParts(std::string_view filename, std::string_view text) {
  SplitProtoParts out;
  std::vector<InputChunk> parts;
  for (const InputChunk& part : SplitInputFile(text)) {
    if (!IsBlank(part.text)) parts.push_back(part);
  }
  if (parts.empty()) parts.push_back({text, 1});  // the converter's own "empty" error
  for (const InputChunk& part : parts) {
    // The part behind as many empty lines as precede it: the text-format reader's line
    // numbers are then the file's.
    std::string padded(part.first_line > 1 ? part.first_line - 1 : 0, '\n');
    padded.append(part.text);
    absl::StatusOr<std::string> hlo = ProtoToHloText(padded, InputFormat::kTextProto, filename);
    out.storage.push_back(std::make_unique<std::string>(hlo.ok() ? *std::move(hlo) : ""));
    out.chunks.push_back({*out.storage.back(), 1});
    out.errors.push_back(hlo.ok() ? absl::OkStatus() : hlo.status());
  }
  return out;
}

}  // namespace hloscope
