#include "hlo/text_cursor.h"

#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "support/escapes.h"
#include "support/option_error.h"
#include "support/str_util.h"

namespace hloscope {

namespace {
// Returns the first byte in [p, end) that is not a name character. Names are most of the text
// of an HLO module, so this is one of the parser's hottest loops: with SSE2 (the x86-64
// baseline) it classifies 16 bytes at a time.
const char* SkipNameChars(const char* p, const char* end) {
#if defined(__SSE2__)
  while (end - p >= 16) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    auto in_range = [&](__m128i x, char lo, char hi) {
      // Signed compares are fine: every bound is ASCII and bytes >= 0x80 are negative.
      return _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8(static_cast<char>(lo - 1))),
                           _mm_cmplt_epi8(x, _mm_set1_epi8(static_cast<char>(hi + 1))));
    };
    // Setting bit 5 folds 'A'..'Z' onto 'a'..'z'; no other byte lands there ('@' becomes
    // '`' and '[' .. '_' become '{' .. DEL), so one range test covers both cases.
    __m128i folded = _mm_or_si128(v, _mm_set1_epi8(0x20));
    __m128i ok = _mm_or_si128(in_range(folded, 'a', 'z'), in_range(v, '0', '9'));
    ok = _mm_or_si128(ok, _mm_cmpeq_epi8(v, _mm_set1_epi8('_')));
    ok = _mm_or_si128(ok, _mm_cmpeq_epi8(v, _mm_set1_epi8('.')));
    ok = _mm_or_si128(ok, _mm_cmpeq_epi8(v, _mm_set1_epi8('-')));
    ok = _mm_or_si128(ok, _mm_cmpeq_epi8(v, _mm_set1_epi8('$')));
    unsigned mask = static_cast<unsigned>(_mm_movemask_epi8(ok)) ^ 0xffffu;
    if (mask != 0) return p + __builtin_ctz(mask);
    p += 16;
  }
#endif
  while (p < end && TextCursor::IsNameChar(*p)) ++p;
  return p;
}
}  // namespace

std::string DescribeChar(const char* p, const char* end) {
  if (p >= end) return "end of input";
  if (*p == '\n') return "end of line";
  if (static_cast<unsigned char>(*p) < 0x20 || static_cast<unsigned char>(*p) >= 0x7f) {
    static constexpr char kHex[] = "0123456789abcdef";
    unsigned char b = static_cast<unsigned char>(*p);
    return StrCat("byte 0x", kHex[b >> 4], kHex[b & 15]);
  }
  return StrCat("'", std::string_view(p, 1), "'");
}

bool TextCursor::SkipSpaceSlow() {
  while (pos_ < end_) {
    char c = *pos_;
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
      ++pos_;
      while (pos_ < end_ && (*pos_ == ' ' || *pos_ == '\n')) ++pos_;  // indentation runs
    } else if (c == '#' && AtLineStart()) {
      // `# RUN: ...` lines in lit tests: a comment only where a line starts, since `#(s32)`
      // is also a layout part.
      const void* nl = std::memchr(pos_, '\n', static_cast<size_t>(end_ - pos_));
      pos_ = nl ? static_cast<const char*>(nl) + 1 : end_;
    } else if (c == '/' && pos_ + 1 < end_ && (pos_[1] == '/' || pos_[1] == '*')) {
      if (!SkipComment()) return false;
    } else {
      return true;
    }
  }
  return true;
}

bool TextCursor::SkipComment() {
  if (pos_[1] == '/') {
    const void* nl = std::memchr(pos_, '\n', static_cast<size_t>(end_ - pos_));
    pos_ = nl ? static_cast<const char*>(nl) + 1 : end_;
    return true;
  }
  const char* start = pos_;
  pos_ += 2;
  while (pos_ + 1 < end_ && !(pos_[0] == '*' && pos_[1] == '/')) ++pos_;
  if (pos_ + 1 >= end_) {
    pos_ = end_;
    return Error(start, "unterminated comment: '/*' has no closing '*/'");
  }
  pos_ += 2;
  return true;
}

bool TextCursor::AtLineStart() const {
  for (const char* p = pos_; p > begin_; --p) {
    char c = p[-1];
    if (c == '\n') return true;
    if (c != ' ' && c != '\t') return false;
  }
  return true;
}

bool TextCursor::TryConsumeWord(std::string_view word) {
  if (!SkipSpace()) return false;
  if (static_cast<size_t>(end_ - pos_) < word.size()) return false;
  // Most calls ask about a keyword that is not there (`ROOT` before every instruction): the
  // first byte settles those without a call to memcmp.
  if (!word.empty() && *pos_ != word[0]) return false;
  if (std::string_view(pos_, word.size()) != word) return false;
  const char* after = pos_ + word.size();
  if (after < end_ && IsNameChar(*after)) return false;
  pos_ = after;
  return true;
}

bool TextCursor::Expect(char c, std::string_view context) {
  if (!SkipSpace()) return false;
  if (pos_ < end_ && *pos_ == c) {
    ++pos_;
    return true;
  }
  return ErrorHere(StrCat("expected '", std::string_view(&c, 1), "' ", context, ", found ",
                          DescribeChar(pos_, end_)));
}

bool TextCursor::ParseName(std::string_view* out, std::string_view what) {
  if (!SkipSpace()) return false;
  const char* start = pos_;
  if (pos_ < end_ && *pos_ == '%') ++pos_;
  const char* name_start = pos_;
  pos_ = SkipNameChars(pos_, end_);
  if (pos_ == name_start) {
    pos_ = start;
    return ErrorHere(StrCat("expected ", what, ", found ", DescribeChar(pos_, end_)));
  }
  *out = std::string_view(name_start, static_cast<size_t>(pos_ - name_start));
  return true;
}

bool TextCursor::ParseWord(std::string_view* out, std::string_view what) {
  if (!SkipSpace()) return false;
  const char* start = pos_;
  pos_ = SkipNameChars(pos_, end_);
  if (pos_ == start) {
    return ErrorHere(StrCat("expected ", what, ", found ", DescribeChar(pos_, end_)));
  }
  *out = std::string_view(start, static_cast<size_t>(pos_ - start));
  return true;
}

bool TextCursor::ParseInt(int64_t* out, std::string_view what) {
  if (!SkipSpace()) return false;
  const char* start = pos_;
  bool negative = false;
  if (pos_ < end_ && (*pos_ == '-' || *pos_ == '+')) {
    negative = *pos_ == '-';
    ++pos_;
  }
  if (pos_ >= end_ || *pos_ < '0' || *pos_ > '9') {
    pos_ = start;
    return ErrorHere(StrCat("expected ", what, ", found ", DescribeChar(pos_, end_)));
  }
  uint64_t v = 0;
  while (pos_ < end_ && *pos_ >= '0' && *pos_ <= '9') {
    uint64_t digit = static_cast<uint64_t>(*pos_ - '0');
    if (v > (UINT64_MAX - digit) / 10 || v * 10 + digit > static_cast<uint64_t>(INT64_MAX)) {
      return Error(start, StrCat(what, " is out of range for a 64-bit integer"));
    }
    v = v * 10 + digit;
    ++pos_;
  }
  *out = negative ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
  return true;
}

bool TextCursor::ParseQuoted(std::string_view* raw) {
  const char* start = pos_;
  ++pos_;  // opening quote
  while (pos_ < end_ && *pos_ != '"') {
    if (*pos_ == '\\') ++pos_;
    ++pos_;
  }
  if (pos_ >= end_) {
    pos_ = end_;
    return Error(start, "unterminated string: '\"' has no closing '\"'");
  }
  ++pos_;
  *raw = std::string_view(start, static_cast<size_t>(pos_ - start));
  return true;
}

bool TextCursor::ParseBalanced(std::string_view* raw) {
  // A small stack of expected closers; nesting deeper than 256 is refused rather than risking
  // runaway memory on adversarial input.
  char stack[256];
  int depth = 0;
  const char* start = pos_;
  while (pos_ < end_) {
    char c = *pos_;
    if (c == '"') {
      std::string_view ignored;
      if (!ParseQuoted(&ignored)) return false;
      continue;
    }
    if (c == '/' && pos_ + 1 < end_ && (pos_[1] == '/' || pos_[1] == '*')) {
      // Comments inside a value are comments, as everywhere else: a quote or bracket in them
      // must not count. (The stored value drops them; see NormalizeValueText.)
      if (!SkipComment()) return false;
      continue;
    }
    if (c == '(' || c == '[' || c == '{') {
      if (depth == 256) return ErrorHere("brackets nested more than 256 deep");
      stack[depth++] = c == '(' ? ')' : c == '[' ? ']' : '}';
    } else if (c == ')' || c == ']' || c == '}') {
      if (depth == 0 || stack[depth - 1] != c) {
        return ErrorHere(StrCat("unbalanced '", std::string_view(&c, 1), "'"));
      }
      --depth;
      if (depth == 0) {
        ++pos_;
        *raw = std::string_view(start, static_cast<size_t>(pos_ - start));
        return true;
      }
    }
    ++pos_;
  }
  return Error(start, StrCat("unterminated '", std::string_view(start, 1),
                             "': no matching closing bracket before end of input"));
}

std::string TextCursor::FormatError(const char* at, std::string_view message) const {
  if (at > end_) at = end_;
  int line = first_line_;
  const char* line_start = begin_;
  for (const char* p = begin_; p < at; ++p) {
    if (*p == '\n') {
      ++line;
      line_start = p + 1;
    }
  }
  const char* line_end = line_start;
  while (line_end < end_ && *line_end != '\n') ++line_end;
  if (line_end > line_start && line_end[-1] == '\r') --line_end;  // CRLF input
  int col = static_cast<int>(at - line_start) + 1;
  const char* shown = display_begin_ ? display_begin_ + (line_start - begin_) : line_start;
  std::string source(shown, static_cast<size_t>(line_end - line_start));
  // Control bytes (a binary file, a stray escape) are shown as '?': written raw they could
  // reset or recolour the user's terminal. One byte for one keeps the caret aligned.
  for (char& c : source) {
    unsigned char u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\t') || u == 0x7f) c = '?';
  }
  // Long lines (1 MB header attributes exist) are clipped around the error column.
  size_t caret = static_cast<size_t>(col - 1);
  if (source.size() > 200) {
    size_t from = caret > 100 ? caret - 100 : 0;
    source = source.substr(from, 200);
    caret -= from;
  }
  std::string caret_line(caret, ' ');
  for (size_t i = 0; i < caret && i < source.size(); ++i) {
    if (source[i] == '\t') caret_line[i] = '\t';
  }
  // The file name is escaped for the same reason as the line (a name may hold ESC too).
  return StrCat(EscapeControlBytes(filename_), ":", line, ":", col, ": error: ", message, "\n",
                source, "\n", caret_line, "^");
}

bool TextCursor::Error(const char* at, std::string_view message) {
  if (status_.ok()) status_ = absl::InvalidArgumentError(FormatError(at, message));
  return false;
}

bool TextCursor::OptionError(const char* at, std::string_view before, std::string_view option,
                             std::string_view after) {
  if (!status_.ok()) return false;
  // FormatError's text is "FILE:LINE:COL: error: " MESSAGE "\n" SOURCE...; the file name is
  // escaped, so the first line break is the one after the message.
  const std::string empty = FormatError(at, "");
  const size_t message_at = empty.find('\n');
  status_ = InvalidOptionError(StrCat(empty.substr(0, message_at), before), option,
                               StrCat(after, empty.substr(message_at)));
  return false;
}

}  // namespace hloscope
