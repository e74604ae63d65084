#include "hlo/literal_text.h"

#include "support/str_util.h"

namespace hloscope {

void LiteralCursor::SkipSpace() { pos_ = SkipSpaceAndBlockComments(text_, pos_); }

char LiteralCursor::Peek() {
  SkipSpace();
  return pos_ < text_.size() ? text_[pos_] : '\0';
}

bool LiteralCursor::AtEnd() {
  SkipSpace();
  return pos_ >= text_.size();
}

bool LiteralCursor::Consume(char c) {
  SkipSpace();
  if (pos_ < text_.size() && text_[pos_] == c) {
    ++pos_;
    return true;
  }
  return false;
}

bool LiteralCursor::AtEllipsis() {
  SkipSpace();
  return text_.substr(pos_, 3) == "...";
}

std::string_view LiteralCursor::Word(bool nan_payload) {
  SkipSpace();
  const size_t start = pos_;
  while (pos_ < text_.size()) {
    const char c = text_[pos_];
    const bool word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '.' || c == '-' || c == '+' || c == '_';
    if (!word) break;
    ++pos_;
  }
  if (nan_payload && pos_ < text_.size() && text_[pos_] == '(' &&
      text_.substr(start, pos_ - start).ends_with("nan")) {
    const size_t close = text_.find(')', pos_);
    if (close != std::string_view::npos) pos_ = close + 1;
  }
  return text_.substr(start, pos_ - start);
}

}  // namespace hloscope
