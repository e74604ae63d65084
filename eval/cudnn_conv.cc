// The cuDNN convolution custom-calls XLA:GPU's convolution rewriter writes
// (xla/service/gpu/cublas_cudnn.h, gpu_conv_runner). Each carries the window, dim_labels and
// group counts of the forward convolution input (x) * filter (w) -> output (y), and its result
// is a tuple (result, scratch u8[...]); the scratch is cuDNN's workspace, zeros here.
//
//   __cudnn$convForward                 (x, w) -> y
//   __cudnn$convBackwardInput           (y, w) -> x: dx[i] = sum of dy[o] * w[k] over the
//                                        (o, k) whose forward window reads i
//   __cudnn$convBackwardFilter          (x, y) -> w: dw[k] = sum of x[i] * dy[o] likewise
//   __cudnn$convBiasActivationForward   (x, w, bias[, side_input]) -> y =
//       activation(conv_result_scale * conv(x, w) + side_input_scale * side_input + bias),
//       the bias broadcast along y's feature dimension
//
// conv_result_scale (default 1) scales every kind; side_input_scale, activation_mode and
// leakyrelu_alpha are read from cudnn_conv_backend_config (or the older flat config). The
// activations are dnn.proto's ActivationMode: kNone, kSigmoid, kRelu, kRelu6, kTanh, kElu,
// kLeakyRelu, kGeluExact; kReluX and kBandPass need a bound the config does not carry and are
// refused. Forward products accumulate as the convolution opcode does; a scaled or fused result
// is then computed in double and rounded once to the result type. The backward kinds run on
// float types with double sums, without batch groups.
#include <cmath>
#include <string>

#include "absl/status/status.h"
#include "eval/convolution.h"
#include "eval/custom_calls.h"
#include "eval/element_io.h"
#include "eval/layout_util.h"
#include "hlo/backend_config.h"
#include "support/status_text.h"
#include "support/str_util.h"

namespace hloscope::eval {
namespace {

enum class ConvKind { kForward, kBackwardInput, kBackwardFilter, kBiasActivation };

std::optional<ConvKind> KindOf(std::string_view target) {
  if (target == "__cudnn$convForward") return ConvKind::kForward;
  if (target == "__cudnn$convBackwardInput") return ConvKind::kBackwardInput;
  if (target == "__cudnn$convBackwardFilter") return ConvKind::kBackwardFilter;
  if (target == "__cudnn$convBiasActivationForward") return ConvKind::kBiasActivation;
  return std::nullopt;
}

absl::Status Refuse(const Instruction& instr, std::string_view why) {
  return absl::InvalidArgumentError(StrCat("cannot run custom-call %", instr.name(), " (",
                                           instr.custom_call_target(), "): ", why));
}

std::vector<double> LoadAllDouble(const ArrayRef& a) {
  std::vector<uint8_t> scratch;
  const uint8_t* p = RowMajorData(*a.shape, a.data, scratch);
  const int eb = ElementBytes(a.shape->element_type);
  std::vector<double> out(static_cast<size_t>(a.shape->ElementCount()));
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = LoadDouble(a.shape->element_type, p + static_cast<int64_t>(i) * eb);
  return out;
}

Bytes StoreAll(const Shape& out, const std::vector<double>& values) {
  const int eb = ElementBytes(out.element_type);
  Bytes b(static_cast<size_t>(DenseBytes(out)));
  for (size_t i = 0; i < values.size(); ++i)
    StoreDouble(out.element_type, b.data() + static_cast<int64_t>(i) * eb, values[i]);
  return ToPhysical(out, std::move(b));
}

// The backward kinds: every (output element, window position, input feature) triple that the
// forward convolution multiplies, in row-major order of the output, then the window, then the
// feature; `grad` is the array being summed into (x for backward-input, w for backward-filter).
absl::StatusOr<Bytes> Backward(const Instruction& instr, ConvKind kind, const Shape& xs,
                               const Shape& ws, const Shape& ys, const std::vector<double>& known_a,
                               const std::vector<double>& known_b,
                               const ConvolutionAttributes& attrs, double scale) {
  if (attrs.batch_group_count != 1) return Refuse(instr, "batch groups are not run backward");
  const ConvDimLabels& dn = attrs.dim_labels;
  const size_t ns = dn.lhs_spatial.size();
  if (attrs.window.size() != ns) return Refuse(instr, "the window does not fit the dim_labels");
  const std::vector<int64_t> xstr = RowMajorStrides(xs.dims), wstr = RowMajorStrides(ws.dims),
                             ystr = RowMajorStrides(ys.dims);
  const int64_t fgc = attrs.feature_group_count;
  const int64_t out_features = ws.dims[static_cast<size_t>(dn.rhs_output_feature)];
  const int64_t group_in = ws.dims[static_cast<size_t>(dn.rhs_input_feature)];
  if (fgc < 1 || out_features % fgc != 0 ||
      group_in * fgc != xs.dims[static_cast<size_t>(dn.lhs_feature)]) {
    return Refuse(instr, "the feature groups do not fit the shapes");
  }
  const int64_t out_per_group = out_features / fgc;
  // known_a / known_b: (dy, w) for backward-input, (x, dy) for backward-filter.
  const std::vector<double>& dy = kind == ConvKind::kBackwardInput ? known_a : known_b;
  std::vector<double> grad(static_cast<size_t>(
      kind == ConvKind::kBackwardInput ? xs.ElementCount() : ws.ElementCount()));
  std::vector<int64_t> wsizes;
  for (const WindowDim& w : attrs.window) wsizes.push_back(w.size);
  ForEachIndex(ys.dims, [&](const std::vector<int64_t>& y) {
    int64_t yoff = 0;
    for (size_t d = 0; d < y.size(); ++d) yoff += y[d] * ystr[d];
    const double g = dy[static_cast<size_t>(yoff)];
    const int64_t oz = y[static_cast<size_t>(dn.out_feature)];
    const int64_t fgroup = oz / out_per_group;
    const int64_t xbase =
        y[static_cast<size_t>(dn.out_batch)] * xstr[static_cast<size_t>(dn.lhs_batch)] +
        fgroup * group_in * xstr[static_cast<size_t>(dn.lhs_feature)];
    const int64_t wbase = oz * wstr[static_cast<size_t>(dn.rhs_output_feature)];
    ForEachIndex(wsizes, [&](const std::vector<int64_t>& w) {
      int64_t xoff = xbase, woff = wbase;
      for (size_t k = 0; k < ns; ++k) {
        const WindowDim& wd = attrs.window[k];
        int64_t pos = y[static_cast<size_t>(dn.out_spatial[k])] * wd.stride +
                      w[k] * wd.window_dilation - wd.padding_low;
        if (pos < 0 || pos % wd.base_dilation != 0) return;
        pos /= wd.base_dilation;
        if (pos >= xs.dims[static_cast<size_t>(dn.lhs_spatial[k])]) return;
        xoff += pos * xstr[static_cast<size_t>(dn.lhs_spatial[k])];
        woff += (wd.reversal ? wd.size - 1 - w[k] : w[k]) *
                wstr[static_cast<size_t>(dn.rhs_spatial[k])];
      }
      for (int64_t iz = 0; iz < group_in; ++iz) {
        const int64_t xi = xoff + iz * xstr[static_cast<size_t>(dn.lhs_feature)];
        const int64_t wi = woff + iz * wstr[static_cast<size_t>(dn.rhs_input_feature)];
        if (kind == ConvKind::kBackwardInput) {
          grad[static_cast<size_t>(xi)] += g * known_b[static_cast<size_t>(wi)];
        } else {
          grad[static_cast<size_t>(wi)] += known_a[static_cast<size_t>(xi)] * g;
        }
      }
    });
  });
  for (double& v : grad) v *= scale;
  return StoreAll(kind == ConvKind::kBackwardInput ? xs : ws, grad);
}

absl::StatusOr<double> Activate(const Instruction& instr, std::string_view mode, double alpha,
                                double v) {
  if (mode == "kNone" || mode == "0") return v;
  if (mode == "kSigmoid" || mode == "1") return 1 / (1 + std::exp(-v));
  if (mode == "kRelu" || mode == "2") return v < 0 ? 0 : v;
  if (mode == "kRelu6" || mode == "3") return v < 0 ? 0 : (v > 6 ? 6 : v);
  if (mode == "kTanh" || mode == "5") return std::tanh(v);
  if (mode == "kElu" || mode == "7") return v < 0 ? std::expm1(v) : v;
  if (mode == "kLeakyRelu" || mode == "8") return v < 0 ? alpha * v : v;
  if (mode == "kGeluExact" || mode == "9") return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)));
  return Refuse(instr, StrCat("activation_mode ", mode, " is not run"));
}

}  // namespace

bool IsCudnnConvolutionTarget(std::string_view target) { return KindOf(target).has_value(); }

absl::StatusOr<std::vector<Bytes>> EvalCudnnConvolution(const Instruction& instr,
                                                        absl::Span<const ArrayRef> operands,
                                                        absl::Span<const Shape* const> results) {
  const ConvKind kind = *KindOf(instr.custom_call_target());
  absl::StatusOr<ConvolutionAttributes> attrs = ReadConvolution(instr);
  if (!attrs.ok()) return Refuse(instr, StatusText(attrs.status()));
  const std::string config = BackendConfigText(instr);
  auto number = [&](std::string_view snake, std::string_view camel, double fallback) {
    std::optional<double> v = ConfigNumber(config, snake);
    if (!v) v = ConfigNumber(config, camel);
    return v.value_or(fallback);
  };
  const double scale = number("conv_result_scale", "convResultScale", 1);
  const double side_scale = number("side_input_scale", "sideInputScale", 0);
  const double alpha = number("leakyrelu_alpha", "leakyreluAlpha", 0);
  std::optional<std::string_view> mode = ConfigWord(config, "activation_mode");
  if (!mode) mode = ConfigWord(config, "activationMode");
  const size_t want = kind == ConvKind::kBiasActivation ? 3 : 2;
  if (results.empty() || results.size() > 2 || operands.size() < want ||
      operands.size() > (kind == ConvKind::kBiasActivation ? 4 : 2)) {
    return Refuse(instr, "it needs its operands and a (result, scratch) tuple or the result");
  }
  const Shape& out = *results[0];
  // The forward convolution's three arrays, whichever one is the result.
  const Shape& xs = kind == ConvKind::kBackwardInput ? out : *operands[0].shape;
  const Shape& ws = kind == ConvKind::kBackwardFilter ? out : *operands[1].shape;
  const Shape& ys = kind == ConvKind::kBackwardInput    ? *operands[0].shape
                    : kind == ConvKind::kBackwardFilter ? *operands[1].shape
                                                        : out;
  absl::StatusOr<Shape> inferred = InferConvolutionShape(xs, ws, *attrs);
  if (!inferred.ok()) return Refuse(instr, StatusText(inferred.status()));
  if (inferred->dims != ys.dims) {
    // XLA runs it no better: GetGpuConvConfig (gpu_conv_runner.cc) gives cuDNN the shapes as
    // written, and cuDNN computes only the output size the window gives.
    return Refuse(instr, StrCat("its window and dim_labels give ", inferred->ToString(false),
                                " for the convolution's output, not ", ys.ToString(false),
                                " (XLA's conv runner passes these shapes to cuDNN as written)"));
  }
  std::vector<Bytes> outs;
  if (kind == ConvKind::kBackwardInput || kind == ConvKind::kBackwardFilter) {
    if (!IsFloatType(out.element_type) || !IsFloatType(operands[0].shape->element_type) ||
        !IsFloatType(operands[1].shape->element_type)) {
      return Refuse(instr, "the backward convolutions run on float types only");
    }
    absl::StatusOr<Bytes> r = Backward(instr, kind, xs, ws, ys, LoadAllDouble(operands[0]),
                                       LoadAllDouble(operands[1]), *attrs, scale);
    if (!r.ok()) return r.status();
    outs.push_back(std::move(*r));
  } else {
    const bool fused = kind == ConvKind::kBiasActivation || scale != 1;
    if (!fused || IsComplexType(out.element_type)) {
      if (fused) return Refuse(instr, "a scaled or fused complex convolution is not run");
      outs.push_back(Convolve(out, operands[0], operands[1], *attrs));
    } else {
      // The sums as the convolution opcode makes them (in the wider float type), then the
      // epilogue in double, rounded once into the result type.
      Shape wide = out;
      wide.element_type =
          out.element_type == PrimitiveType::kF64 ? PrimitiveType::kF64 : PrimitiveType::kF32;
      if (!IsFloatType(operands[0].shape->element_type) && !IsFloatType(out.element_type)) {
        wide.element_type = PrimitiveType::kS64;  // integer sums stay exact
      }
      const Bytes conv = Convolve(wide, operands[0], operands[1], *attrs);
      std::vector<double> v = LoadAllDouble(ArrayRef{&wide, conv.data()});
      std::vector<double> bias, side;
      const int64_t features = out.dims[static_cast<size_t>(attrs->dim_labels.out_feature)];
      if (kind == ConvKind::kBiasActivation) {
        const Shape& bs = *operands[2].shape;
        if (bs.rank() != 1 || bs.dims[0] != features) {
          return Refuse(instr, StrCat("the bias must be one value per output feature (", features,
                                      "), not ", bs.ToString(false)));
        }
        bias = LoadAllDouble(operands[2]);
        if (operands.size() == 4) {
          if (operands[3].shape->dims != out.dims) {
            return Refuse(instr, "the side input must have the result's dimensions");
          }
          side = LoadAllDouble(operands[3]);
        }
      }
      const std::vector<int64_t> strides = RowMajorStrides(out.dims);
      const int64_t fstride = strides[static_cast<size_t>(attrs->dim_labels.out_feature)];
      const std::string_view activation = mode.value_or("kNone");
      for (size_t i = 0; i < v.size(); ++i) {
        double r = scale * v[i];
        if (!side.empty()) r += side_scale * side[i];
        if (!bias.empty()) {
          r += bias[static_cast<size_t>((static_cast<int64_t>(i) / fstride) % features)];
        }
        absl::StatusOr<double> a = Activate(instr, activation, alpha, r);
        if (!a.ok()) return a.status();
        v[i] = *a;
      }
      outs.push_back(StoreAll(out, v));
    }
  }
  if (results.size() == 2) outs.emplace_back(static_cast<size_t>(DenseBytes(*results[1])), 0);
  return outs;
}

}  // namespace hloscope::eval
