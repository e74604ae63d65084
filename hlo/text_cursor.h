// Character-level scanning for the HLO text parser: whitespace and comments, identifiers,
// integers, quoted strings, balanced spans, and error reporting with file:line:col plus the
// source line and a caret. Kept separate so the parser reads as grammar, not as pointer math.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "absl/status/status.h"

namespace hloscope {

// Characters allowed in names after an optional `%`: [A-Za-z0-9_.\-$].
inline constexpr auto kNameChar = [] {
  std::array<bool, 256> table{};
  for (int c = 'a'; c <= 'z'; ++c) table[c] = true;
  for (int c = 'A'; c <= 'Z'; ++c) table[c] = true;
  for (int c = '0'; c <= '9'; ++c) table[c] = true;
  for (char c : {'_', '.', '-', '$'}) table[static_cast<unsigned char>(c)] = true;
  return table;
}();

// How SkipSpace() treats a byte: 0 starts a token, 1 is a blank it steps over inline (space,
// newline), 2 needs the out-of-line path (comments, '#' lines, tabs and other control bytes).
inline constexpr auto kSpaceClass = [] {
  std::array<uint8_t, 256> table{};
  for (int c = 0; c <= ' '; ++c) table[c] = 2;
  table[' '] = 1;
  table['\n'] = 1;
  table['/'] = 2;
  table['#'] = 2;
  return table;
}();

class TextCursor {
 public:
  TextCursor(std::string_view text, std::string_view filename, int first_line)
      : begin_(text.data()),
        pos_(text.data()),
        end_(text.data() + text.size()),
        filename_(filename),
        first_line_(first_line) {}

  // Error messages quote the source line from `display` instead of the parsed text: same
  // length, byte for byte at the same offsets (used for log input whose prefixes the parser
  // sees blanked, so the user sees the line as it is in the file).
  void set_display_text(std::string_view display) {
    if (display.size() == static_cast<size_t>(end_ - begin_)) display_begin_ = display.data();
  }

  const char* pos() const { return pos_; }
  void set_pos(const char* p) { pos_ = p; }
  const char* end() const { return end_; }
  bool AtEnd() const { return pos_ >= end_; }
  char Peek() const { return pos_ < end_ ? *pos_ : '\0'; }
  char PeekAt(size_t k) const { return pos_ + k < end_ ? pos_[k] : '\0'; }
  bool ok() const { return status_.ok(); }
  const absl::Status& status() const { return status_; }

  // Skips spaces, newlines, `// ...` and `/* ... */`. An unterminated block comment is an error.
  bool SkipSpace() {
    // Fast path, inlined: spaces and newlines, then a token. Comments, tabs and '#' lines go
    // to the out-of-line slow path. It runs before nearly every token, mostly at a token
    // already, so that case is one table load and one branch.
    while (pos_ < end_) {
      const uint8_t kind = kSpaceClass[static_cast<unsigned char>(*pos_)];
      if (kind == 0) return true;
      if (kind != 1) return SkipSpaceSlow();
      ++pos_;
    }
    return true;
  }
  // True when only blanks stand between the cursor and the start of its line.
  bool AtLineStart() const;
  // Skips spaces and tabs only (not newlines or comments).
  void SkipBlanks() {
    while (pos_ < end_ && (*pos_ == ' ' || *pos_ == '\t')) ++pos_;
  }
  // Consumes `c` after skipping space; false (no error) if the next char is something else.
  bool TryConsume(char c) {
    if (!SkipSpace()) return false;
    if (pos_ < end_ && *pos_ == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool TryConsumeWord(std::string_view word);  // whole identifier `word`
  // Consumes `c` or reports "expected 'c' <context>".
  bool Expect(char c, std::string_view context);
  // Name: an optional `%` then [A-Za-z0-9_.\-$]+ (leading `%` not included in *out).
  bool ParseName(std::string_view* out, std::string_view what);
  // Identifier-like word without `%` handling, e.g. a type or opcode: [A-Za-z0-9_\-.]+.
  bool ParseWord(std::string_view* out, std::string_view what);
  bool ParseInt(int64_t* out, std::string_view what);
  // A double-quoted string with backslash escapes; *raw includes the quotes.
  bool ParseQuoted(std::string_view* raw);
  // From an opening ( [ { at the cursor to its matching closer, skipping strings and
  // comments; *raw includes both brackets.
  bool ParseBalanced(std::string_view* raw);

  // Records an error at `at` (first error wins) and returns false.
  bool Error(const char* at, std::string_view message);
  bool ErrorHere(std::string_view message) { return Error(pos_, message); }
  // Error() whose message, `before` + `option` + `after`, names an option of the library's API
  // (support/option_error.h), so that a tool can spell it as its flag.
  bool OptionError(const char* at, std::string_view before, std::string_view option,
                   std::string_view after);
  // The `file:line:col: error: message` text with source line and caret.
  std::string FormatError(const char* at, std::string_view message) const;

  static bool IsNameChar(char c) { return kNameChar[static_cast<unsigned char>(c)]; }

 private:
  bool SkipSpaceSlow();
  // At `//` or `/*`: past the comment (a line comment up to its line break).
  bool SkipComment();

  const char* begin_;
  const char* display_begin_ = nullptr;  // see set_display_text
  const char* pos_;
  const char* end_;
  std::string_view filename_;
  int first_line_;
  absl::Status status_;
};

// The first byte in [p, end) equal to `a`, `b`, `c` or `d` (repeat one to look for fewer), or
// end. With SSE2 (the x86-64 baseline) it tests 16 bytes at a time: the parser uses it to find
// the closing bracket of every shape and to check attribute values for line breaks.
// Inline: the callers' constant bytes fold into the vector setup.
inline const char* FindFirstOf(const char* p, const char* end, char a, char b, char c, char d) {
#if defined(__SSE2__)
  const __m128i va = _mm_set1_epi8(a), vb = _mm_set1_epi8(b), vc = _mm_set1_epi8(c),
                vd = _mm_set1_epi8(d);
  while (end - p >= 16) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, va), _mm_cmpeq_epi8(v, vb)),
                               _mm_or_si128(_mm_cmpeq_epi8(v, vc), _mm_cmpeq_epi8(v, vd)));
    unsigned mask = static_cast<unsigned>(_mm_movemask_epi8(hit));
    if (mask != 0) return p + __builtin_ctz(mask);
    p += 16;
  }
#endif
  while (p < end && *p != a && *p != b && *p != c && *p != d) ++p;
  return p;
}

// Describes the character at `p` for messages: 'x', "end of input" or "newline".
std::string DescribeChar(const char* p, const char* end);

}  // namespace hloscope
