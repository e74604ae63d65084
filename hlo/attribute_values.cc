#include "hlo/attribute_values.h"

#include <charconv>

#include "hlo/module.h"

namespace hloscope {

std::optional<std::string_view> RawAttribute(const Instruction& instr, const Module& module,
                                             std::string_view key) {
  for (const Attribute& a : instr.attributes()) {
    if (module.AttrKeyName(a.key) == key) return a.value;
  }
  return std::nullopt;
}

std::optional<std::string_view> RawAttribute(const Instruction& instr, std::string_view key) {
  return RawAttribute(instr, *instr.module(), key);
}

std::vector<int64_t> IntListAttribute(const Instruction& instr, std::string_view key) {
  return IntListAttribute(instr, *instr.module(), key);
}

std::vector<int64_t> IntListAttribute(const Instruction& instr, const Module& module,
                                      std::string_view key) {
  std::vector<int64_t> out;
  std::optional<std::string_view> text = RawAttribute(instr, module, key);
  if (!text) return out;
  const char* p = text->data();
  const char* end = p + text->size();
  while (p < end) {
    if ((*p >= '0' && *p <= '9') || *p == '-') {
      int64_t v = 0;
      std::from_chars_result r = std::from_chars(p, end, v);
      if (r.ec == std::errc()) {
        out.push_back(v);
        p = r.ptr;
        continue;
      }
    }
    ++p;
  }
  return out;
}

}  // namespace hloscope
