#include "pipeline/visible_text.h"

#include <cstdint>
#include <cstdio>

namespace hloscope::pipeline {
namespace {

// Code points that draw nothing (or only blank space) in a terminal, besides ' '.
bool Invisible(uint32_t c) {
  return c == 0x00A0 || c == 0x00AD || c == 0x034F || c == 0x061C || c == 0x115F || c == 0x1160 ||
         c == 0x1680 || c == 0x17B4 || c == 0x17B5 || (c >= 0x180B && c <= 0x180F) ||
         (c >= 0x2000 && c <= 0x200F) || (c >= 0x2028 && c <= 0x202F) ||
         (c >= 0x205F && c <= 0x206F) || c == 0x3000 || c == 0x3164 ||
         (c >= 0xFE00 && c <= 0xFE0F) || c == 0xFEFF || c == 0xFFA0 ||
         (c >= 0xFFF0 && c <= 0xFFFB) || (c >= 0x1D173 && c <= 0x1D17A) ||
         (c >= 0xE0000 && c <= 0xE0FFF) || (c >= 0x80 && c <= 0x9F);
}

// Length of the UTF-8 sequence at text[i] and its code point; 0 when it is not one (a stray
// continuation byte, a truncated or overlong sequence, a surrogate).
size_t DecodeUtf8(std::string_view text, size_t i, uint32_t* code_point) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  size_t n;
  uint32_t c;
  if (lead >= 0xC2 && lead <= 0xDF) {
    n = 2;
    c = lead & 0x1F;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    n = 3;
    c = lead & 0x0F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    n = 4;
    c = lead & 0x07;
  } else {
    return 0;
  }
  if (i + n > text.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    c = (c << 6) | (byte(i + k) & 0x3F);
  }
  const bool overlong = (n == 3 && c < 0x800) || (n == 4 && c < 0x10000);
  if (overlong || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return 0;
  *code_point = c;
  return n;
}

void AppendEscape(std::string& out, const char* format, uint32_t value) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), format, value);
  out += buf;
}

}  // namespace

std::string VisibleText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const unsigned char u = static_cast<unsigned char>(text[i]);
    if (u < 0x80) {
      if (u < 0x20 || u == 0x7F) {
        AppendEscape(out, "\\x%02x", u);
      } else {
        out += text[i];
      }
      ++i;
      continue;
    }
    uint32_t c = 0;
    const size_t n = DecodeUtf8(text, i, &c);
    if (n == 0) {
      AppendEscape(out, "\\x%02x", u);
      ++i;
      continue;
    }
    if (Invisible(c)) {
      AppendEscape(out, c > 0xFFFF ? "\\U%08x" : "\\u%04x", c);
    } else {
      out.append(text.substr(i, n));
    }
    i += n;
  }
  return out;
}

}  // namespace hloscope::pipeline
