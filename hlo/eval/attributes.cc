#include "hlo/eval/attributes.h"

#include <charconv>

#include "absl/status/status.h"
#include "hlo/module.h"
#include "hlo/str_util.h"

namespace hloscope::eval {

absl::StatusOr<std::vector<PadDim>> PaddingAttribute(const Instruction& instr) {
  std::optional<std::string_view> text = RawAttribute(instr, "padding");
  if (!text) return absl::InvalidArgumentError(StrCat("pad %", instr.name(), " has no padding="));
  std::vector<PadDim> out;
  std::string_view rest = *text;
  if (rest.empty()) return out;  // a scalar
  while (true) {
    size_t x = rest.find('x');
    std::string_view part = rest.substr(0, x);
    int64_t vals[3] = {0, 0, 0};
    int n = 0;
    const char* p = part.data();
    const char* end = p + part.size();
    while (p < end && n < 3) {
      auto r = std::from_chars(p, end, vals[n]);
      if (r.ec != std::errc()) break;
      ++n;
      p = r.ptr;
      if (p < end && *p == '_') ++p;
    }
    if (n < 2 || p != end) {
      return absl::InvalidArgumentError(
          StrCat("pad %", instr.name(), ": cannot read padding='", *text, "'"));
    }
    out.push_back({vals[0], vals[1], vals[2]});
    if (x == std::string_view::npos) break;
    rest.remove_prefix(x + 1);
  }
  return out;
}

}  // namespace hloscope::eval
