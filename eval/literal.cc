#include "eval/literal.h"

#include <bit>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>

#include "eval/element_io.h"
#include "eval/layout_util.h"
#include "fmt/format.h"
#include "support/str_util.h"

namespace hloscope::eval {

// A shape that owns its tuple elements, so a literal outlives the module it came from. Layout
// parts that are views into a module's arena (dim level types, split configs, physical shape)
// are dropped: the interpreter does not read them.
struct Literal::OwnedShape {
  Shape root;
  std::vector<std::unique_ptr<OwnedShape>> nested;

  explicit OwnedShape(const Shape& s) : root(s) {
    root.layout.dim_level_types = {};
    root.layout.split_configs = {};
    root.layout.physical_shape = nullptr;
    root.tuple_elements.clear();
    for (const Shape* e : s.tuple_elements) {
      nested.push_back(std::make_unique<OwnedShape>(*e));
      root.tuple_elements.push_back(&nested.back()->root);
    }
  }
};

namespace {
const Shape& TokenShape() {
  static const Shape* token = [] {
    auto* s = new Shape;
    s->element_type = PrimitiveType::kToken;
    return s;
  }();
  return *token;
}

int64_t ArrayBytes(const Shape& s) { return s.ElementCount() * ElementBytes(s.element_type); }
}  // namespace

const Shape& Literal::shape() const { return shape_ ? shape_->root : TokenShape(); }

Literal Literal::Zeros(const Shape& shape) {
  Literal lit;
  lit.shape_ = std::make_shared<const OwnedShape>(shape);
  if (shape.IsArray()) lit.data_.assign(static_cast<size_t>(ArrayBytes(shape)), 0);
  for (const Shape* e : shape.tuple_elements) lit.elements_.push_back(Zeros(*e));
  return lit;
}

Literal Literal::MakeTuple(std::vector<Literal> elements) {
  Shape tuple;
  tuple.element_type = PrimitiveType::kTuple;
  for (const Literal& e : elements) tuple.tuple_elements.push_back(&e.shape());
  Literal lit;
  lit.shape_ = std::make_shared<const OwnedShape>(tuple);
  lit.elements_ = std::move(elements);
  return lit;
}

Literal Literal::FromBytes(const Shape& shape, std::vector<uint8_t> bytes) {
  Literal lit;
  lit.shape_ = std::make_shared<const OwnedShape>(shape);
  lit.data_ = std::move(bytes);
  return lit;
}

int64_t Literal::PhysicalOffset(absl::Span<const int64_t> index) const {
  std::vector<int64_t> strides = PhysicalStrides(shape());
  int64_t offset = 0;
  for (size_t i = 0; i < index.size() && i < strides.size(); ++i) offset += index[i] * strides[i];
  return offset * ElementBytes(shape().element_type);
}

double Literal::Get(absl::Span<const int64_t> index) const {
  return LoadDouble(shape().element_type, data_.data() + PhysicalOffset(index));
}

void Literal::Set(absl::Span<const int64_t> index, double value) {
  StoreDouble(shape().element_type, data_.data() + PhysicalOffset(index), value);
}

std::vector<int64_t> Literal::ValidSizes() const {
  if (!dynamic_sizes_.empty()) return dynamic_sizes_;
  return std::vector<int64_t>(shape().dims.begin(), shape().dims.end());
}

double Literal::GetLinear(int64_t linear) const {
  std::vector<int64_t> index(shape().dims.size());
  for (int64_t k = shape().rank() - 1; k >= 0; --k) {
    int64_t d = shape().dims[static_cast<size_t>(k)];
    index[static_cast<size_t>(k)] = linear % d;
    linear /= d;
  }
  return Get(index);
}

// --- random contents ---------------------------------------------------------------------

uint64_t MixBits(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

namespace {
uint64_t MixSeed(uint64_t seed, uint64_t i) { return MixBits(seed ^ MixBits(i + 0x1234567ull)); }
}  // namespace

Literal RandomLiteral(const Shape& shape, uint64_t seed) {
  if (shape.IsTuple()) {
    std::vector<Literal> elements;
    for (size_t i = 0; i < shape.tuple_elements.size(); ++i) {
      elements.push_back(RandomLiteral(*shape.tuple_elements[i], MixSeed(seed, i)));
    }
    Literal lit = Literal::MakeTuple(std::move(elements));
    return lit;
  }
  Literal lit = Literal::Zeros(shape);
  if (!shape.IsArray() || !IsSupportedElementType(shape.element_type)) return lit;
  PrimitiveType t = shape.element_type;
  std::vector<uint8_t> row_major(lit.data().size());
  int bytes = ElementBytes(t);
  // Values follow the logical (row-major) index, so every layout gets the same logical values.
  for (int64_t i = 0; i < shape.ElementCount(); ++i) {
    uint64_t r = MixBits(seed * 0x100000001b3ull + static_cast<uint64_t>(i)) >> 40;
    uint8_t* p = row_major.data() + i * bytes;
    if (IsFloatType(t)) {
      StoreDouble(t, p, (static_cast<double>(r % 32) - 16.0) / 8.0);
    } else if (IsComplexType(t)) {
      StoreComplex(t, p,
                   {(static_cast<double>(r % 32) - 16.0) / 8.0,
                    (static_cast<double>((r >> 5) % 32) - 16.0) / 8.0});
    } else if (IsSignedType(t)) {
      StoreInt(t, p, static_cast<int64_t>(r % 16) - 8);
    } else if (IsUnsignedType(t)) {
      StoreInt(t, p, static_cast<int64_t>(r % 16));
    } else {
      StoreInt(t, p, static_cast<int64_t>(r & 1));
    }
  }
  std::vector<uint8_t> physical = ToPhysical(shape, std::move(row_major));
  // An empty array's vectors may hold null pointers, which memcpy must not get even for 0 bytes.
  if (!physical.empty()) std::memcpy(lit.mutable_data().data(), physical.data(), physical.size());
  return lit;
}

std::vector<Literal> RandomArguments(const Module& module, uint64_t seed) {
  std::vector<Literal> args;
  for (const Instruction* p : module.entry()->parameters()) {
    args.push_back(
        RandomLiteral(p->shape(), MixSeed(seed, static_cast<uint64_t>(p->parameter_number()))));
  }
  return args;
}

// --- comparison and printing --------------------------------------------------------------

namespace {
std::string FormatFloat(PrimitiveType t, double v) {
  if (std::isnan(v)) return "nan";  // sign and payload show in FirstDifference's bits
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  if (t == PrimitiveType::kF64) return fmt::format("{}", v);
  return fmt::format("{}", static_cast<float>(v));
}

std::string FormatElement(PrimitiveType t, const uint8_t* p) {
  if (t == PrimitiveType::kPred) return p[0] ? "true" : "false";
  if (IsComplexType(t)) {
    // As XLA prints complex literals: (real, imag).
    std::complex<double> c = LoadComplex(t, p);
    return StrCat("(", FormatFloat(ComponentType(t), c.real()), ", ",
                  FormatFloat(ComponentType(t), c.imag()), ")");
  }
  if (IsSignedType(t)) return fmt::format("{}", LoadInt(t, p));
  if (IsUnsignedType(t)) return fmt::format("{}", static_cast<uint64_t>(LoadInt(t, p)));
  return FormatFloat(t, LoadDouble(t, p));
}

std::string IndexText(const std::vector<int64_t>& index) {
  return StrCat("[", StrJoin(index, ","), "]");
}

std::optional<std::string> Diff(const Literal& a, const Literal& b, ShapeIndex& at) {
  auto where = [&] { return StrCat("output ", ShapeIndexToString(at), ": "); };
  if (a.is_tuple() || b.is_tuple()) {
    if (!a.is_tuple() || !b.is_tuple() || a.elements().size() != b.elements().size()) {
      return StrCat(where(), "shape ", a.shape().ToString(false), " vs ",
                    b.shape().ToString(false));
    }
    for (size_t i = 0; i < a.elements().size(); ++i) {
      at.push_back(static_cast<int64_t>(i));
      if (auto d = Diff(a.elements()[i], b.elements()[i], at)) return d;
      at.pop_back();
    }
    return std::nullopt;
  }
  if (a.shape().element_type != b.shape().element_type || a.shape().dims != b.shape().dims) {
    return StrCat(where(), "shape ", a.shape().ToString(false), " vs ", b.shape().ToString(false));
  }
  if (!a.is_array()) return std::nullopt;
  const std::vector<int64_t> valid = a.ValidSizes();
  if (valid != b.ValidSizes()) {
    return StrCat(where(), "dynamic sizes (", StrJoin(valid, ","), ") vs (",
                  StrJoin(b.ValidSizes(), ","), ")");
  }
  PrimitiveType t = a.shape().element_type;
  size_t bytes = static_cast<size_t>(ElementBytes(t));
  std::vector<int64_t> sa = PhysicalStrides(a.shape()), sb = PhysicalStrides(b.shape());
  std::optional<std::string> first;
  // Only the elements inside the dynamic sizes are the value; the rest is padding.
  ForEachIndex(valid, [&](const std::vector<int64_t>& index) {
    if (first) return;
    int64_t oa = 0, ob = 0;
    for (size_t k = 0; k < index.size(); ++k) {
      oa += index[k] * sa[k];
      ob += index[k] * sb[k];
    }
    const uint8_t* pa = a.data().data() + oa * static_cast<int64_t>(bytes);
    const uint8_t* pb = b.data().data() + ob * static_cast<int64_t>(bytes);
    if (std::memcmp(pa, pb, bytes) == 0) return;
    std::string ea = FormatElement(t, pa), eb = FormatElement(t, pb);
    if (ea == eb) {  // e.g. two NaNs with different payloads: show the bits
      uint64_t bits_a = 0, bits_b = 0;
      std::memcpy(&bits_a, pa, bytes);
      std::memcpy(&bits_b, pb, bytes);
      ea = fmt::format("{} (0x{:x})", ea, bits_a);
      eb = fmt::format("{} (0x{:x})", eb, bits_b);
    }
    first = StrCat(where(), "element ", IndexText(index), ": ", ea, " vs ", eb);
  });
  return first;
}
}  // namespace

std::optional<std::string> FirstDifference(const Literal& expected, const Literal& actual) {
  ShapeIndex at;
  return Diff(expected, actual, at);
}

int64_t TotalElementCount(const Literal& literal) {
  if (literal.is_array()) {
    int64_t n = 1;
    for (int64_t d : literal.ValidSizes()) n *= d;
    return n;
  }
  int64_t n = 0;
  for (const Literal& e : literal.elements()) n += TotalElementCount(e);
  return n;
}

namespace {
// The inner '{}' pairs the full form of a zero-element array prints: the product of the
// dimensions before the first zero one (saturating).
int64_t BracePairsOfEmpty(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s.dims) {
    if (d == 0) break;
    n = n > std::numeric_limits<int64_t>::max() / d ? std::numeric_limits<int64_t>::max() : n * d;
  }
  return n;
}

// `dims`: the sizes to print (the dims, or a dynamic array's valid sizes).
void FormatArrayFull(const Literal& lit, const std::vector<int64_t>& dims, std::string& out) {
  const Shape& s = lit.shape();
  if (s.rank() == 0) {
    out += FormatElement(s.element_type, lit.data().data());
    return;
  }
  std::vector<int64_t> strides = PhysicalStrides(s);
  int bytes = ElementBytes(s.element_type);
  // One brace level per dimension, walked with an explicit index instead of recursion, so a
  // rank-60,000 array needs no stack frame per dimension.
  const size_t rank = s.dims.size();
  std::vector<int64_t> index(rank, 0);
  size_t dim = 0;
  out += '{';
  while (true) {
    if (index[dim] < dims[dim]) {
      if (index[dim] > 0) out += ", ";
      if (dim + 1 == rank) {
        int64_t off = 0;
        for (size_t k = 0; k < rank; ++k) off += index[k] * strides[k];
        out += FormatElement(s.element_type, lit.data().data() + off * bytes);
        ++index[dim];
      } else {
        ++dim;  // into element index[dim - 1] of the outer dimension
        index[dim] = 0;
        out += '{';
      }
    } else {
      out += '}';
      if (dim == 0) break;
      --dim;
      ++index[dim];
    }
  }
}

void FormatArraySummary(const Literal& lit, std::string& out) {
  const Shape& s = lit.shape();
  double lo = INFINITY, hi = -INFINITY, sum = 0;
  int64_t n = s.ElementCount(), nan = 0;
  // Complex numbers have no order: their summary is of the magnitudes |x|.
  const bool complex = IsComplexType(s.element_type);
  auto add = [&](const uint8_t* p) {
    double v = complex ? std::abs(LoadComplex(s.element_type, p)) : LoadDouble(s.element_type, p);
    if (std::isnan(v)) {
      ++nan;
      return;
    }
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    sum += v;
  };
  if (!lit.dynamic_sizes().empty()) {
    // A dynamic array: the statistics of the elements inside its sizes only.
    n = TotalElementCount(lit);
    ForEachIndex(lit.dynamic_sizes(), [&](const std::vector<int64_t>& index) {
      add(lit.data().data() + lit.PhysicalOffset(index));
    });
    out += fmt::format("{}min={} max={} mean={:.6g}", complex ? "|x| " : "", lo, hi,
                       n > nan ? sum / static_cast<double>(n - nan) : 0.0);
    if (nan > 0) out += fmt::format(" nan={}", nan);
    return;
  }
  for (int64_t i = 0; i < n; ++i) add(lit.data().data() + i * ElementBytes(s.element_type));
  out += fmt::format("{}min={} max={} mean={:.6g}", complex ? "|x| " : "", lo, hi,
                     n > nan ? sum / static_cast<double>(n - nan) : 0.0);
  if (nan > 0) out += fmt::format(" nan={}", nan);
  out += " first={";
  for (int64_t i = 0; i < std::min<int64_t>(n, 8); ++i) {
    if (i > 0) out += ", ";
    if (complex) {
      std::vector<int64_t> index(s.dims.size());
      for (int64_t k = s.rank() - 1, rest = i; k >= 0; --k) {
        index[static_cast<size_t>(k)] = rest % s.dims[static_cast<size_t>(k)];
        rest /= s.dims[static_cast<size_t>(k)];
      }
      out += FormatElement(s.element_type, lit.data().data() + lit.PhysicalOffset(index));
    } else {
      out += fmt::format("{}", lit.GetLinear(i));
    }
  }
  out += ", ...}";
}

void FormatInto(const Literal& lit, bool print_all, ShapeIndex& at, std::string& out) {
  if (lit.is_tuple()) {
    for (size_t i = 0; i < lit.elements().size(); ++i) {
      at.push_back(static_cast<int64_t>(i));
      FormatInto(lit.elements()[i], print_all, at, out);
      at.pop_back();
    }
    if (lit.elements().empty()) out += StrCat(ShapeIndexToString(at), ": ()\n");
    return;
  }
  if (!at.empty()) out += StrCat(ShapeIndexToString(at), ": ");
  out += lit.shape().ToString(false);
  if (lit.is_array()) {
    const std::vector<int64_t> valid = lit.ValidSizes();
    // XLA's Literal::ToString: a dynamic shape is followed by every dimension's size.
    if (lit.shape().IsDynamic()) out += StrCat("(", StrJoin(valid, ","), ")");
    out += ' ';
    if (lit.element_count() == 0 && BracePairsOfEmpty(lit.shape()) > kFormatFullLimit) {
      // f32[1000000000000,0] has no elements but 10^12 '{}' in full form: not printed.
      out += "{...} (no elements)";
    } else if (print_all || TotalElementCount(lit) <= kFormatFullLimit) {
      FormatArrayFull(lit, valid, out);
    } else {
      FormatArraySummary(lit, out);
    }
  }
  out += '\n';
}
}  // namespace

std::string FormatLiteral(const Literal& literal, bool print_all) {
  std::string out;
  ShapeIndex at;
  FormatInto(literal, print_all, at, out);
  return out;
}

}  // namespace hloscope::eval
