// Step 3 of the verifier, continued: a constant's literal against its shape.
//
// The parser keeps a literal as text (reading every element of a large constant would cost
// parse time that most users never need), so without this rule `f32[2] constant({1,2,3})` or
// `s32[2] constant({1,x})` verified. XLA's parser rejects both. The rule reads the text once,
// without materializing anything:
//   - a tuple shape takes `(e0, e1, ...)`, one literal per element;
//   - an array of rank r takes braces nested r deep with, at each level, as many entries as
//     that dimension's size (up to the bound for a `<=N` dimension, any number for `?`), and
//     values only at depth r; a scalar is written bare or in one pair of braces;
//   - values: integers for integer types and pred (`true`/`false` too), numbers, `nan`, `inf`
//     and `-inf` (with a NaN payload `nan(0x..)` that fits the type, hlo/nan_payload.h) for
//     floating types, `(re, im)` pairs for complex types; a number that rounds past the type's
//     largest finite value is out of range, as in XLA (`f16 constant(-65520)`; hlo/float_range.h).
// Leniencies, as XLA's own parser has them: a single bare value stands for an array of any
// shape (XLA's tests write `f32[32,32,40,40] constant(0.65)`), `...` marks an elided literal
// (`{...}`) and stops the check, and the old form that starts with the shape
// (`f32[2] {1, 2}`) is not read. Comments `/*index=5*/` inside the text are skipped.
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "hlo/float_range.h"
#include "hlo/literal_text.h"
#include "hlo/nan_payload.h"
#include "hlo/primitive_type.h"
#include "hlo/verifier_internal.h"
#include "support/str_util.h"

namespace hloscope::verifier_internal {
namespace {

class LiteralChecker {
 public:
  LiteralChecker(const Instruction& instr, std::string_view text) : instr_(instr), cur_(text) {}

  absl::Status Check(const Shape& shape) {
    cur_.SkipSpace();
    if (StartsWithShape()) return absl::OkStatus();
    if (absl::Status s = Value(shape); !s.ok()) return s;
    if (elided_) return absl::OkStatus();
    if (!cur_.AtEnd()) {
      return Error(StrCat("unexpected '", cur_.text().substr(cur_.pos(), 12),
                          "' after the literal of ", ShapeText(shape)));
    }
    return absl::OkStatus();
  }

 private:
  absl::Status Error(std::string_view what) const {
    return InstrError(instr_, StrCat("constant literal: ", what));
  }

  char Peek() { return cur_.Peek(); }
  // Commas separate entries but XLA's parser only skips them (`{1 2}` and `{1,2,}` read as two
  // values), so they are optional here too. True when any were skipped.
  bool SkipCommas() {
    bool any = false;
    while (cur_.Consume(',')) any = true;
    return any;
  }
  bool AtEllipsis() {
    if (!cur_.AtEllipsis()) return false;
    elided_ = true;
    return true;
  }
  // The old printed form `f32[2,3] {...}`: an element type name right before '['.
  bool StartsWithShape() const {
    const std::string_view text = cur_.text();
    size_t k = cur_.pos();
    while (k < text.size() &&
           ((text[k] >= 'a' && text[k] <= 'z') || (text[k] >= '0' && text[k] <= '9'))) {
      ++k;
    }
    return k > cur_.pos() && k < text.size() && text[k] == '[';
  }

  absl::Status Value(const Shape& shape) {
    if (shape.IsTuple()) return Tuple(shape);
    if (!shape.IsArray()) return absl::OkStatus();  // token, opaque: nothing to read
    if (Peek() != '{') {
      if (AtEllipsis()) return absl::OkStatus();
      return Element(shape);  // a scalar, or one value for a whole array
    }
    if (shape.rank() == 0) {
      cur_.Consume('{');
      if (AtEllipsis()) return absl::OkStatus();
      if (absl::Status s = Element(shape); !s.ok()) return s;
      if (!cur_.Consume('}')) {
        return Error(StrCat("a scalar ", ShapeText(shape), " takes one value"));
      }
      return absl::OkStatus();
    }
    return Nested(shape, 0);
  }

  absl::Status Tuple(const Shape& shape) {
    if (!cur_.Consume('(')) {
      return Error(StrCat("expected '(' to start the literal of tuple shape ", ShapeText(shape)));
    }
    const size_t n = shape.tuple_elements.size();
    size_t seen = 0;
    while (Peek() != ')') {
      if (cur_.AtEnd()) {
        return Error(StrCat("unterminated literal of tuple shape ", ShapeText(shape)));
      }
      if (SkipCommas()) continue;
      if (seen == n) {
        return Error(StrCat("more than ", Count(static_cast<int64_t>(n), "element", "elements"),
                            " in the literal of tuple shape ", ShapeText(shape)));
      }
      if (absl::Status s = Value(*shape.tuple_elements[seen]); !s.ok() || elided_) return s;
      ++seen;
    }
    cur_.Consume(')');
    if (seen != n) {
      return Error(StrCat(Count(static_cast<int64_t>(seen), "element", "elements"),
                          " for tuple shape ", ShapeText(shape), ", which has ", n));
    }
    return absl::OkStatus();
  }

  // At a '{' that opens dimension `dim` of `shape`.
  absl::Status Nested(const Shape& shape, int64_t dim) {
    cur_.Consume('{');
    int64_t entries = 0;
    while (Peek() != '}') {
      if (cur_.AtEnd()) {
        return Error(StrCat("unbalanced '{' in the literal of ", ShapeText(shape)));
      }
      if (SkipCommas()) continue;
      if (AtEllipsis()) return absl::OkStatus();
      if (dim + 1 < shape.rank()) {
        if (Peek() != '{') {
          return Error(StrCat("a value where dimension ", dim + 1, " of ", ShapeText(shape),
                              " should open with '{' (rank ", shape.rank(), ")"));
        }
        if (absl::Status s = Nested(shape, dim + 1); !s.ok() || elided_) return s;
      } else {
        if (Peek() == '{') {
          return Error(StrCat("braces nested deeper than the rank of ", ShapeText(shape), " (",
                              shape.rank(), ")"));
        }
        if (absl::Status s = Element(shape); !s.ok()) return s;
      }
      ++entries;
    }
    cur_.Consume('}');
    const int64_t size = shape.dims[dim];
    const bool fits =
        size == Shape::kUnboundedSize || (shape.dynamic[dim] ? entries <= size : entries == size);
    if (!fits) {
      return Error(StrCat(Count(entries, "entry", "entries"), " in dimension ", dim, " of ",
                          ShapeText(shape),
                          shape.dynamic[dim] ? ", which allows at most " : ", which has ", size));
    }
    return absl::OkStatus();
  }

  // One value of the shape's element type.
  absl::Status Element(const Shape& shape) {
    const PrimitiveTypeInfo& info = GetPrimitiveTypeInfo(shape.element_type);
    if (info.is_complex && cur_.Consume('(')) {
      if (absl::Status s = Number(shape, /*floating=*/true); !s.ok()) return s;
      if (!cur_.Consume(',')) {
        return Error(StrCat("a ", PrimitiveTypeName(shape.element_type),
                            " value is written (real, imaginary)"));
      }
      if (absl::Status s = Number(shape, /*floating=*/true); !s.ok()) return s;
      if (!cur_.Consume(')')) {
        return Error(StrCat("a ", PrimitiveTypeName(shape.element_type),
                            " value is written (real, imaginary)"));
      }
      return absl::OkStatus();
    }
    return Number(shape, info.is_float || info.is_complex);
  }

  absl::Status Number(const Shape& shape, bool floating) {
    cur_.SkipSpace();
    const size_t start = cur_.pos();
    // Floating types take a NaN payload: nan(0x7f...).
    std::string_view token = cur_.Word(/*nan_payload=*/floating);
    if (IsValue(token, floating)) {
      if (floating) {
        // As XLA's parser: a NaN payload must fit the type's mantissa, and types without
        // signaling NaNs take none (hlo/nan_payload.h).
        if (std::optional<uint64_t> payload = NanWordPayload(token)) {
          if (std::optional<std::string> why =
                  NanPayloadProblem(*payload, ComponentType(shape.element_type))) {
            return Error(
                StrCat("'", token, "': ", *why, " (in the literal of ", ShapeText(shape), ")"));
          }
        }
        // As XLA's parser: a value that rounds past the type's largest finite value is an
        // error, not an infinity (hlo/float_range.h).
        if (std::optional<std::string> why = FloatOutOfRange(token, shape.element_type)) {
          return Error(StrCat("'", token, "' is out of range for ",
                              PrimitiveTypeName(ComponentType(shape.element_type)), ": ", *why,
                              " (in the literal of ", ShapeText(shape), ")"));
        }
        return absl::OkStatus();
      }
      if (InIntegerRange(token, GetPrimitiveTypeInfo(shape.element_type))) {
        return absl::OkStatus();
      }
      // As XLA's parser: s8[2] {127, 300} is an error, not a value that wraps to 44.
      return Error(StrCat("'", token, "' is out of range for ",
                          PrimitiveTypeName(shape.element_type), " (in the literal of ",
                          ShapeText(shape), ")"));
    }
    std::string shown =
        token.empty() ? std::string(cur_.text().substr(start, 1)) : std::string(token);
    if (shown.empty()) shown = "end of text";
    return Error(StrCat("'", shown, "' is not a ", PrimitiveTypeName(shape.element_type),
                        " value (in the literal of ", ShapeText(shape), ")"));
  }

  // Whether the integer `t` (digits with an optional sign, or true/false) fits `info`'s
  // integer type; pred takes 0 and 1.
  static bool InIntegerRange(std::string_view t, const PrimitiveTypeInfo& info) {
    if (t == "true" || t == "false") return true;
    const bool negative = t.starts_with('-');
    if (t.starts_with('-') || t.starts_with('+')) t.remove_prefix(1);
    while (t.size() > 1 && t[0] == '0') t.remove_prefix(1);
    // |value| as unsigned 64 bits; more than 20 digits never fits.
    unsigned __int128 magnitude = 0;
    if (t.size() > 20) return false;
    for (char c : t) magnitude = magnitude * 10 + static_cast<unsigned>(c - '0');
    if (info.type == PrimitiveType::kPred) return !negative ? magnitude <= 1 : magnitude == 0;
    const int bits = info.bits;
    if (bits <= 0 || bits > 64) return true;
    if (info.is_unsigned_int) {
      return negative ? magnitude == 0
                      : magnitude <= ((static_cast<unsigned __int128>(1) << bits) - 1);
    }
    const unsigned __int128 half = static_cast<unsigned __int128>(1) << (bits - 1);
    return negative ? magnitude <= half : magnitude < half;
  }

  // Why the decimal `t` (IsValue's form) does not fit floating type `type`; nullopt when it
  // does, or when it is not a number (inf, nan, true, false).
  static std::optional<std::string> FloatOutOfRange(std::string_view t, PrimitiveType type) {
    std::string_view body = t;
    if (!body.empty() && (body[0] == '-' || body[0] == '+')) body.remove_prefix(1);
    if (body.empty() || !((body[0] >= '0' && body[0] <= '9') || body[0] == '.')) {
      return std::nullopt;
    }
    // strtod rounds to nearest and gives ±HUGE_VAL (inf) past the largest double.
    const std::string text(t);
    return FloatRangeProblem(std::strtod(text.c_str(), nullptr), type);
  }

  static bool AllDigits(std::string_view s) {
    if (s.empty()) return false;
    for (char c : s) {
      if (c < '0' || c > '9') return false;
    }
    return true;
  }

  static bool IsValue(std::string_view t, bool floating) {
    if (t == "true" || t == "false") return true;
    std::string_view body = t;
    if (!body.empty() && (body[0] == '-' || body[0] == '+')) body.remove_prefix(1);
    if (!floating) return AllDigits(body);
    if (body == "inf" || body == "nan" || body.starts_with("nan(")) return true;
    // Decimal with optional fraction and exponent: 1, 1., .5, 1.5e-3, 1E+10.
    size_t k = 0, digits = 0;
    while (k < body.size() && body[k] >= '0' && body[k] <= '9') ++k, ++digits;
    if (k < body.size() && body[k] == '.') {
      ++k;
      while (k < body.size() && body[k] >= '0' && body[k] <= '9') ++k, ++digits;
    }
    if (digits == 0) return false;
    if (k < body.size() && (body[k] == 'e' || body[k] == 'E')) {
      ++k;
      if (k < body.size() && (body[k] == '-' || body[k] == '+')) ++k;
      if (!AllDigits(body.substr(k))) return false;
      k = body.size();
    }
    return k == body.size();
  }

  const Instruction& instr_;
  LiteralCursor cur_;
  bool elided_ = false;  // `...` seen: the rest is not checked
};

}  // namespace

absl::Status CheckConstant(const Instruction& instr, const VerifierOptions&) {
  std::string_view text = instr.literal();
  if (text.empty()) return absl::OkStatus();  // the parser already requires a literal
  return LiteralChecker(instr, text).Check(instr.shape());
}

}  // namespace hloscope::verifier_internal
