// ParseLiteral: HLO literal text (what constant(...) holds) into a Literal of a given shape.
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "eval/element_io.h"
#include "eval/evaluator.h"
#include "eval/layout_util.h"
#include "hlo/float_range.h"
#include "hlo/literal_text.h"
#include "support/str_util.h"

namespace hloscope::eval {

namespace {
constexpr size_t kMaxLiteralNesting = 256;
}  // namespace
namespace {

class LiteralTextParser {
 public:
  explicit LiteralTextParser(std::string_view text) : cur_(text) {}

  absl::Status Parse(const Shape& shape, Literal* out) {
    if (absl::Status s = ParseValue(shape, out); !s.ok()) return s;
    if (!cur_.AtEnd()) return Error("unexpected text after the literal");
    return absl::OkStatus();
  }

 private:
  absl::Status Error(std::string_view what) const {
    return absl::InvalidArgumentError(StrCat("literal column ", cur_.pos() + 1, ": ", what));
  }

  bool Consume(char c) { return cur_.Consume(c); }

  absl::Status ParseValue(const Shape& shape, Literal* out) {
    if (shape.IsTuple()) {
      if (!Consume('('))
        return Error(StrCat("expected '(' to start a tuple of shape ", shape.ToString()));
      std::vector<Literal> elements;
      for (size_t i = 0; i < shape.tuple_elements.size(); ++i) {
        if (i > 0 && !Consume(',')) return Error("expected ',' between tuple elements");
        Literal e;
        if (absl::Status s = ParseValue(*shape.tuple_elements[i], &e); !s.ok()) return s;
        elements.push_back(std::move(e));
      }
      if (!Consume(')'))
        return Error(StrCat("expected ')' after ", shape.tuple_elements.size(), " tuple elements"));
      *out = Literal::MakeTuple(std::move(elements));
      return absl::OkStatus();
    }
    if (!shape.IsArray() || !IsSupportedElementType(shape.element_type)) {
      return Error(StrCat("cannot read a literal of shape ", shape.ToString()));
    }
    type_ = shape.element_type;
    bytes_.clear();
    if (shape.rank() == 0) {
      // A scalar may be written bare or in braces.
      bool braced = Consume('{');
      if (absl::Status s = ParseElement(); !s.ok()) return s;
      if (braced && !Consume('}')) return Error("expected '}'");
    } else if (absl::Status s = ParseDim(shape, 0); !s.ok()) {
      return s;
    }
    *out = Literal::FromBytes(shape, ToPhysical(shape, std::move(bytes_)));
    return absl::OkStatus();
  }

  absl::Status ParseDim(const Shape& shape, size_t dim) {
    // One recursion per dimension: bounded like the module parser's bracket nesting, so a
    // rank-60,000 --inputs line is an error, not a stack overflow.
    if (dim >= kMaxLiteralNesting) {
      return Error(StrCat("literals nest at most ", kMaxLiteralNesting,
                          " braces deep; the shape has rank ", shape.rank()));
    }
    if (!Consume('{'))
      return Error(StrCat("expected '{' for dimension ", dim, " of ", shape.ToString(false)));
    int64_t n = shape.dims[dim];
    for (int64_t i = 0; i < n; ++i) {
      if (i > 0 && !Consume(',')) {
        return Error(StrCat("expected ',' : dimension ", dim, " of ", shape.ToString(false),
                            " has ", n, " elements"));
      }
      absl::Status s = dim + 1 == shape.dims.size() ? ParseElement() : ParseDim(shape, dim + 1);
      if (!s.ok()) return s;
    }
    if (!Consume('}')) {
      return Error(StrCat("expected '}' : dimension ", dim, " of ", shape.ToString(false), " has ",
                          n, " elements"));
    }
    return absl::OkStatus();
  }

  absl::Status ParseElement() {
    cur_.SkipSpace();
    const size_t start = cur_.pos();
    std::string token(cur_.Word());
    if (token.empty()) {
      return Error(StrCat("expected a ", PrimitiveTypeName(type_), " value"));
    }
    size_t at = bytes_.size();
    bytes_.resize(at + static_cast<size_t>(ElementBytes(type_)));
    uint8_t* p = bytes_.data() + at;
    auto bad = [&] {
      cur_.set_pos(start);
      return Error(StrCat("'", token, "' is not a ", PrimitiveTypeName(type_), " value"));
    };
    if (type_ == PrimitiveType::kPred) {
      if (token == "true" || token == "1") {
        p[0] = 1;
      } else if (token == "false" || token == "0") {
        p[0] = 0;
      } else {
        return bad();
      }
      return absl::OkStatus();
    }
    if (IsFloatType(type_)) {
      std::string t = token;
      for (char& c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      double v;
      if (t == "nan" || t == "+nan") {
        v = std::nan("");
      } else if (t == "-nan") {
        v = -std::nan("");
      } else if (t == "inf" || t == "+inf") {
        v = INFINITY;
      } else if (t == "-inf") {
        v = -INFINITY;
      } else {
        char* end = nullptr;
        v = std::strtod(t.c_str(), &end);
        if (end != t.c_str() + t.size()) return bad();
        // A number past the type's range is an error, as in a constant (hlo/float_range.h),
        // not an infinity.
        if (std::optional<std::string> why = FloatRangeProblem(v, type_)) {
          cur_.set_pos(start);
          return Error(
              StrCat("'", token, "' is out of range for ", PrimitiveTypeName(type_), ": ", *why));
        }
      }
      StoreDouble(type_, p, v);
      return absl::OkStatus();
    }
    const char* b = token.data();
    const char* e = token.data() + token.size();
    if (IsSignedType(type_)) {
      int64_t v = 0;
      auto r = std::from_chars(b, e, v);
      if (r.ec != std::errc() || r.ptr != e) return bad();
      int bits = BitWidth(type_);
      if (bits < 64 && (v < -(int64_t{1} << (bits - 1)) || v >= (int64_t{1} << (bits - 1)))) {
        cur_.set_pos(start);
        return Error(StrCat("'", token, "' is out of range for ", PrimitiveTypeName(type_)));
      }
      StoreInt(type_, p, v);
      return absl::OkStatus();
    }
    uint64_t v = 0;
    auto r = std::from_chars(b, e, v);
    if (r.ec != std::errc() || r.ptr != e) return bad();
    int bits = BitWidth(type_);
    if (bits < 64 && v >= (uint64_t{1} << bits)) {
      cur_.set_pos(start);
      return Error(StrCat("'", token, "' is out of range for ", PrimitiveTypeName(type_)));
    }
    StoreInt(type_, p, static_cast<int64_t>(v), true);
    return absl::OkStatus();
  }

  LiteralCursor cur_;
  PrimitiveType type_ = PrimitiveType::kInvalid;
  std::vector<uint8_t> bytes_;  // row-major elements of the array being read
};

}  // namespace

absl::StatusOr<Literal> ParseLiteral(std::string_view text, const Shape& shape) {
  Literal out;
  LiteralTextParser parser(text);
  if (absl::Status s = parser.Parse(shape, &out); !s.ok()) return s;
  return out;
}

}  // namespace hloscope::eval
