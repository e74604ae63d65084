// The lexical grammar of HLO literal text, what `constant(...)` holds and hlo-run's --inputs
// take: one cursor that both readers of that text move, so they agree on what a value word,
// a space and an elision are.
//
//   LiteralCursor cur("{1, /*index=1*/ -2.5e3}");
//   cur.Consume('{');                  // true
//   std::string_view v = cur.Word();   // "1"
//   cur.Consume(',');                  // true; the comment is skipped as space
//   v = cur.Word();                    // "-2.5e3"
//
// The readers: the verifier's constant rule (hlo/verifier_constant_rule.cc) checks a literal
// against its shape without reading values, as leniently as XLA's parser (commas optional,
// `...` elides the rest, one value for a whole array); the interpreter's literal parser
// (eval/literal_parser.cc) reads values and wants braces that match the shape (commas are
// optional there too, in arrays and tuples, as in XLA). They walk braces and tuples by their
// own rules, and give their own messages, over these tokens.
#pragma once

#include <cstddef>
#include <string_view>

namespace hloscope {

class LiteralCursor {
 public:
  explicit LiteralCursor(std::string_view text) : text_(text) {}

  std::string_view text() const { return text_; }
  // Byte offset of the cursor in text().
  size_t pos() const { return pos_; }
  // Back to an offset read from pos(), for a message that points at a token's start.
  void set_pos(size_t pos) { pos_ = pos; }

  // Skips white space and /*...*/ comments (the printer writes /*index=5*/ in long literals).
  void SkipSpace();
  // The next character after space and comments; '\0' at the end.
  char Peek();
  // After space and comments: whether the text ends here.
  bool AtEnd();
  // Consumes `c` when it is the next character after space and comments.
  bool Consume(char c);
  // Whether `...`, an elided literal, is next (not consumed).
  bool AtEllipsis();
  // Reads the value word that starts after space and comments: letters, digits, '.', '+', '-'
  // and '_' (1, -2.5e3, true, nan, -inf, 0x1F); empty when none starts there. With
  // `nan_payload`, a word that ends in "nan" takes a following `(0x...)` payload as well, up
  // to the next ')' (a floating-point NaN with its bits).
  std::string_view Word(bool nan_payload = false);

 private:
  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace hloscope
