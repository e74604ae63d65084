#include "tools/load_input.h"

namespace hloscope {

absl::StatusOr<std::string_view> InputAsHloText(std::string_view path, std::string_view bytes,
                                                std::optional<InputFormat> forced,
                                                std::string* storage) {
  const InputFormat format = forced.has_value() ? *forced : DetectInputFormat(path, bytes);
  if (format == InputFormat::kHloText) return bytes;
  absl::StatusOr<std::string> text = ProtoToHloText(bytes, format, path);
  if (!text.ok()) return text.status();
  *storage = *std::move(text);
  return std::string_view(*storage);
}

}  // namespace hloscope
