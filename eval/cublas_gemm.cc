// custom-calls __cublas$gemm and __cublas$lt$matmul (cuBLASLt, the same product with
// optional epilogues), as XLA:GPU's GemmRewriter writes them: result = alpha * dot(a, b)
// (+ beta * c, with c a third operand when beta is not 0), the dot's dimension numbers,
// alpha and beta in backend_config's gemm_backend_config. The result is the output array, or
// a tuple of it and a u8/s8 workspace (its contents are cuBLAS's scratch: zeros here).
//
// The config is read as XLA reads it (xla/service/gpu/matmul_utils.cc, GemmConfig::For, at
// openxla/xla 2c731115ef3bbd9457cfbc46cd5fba5a35ee74bb): GemmBackendConfig is proto3
// (backend_configs.proto), so an absent alpha_real, alpha_imag or beta is 0 and an absent list
// of dot dimensions is empty; a missing backend_config is the all-default message. XLA then
// checks that the result's rank is the batch dimensions plus both operands' non-contracting
// dimensions (a RET_CHECK); a config without dot_dimension_numbers contracts nothing and fails
// that check, so it is refused with XLA's reason. RunGemm skips a gemm with alpha 0 and beta 0
// and zeroes its output ("cuBLAS internally has exactly the same optimization for
// compatibility with NETLIB"), so with alpha 0 a and b are not read: the result is beta * c
// (zeros without c), before any epilogue. The cuBLASLt thunk hands alpha 0 to cublasLtMatmul
// without that branch; the same rule is used for it (it differs from 0 * dot(a, b) only where
// a or b holds NaN or Inf).
//
// Only a real alpha (alpha_imag 0) is run, and the cublasLt epilogues
// (GemmBackendConfig.Epilogue) DEFAULT, BIAS, RELU, BIAS_RELU, GELU and BIAS_GELU on float
// results: result = activation(alpha * dot(a, b) + beta * c + bias), the bias a vector operand
// after (a, b[, c]) of the result's last dimension, broadcast along the others; GELU is
// cublasLt's tanh form 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))). GELU_AUX and
// BIAS_GELU_AUX (a second output of the pre-activation values) and other forms are refused
// naming what is missing. Products are summed as dot does (f64 for f64, float for narrower
// floats, wrapping 64-bit integers) in row-major order of the contracted dimensions, then scaled,
// biased and activated in that type and rounded once.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "eval/custom_calls.h"
#include "eval/element_io.h"
#include "eval/kernels.h"
#include "eval/layout_util.h"
#include "hlo/attribute_values.h"
#include "hlo/backend_config.h"
#include "support/str_util.h"

namespace hloscope::eval {
namespace {

enum class Activation { kNone, kRelu, kGelu };

// The FP8 result types GemmConfig::For accepts.
bool IsFp8(PrimitiveType t) {
  return t == PrimitiveType::kF8E4M3FN || t == PrimitiveType::kF8E5M2 ||
         t == PrimitiveType::kF8E4M3FNUZ || t == PrimitiveType::kF8E5M2FNUZ;
}

// The epilogue's activation on one value, in the accumulator's type.
template <typename Acc>
Acc Activate(Activation act, Acc x) {
  if (act == Activation::kRelu) return x < 0 ? Acc{0} : x;
  if (act == Activation::kGelu) {
    const Acc k = static_cast<Acc>(0.7978845608028654);  // sqrt(2/pi)
    return static_cast<Acc>(0.5) * x *
           (1 + std::tanh(k * (x + static_cast<Acc>(0.044715) * x * x * x)));
  }
  return x;
}

template <typename Acc>
Bytes Gemm(const Shape& out, const ArrayRef& a, const ArrayRef& b, const ArrayRef* c,
           const std::vector<int64_t>& lb, const std::vector<int64_t>& lc,
           const std::vector<int64_t>& rb, const std::vector<int64_t>& rc, double alpha,
           double beta, const std::vector<double>& bias, Activation act) {
  const Shape& as = *a.shape;
  const Shape& bs = *b.shape;
  auto has = [](const std::vector<int64_t>& v, int64_t d) {
    return std::find(v.begin(), v.end(), d) != v.end();
  };
  std::vector<int64_t> af, bf;
  for (int64_t d = 0; d < as.rank(); ++d)
    if (!has(lb, d) && !has(lc, d)) af.push_back(d);
  for (int64_t d = 0; d < bs.rank(); ++d)
    if (!has(rb, d) && !has(rc, d)) bf.push_back(d);
  const std::vector<int64_t> astr = PhysicalStrides(as), bstr = PhysicalStrides(bs);
  std::vector<int64_t> kdims;
  for (int64_t d : lc) kdims.push_back(as.dims[static_cast<size_t>(d)]);
  const int aeb = ElementBytes(as.element_type), beb = ElementBytes(bs.element_type),
            oeb = ElementBytes(out.element_type);
  Bytes scratch;
  const uint8_t* cdata = c != nullptr ? RowMajorData(*c->shape, c->data, scratch) : nullptr;
  Bytes result(static_cast<size_t>(out.ElementCount() * oeb));
  std::vector<int64_t> ai(static_cast<size_t>(as.rank())), bi(static_cast<size_t>(bs.rank()));
  int64_t linear = 0;
  ForEachIndex(out.dims, [&](const std::vector<int64_t>& o) {
    size_t p = 0;
    for (size_t i = 0; i < lb.size(); ++i, ++p) {
      ai[static_cast<size_t>(lb[i])] = o[p];
      bi[static_cast<size_t>(rb[i])] = o[p];
    }
    for (int64_t d : af) ai[static_cast<size_t>(d)] = o[p++];
    for (int64_t d : bf) bi[static_cast<size_t>(d)] = o[p++];
    Acc acc{0};
    if (alpha != 0)
      ForEachIndex(kdims, [&](const std::vector<int64_t>& k) {
        for (size_t i = 0; i < k.size(); ++i) {
          ai[static_cast<size_t>(lc[i])] = k[i];
          bi[static_cast<size_t>(rc[i])] = k[i];
        }
        int64_t ao = 0, bo = 0;
        for (size_t d = 0; d < ai.size(); ++d) ao += ai[d] * astr[d];
        for (size_t d = 0; d < bi.size(); ++d) bo += bi[d] * bstr[d];
        const Acc x = LoadAs<Acc>(as.element_type, a.data + ao * aeb);
        const Acc y = LoadAs<Acc>(bs.element_type, b.data + bo * beb);
        if constexpr (std::is_same_v<Acc, int64_t>) {
          acc = static_cast<int64_t>(static_cast<uint64_t>(acc) +
                                     static_cast<uint64_t>(x) * static_cast<uint64_t>(y));
        } else {
          acc += x * y;
        }
      });
    uint8_t* dst = result.data() + linear * oeb;
    if constexpr (std::is_same_v<Acc, int64_t>) {
      int64_t v = static_cast<int64_t>(alpha) * acc;
      if (cdata != nullptr) {
        v += static_cast<int64_t>(beta) * LoadInt(c->shape->element_type, cdata + linear * oeb);
      }
      StoreInt(out.element_type, dst, v);
    } else {
      Acc v = static_cast<Acc>(alpha) * acc;
      if (cdata != nullptr) {
        v += static_cast<Acc>(beta) *
             static_cast<Acc>(LoadDouble(c->shape->element_type, cdata + linear * oeb));
      }
      if (!bias.empty()) v += static_cast<Acc>(bias[static_cast<size_t>(o.back())]);
      v = Activate(act, v);
      StoreDouble(out.element_type, dst, static_cast<double>(v));
    }
    ++linear;
  });
  return ToPhysical(out, std::move(result));
}

}  // namespace

absl::StatusOr<std::vector<Bytes>> EvalCublasGemm(const Instruction& instr,
                                                  absl::Span<const ArrayRef> all_operands,
                                                  absl::Span<const Shape* const> results) {
  auto refuse = [&](std::string_view why) {
    return absl::UnimplementedError(StrCat("the interpreter runs custom-call ",
                                           instr.custom_call_target(), " only ", why,
                                           " (instruction %", instr.name(), ")"));
  };
  const std::string config = BackendConfigText(instr);
  // proto3 defaults: absent numbers are 0, absent repeated fields are empty.
  const double alpha = ConfigNumber(config, "alpha_real").value_or(0);
  const double beta = ConfigNumber(config, "beta").value_or(0);
  const double alpha_imag = ConfigNumber(config, "alpha_imag").value_or(0);
  const std::string_view epilogue = ConfigWord(config, "epilogue").value_or("DEFAULT");
  auto dims = [&](std::string_view key) {
    return ConfigIntList(config, key).value_or(std::vector<int64_t>());
  };
  const std::vector<int64_t> lc = dims("lhs_contracting_dimensions"),
                             rc = dims("rhs_contracting_dimensions"),
                             lb = dims("lhs_batch_dimensions"), rb = dims("rhs_batch_dimensions");
  if (alpha_imag != 0) return refuse("with a real alpha (alpha_imag 0)");
  const bool has_bias = epilogue == "BIAS" || epilogue == "BIAS_RELU" || epilogue == "BIAS_GELU";
  Activation act = Activation::kNone;
  if (epilogue == "RELU" || epilogue == "BIAS_RELU") act = Activation::kRelu;
  if (epilogue == "GELU" || epilogue == "BIAS_GELU") act = Activation::kGelu;
  if (!has_bias && act == Activation::kNone && epilogue != "DEFAULT") {
    return refuse("with the epilogues DEFAULT, BIAS, RELU, BIAS_RELU, GELU and BIAS_GELU");
  }
  // __cublas$lt$matmul$f8 (ThunkEmitter::EmitCublasLtMatmulThunkF8 in
  // xla/service/gpu/thunk_emitter.cc): (a, b[, c], a_scale, b_scale[, bias][, d_scale]); the
  // scales are cuBLASLt's A and B scale pointers, so the product is alpha * a_scale * b_scale *
  // dot(a, b). Only a result that is not FP8 is run (an FP8 result is scaled by d_scale and may
  // report its amax), and without damax_output.
  std::vector<ArrayRef> kept(all_operands.begin(), all_operands.end());
  double scaled_alpha = alpha;
  if (instr.custom_call_target() == "__cublas$lt$matmul$f8") {
    if (all_operands.size() < 4 || all_operands.size() > 7) {
      return absl::InvalidArgumentError(
          StrCat("XLA rejects custom-call %", instr.name(), " (", instr.custom_call_target(),
                 "): EmitCublasLtMatmulThunkF8 takes 4 to 7 operands (a, b[, c], a_scale, "
                 "b_scale[, bias][, d_scale]), not ",
                 all_operands.size()));
    }
    if (results.empty() || IsFp8(results[0]->element_type)) {
      return refuse("with a result that is not FP8 (an FP8 result's d_scale is not run)");
    }
    if (ConfigWord(config, "damax_output").value_or("false") == "true") {
      return refuse("without damax_output");
    }
    const size_t scale_at = beta != 0 ? 3 : 2;
    if (all_operands.size() < scale_at + 2) {
      // beta != 0 puts c third, so 4 operands have no b_scale.
      return absl::InvalidArgumentError(
          StrCat("XLA rejects custom-call %", instr.name(), " (", instr.custom_call_target(),
                 "): with beta not 0 it takes (a, b, c, a_scale, b_scale, ...), not ",
                 all_operands.size(), " operands"));
    }
    const ArrayRef& a_scale = all_operands[scale_at];
    const ArrayRef& b_scale = all_operands[scale_at + 1];
    for (const ArrayRef* scale : {&a_scale, &b_scale}) {
      if (scale->shape->rank() != 0 || !IsFloatType(scale->shape->element_type)) {
        return refuse("when a_scale and b_scale are float scalars");
      }
    }
    scaled_alpha = alpha * LoadDouble(a_scale.shape->element_type, a_scale.data) *
                   LoadDouble(b_scale.shape->element_type, b_scale.data);
    kept.erase(kept.begin() + static_cast<std::ptrdiff_t>(scale_at),
               kept.begin() + static_cast<std::ptrdiff_t>(scale_at) + 2);
  }
  const absl::Span<const ArrayRef> operands(kept);
  const size_t want_operands = (beta != 0 ? 3 : 2) + (has_bias ? 1 : 0);
  if (operands.size() != want_operands || results.empty() || results.size() > 2) {
    return refuse(
        "on (a, b), or (a, b, c) when beta is not 0, then the bias of a BIAS epilogue, giving the "
        "result or (result, workspace)");
  }
  const Shape& out = *results[0];
  const Shape& as = *operands[0].shape;
  const Shape& bs = *operands[1].shape;
  auto valid = [](const std::vector<int64_t>& v, const Shape& s) {
    return std::all_of(v.begin(), v.end(), [&](int64_t d) { return d >= 0 && d < s.rank(); });
  };
  const bool dims_valid = valid(lb, as) && valid(lc, as) && valid(rb, bs) && valid(rc, bs);
  if (dims_valid) {
    // XLA's TF_RET_CHECK in GemmConfig::For: output rank == batch + lhs rows + rhs columns.
    const int64_t xla_rank = static_cast<int64_t>(std::max(lb.size(), rb.size())) +
                             (as.rank() - static_cast<int64_t>(lb.size() + lc.size())) +
                             (bs.rank() - static_cast<int64_t>(rb.size() + rc.size()));
    if (out.rank() != xla_rank) {
      return absl::InvalidArgumentError(StrCat(
          "XLA rejects custom-call %", instr.name(), " (", instr.custom_call_target(),
          "): GemmConfig::For checks that the result's rank is the batch dimensions plus both "
          "operands' non-contracting dimensions, and its gemm_backend_config's dot dimension "
          "numbers",
          lc.empty() && rc.empty() ? " (none: an absent config contracts nothing)" : "",
          " give rank ", xla_rank, " for the result ", out.ToString(false)));
    }
  }
  bool ok = lb.size() == rb.size() && lc.size() == rc.size() && dims_valid;
  for (size_t i = 0; ok && i < lb.size(); ++i)
    ok = as.dims[static_cast<size_t>(lb[i])] == bs.dims[static_cast<size_t>(rb[i])];
  for (size_t i = 0; ok && i < lc.size(); ++i)
    ok = as.dims[static_cast<size_t>(lc[i])] == bs.dims[static_cast<size_t>(rc[i])];
  // The result: batch dims, then a's free dims, then b's free dims.
  std::vector<int64_t> want;
  for (int64_t d : lb) want.push_back(ok ? as.dims[static_cast<size_t>(d)] : 0);
  for (int64_t d = 0; ok && d < as.rank(); ++d)
    if (std::find(lb.begin(), lb.end(), d) == lb.end() &&
        std::find(lc.begin(), lc.end(), d) == lc.end())
      want.push_back(as.dims[static_cast<size_t>(d)]);
  for (int64_t d = 0; ok && d < bs.rank(); ++d)
    if (std::find(rb.begin(), rb.end(), d) == rb.end() &&
        std::find(rc.begin(), rc.end(), d) == rc.end())
      want.push_back(bs.dims[static_cast<size_t>(d)]);
  ok = ok && std::vector<int64_t>(out.dims.begin(), out.dims.end()) == want;
  if (ok && beta != 0) {
    ok = operands[2].shape->dims == out.dims && operands[2].shape->element_type == out.element_type;
  }
  if (!ok) return refuse("when its shapes fit the dot dimension numbers of its config");
  const ArrayRef* c = beta != 0 ? &operands[2] : nullptr;
  std::vector<double> bias;
  if (has_bias) {
    const ArrayRef& b = operands[want_operands - 1];
    if (b.shape->rank() != 1 || out.rank() == 0 || b.shape->dims[0] != out.dims.back()) {
      return refuse("when the bias is a vector of the result's last dimension");
    }
    for (int64_t i = 0; i < b.shape->dims[0]; ++i) {
      bias.push_back(
          LoadDouble(b.shape->element_type, b.data + i * ElementBytes(b.shape->element_type)));
    }
  }
  if ((has_bias || act != Activation::kNone) && !IsFloatType(out.element_type)) {
    return refuse("with an epilogue on a float result");
  }
  // GemmConfig::For's result types: float ones, complex ones, and s32 from s8 operands.
  const PrimitiveType ot = out.element_type;
  if (ot == PrimitiveType::kC64 || ot == PrimitiveType::kC128) {
    return refuse("with a real result type");
  }
  const bool xla_float = IsFp8(ot) || ot == PrimitiveType::kF16 || ot == PrimitiveType::kBF16 ||
                         ot == PrimitiveType::kF32 || ot == PrimitiveType::kF64;
  if (!xla_float && ot != PrimitiveType::kS32) {
    return absl::InvalidArgumentError(
        StrCat("XLA rejects custom-call %", instr.name(), " (", instr.custom_call_target(),
               "): Unexpected GEMM datatype: ", PrimitiveTypeName(ot)));
  }
  if (ot == PrimitiveType::kS32 &&
      (as.element_type != PrimitiveType::kS8 || bs.element_type != PrimitiveType::kS8)) {
    return absl::InvalidArgumentError(
        StrCat("XLA rejects custom-call %", instr.name(), " (", instr.custom_call_target(),
               "): For int32 gemm output only int8 input is supported, got input: ",
               PrimitiveTypeName(as.element_type), ", ", PrimitiveTypeName(bs.element_type)));
  }
  Bytes r;
  if (out.element_type == PrimitiveType::kF64) {
    r = Gemm<double>(out, operands[0], operands[1], c, lb, lc, rb, rc, scaled_alpha, beta, bias,
                     act);
  } else if (IsFloatType(out.element_type)) {
    r = Gemm<float>(out, operands[0], operands[1], c, lb, lc, rb, rc, scaled_alpha, beta, bias,
                    act);
  } else {
    r = Gemm<int64_t>(out, operands[0], operands[1], c, lb, lc, rb, rc, scaled_alpha, beta, bias,
                      act);
  }
  std::vector<Bytes> outs;
  outs.push_back(std::move(r));
  if (results.size() == 2) outs.emplace_back(static_cast<size_t>(DenseBytes(*results[1])), 0);
  return outs;
}

}  // namespace hloscope::eval
