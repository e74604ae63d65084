// ParseLiteral: HLO literal text (what constant(...) holds) into a Literal of a given shape.
#include <algorithm>
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
#include "hlo/nan_payload.h"
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
  void SkipCommas() {
    while (Consume(',')) {
    }
  }

  absl::Status ParseValue(const Shape& shape, Literal* out) {
    if (shape.IsTuple()) {
      if (!Consume('('))
        return Error(StrCat("expected '(' to start a tuple of shape ", shape.ToString()));
      std::vector<Literal> elements;
      for (size_t i = 0; i < shape.tuple_elements.size(); ++i) {
        // Commas are skipped here too, as by the verifier's constant rule (XLA's
        // ParseTupleLiteral does not stop at a missing one either).
        SkipCommas();
        Literal e;
        if (absl::Status s = ParseValue(*shape.tuple_elements[i], &e); !s.ok()) return s;
        elements.push_back(std::move(e));
      }
      SkipCommas();
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
    } else if (cur_.SkipSpace(), !cur_.AtEnd() && cur_.Peek() != '{') {
      // One value for the whole array, as XLA's parser takes it (f32[9] constant(0)): every
      // element is that value.
      if (absl::Status s = ParseElement(); !s.ok()) return s;
      const size_t one = bytes_.size();
      const int64_t n = shape.ElementCount();
      bytes_.resize(one * static_cast<size_t>(n));
      for (int64_t i = 1; i < n; ++i)
        std::copy(bytes_.begin(), bytes_.begin() + static_cast<std::ptrdiff_t>(one),
                  bytes_.begin() + static_cast<std::ptrdiff_t>(one * static_cast<size_t>(i)));
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
    // XLA's parser skips commas wherever they are (hlo_parser.cc ParseDenseLiteral), so
    // `{1 2}` and `{1,2,}` are two values there and here (XLA's own tests have `} {` rows).
    for (int64_t i = 0; i < n; ++i) {
      SkipCommas();
      if (cur_.Peek() == '}') {
        return Error(StrCat("dimension ", dim, " of ", shape.ToString(false), " has ", n,
                            " elements, found '}' after ", i));
      }
      absl::Status s = dim + 1 == shape.dims.size() ? ParseElement() : ParseDim(shape, dim + 1);
      if (!s.ok()) return s;
    }
    SkipCommas();
    if (!Consume('}')) {
      return Error(StrCat("expected '}' : dimension ", dim, " of ", shape.ToString(false), " has ",
                          n, " elements"));
    }
    return absl::OkStatus();
  }

  // A complex element as XLA prints it: `(real, imag)`, each part a float of the component
  // type (f32 for c64, f64 for c128).
  absl::Status ParseComplexElement() {
    cur_.SkipSpace();
    if (!Consume('(')) {
      return Error(StrCat("expected '(' to start a ", PrimitiveTypeName(type_),
                          " value written (real, imag)"));
    }
    const PrimitiveType part = ComponentType(type_);
    double parts[2] = {0, 0};
    std::optional<uint64_t> payloads[2];
    for (int k = 0; k < 2; ++k) {
      if (k == 1 && !Consume(',')) return Error("expected ',' between the real and imaginary part");
      cur_.SkipSpace();
      const size_t start = cur_.pos();
      std::string token(cur_.Word(/*nan_payload=*/true));
      if (token.empty()) return Error(StrCat("expected a ", PrimitiveTypeName(part), " value"));
      absl::StatusOr<double> v = ReadFloat(token, part, start);
      if (!v.ok()) return v.status();
      parts[k] = *v;
      payloads[k] = NanWordPayload(token);
    }
    if (!Consume(')')) return Error("expected ')' after the imaginary part");
    size_t at = bytes_.size();
    bytes_.resize(at + static_cast<size_t>(ElementBytes(type_)));
    StoreComplex(type_, bytes_.data() + at, {parts[0], parts[1]});
    const size_t half = static_cast<size_t>(ElementBytes(part));
    for (int k = 0; k < 2; ++k) {
      if (payloads[k]) {
        SetNanBits(part, bytes_.data() + at + static_cast<size_t>(k) * half, std::signbit(parts[k]),
                   *payloads[k]);
      }
    }
    return absl::OkStatus();
  }

  // A float token (number, nan, inf) as a value of float type `type`; `start` is its column.
  absl::StatusOr<double> ReadFloat(const std::string& token, PrimitiveType type, size_t start) {
    std::string t = token;
    for (char& c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const std::string_view bare = std::string_view(t).substr(0, t.find('('));
    if (bare == "nan" || bare == "+nan" || bare == "-nan") {
      // A payload `nan(0x7f)` must fit the type, as XLA's parser checks it; the caller sets
      // its bits (SetNanBits).
      if (t.size() != bare.size()) {
        std::optional<uint64_t> payload = NanWordPayload(t);
        const bool plain = !payload && (t.ends_with("(0x0)") || t.ends_with("(0x8000000000000)"));
        if (!payload && !plain) {
          cur_.set_pos(start);
          return Error(StrCat("'", token, "' is not a ", PrimitiveTypeName(type), " value"));
        }
        if (payload) {
          if (std::optional<std::string> why = NanPayloadProblem(*payload, type)) {
            cur_.set_pos(start);
            return Error(StrCat("'", token, "': ", *why));
          }
        }
      }
      return bare == "-nan" ? -std::nan("") : std::nan("");
    }
    if (t == "inf" || t == "+inf") return static_cast<double>(INFINITY);
    if (t == "-inf") return -static_cast<double>(INFINITY);
    char* end = nullptr;
    double v = std::strtod(t.c_str(), &end);
    if (t.empty() || end != t.c_str() + t.size()) {
      cur_.set_pos(start);
      return Error(StrCat("'", token, "' is not a ", PrimitiveTypeName(type), " value"));
    }
    // A number past the type's range is an error, as in a constant (hlo/float_range.h), not an
    // infinity.
    if (std::optional<std::string> why = FloatRangeProblem(v, type)) {
      cur_.set_pos(start);
      return Error(
          StrCat("'", token, "' is out of range for ", PrimitiveTypeName(type), ": ", *why));
    }
    return v;
  }

  // A NaN with a payload (checked by ReadFloat to fit `type`), stored little-endian as
  // every element is.
  static void SetNanBits(PrimitiveType type, uint8_t* p, bool negative, uint64_t payload) {
    const uint64_t bits = NanBitsWithPayload(type, negative, payload);
    for (int b = 0; b < ElementBytes(type); ++b) p[b] = static_cast<uint8_t>(bits >> (8 * b));
  }

  absl::Status ParseElement() {
    if (IsComplexType(type_)) return ParseComplexElement();
    cur_.SkipSpace();
    const size_t start = cur_.pos();
    std::string token(cur_.Word(/*nan_payload=*/IsFloatType(type_)));
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
      absl::StatusOr<double> v = ReadFloat(token, type_, start);
      if (!v.ok()) return v.status();
      StoreDouble(type_, p, *v);
      if (std::optional<uint64_t> payload = NanWordPayload(token)) {
        SetNanBits(type_, p, std::signbit(*v), *payload);
      }
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
