#include "support/option_spelling.h"

namespace hloscope {

std::string SpellOption(const OptionSpelling& spelling, std::string_view option) {
  if (spelling) {
    std::string spelled = spelling(option);
    if (!spelled.empty()) return spelled;
  }
  return std::string(option);
}

}  // namespace hloscope
