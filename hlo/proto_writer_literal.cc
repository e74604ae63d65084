// constant(...) text → LiteralProto, with each element type in the field XLA stores it in:
// pred, 32/64-bit integers and f32/f64/complex as repeated numbers; 8- and 16-bit types,
// sub-byte integers and the small floats (f16, bf16, f8*, f4) as bytes, one element per byte
// (two for the 16-bit types, little-endian). Elements are stored in the order of the shape's
// layout (minor-to-major), as XLA's Literal keeps them; the text lists them row-major.
#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "hlo/literal_text.h"
#include "hlo/proto_writer_internal.h"
#include "support/status_text.h"
#include "support/str_util.h"

namespace hloscope::proto_writer {
namespace {

// A small floating-point format: sign (unless unsigned), exponent and mantissa bits, bias,
// and how it spells infinities and NaN.
struct SmallFloat {
  int exponent_bits;
  int mantissa_bits;
  int bias;
  bool has_sign = true;
  bool has_inf = true;                // IEEE-like: the all-ones exponent is inf/NaN
  bool nan_is_all_ones = false;       // *FN: S.1111.111 is NaN, no infinity
  bool nan_is_negative_zero = false;  // *FNUZ: 0x80 is NaN, no -0
  bool has_nan = true;
};

std::optional<SmallFloat> SmallFloatFormat(PrimitiveType t) {
  switch (t) {
    case PrimitiveType::kF16:
      return SmallFloat{5, 10, 15};
    case PrimitiveType::kBF16:
      return SmallFloat{8, 7, 127};
    case PrimitiveType::kF8E5M2:
      return SmallFloat{5, 2, 15};
    case PrimitiveType::kF8E4M3:
      return SmallFloat{4, 3, 7};
    case PrimitiveType::kF8E3M4:
      return SmallFloat{3, 4, 3};
    case PrimitiveType::kF8E4M3FN:
      return SmallFloat{4, 3, 7, true, false, true};
    case PrimitiveType::kF8E4M3B11FNUZ:
      return SmallFloat{4, 3, 11, true, false, false, true};
    case PrimitiveType::kF8E5M2FNUZ:
      return SmallFloat{5, 2, 16, true, false, false, true};
    case PrimitiveType::kF8E4M3FNUZ:
      return SmallFloat{4, 3, 8, true, false, false, true};
    case PrimitiveType::kF8E8M0FNU: {
      SmallFloat f{8, 0, 127, false, false, true};
      return f;
    }
    case PrimitiveType::kF4E2M1FN:
      return SmallFloat{2, 1, 1, true, false, false, false, false};
    default:
      return std::nullopt;
  }
}

// Every code of a format with its value: encoding a number picks the nearest (ties to an even
// code), as a round-to-nearest-even conversion does.
class SmallFloatCodec {
 public:
  explicit SmallFloatCodec(const SmallFloat& f) : f_(f) {
    const int magnitude_bits = f.exponent_bits + f.mantissa_bits;
    const uint32_t count = 1u << magnitude_bits;
    const uint32_t exp_max = (1u << f.exponent_bits) - 1;
    for (uint32_t code = 0; code < count; ++code) {
      uint32_t e = code >> f.mantissa_bits;
      uint32_t m = code & ((1u << f.mantissa_bits) - 1);
      bool nan = false, inf = false;
      if (f.has_inf && e == exp_max) {
        (m == 0 ? inf : nan) = true;
      } else if (f.nan_is_all_ones && code == count - 1) {
        nan = true;
      }
      if (nan) {
        nan_code_ = code;
        continue;
      }
      if (inf) {
        inf_code_ = code;
        continue;
      }
      double v;
      if (f.mantissa_bits == 0) {
        v = std::ldexp(1.0, static_cast<int>(e) - f.bias);  // e8m0: powers of two only
      } else if (e == 0) {
        v = std::ldexp(static_cast<double>(m), 1 - f.bias - f.mantissa_bits);
      } else {
        v = std::ldexp(static_cast<double>(m + (1u << f.mantissa_bits)),
                       static_cast<int>(e) - f.bias - f.mantissa_bits);
      }
      values_.push_back({v, code});
    }
    if (f.nan_is_negative_zero) nan_code_ = 1u << magnitude_bits;  // the sign bit alone
    std::sort(values_.begin(), values_.end(),
              [](const Entry& a, const Entry& b) { return a.value < b.value; });
  }

  // The code of `v`; an error for a value the format cannot hold (NaN or infinity where it
  // has none, a negative number in an unsigned format).
  absl::StatusOr<uint32_t> Encode(double v, std::optional<uint32_t> nan_payload) const {
    const uint32_t sign_bit = 1u << (f_.exponent_bits + f_.mantissa_bits);
    bool negative = std::signbit(v);
    if (std::isnan(v)) {
      if (!f_.has_nan) return absl::InvalidArgumentError("the type has no NaN");
      uint32_t code = nan_code_;
      if (nan_payload && f_.has_inf) code = (code & ~((1u << f_.mantissa_bits) - 1)) | *nan_payload;
      if (negative && f_.has_sign && !f_.nan_is_negative_zero) code |= sign_bit;
      return code;
    }
    if (negative && !f_.has_sign) {
      return absl::InvalidArgumentError("a negative value in an unsigned type");
    }
    double a = std::fabs(v);
    uint32_t sign = negative && f_.has_sign ? sign_bit : 0;
    if (std::isinf(a)) {
      if (!f_.has_inf) return absl::InvalidArgumentError("the type has no infinity");
      return inf_code_ | sign;
    }
    auto it = std::lower_bound(values_.begin(), values_.end(), a,
                               [](const Entry& e, double x) { return e.value < x; });
    uint32_t code;
    if (it == values_.end()) {
      if (!f_.has_inf) return absl::InvalidArgumentError("the value is out of the type's range");
      code = inf_code_;
    } else if (it->value == a || it == values_.begin()) {
      code = it->code;
    } else {
      const Entry& hi = *it;
      const Entry& lo = *(it - 1);
      double dlo = a - lo.value, dhi = hi.value - a;
      code = dlo < dhi ? lo.code : dhi < dlo ? hi.code : ((lo.code & 1) == 0 ? lo.code : hi.code);
    }
    // FNUZ types have no -0: a negative zero is +0.
    if (code == 0 && f_.nan_is_negative_zero) sign = 0;
    return code | sign;
  }

 private:
  struct Entry {
    double value;
    uint32_t code;
  };
  SmallFloat f_;
  std::vector<Entry> values_;
  uint32_t nan_code_ = 0;
  uint32_t inf_code_ = 0;
};

// Built on first use (the 16-bit tables are 32K entries each); tools may write modules from
// several threads.
const SmallFloatCodec& CodecFor(PrimitiveType t) {
  static std::mutex mu;
  static auto* codecs =
      new std::vector<std::unique_ptr<SmallFloatCodec>>(static_cast<size_t>(PrimitiveType::kCount));
  std::lock_guard<std::mutex> lock(mu);
  auto& slot = (*codecs)[static_cast<size_t>(t)];
  if (!slot) slot = std::make_unique<SmallFloatCodec>(*SmallFloatFormat(t));
  return *slot;
}

// One value word of a floating-point literal: decimal, `inf`, `nan`, `-nan(0x...)`.
absl::StatusOr<double> ParseFloatWord(std::string_view word, std::optional<uint64_t>* payload) {
  std::string_view w = word;
  bool negative = false;
  if (!w.empty() && (w.front() == '-' || w.front() == '+')) {
    negative = w.front() == '-';
    w.remove_prefix(1);
  }
  if (w == "inf") return negative ? -HUGE_VAL : HUGE_VAL;
  if (w.substr(0, 3) == "nan") {
    std::string_view rest = w.substr(3);
    if (!rest.empty()) {
      uint64_t p = 0;
      if (rest.size() < 5 || rest.substr(0, 3) != "(0x" || rest.back() != ')' ||
          std::from_chars(rest.data() + 3, rest.data() + rest.size() - 1, p, 16).ptr !=
              rest.data() + rest.size() - 1) {
        return absl::InvalidArgumentError(StrCat("malformed NaN '", word, "'"));
      }
      *payload = p;
    }
    return negative ? -std::nan("") : std::nan("");
  }
  std::string text(word);
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size()) {
    return absl::InvalidArgumentError(StrCat("expected a number, found '", word, "'"));
  }
  return v;
}

absl::StatusOr<__int128> ParseIntWord(std::string_view word) {
  bool negative = false;
  std::string_view w = word;
  if (!w.empty() && (w.front() == '-' || w.front() == '+')) {
    negative = w.front() == '-';
    w.remove_prefix(1);
  }
  int base = 10;
  if (w.size() > 2 && w[0] == '0' && (w[1] == 'x' || w[1] == 'X')) {
    base = 16;
    w.remove_prefix(2);
  }
  uint64_t v = 0;
  auto r = std::from_chars(w.data(), w.data() + w.size(), v, base);
  if (w.empty() || r.ec != std::errc() || r.ptr != w.data() + w.size()) {
    if (w == "true") return 1;
    if (w == "false") return 0;
    return absl::InvalidArgumentError(StrCat("expected an integer, found '", word, "'"));
  }
  __int128 out = v;
  return negative ? -out : out;
}

// The most elements a literal written as one value for the whole array is expanded to (the
// proto holds each element; protobuf refuses messages over 2 GiB anyway).
constexpr int64_t kMaxBroadcastElements = int64_t{1} << 26;

class LiteralWriter {
 public:
  explicit LiteralWriter(std::string_view text) : cur_(text) {}

  absl::Status Write(const Shape& shape, xla_proto::LiteralProto* out) {
    absl::Status s = ShapeToProto(shape, out->mutable_shape());
    if (!s.ok()) return s;
    if (shape.IsTuple()) {
      if (!cur_.Consume('(')) return Error("expected '(' to open a tuple literal");
      for (size_t i = 0; i < shape.tuple_elements.size(); ++i) {
        if (i > 0 && !cur_.Consume(',')) return Error("expected ',' between tuple elements");
        s = Write(*shape.tuple_elements[i], out->add_tuple_literals());
        if (!s.ok()) return s;
      }
      if (!cur_.Consume(')')) return Error("expected ')' to close a tuple literal");
      return absl::OkStatus();
    }
    if (shape.IsToken() || shape.element_type == PrimitiveType::kOpaque) return absl::OkStatus();
    if (!shape.IsArray()) return Error("a literal of this shape has no proto form");
    std::vector<std::string_view> words;
    s = ReadArray(shape, 0, &words);
    if (!s.ok()) return s;
    const bool is_complex =
        shape.element_type == PrimitiveType::kC64 || shape.element_type == PrimitiveType::kC128;
    const int64_t count = shape.ElementCount();
    const int64_t values = static_cast<int64_t>(words.size()) / (is_complex ? 2 : 1);
    if (values != count) {
      return Error(StrCat("the literal has ", values, " values for a shape of ", count));
    }
    return Store(shape, PhysicalOrder(shape, words), out);
  }

  absl::Status CheckEnd() {
    if (!cur_.AtEnd()) return Error("unexpected text after the literal");
    return absl::OkStatus();
  }

 private:
  absl::Status Error(std::string_view message) {
    return absl::InvalidArgumentError(StrCat(message, " (at offset ", cur_.pos(), ")"));
  }

  // Values in row-major order. A scalar is one word, possibly in parentheses (complex:
  // `(re, im)`); arrays nest braces per dimension.
  absl::Status ReadArray(const Shape& shape, size_t dim, std::vector<std::string_view>* out) {
    if (cur_.AtEllipsis()) {
      return Error("the literal is elided ('...'): its values are not in the text");
    }
    if (dim == shape.dims.size()) return ReadScalar(shape, out);
    if (dim == 0 && cur_.Peek() != '{') {
      // One value for the whole array, as XLA's parser takes it: every element is that value.
      // The proto holds every element, so a few bytes of text must not ask for gigabytes.
      if (shape.ElementCount() > kMaxBroadcastElements) {
        return Error(StrCat("one value for an array of ", shape.ElementCount(),
                            " elements: a LiteralProto holds every element, and more than ",
                            kMaxBroadcastElements, " are not written"));
      }
      std::vector<std::string_view> one;
      absl::Status s = ReadScalar(shape, &one);
      if (!s.ok()) return s;
      for (int64_t i = 0; i < shape.ElementCount(); ++i)
        out->insert(out->end(), one.begin(), one.end());
      return absl::OkStatus();
    }
    if (!cur_.Consume('{')) return Error("expected '{' to open a dimension of the literal");
    int64_t n = shape.dims[dim];
    for (int64_t i = 0; i < n; ++i) {
      if (i > 0 && !cur_.Consume(',')) {
        // XLA's parser takes values separated by spaces as well.
        if (cur_.Peek() == '}') return Error("too few values in a dimension of the literal");
      }
      absl::Status s = ReadArray(shape, dim + 1, out);
      if (!s.ok()) return s;
    }
    cur_.Consume(',');  // a trailing comma
    if (!cur_.Consume('}')) return Error("expected '}' to close a dimension of the literal");
    return absl::OkStatus();
  }

  absl::Status ReadScalar(const Shape& shape, std::vector<std::string_view>* out) {
    bool is_complex =
        shape.element_type == PrimitiveType::kC64 || shape.element_type == PrimitiveType::kC128;
    bool float_like = GetPrimitiveTypeInfo(shape.element_type).is_float || is_complex;
    if (is_complex) {
      if (!cur_.Consume('(')) return Error("expected '(' to open a complex value");
      std::string_view re = cur_.Word(true);
      if (re.empty() || !cur_.Consume(',')) return Error("expected 're, im' in a complex value");
      std::string_view im = cur_.Word(true);
      if (im.empty() || !cur_.Consume(')')) return Error("expected ')' after a complex value");
      out->push_back(re);
      out->push_back(im);
      return absl::OkStatus();
    }
    std::string_view w = cur_.Word(float_like);
    if (w.empty()) return Error("expected a value in the literal");
    out->push_back(w);
    return absl::OkStatus();
  }

  // Row-major words → the order of the layout (minor_to_major); complex values move as pairs.
  static std::vector<std::string_view> PhysicalOrder(const Shape& shape,
                                                     const std::vector<std::string_view>& words) {
    const size_t rank = shape.dims.size();
    const absl::InlinedVector<int64_t, 6>& m2m = shape.layout.minor_to_major;
    bool row_major = true;
    if (shape.has_layout && m2m.size() == rank) {
      for (size_t i = 0; i < rank; ++i) row_major &= m2m[i] == static_cast<int64_t>(rank - 1 - i);
    }
    if (row_major || rank <= 1 || !shape.has_layout || m2m.size() != rank) return words;
    const size_t per =
        words.size() / static_cast<size_t>(std::max<int64_t>(1, shape.ElementCount()));
    // Strides of each logical dimension in the physical order.
    std::vector<int64_t> stride(rank);
    int64_t s = 1;
    for (int64_t d : m2m) {
      stride[static_cast<size_t>(d)] = s;
      s *= shape.dims[static_cast<size_t>(d)];
    }
    std::vector<std::string_view> out(words.size());
    std::vector<int64_t> index(rank, 0);
    const int64_t count = shape.ElementCount();
    for (int64_t linear = 0; linear < count; ++linear) {
      int64_t phys = 0;
      for (size_t d = 0; d < rank; ++d) phys += index[d] * stride[d];
      for (size_t k = 0; k < per; ++k) {
        out[static_cast<size_t>(phys) * per + k] = words[static_cast<size_t>(linear) * per + k];
      }
      for (size_t d = rank; d-- > 0;) {
        if (++index[d] < shape.dims[d]) break;
        index[d] = 0;
      }
    }
    return out;
  }

  template <typename T>
  static absl::Status Ints(const std::vector<std::string_view>& words, __int128 lo, __int128 hi,
                           T add) {
    for (std::string_view w : words) {
      absl::StatusOr<__int128> v = ParseIntWord(w);
      if (!v.ok()) return v.status();
      if (*v < lo || *v > hi) {
        return absl::InvalidArgumentError(StrCat("value '", w, "' is out of the type's range"));
      }
      add(*v);
    }
    return absl::OkStatus();
  }

  template <typename T>
  static absl::Status Floats(const std::vector<std::string_view>& words, T add) {
    for (std::string_view w : words) {
      std::optional<uint64_t> payload;
      absl::StatusOr<double> v = ParseFloatWord(w, &payload);
      if (!v.ok()) return v.status();
      add(*v, payload);
    }
    return absl::OkStatus();
  }

  static absl::Status Store(const Shape& shape, const std::vector<std::string_view>& words,
                            xla_proto::LiteralProto* out) {
    using T = PrimitiveType;
    const T type = shape.element_type;
    const PrimitiveTypeInfo& info = GetPrimitiveTypeInfo(type);
    auto bytes_of = [&](std::string* dst, int width) {
      return [dst, width](__int128 v) {
        uint64_t u = static_cast<uint64_t>(v);
        for (int i = 0; i < width; ++i) dst->push_back(static_cast<char>((u >> (8 * i)) & 0xff));
      };
    };
    auto range = [&](int bits, bool is_signed) -> std::pair<__int128, __int128> {
      if (is_signed) return {-(__int128{1} << (bits - 1)), (__int128{1} << (bits - 1)) - 1};
      return {0, (__int128{1} << bits) - 1};
    };
    switch (type) {
      case T::kPred:
        for (std::string_view w : words) {
          if (w == "true" || w == "1") {
            out->add_preds(true);
          } else if (w == "false" || w == "0") {
            out->add_preds(false);
          } else {
            return absl::InvalidArgumentError(StrCat("expected true or false, found '", w, "'"));
          }
        }
        return absl::OkStatus();
      case T::kS32: {
        auto [lo, hi] = range(32, true);
        return Ints(words, lo, hi, [&](__int128 v) { out->add_s32s(static_cast<int32_t>(v)); });
      }
      case T::kS64: {
        auto [lo, hi] = range(64, true);
        return Ints(words, lo, hi, [&](__int128 v) { out->add_s64s(static_cast<int64_t>(v)); });
      }
      case T::kU32: {
        auto [lo, hi] = range(32, false);
        return Ints(words, lo, hi, [&](__int128 v) { out->add_u32s(static_cast<uint32_t>(v)); });
      }
      case T::kU64: {
        auto [lo, hi] = range(64, false);
        return Ints(words, lo, hi, [&](__int128 v) { out->add_u64s(static_cast<uint64_t>(v)); });
      }
      case T::kS1:
      case T::kS2:
      case T::kS4:
      case T::kS8:
      case T::kS16:
      case T::kU1:
      case T::kU2:
      case T::kU4:
      case T::kU8:
      case T::kU16: {
        std::string* dst = nullptr;
        switch (type) {
          case T::kS1:
            dst = out->mutable_s1s();
            break;
          case T::kS2:
            dst = out->mutable_s2s();
            break;
          case T::kS4:
            dst = out->mutable_s4s();
            break;
          case T::kS8:
            dst = out->mutable_s8s();
            break;
          case T::kS16:
            dst = out->mutable_s16s();
            break;
          case T::kU1:
            dst = out->mutable_u1s();
            break;
          case T::kU2:
            dst = out->mutable_u2s();
            break;
          case T::kU4:
            dst = out->mutable_u4s();
            break;
          case T::kU8:
            dst = out->mutable_u8s();
            break;
          default:
            dst = out->mutable_u16s();
            break;
        }
        auto [lo, hi] = range(info.bits, info.is_signed_int);
        return Ints(words, lo, hi, bytes_of(dst, info.bits == 16 ? 2 : 1));
      }
      case T::kF32:
        return Floats(words, [&](double v, std::optional<uint64_t> payload) {
          float f = static_cast<float>(v);
          if (payload) {
            uint32_t bits = (std::bit_cast<uint32_t>(f) & 0xff800000u) |
                            static_cast<uint32_t>(*payload & 0x7fffff);
            f = std::bit_cast<float>(bits);
          }
          out->add_f32s(f);
        });
      case T::kF64:
        return Floats(words, [&](double v, std::optional<uint64_t> payload) {
          if (payload) {
            uint64_t bits = (std::bit_cast<uint64_t>(v) & 0xfff0000000000000ull) |
                            (*payload & 0xfffffffffffffull);
            v = std::bit_cast<double>(bits);
          }
          out->add_f64s(v);
        });
      case T::kC64:
        return Floats(words, [&](double v, std::optional<uint64_t>) {
          out->add_c64s(static_cast<float>(v));
        });
      case T::kC128:
        return Floats(words, [&](double v, std::optional<uint64_t>) { out->add_c128s(v); });
      default:
        break;
    }
    if (!SmallFloatFormat(type)) {
      return absl::UnimplementedError(
          StrCat("literals of type ", PrimitiveTypeName(type), " have no LiteralProto field"));
    }
    std::string* dst = nullptr;
    switch (type) {
      case T::kF16:
        dst = out->mutable_f16s();
        break;
      case T::kBF16:
        dst = out->mutable_bf16s();
        break;
      case T::kF8E5M2:
        dst = out->mutable_f8e5m2s();
        break;
      case T::kF8E4M3:
        dst = out->mutable_f8e4m3s();
        break;
      case T::kF8E4M3FN:
        dst = out->mutable_f8e4m3fns();
        break;
      case T::kF8E4M3B11FNUZ:
        dst = out->mutable_f8e4m3b11fnuzs();
        break;
      case T::kF8E5M2FNUZ:
        dst = out->mutable_f8e5m2fnuzs();
        break;
      case T::kF8E4M3FNUZ:
        dst = out->mutable_f8e4m3fnuzs();
        break;
      case T::kF8E3M4:
        dst = out->mutable_f8e3m4s();
        break;
      case T::kF8E8M0FNU:
        dst = out->mutable_f8e8m0fnus();
        break;
      case T::kF4E2M1FN:
        dst = out->mutable_f4e2m1fns();
        break;
      default:
        return absl::UnimplementedError(
            StrCat("literals of type ", PrimitiveTypeName(type), " have no LiteralProto field"));
    }
    const SmallFloatCodec& codec = CodecFor(type);
    const int width = info.bits == 16 ? 2 : 1;
    for (std::string_view w : words) {
      std::optional<uint64_t> payload;
      absl::StatusOr<double> v = ParseFloatWord(w, &payload);
      if (!v.ok()) return v.status();
      // XLA reads the text as a double and converts it through float.
      std::optional<uint32_t> p;
      if (payload) p = static_cast<uint32_t>(*payload);
      absl::StatusOr<uint32_t> code = codec.Encode(static_cast<float>(*v), p);
      if (!code.ok()) {
        return absl::InvalidArgumentError(StrCat("value '", w, "': ", StatusText(code.status())));
      }
      for (int i = 0; i < width; ++i) dst->push_back(static_cast<char>((*code >> (8 * i)) & 0xff));
    }
    return absl::OkStatus();
  }

  LiteralCursor cur_;
};

}  // namespace

absl::Status LiteralToProto(std::string_view text, const Shape& shape,
                            xla_proto::LiteralProto* out) {
  LiteralWriter writer(text);
  absl::Status s = writer.Write(shape, out);
  if (!s.ok()) return s;
  return writer.CheckEnd();
}

}  // namespace hloscope::proto_writer
