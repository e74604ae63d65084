// batch-norm-training(x, scale, offset), batch-norm-inference(x, scale, offset, mean, variance)
// and batch-norm-grad(x, scale, mean, variance, grad_output), with epsilon=E and
// feature_index=F.
//
// XLA gives these ops no kernel of their own on CPU and GPU: its BatchNormExpander rewrites
// them into broadcasts, elementwise ops and add-reduces over every dimension but F, all in x's
// element type. The values here are that expansion's, op by op, so that they are the bits hlo-run
// gives for the expanded module:
//   - every elementwise op is rounded to the element type (RoundToType), as its own HLO op is;
//   - the reduces are add-reduces from 0, which the interpreter (as XLA's evaluator) sums in
//     double in row-major order and rounds once (dot_reduce.cc);
//   - the element count per feature is an s32 product of the other dimensions, converted to
//     the element type; epsilon is the f32 attribute converted to the element type (so an f64
//     batch norm adds double(float(E)), not E).
// The feature-shaped intermediates (mean, variance, rsqrt(variance + epsilon), ...) depend on
// the feature only, so they are computed once per feature: the expansion's broadcasts copy them.
#include "eval/batch_norm.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string_view>

#include "absl/status/status.h"
#include "eval/element_io.h"
#include "eval/layout_util.h"
#include "hlo/attribute_values.h"
#include "support/str_util.h"

namespace hloscope::eval {
namespace {

absl::Status Bad(const Instruction& instr, std::string_view why) {
  return absl::InvalidArgumentError(StrCat("cannot run %", instr.name(), ": ", why));
}

// An operand read in row-major order, element by element as double.
class RowMajor {
 public:
  explicit RowMajor(const ArrayRef& a)
      : type_(a.shape->element_type), data_(RowMajorData(*a.shape, a.data, scratch_)) {}
  // data_ may point into scratch_.
  RowMajor(const RowMajor&) = delete;
  RowMajor& operator=(const RowMajor&) = delete;
  double operator[](int64_t i) const { return LoadDouble(type_, data_ + i * ElementBytes(type_)); }

 private:
  PrimitiveType type_;
  std::vector<uint8_t> scratch_;
  const uint8_t* data_;
};

// What every batch-norm op needs: the element type, the features and where they are.
struct Features {
  PrimitiveType type = PrimitiveType::kF32;
  int64_t count = 0;       // F's size
  int64_t inner = 1;       // elements of the dimensions after F (row-major stride of F)
  int64_t elements = 0;    // elements of x
  double per_feature = 0;  // convert(s32 product of the other dimensions)
  double epsilon = 0;      // convert(f32 epsilon)
  int64_t FeatureOf(int64_t row_major_index) const { return (row_major_index / inner) % count; }
  double Round(double v) const { return RoundToType(type, v); }
};

// epsilon= as XLA's parser reads it: a double narrowed to float.
std::optional<float> EpsilonAttribute(const Instruction& instr) {
  std::optional<std::string_view> text = RawAttribute(instr, "epsilon");
  if (!text.has_value()) return std::nullopt;
  std::string_view t = StripWhitespace(*text);
  double v = 0;
  std::from_chars_result r = std::from_chars(t.data(), t.data() + t.size(), v);
  if (t.empty() || r.ec != std::errc() || r.ptr != t.data() + t.size() || !std::isfinite(v) ||
      std::fabs(v) > 3.4028234663852886e38) {
    return std::nullopt;
  }
  return static_cast<float>(v);
}

absl::StatusOr<Features> CheckBatchNorm(const Instruction& instr,
                                        absl::Span<const ArrayRef> operands) {
  const Opcode op = instr.opcode();
  const std::string_view name = OpcodeName(op);
  const size_t want = op == Opcode::kBatchNormTraining ? 3 : 5;
  if (operands.size() != want) {
    return Bad(instr, StrCat(name, " takes ", want, " operands, not ", operands.size()));
  }
  for (const ArrayRef& a : operands) {
    if (!a.shape->IsArray()) return Bad(instr, StrCat(name, " takes arrays only"));
  }
  const Shape& x = *operands[0].shape;
  Features f;
  f.type = x.element_type;
  if (!IsFloatType(f.type)) {
    return Bad(instr, StrCat(name, " needs a real floating-point operand, not ",
                             PrimitiveTypeName(f.type)));
  }
  const std::optional<int64_t> index = IntAttribute(instr, "feature_index");
  if (!index.has_value() || *index < 0 || *index >= x.rank()) {
    return Bad(instr, StrCat(name, " needs feature_index= naming a dimension of its ",
                             x.ToString(false), " operand"));
  }
  const std::optional<float> epsilon = EpsilonAttribute(instr);
  if (!epsilon.has_value()) {
    return Bad(instr, StrCat(name, " needs epsilon= as a finite f32 number"));
  }
  f.count = x.dims[static_cast<size_t>(*index)];
  // XLA multiplies the other dimensions' sizes as s32 (get-dimension-size), wrapping.
  uint32_t product = 1;
  for (int64_t d = 0; d < x.rank(); ++d) {
    if (d > *index) f.inner *= x.dims[static_cast<size_t>(d)];
    if (d != *index) product *= static_cast<uint32_t>(x.dims[static_cast<size_t>(d)]);
  }
  f.elements = x.ElementCount();
  f.per_feature = f.Round(static_cast<double>(static_cast<int32_t>(product)));
  f.epsilon = f.Round(static_cast<double>(*epsilon));
  const int64_t grad_output = op == Opcode::kBatchNormGrad ? 4 : -1;
  for (size_t i = 1; i < operands.size(); ++i) {
    const Shape& s = *operands[i].shape;
    const bool fits = static_cast<int64_t>(i) == grad_output
                          ? s.dims == x.dims
                          : s.rank() == 1 && s.dims[0] == f.count;
    if (!fits || s.element_type != f.type) {
      return Bad(instr,
                 StrCat(name, " operand ", i, " is ", s.ToString(false), " but must be ",
                        static_cast<int64_t>(i) == grad_output
                            ? x.ToString(false)
                            : StrCat(PrimitiveTypeName(f.type), "[", f.count, "]"),
                        " (operand 0 is ", x.ToString(false), ", feature_index=", *index, ")"));
    }
  }
  const Shape& out = instr.shape();
  auto is_x = [&](const Shape& s) {
    return s.IsArray() && s.dims == x.dims && s.element_type == f.type;
  };
  auto is_vector = [&](const Shape& s) {
    return s.IsArray() && s.rank() == 1 && s.dims[0] == f.count && s.element_type == f.type;
  };
  const bool result_fits =
      op == Opcode::kBatchNormInference
          ? is_x(out)
          : out.IsTuple() && out.tuple_elements.size() == 3 && is_x(*out.tuple_elements[0]) &&
                is_vector(*out.tuple_elements[1]) && is_vector(*out.tuple_elements[2]);
  if (!result_fits) {
    const std::string vector = StrCat(PrimitiveTypeName(f.type), "[", f.count, "]");
    return Bad(instr, StrCat(name, " gives ",
                             op == Opcode::kBatchNormInference
                                 ? x.ToString(false)
                                 : StrCat("(", x.ToString(false), ", ", vector, ", ", vector, ")"),
                             ", not ", out.ToString(false)));
  }
  return f;
}

// An array of `shape` from its values in row-major order.
Bytes Store(const Shape& shape, const std::vector<double>& row_major) {
  const int bytes = ElementBytes(shape.element_type);
  Bytes out(row_major.size() * static_cast<size_t>(bytes));
  for (size_t i = 0; i < row_major.size(); ++i) {
    StoreDouble(shape.element_type, out.data() + i * static_cast<size_t>(bytes), row_major[i]);
  }
  return ToPhysical(shape, std::move(out));
}

// reduce(values, 0, add) over every dimension but the feature's, as the interpreter runs it:
// summed in double in row-major order, rounded once.
template <typename ValueAt>
std::vector<double> SumPerFeature(const Features& f, ValueAt value_at) {
  std::vector<double> sums(static_cast<size_t>(f.count), 0.0);
  for (int64_t i = 0; i < f.elements; ++i) sums[static_cast<size_t>(f.FeatureOf(i))] += value_at(i);
  for (double& s : sums) s = f.Round(s);
  return sums;
}

double Rsqrt(const Features& f, double v) { return f.Round(1.0 / std::sqrt(v)); }

std::vector<Bytes> Training(const Instruction& instr, const Features& f,
                            absl::Span<const ArrayRef> operands) {
  const RowMajor x(operands[0]), scale(operands[1]), offset(operands[2]);
  const std::vector<double> sum = SumPerFeature(f, [&](int64_t i) { return x[i]; });
  const std::vector<double> squared_sum =
      SumPerFeature(f, [&](int64_t i) { return f.Round(x[i] * x[i]); });
  std::vector<double> mean(static_cast<size_t>(f.count)), var(mean.size()), rsqrt(mean.size());
  for (size_t k = 0; k < mean.size(); ++k) {
    mean[k] = f.Round(sum[k] / f.per_feature);
    const double square_mean = f.Round(squared_sum[k] / f.per_feature);
    const double mean_square = f.Round(mean[k] * mean[k]);
    var[k] = f.Round(square_mean - mean_square);
    rsqrt[k] = Rsqrt(f, f.Round(var[k] + f.epsilon));
  }
  std::vector<double> y(static_cast<size_t>(f.elements));
  for (int64_t i = 0; i < f.elements; ++i) {
    const int64_t k = f.FeatureOf(i);
    const auto u = static_cast<size_t>(k);
    const double normalized = f.Round(f.Round(x[i] - mean[u]) * rsqrt[u]);
    y[static_cast<size_t>(i)] = f.Round(f.Round(normalized * scale[k]) + offset[k]);
  }
  const Shape& out = instr.shape();
  return {Store(*out.tuple_elements[0], y), Store(*out.tuple_elements[1], mean),
          Store(*out.tuple_elements[2], var)};
}

std::vector<Bytes> Inference(const Instruction& instr, const Features& f,
                             absl::Span<const ArrayRef> operands) {
  const RowMajor x(operands[0]), scale(operands[1]), offset(operands[2]), mean(operands[3]),
      var(operands[4]);
  std::vector<double> true_scale(static_cast<size_t>(f.count)), true_shift(true_scale.size());
  for (int64_t k = 0; k < f.count; ++k) {
    const auto u = static_cast<size_t>(k);
    true_scale[u] = f.Round(scale[k] * Rsqrt(f, f.Round(var[k] + f.epsilon)));
    true_shift[u] = f.Round(offset[k] - f.Round(mean[k] * true_scale[u]));
  }
  std::vector<double> y(static_cast<size_t>(f.elements));
  for (int64_t i = 0; i < f.elements; ++i) {
    const auto u = static_cast<size_t>(f.FeatureOf(i));
    y[static_cast<size_t>(i)] = f.Round(f.Round(x[i] * true_scale[u]) + true_shift[u]);
  }
  return {Store(instr.shape(), y)};
}

std::vector<Bytes> Grad(const Instruction& instr, const Features& f,
                        absl::Span<const ArrayRef> operands) {
  const RowMajor x(operands[0]), scale(operands[1]), mean(operands[2]), var(operands[3]),
      dy(operands[4]);
  auto centered = [&](int64_t i) { return f.Round(x[i] - mean[f.FeatureOf(i)]); };
  // sum(dy * (x - mean)) and sum(dy): grad_offset is the latter.
  const std::vector<double> sum_dy_centered =
      SumPerFeature(f, [&](int64_t i) { return f.Round(dy[i] * centered(i)); });
  const std::vector<double> grad_offset = SumPerFeature(f, [&](int64_t i) { return dy[i]; });
  std::vector<double> var_epsilon(static_cast<size_t>(f.count)), grad_scale(var_epsilon.size()),
      scaled_rsqrt_mean(var_epsilon.size());
  for (int64_t k = 0; k < f.count; ++k) {
    const auto u = static_cast<size_t>(k);
    var_epsilon[u] = f.Round(var[k] + f.epsilon);
    const double rsqrt = Rsqrt(f, var_epsilon[u]);
    grad_scale[u] = f.Round(sum_dy_centered[u] * rsqrt);
    // scale * rsqrt(var + epsilon) / N
    scaled_rsqrt_mean[u] = f.Round(f.Round(scale[k] * rsqrt) / f.per_feature);
  }
  std::vector<double> dx(static_cast<size_t>(f.elements));
  for (int64_t i = 0; i < f.elements; ++i) {
    const auto u = static_cast<size_t>(f.FeatureOf(i));
    const double i1 = f.Round(dy[i] * f.per_feature);
    const double i4 = f.Round(sum_dy_centered[u] * centered(i));
    const double i5 = f.Round(i4 / var_epsilon[u]);
    const double i6 = f.Round(f.Round(i1 - grad_offset[u]) - i5);
    dx[static_cast<size_t>(i)] = f.Round(scaled_rsqrt_mean[u] * i6);
  }
  const Shape& out = instr.shape();
  return {Store(*out.tuple_elements[0], dx), Store(*out.tuple_elements[1], grad_scale),
          Store(*out.tuple_elements[2], grad_offset)};
}

}  // namespace

bool IsBatchNorm(Opcode op) {
  return op == Opcode::kBatchNormTraining || op == Opcode::kBatchNormInference ||
         op == Opcode::kBatchNormGrad;
}

absl::StatusOr<std::vector<Bytes>> EvalBatchNorm(const Instruction& instr,
                                                 absl::Span<const ArrayRef> operands) {
  absl::StatusOr<Features> f = CheckBatchNorm(instr, operands);
  if (!f.ok()) return f.status();
  switch (instr.opcode()) {
    case Opcode::kBatchNormTraining:
      return Training(instr, *f, operands);
    case Opcode::kBatchNormInference:
      return Inference(instr, *f, operands);
    default:
      return Grad(instr, *f, operands);
  }
}

}  // namespace hloscope::eval
