#include "tools/common/load_input.h"

#include <utility>

namespace hloscope {

absl::StatusOr<HloTextInput> InputAsHloText(std::string_view filename, std::string_view bytes,
                                            std::optional<InputFormat> forced,
                                            std::string* storage) {
  const InputFormat format = forced.has_value() ? *forced : DetectInputFormat(filename, bytes);
  if (format == InputFormat::kHloText) return HloTextInput{bytes, std::string(filename)};
  absl::StatusOr<std::string> text = ProtoToHloText(bytes, format, filename);
  if (!text.ok()) return text.status();
  *storage = *std::move(text);
  return HloTextInput{*storage, std::string(filename) + " (as HLO text)"};
}

}  // namespace hloscope
