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

std::optional<int64_t> ParseInt64(std::string_view text) {
  int64_t v = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || ptr != end) return std::nullopt;
  return v;
}

std::optional<int64_t> IntAttribute(const Instruction& instr, std::string_view key) {
  std::optional<std::string_view> text = RawAttribute(instr, key);
  return text ? ParseInt64(*text) : std::nullopt;
}

std::vector<int64_t> IntListAttribute(const Instruction& instr, std::string_view key) {
  return IntListAttribute(instr, *instr.module(), key);
}

std::vector<int64_t> IntListAttribute(const Instruction& instr, const Module& module,
                                      std::string_view key) {
  std::vector<int64_t> out;
  if (std::optional<std::string_view> text = RawAttribute(instr, module, key)) {
    AppendIntList(*text, out);
  }
  return out;
}

DotDimensionNumbers ReadDotDimensionNumbers(const Instruction& instr) {
  return ReadDotDimensionNumbers(instr, *instr.module());
}

DotDimensionNumbers ReadDotDimensionNumbers(const Instruction& instr, const Module& module) {
  DotDimensionNumbers d;
  for (const Attribute& a : instr.attributes()) {
    if (a.key < kAttrFirstUnknown) continue;  // the parser's typed keys are none of these
    const std::string_view key = module.AttrKeyName(a.key);
    DotDimensionNumbers::DimList* list = key == "lhs_batch_dims"         ? &d.lhs_batch
                                         : key == "lhs_contracting_dims" ? &d.lhs_contracting
                                         : key == "rhs_batch_dims"       ? &d.rhs_batch
                                         : key == "rhs_contracting_dims" ? &d.rhs_contracting
                                         : key == "lhs_ragged_dims"      ? &d.lhs_ragged
                                         : key == "rhs_group_dims"       ? &d.rhs_group
                                                                         : nullptr;
    // The parser refuses an attribute given twice, so the first is the only one.
    if (list != nullptr && list->empty()) AppendIntList(a.value, *list);
  }
  return d;
}

std::optional<std::vector<PaddingDim>> ParsePadding(std::string_view text) {
  std::vector<PaddingDim> out;
  if (text.empty()) return out;
  while (true) {
    size_t x = text.find('x');
    std::string_view part = text.substr(0, x);
    int64_t vals[3] = {0, 0, 0};
    int n = 0;
    const char* p = part.data();
    const char* end = p + part.size();
    while (p < end && n < 3) {
      auto [next, ec] = std::from_chars(p, end, vals[n]);
      if (ec != std::errc()) return std::nullopt;
      ++n;
      p = next;
      if (p == end) break;
      if (*p != '_' || p + 1 == end) return std::nullopt;
      ++p;
    }
    if (n < 2 || p != end) return std::nullopt;
    out.push_back({vals[0], vals[1], vals[2]});
    if (x == std::string_view::npos) break;
    text.remove_prefix(x + 1);
  }
  return out;
}

std::optional<int64_t> PaddedSize(int64_t size, const PaddingDim& pad) {
  int64_t interior = 0, padded = 0;
  if (pad.interior < 0 || size < 0) return std::nullopt;
  if (size > 0 && __builtin_mul_overflow(size - 1, pad.interior, &interior)) return std::nullopt;
  if (__builtin_add_overflow(size, interior, &padded) ||
      __builtin_add_overflow(padded, pad.low, &padded) ||
      __builtin_add_overflow(padded, pad.high, &padded) || padded < 0) {
    return std::nullopt;
  }
  return padded;
}

}  // namespace hloscope
