#include "hlo/input_output_alias.h"

#include <cctype>
#include <string>

#include "fmt/format.h"
#include "support/str_util.h"

namespace hloscope {

namespace {

class Reader {
 public:
  explicit Reader(std::string_view text) : text_(text) {}

  void SkipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool Consume(char c) {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool Peek(char c) {
    SkipSpace();
    return pos_ < text_.size() && text_[pos_] == c;
  }
  // A whole non-negative number that fits int64 (a longer one is an error, never cut short).
  bool Integer(int64_t& out) {
    SkipSpace();
    size_t start = pos_;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    return start != pos_ && ParseInteger(text_.substr(start, pos_ - start), &out);
  }
  // `{1, 0}` or `{}`.
  bool Index(ShapeIndex& out) {
    if (!Consume('{')) return false;
    if (Consume('}')) return true;
    do {
      int64_t v = 0;
      if (!Integer(v)) return false;
      out.push_back(v);
    } while (Consume(','));
    return Consume('}');
  }
  std::string_view Word() {
    SkipSpace();
    size_t start = pos_;
    while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) ||
                                   text_[pos_] == '-' || text_[pos_] == '_')) {
      ++pos_;
    }
    return text_.substr(start, pos_ - start);
  }
  bool AtEnd() {
    SkipSpace();
    return pos_ == text_.size();
  }
  size_t pos() const { return pos_; }

 private:
  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

absl::StatusOr<std::vector<InputOutputAlias>> ParseInputOutputAlias(std::string_view text,
                                                                    size_t* error_offset) {
  Reader r(text);
  std::vector<InputOutputAlias> out;
  auto fail = [&](std::string_view what) {
    if (error_offset != nullptr) *error_offset = r.pos();
    return absl::InvalidArgumentError(fmt::format("input_output_alias: {}", what));
  };
  if (!r.Consume('{')) return fail("expected '{'");
  if (r.Consume('}')) return out;
  do {
    InputOutputAlias a;
    if (!r.Index(a.output_index)) return fail("expected an output index like {0}");
    if (!r.Consume(':') || !r.Consume('(')) return fail("expected ': ('");
    if (!r.Integer(a.parameter)) return fail("expected a parameter number");
    if (!r.Consume(',') || !r.Index(a.parameter_index)) return fail("expected a parameter index");
    if (r.Consume(',')) {
      std::string_view kind = r.Word();
      if (kind == "must-alias") {
        a.must_alias = true;
      } else if (kind != "may-alias") {
        return fail("expected may-alias or must-alias");
      }
    }
    if (!r.Consume(')')) return fail("expected ')'");
    out.push_back(std::move(a));
  } while (r.Consume(','));
  if (!r.Consume('}') || !r.AtEnd()) return fail("expected '}'");
  return out;
}

}  // namespace hloscope
