#include "support/escapes.h"

#include "absl/strings/str_format.h"

namespace hloscope {
namespace {

enum class ControlBytes { kOctal, kUnicode };

// Quotes, backslashes, \n \t \r as two-character escapes; other bytes below 0x20 in the
// form's own way; everything else as it is.
void AppendEscaped(std::string& out, std::string_view text, ControlBytes control) {
  for (char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default: {
        const unsigned char u = static_cast<unsigned char>(c);
        if (u >= 0x20) {
          out += c;
        } else if (control == ControlBytes::kOctal) {
          out += absl::StrFormat("\\%03o", u);
        } else {
          out += absl::StrFormat("\\u%04x", u);
        }
      }
    }
  }
}

}  // namespace

std::string UnescapeCString(std::string_view body) {
  std::string out;
  out.reserve(body.size());
  for (size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (c != '\\' || i + 1 == body.size()) {
      out += c;
      continue;
    }
    char e = body[++i];
    switch (e) {
      case 'n':
        out += '\n';
        break;
      case 't':
        out += '\t';
        break;
      case 'r':
        out += '\r';
        break;
      case 'x': {
        int v = 0, n = 0;
        while (n < 2 && i + 1 < body.size() && isxdigit(static_cast<unsigned char>(body[i + 1]))) {
          char h = body[++i];
          v = v * 16 + (h <= '9' ? h - '0' : (h | 0x20) - 'a' + 10);
          ++n;
        }
        out += static_cast<char>(v);
        break;
      }
      default:
        if (e >= '0' && e <= '7') {
          int v = e - '0', n = 1;
          while (n < 3 && i + 1 < body.size() && body[i + 1] >= '0' && body[i + 1] <= '7') {
            v = v * 8 + (body[++i] - '0');
            ++n;
          }
          out += static_cast<char>(v);
        } else {
          out += e;  // \" \\ \' and anything unknown
        }
    }
  }
  return out;
}

std::string EscapeCString(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  AppendEscaped(out, text, ControlBytes::kOctal);
  return out;
}

std::string JsonString(std::string_view text) {
  std::string out = "\"";
  out.reserve(text.size() + 2);
  AppendEscaped(out, text, ControlBytes::kUnicode);
  out += '"';
  return out;
}

std::string EscapeControlBytes(std::string_view text, std::string_view keep) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    const unsigned char u = static_cast<unsigned char>(c);
    if ((u < 0x20 || u == 0x7f) && keep.find(c) == std::string_view::npos) {
      out += absl::StrFormat("\\x%02x", u);
    } else {
      out += c;
    }
  }
  return out;
}

std::string HtmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string CsvField(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

}  // namespace hloscope
