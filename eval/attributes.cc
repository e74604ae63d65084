#include "eval/attributes.h"

#include "absl/status/status.h"
#include "hlo/module.h"
#include "support/str_util.h"

namespace hloscope::eval {

absl::StatusOr<std::vector<PadDim>> PaddingAttribute(const Instruction& instr) {
  std::optional<std::string_view> text = RawAttribute(instr, "padding");
  if (!text) return absl::InvalidArgumentError(StrCat("pad %", instr.name(), " has no padding="));
  std::optional<std::vector<PadDim>> pads = ParsePadding(*text);
  if (!pads) {
    return absl::InvalidArgumentError(
        StrCat("pad %", instr.name(), ": cannot read padding='", *text, "'"));
  }
  return *std::move(pads);
}

}  // namespace hloscope::eval
