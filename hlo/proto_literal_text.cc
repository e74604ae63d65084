#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <string_view>
#include <vector>

#include "hlo/proto_reader_internal.h"
#include "support/str_util.h"

namespace hloscope {
namespace {

using xla::PrimitiveType;

void AppendFloat(double v, bool is_single, std::string& out) {
  if (std::isnan(v)) {
    out += std::signbit(v) ? "-nan" : "nan";
    return;
  }
  if (std::isinf(v)) {
    out += v < 0 ? "-inf" : "inf";
    return;
  }
  char buf[64];
  // Shortest text that reads back as the same value: exact for every type we widen to float.
  std::to_chars_result r = is_single ? std::to_chars(buf, buf + sizeof buf, static_cast<float>(v))
                                     : std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, static_cast<size_t>(r.ptr - buf));
}

// A 16-bit float as XLA prints it (RoundTripFpToString): "%.*g" with the type's max_digits10
// (f16 5, bf16 4), which always reads back as the same value; f16 0.2 is "0.19995".
void AppendHalfFloat(double v, int max_digits10, std::string& out) {
  if (std::isnan(v) || std::isinf(v)) {
    AppendFloat(v, true, out);
    return;
  }
  char buf[64];
  const int n = std::snprintf(buf, sizeof buf, "%.*g", max_digits10, v);
  out.append(buf, static_cast<size_t>(std::clamp(n, 0, static_cast<int>(sizeof buf) - 1)));
}

// The small float formats XLA stores one byte (or two) per element. `kind` says how the
// format spends its top codes: IEEE-like (infinities and NaNs), FN (no infinities; all ones is
// NaN), FNUZ (no infinities, no negative zero; the negative-zero code is NaN), or finite only.
enum class MiniKind { kIeee, kFn, kFnuz, kFinite };

double DecodeMiniFloat(uint32_t bits, int exp_bits, int man_bits, int bias, MiniKind kind) {
  const uint32_t sign = (bits >> (exp_bits + man_bits)) & 1;
  const uint32_t exp = (bits >> man_bits) & ((1u << exp_bits) - 1);
  const uint32_t man = bits & ((1u << man_bits) - 1);
  const uint32_t max_exp = (1u << exp_bits) - 1;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  switch (kind) {
    case MiniKind::kIeee:
      if (exp == max_exp) {
        if (man != 0) return nan;
        return sign ? -std::numeric_limits<double>::infinity()
                    : std::numeric_limits<double>::infinity();
      }
      break;
    case MiniKind::kFn:
      if (exp == max_exp && man == (1u << man_bits) - 1) return nan;
      break;
    case MiniKind::kFnuz:
      if (sign && exp == 0 && man == 0) return nan;
      break;
    case MiniKind::kFinite:
      break;
  }
  double magnitude;
  if (exp == 0) {
    magnitude = std::ldexp(static_cast<double>(man), 1 - bias - man_bits);
  } else {
    magnitude = std::ldexp(static_cast<double>(man + (1u << man_bits)),
                           static_cast<int>(exp) - bias - man_bits);
  }
  return sign ? -magnitude : magnitude;
}

double HalfToDouble(uint16_t h) { return DecodeMiniFloat(h, 5, 10, 15, MiniKind::kIeee); }

double Bf16ToDouble(uint16_t h) {
  return static_cast<double>(std::bit_cast<float>(static_cast<uint32_t>(h) << 16));
}

// How to read one element type's values out of a LiteralProto.
struct ElementReader {
  int64_t count = 0;  // values stored
  // Appends value `i` (a stored index) as text.
  std::function<void(int64_t, std::string&)> append;
};

uint16_t Le16(const std::string& bytes, int64_t i) {
  return static_cast<uint16_t>(static_cast<uint8_t>(bytes[2 * i]) |
                               (static_cast<uint8_t>(bytes[2 * i + 1]) << 8));
}

template <typename Repeated>
ElementReader IntegersOf(const Repeated& values) {
  return {values.size(), [&values](int64_t i, std::string& out) { StrAppend(&out, values[i]); }};
}

ElementReader BytesAsInts(const std::string& bytes, int bits, bool is_signed) {
  return {static_cast<int64_t>(bytes.size()),
          [&bytes, bits, is_signed](int64_t i, std::string& out) {
            uint32_t v = static_cast<uint8_t>(bytes[i]);
            if (bits < 8) v &= (1u << bits) - 1;
            int64_t value = v;
            if (is_signed && (v >> (bits - 1)) & 1) value -= int64_t{1} << bits;
            StrAppend(&out, value);
          }};
}

ElementReader BytesAsMiniFloats(const std::string& bytes, int exp_bits, int man_bits, int bias,
                                MiniKind kind) {
  return {static_cast<int64_t>(bytes.size()),
          [&bytes, exp_bits, man_bits, bias, kind](int64_t i, std::string& out) {
            AppendFloat(
                DecodeMiniFloat(static_cast<uint8_t>(bytes[i]), exp_bits, man_bits, bias, kind),
                true, out);
          }};
}

// nullopt-like: count -1 when the type has no array values in a literal.
ElementReader ReaderFor(const xla::LiteralProto& l, PrimitiveType type) {
  switch (type) {
    case xla::PRED:
      return {l.preds_size(),
              [&l](int64_t i, std::string& out) { out += l.preds(i) ? "true" : "false"; }};
    case xla::S1:
      return BytesAsInts(l.s1s(), 1, true);
    case xla::S2:
      return BytesAsInts(l.s2s(), 2, true);
    case xla::S4:
      return BytesAsInts(l.s4s(), 4, true);
    case xla::S8:
      return BytesAsInts(l.s8s(), 8, true);
    case xla::U1:
      return BytesAsInts(l.u1s(), 1, false);
    case xla::U2:
      return BytesAsInts(l.u2s(), 2, false);
    case xla::U4:
      return BytesAsInts(l.u4s(), 4, false);
    case xla::U8:
      return BytesAsInts(l.u8s(), 8, false);
    case xla::S16:
      return {static_cast<int64_t>(l.s16s().size() / 2), [&l](int64_t i, std::string& out) {
                StrAppend(&out, static_cast<int64_t>(static_cast<int16_t>(Le16(l.s16s(), i))));
              }};
    case xla::U16:
      return {static_cast<int64_t>(l.u16s().size() / 2), [&l](int64_t i, std::string& out) {
                StrAppend(&out, static_cast<int64_t>(Le16(l.u16s(), i)));
              }};
    case xla::S32:
      return IntegersOf(l.s32s());
    case xla::S64:
      return IntegersOf(l.s64s());
    case xla::U32:
      return IntegersOf(l.u32s());
    case xla::U64:
      return IntegersOf(l.u64s());
    case xla::F16:
      return {static_cast<int64_t>(l.f16s().size() / 2), [&l](int64_t i, std::string& out) {
                AppendHalfFloat(HalfToDouble(Le16(l.f16s(), i)), 5, out);
              }};
    case xla::BF16:
      return {static_cast<int64_t>(l.bf16s().size() / 2), [&l](int64_t i, std::string& out) {
                AppendHalfFloat(Bf16ToDouble(Le16(l.bf16s(), i)), 4, out);
              }};
    case xla::F32:
      return {l.f32s_size(),
              [&l](int64_t i, std::string& out) { AppendFloat(l.f32s(i), true, out); }};
    case xla::F64:
      return {l.f64s_size(),
              [&l](int64_t i, std::string& out) { AppendFloat(l.f64s(i), false, out); }};
    case xla::C64:
      return {l.c64s_size() / 2, [&l](int64_t i, std::string& out) {
                out += '(';
                AppendFloat(l.c64s(2 * i), true, out);
                out += ", ";
                AppendFloat(l.c64s(2 * i + 1), true, out);
                out += ')';
              }};
    case xla::C128:
      return {l.c128s_size() / 2, [&l](int64_t i, std::string& out) {
                out += '(';
                AppendFloat(l.c128s(2 * i), false, out);
                out += ", ";
                AppendFloat(l.c128s(2 * i + 1), false, out);
                out += ')';
              }};
    case xla::F8E5M2:
      return BytesAsMiniFloats(l.f8e5m2s(), 5, 2, 15, MiniKind::kIeee);
    case xla::F8E4M3:
      return BytesAsMiniFloats(l.f8e4m3s(), 4, 3, 7, MiniKind::kIeee);
    case xla::F8E3M4:
      return BytesAsMiniFloats(l.f8e3m4s(), 3, 4, 3, MiniKind::kIeee);
    case xla::F8E4M3FN:
      return BytesAsMiniFloats(l.f8e4m3fns(), 4, 3, 7, MiniKind::kFn);
    case xla::F8E4M3B11FNUZ:
      return BytesAsMiniFloats(l.f8e4m3b11fnuzs(), 4, 3, 11, MiniKind::kFnuz);
    case xla::F8E5M2FNUZ:
      return BytesAsMiniFloats(l.f8e5m2fnuzs(), 5, 2, 16, MiniKind::kFnuz);
    case xla::F8E4M3FNUZ:
      return BytesAsMiniFloats(l.f8e4m3fnuzs(), 4, 3, 8, MiniKind::kFnuz);
    case xla::F4E2M1FN:
      return BytesAsMiniFloats(l.f4e2m1fns(), 2, 1, 1, MiniKind::kFinite);
    case xla::F8E8M0FNU:
      return {static_cast<int64_t>(l.f8e8m0fnus().size()), [&l](int64_t i, std::string& out) {
                const uint8_t b = static_cast<uint8_t>(l.f8e8m0fnus()[i]);
                AppendFloat(b == 0xff ? std::numeric_limits<double>::quiet_NaN()
                                      : std::ldexp(1.0, static_cast<int>(b) - 127),
                            true, out);
              }};
    default:
      return {-1, nullptr};
  }
}

// The stored index of each element in row-major order: the literal's values follow its
// layout (minor_to_major), which is row-major unless the layout says otherwise.
std::vector<int64_t> PhysicalOrder(const xla::ShapeProto& shape, int64_t elements) {
  const int rank = shape.dimensions_size();
  if (!shape.has_layout() || shape.layout().minor_to_major_size() != rank) return {};
  bool row_major = true;
  for (int i = 0; i < rank; ++i) {
    if (shape.layout().minor_to_major(i) != rank - 1 - i) row_major = false;
  }
  if (row_major) return {};
  std::vector<int64_t> stride(static_cast<size_t>(rank), -1);
  int64_t s = 1;
  for (int k = 0; k < rank; ++k) {
    const int64_t d = shape.layout().minor_to_major(k);
    // Not a permutation: no order to follow (the values are then taken as stored).
    if (d < 0 || d >= rank || stride[static_cast<size_t>(d)] != -1) return {};
    stride[static_cast<size_t>(d)] = s;
    s *= shape.dimensions(static_cast<int>(d));
  }
  std::vector<int64_t> order(static_cast<size_t>(elements));
  std::vector<int64_t> index(static_cast<size_t>(rank), 0);
  for (int64_t n = 0; n < elements; ++n) {
    int64_t physical = 0;
    for (int d = 0; d < rank; ++d)
      physical += index[static_cast<size_t>(d)] * stride[static_cast<size_t>(d)];
    order[static_cast<size_t>(n)] = physical;
    for (int d = rank - 1; d >= 0; --d) {
      if (++index[static_cast<size_t>(d)] < shape.dimensions(d)) break;
      index[static_cast<size_t>(d)] = 0;
    }
  }
  return order;
}

std::string_view TypeName(PrimitiveType type) { return xla::PrimitiveType_Name(type); }

std::string LowerName(std::string_view name) {
  std::string s(name);
  for (char& c : s) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return s;
}

// Row-major walk printing nested braces: rank 1 `{a, b}`, higher ranks `{ { a, b }, { c } }`.
void AppendArray(const xla::ShapeProto& shape, int dim, int64_t& next, const ElementReader& reader,
                 const std::vector<int64_t>& order, std::string& out) {
  const int rank = shape.dimensions_size();
  auto element = [&] {
    const int64_t i = order.empty() ? next : order[static_cast<size_t>(next)];
    ++next;
    reader.append(i, out);
  };
  if (rank == 1) {
    out += '{';
    for (int64_t i = 0; i < shape.dimensions(0); ++i) {
      if (i) out += ", ";
      element();
    }
    out += '}';
    return;
  }
  out += "{ ";
  for (int64_t i = 0; i < shape.dimensions(dim); ++i) {
    if (i) out += ", ";
    if (dim == rank - 1) {
      element();
    } else {
      AppendArray(shape, dim + 1, next, reader, order, out);
    }
  }
  out += " }";
}

}  // namespace

absl::Status AppendLiteralText(const xla::LiteralProto& literal, const xla::ShapeProto& shape,
                               std::string& out) {
  if (shape.element_type() == xla::TUPLE) {
    if (literal.tuple_literals_size() != shape.tuple_shapes_size()) {
      return absl::InvalidArgumentError(StrCat("literal has ", literal.tuple_literals_size(),
                                               " tuple elements, its shape ",
                                               shape.tuple_shapes_size()));
    }
    out += '(';
    for (int i = 0; i < shape.tuple_shapes_size(); ++i) {
      if (i) out += ", ";
      if (absl::Status s = AppendLiteralText(literal.tuple_literals(i), shape.tuple_shapes(i), out);
          !s.ok()) {
        return s;
      }
    }
    out += ')';
    return absl::OkStatus();
  }
  if (shape.element_type() == xla::TOKEN) {
    out += "token";
    return absl::OkStatus();
  }
  const ElementReader reader = ReaderFor(literal, shape.element_type());
  if (reader.count < 0) {
    return absl::InvalidArgumentError(
        StrCat("literal of element type ", TypeName(shape.element_type()), " has no values"));
  }
  int64_t elements = 1;
  for (int64_t d : shape.dimensions()) {
    if (d < 0) return absl::InvalidArgumentError(StrCat("literal has a dimension of size ", d));
    if (d != 0 && elements > (int64_t{1} << 40) / d) {
      return absl::InvalidArgumentError("literal has more than 2^40 elements");
    }
    elements *= d;
  }
  if (reader.count != elements) {
    return absl::InvalidArgumentError(StrCat("literal has ", reader.count, " ",
                                             LowerName(TypeName(shape.element_type())),
                                             " values, its shape needs ", elements));
  }
  if (shape.dimensions_size() == 0) {
    reader.append(0, out);
    return absl::OkStatus();
  }
  // The stored order is the literal's own shape's layout when it has one.
  const xla::ShapeProto& stored = literal.has_shape() ? literal.shape() : shape;
  std::vector<int64_t> order;
  if (std::equal(stored.dimensions().begin(), stored.dimensions().end(), shape.dimensions().begin(),
                 shape.dimensions().end())) {
    order = PhysicalOrder(stored, elements);
  }
  int64_t next = 0;
  AppendArray(shape, 0, next, reader, order, out);
  return absl::OkStatus();
}

}  // namespace hloscope
