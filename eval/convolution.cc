// convolution: every dimension numbering (dim_labels), window stride, padding, lhs (base) and
// rhs (window) dilation, window reversal, feature groups and batch groups.
//
// Accumulation follows dot (dot_reduce.cc): in f32 when the result is bf16, f16 or f32, in f64
// for f64 and in 64-bit integers otherwise, summing in the order (kernel position row-major,
// then input feature) and rounding once at the end.
//
// Groups, as XLA defines them: with feature_group_count G the input features and the output
// features are split into G equal groups and output group g sees only input group g. With
// batch_group_count B the lhs batch is split into B groups and output feature group g (of
// out_features / B) sees only batch group g; the result has batch / B rows.
#include "eval/convolution.h"

#include <algorithm>
#include <complex>
#include <cstring>
#include <type_traits>

#include "absl/status/status.h"
#include "eval/element_io.h"
#include "eval/kernels.h"
#include "eval/layout_util.h"
#include "hlo/attribute_values.h"
#include "hlo/convolution_shape.h"
#include "support/status_text.h"
#include "support/str_util.h"

namespace hloscope::eval {

absl::StatusOr<ConvolutionAttributes> ReadConvolution(const Instruction& instr) {
  ConvolutionAttributes attrs;
  std::optional<std::string_view> labels = RawAttribute(instr, "dim_labels");
  if (!labels) return absl::InvalidArgumentError("it has no dim_labels");
  absl::StatusOr<ConvDimLabels> dn = ParseConvDimLabels(*labels);
  if (!dn.ok()) return dn.status();
  attrs.dim_labels = *std::move(dn);
  if (std::optional<std::string_view> window = RawAttribute(instr, "window")) {
    absl::StatusOr<std::vector<WindowDim>> dims = ParseWindow(*window);
    if (!dims.ok()) return dims.status();
    attrs.window = *std::move(dims);
  }
  attrs.feature_group_count = IntAttribute(instr, "feature_group_count").value_or(1);
  attrs.batch_group_count = IntAttribute(instr, "batch_group_count").value_or(1);
  return attrs;
}

namespace {

template <typename T>
struct IsComplexAcc : std::false_type {};
template <typename T>
struct IsComplexAcc<std::complex<T>> : std::true_type {};

template <typename Acc>
std::vector<Acc> LoadAll(const Shape& s, const uint8_t* data) {
  std::vector<uint8_t> scratch;
  const uint8_t* p = RowMajorData(s, data, scratch);
  int eb = ElementBytes(s.element_type);
  std::vector<Acc> out(static_cast<size_t>(s.ElementCount()));
  for (size_t i = 0; i < out.size(); ++i) {
    if constexpr (std::is_same_v<Acc, int64_t>) {
      out[i] = LoadInt(s.element_type, p + static_cast<int64_t>(i) * eb);
    } else if constexpr (IsComplexAcc<Acc>::value) {
      std::complex<double> c = LoadComplex(s.element_type, p + static_cast<int64_t>(i) * eb);
      out[i] = Acc(static_cast<typename Acc::value_type>(c.real()),
                   static_cast<typename Acc::value_type>(c.imag()));
    } else {
      out[i] = static_cast<Acc>(LoadDouble(s.element_type, p + static_cast<int64_t>(i) * eb));
    }
  }
  return out;
}

template <typename Acc>
Bytes ConvolveWith(const Shape& out, const Shape& ls, const uint8_t* ldata, const Shape& rs,
                   const uint8_t* rdata, const ConvolutionAttributes& attrs) {
  const ConvDimLabels& dn = attrs.dim_labels;
  const std::vector<Acc> lhs = LoadAll<Acc>(ls, ldata);
  const std::vector<Acc> rhs = LoadAll<Acc>(rs, rdata);
  const std::vector<int64_t> lstr = RowMajorStrides(ls.dims), rstr = RowMajorStrides(rs.dims);
  const size_t ns = dn.lhs_spatial.size();
  const int64_t fgc = attrs.feature_group_count, bgc = attrs.batch_group_count;
  const int64_t out_features = rs.dims[static_cast<size_t>(dn.rhs_output_feature)];
  const int64_t group_in = ls.dims[static_cast<size_t>(dn.lhs_feature)] / fgc;
  const int64_t out_per_fgroup = out_features / fgc;
  const int64_t out_per_bgroup = out_features / bgc;
  const int64_t batch_per_group = ls.dims[static_cast<size_t>(dn.lhs_batch)] / bgc;
  const int64_t lf_stride = lstr[static_cast<size_t>(dn.lhs_feature)];
  const int64_t ri_stride = rstr[static_cast<size_t>(dn.rhs_input_feature)];
  std::vector<int64_t> wsizes;
  for (const WindowDim& w : attrs.window) wsizes.push_back(w.size);
  const bool empty_window =
      std::any_of(wsizes.begin(), wsizes.end(), [](int64_t n) { return n <= 0; });
  const int eb = ElementBytes(out.element_type);
  Bytes result(static_cast<size_t>(DenseBytes(out)));
  int64_t linear = 0;
  // The window position, reused for every output element (no allocation per element).
  std::vector<int64_t> widx(ns, 0);
  ForEachIndex(out.dims, [&](const std::vector<int64_t>& o) {
    const int64_t oz = o[static_cast<size_t>(dn.out_feature)];
    const int64_t fgroup = oz / out_per_fgroup;
    const int64_t batch = o[static_cast<size_t>(dn.out_batch)] +
                          (bgc > 1 ? (oz / out_per_bgroup) * batch_per_group : 0);
    const int64_t lbase =
        batch * lstr[static_cast<size_t>(dn.lhs_batch)] + fgroup * group_in * lf_stride;
    const int64_t rbase = oz * rstr[static_cast<size_t>(dn.rhs_output_feature)];
    Acc acc = 0;
    auto accumulate = [&](const std::vector<int64_t>& w) {
      int64_t loff = lbase, roff = rbase;
      for (size_t k = 0; k < ns; ++k) {
        const WindowDim& wd = attrs.window[k];
        int64_t pos = o[static_cast<size_t>(dn.out_spatial[k])] * wd.stride +
                      w[k] * wd.window_dilation - wd.padding_low;
        if (pos < 0 || pos % wd.base_dilation != 0) return;
        pos /= wd.base_dilation;
        if (pos >= ls.dims[static_cast<size_t>(dn.lhs_spatial[k])]) return;
        loff += pos * lstr[static_cast<size_t>(dn.lhs_spatial[k])];
        roff += (wd.reversal ? wd.size - 1 - w[k] : w[k]) *
                rstr[static_cast<size_t>(dn.rhs_spatial[k])];
      }
      for (int64_t iz = 0; iz < group_in; ++iz) {
        const Acc a = lhs[static_cast<size_t>(loff + iz * lf_stride)];
        const Acc b = rhs[static_cast<size_t>(roff + iz * ri_stride)];
        if constexpr (std::is_same_v<Acc, int64_t>) {
          // Wrapping multiply-add, as the integer types do.
          acc = static_cast<int64_t>(static_cast<uint64_t>(acc) +
                                     static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
        } else {
          acc += a * b;
        }
      }
    };
    if (!empty_window) {
      // Every window position in row-major order, as ForEachIndex would visit them.
      std::fill(widx.begin(), widx.end(), 0);
      while (true) {
        accumulate(widx);
        size_t k = ns;
        while (k > 0 && ++widx[k - 1] == wsizes[k - 1]) widx[--k] = 0;
        if (k == 0) break;
      }
    }
    uint8_t* dst = result.data() + linear++ * eb;
    if constexpr (std::is_same_v<Acc, int64_t>) {
      StoreInt(out.element_type, dst, acc);
    } else if constexpr (IsComplexAcc<Acc>::value) {
      StoreComplex(out.element_type, dst, {acc.real(), acc.imag()});
    } else {
      StoreDouble(out.element_type, dst, static_cast<double>(acc));
    }
  });
  return ToPhysical(out, std::move(result));
}

}  // namespace

absl::StatusOr<Bytes> EvalConvolution(const Instruction& instr,
                                      absl::Span<const ArrayRef> operands) {
  auto fail = [&](std::string_view why) {
    return absl::InvalidArgumentError(StrCat("cannot run %", instr.name(), ": ", why));
  };
  if (operands.size() != 2) return fail("convolution takes 2 operands");
  absl::StatusOr<ConvolutionAttributes> attrs = ReadConvolution(instr);
  if (!attrs.ok()) return fail(StatusText(attrs.status()));
  const Shape& ls = *operands[0].shape;
  const Shape& rs = *operands[1].shape;
  absl::StatusOr<Shape> inferred = InferConvolutionShape(ls, rs, *attrs);
  if (!inferred.ok()) return fail(StatusText(inferred.status()));
  const Shape& out = instr.shape();
  if (!out.IsArray() || inferred->dims != out.dims) {
    return fail(
        StrCat("its operands give ", inferred->ToString(false), ", not ", out.ToString(false)));
  }
  return Convolve(out, operands[0], operands[1], *attrs);
}

Bytes Convolve(const Shape& out, const ArrayRef& lhs, const ArrayRef& rhs,
               const ConvolutionAttributes& attrs) {
  const Shape& ls = *lhs.shape;
  const Shape& rs = *rhs.shape;
  PrimitiveType t = out.element_type;
  if (t == PrimitiveType::kF64) return ConvolveWith<double>(out, ls, lhs.data, rs, rhs.data, attrs);
  // Complex convolutions accumulate in std::complex of the component type, as dot does.
  if (t == PrimitiveType::kC64) {
    return ConvolveWith<std::complex<float>>(out, ls, lhs.data, rs, rhs.data, attrs);
  }
  if (t == PrimitiveType::kC128) {
    return ConvolveWith<std::complex<double>>(out, ls, lhs.data, rs, rhs.data, attrs);
  }
  if (IsFloatType(t)) return ConvolveWith<float>(out, ls, lhs.data, rs, rhs.data, attrs);
  return ConvolveWith<int64_t>(out, ls, lhs.data, rs, rhs.data, attrs);
}

}  // namespace hloscope::eval
