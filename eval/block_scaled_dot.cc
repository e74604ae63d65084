// Block-scaled dots: the `scaled-dot` opcode and the custom-call `__op$block_scaled_dot`.
// Both are dot(dequantize(lhs, lhs_scale), dequantize(rhs, rhs_scale)), where dequantize
// converts the operand and its scale to the result's element type and multiplies each element
// by the scale of its block: a scale of the operand's rank splits every dimension into whole
// blocks (operand size / scale size elements each), and element i takes scale[i / block]; a
// rank-0 scale scales every element. This is what XLA:GPU's BlockScalingRewriter expands the
// custom-call into (the block only in the last dimension, contracting the last dimension of
// both operands, dimension 0 a batch dimension at rank 3) and what its CompositeRewriter
// turns an `xla.scaled_dot` composite (dot dimension numbers, scales of the operands' rank)
// into. The products are rounded to the result type, as XLA's multiply in that type is; the
// dot then sums as dot does (dot_reduce.cc).
#include "eval/block_scaled_dot.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "eval/dot_dims.h"
#include "eval/element_io.h"
#include "eval/layout_util.h"
#include "hlo/backend_config.h"
#include "support/str_util.h"

namespace hloscope::eval {
namespace {

absl::Status Refuse(const Instruction& instr, std::string_view what, std::string_view why) {
  return absl::InvalidArgumentError(StrCat("cannot run %", instr.name(), " (", what, "): ", why));
}

// `operand` times its block's scale, in `type`, row-major; `dequantized` gets its shape.
// `scale_dims` (the scale's own dims when empty) may be smaller than the scale's: the blocks
// then come from those leading entries of each dimension (a padded scale, sliced).
absl::StatusOr<Bytes> Dequantize(const Instruction& instr, std::string_view what,
                                 std::string_view side, const ArrayRef& operand,
                                 const ArrayRef& scale, PrimitiveType type, Shape& dequantized,
                                 absl::Span<const int64_t> scale_dims = {}) {
  const Shape& os = *operand.shape;
  const Shape& ss = *scale.shape;
  if (scale_dims.empty()) scale_dims = ss.dims;
  if (ss.rank() != 0 && ss.rank() != os.rank()) {
    return Refuse(instr, what,
                  StrCat("the ", side, " scale must be a scalar or have the ", side, "'s rank"));
  }
  std::vector<int64_t> block(os.dims.size(), 1);
  for (size_t d = 0; ss.rank() != 0 && d < os.dims.size(); ++d) {
    if (scale_dims[d] <= 0 || os.dims[d] % scale_dims[d] != 0) {
      return Refuse(instr, what,
                    StrCat("the ", side, " scale does not split dimension ", d, " (size ",
                           os.dims[d], ") into whole blocks"));
    }
    block[d] = os.dims[d] / scale_dims[d];
  }
  dequantized = Shape();  // row-major: no layout
  dequantized.element_type = type;
  dequantized.dims = os.dims;
  const int out_bytes = ElementBytes(type);
  const int in_bytes = ElementBytes(os.element_type);
  const int scale_bytes = ElementBytes(ss.element_type);
  const std::vector<int64_t> ostr = PhysicalStrides(os);
  const std::vector<int64_t> sstr = PhysicalStrides(ss);
  Bytes out(static_cast<size_t>(DenseBytes(dequantized)));
  int64_t linear = 0;
  ForEachIndex(os.dims, [&](const std::vector<int64_t>& i) {
    int64_t o = 0, s = 0;
    for (size_t d = 0; d < i.size(); ++d) {
      o += i[d] * ostr[d];
      if (ss.rank() != 0) s += (i[d] / block[d]) * sstr[d];
    }
    const double x = RoundToType(type, LoadDouble(os.element_type, operand.data + o * in_bytes));
    const double k = RoundToType(type, LoadDouble(ss.element_type, scale.data + s * scale_bytes));
    StoreDouble(type, out.data() + linear * out_bytes, x * k);
    ++linear;
  });
  return out;
}

}  // namespace

absl::StatusOr<Bytes> EvalBlockScaledDot(const Instruction& instr,
                                         absl::Span<const ArrayRef> operands,
                                         const DotDimensionNumbers& dnums) {
  const std::string what = instr.opcode() == Opcode::kCustomCall
                               ? std::string(instr.custom_call_target())
                               : "scaled-dot";
  if (operands.size() != 4) {
    return Refuse(instr, what, "it takes lhs, rhs, lhs_scale and rhs_scale");
  }
  const Shape& out = instr.shape();
  if (!out.IsArray() || !IsFloatType(out.element_type)) {
    return Refuse(instr, what, "its result must be a float array");
  }
  Shape lshape, rshape;
  absl::StatusOr<Bytes> l =
      Dequantize(instr, what, "lhs", operands[0], operands[2], out.element_type, lshape);
  if (!l.ok()) return l.status();
  absl::StatusOr<Bytes> r =
      Dequantize(instr, what, "rhs", operands[1], operands[3], out.element_type, rshape);
  if (!r.ok()) return r.status();
  auto within = [](absl::Span<const int64_t> dims, const Shape& s) {
    return std::all_of(dims.begin(), dims.end(), [&](int64_t d) { return d >= 0 && d < s.rank(); });
  };
  if (!within(dnums.lhs_batch, lshape) || !within(dnums.lhs_contracting, lshape) ||
      !within(dnums.rhs_batch, rshape) || !within(dnums.rhs_contracting, rshape)) {
    return Refuse(instr, what, "its dot dimensions are outside the operands' ranks");
  }
  const ArrayRef dequantized[2] = {ArrayRef{&lshape, l->data()}, ArrayRef{&rshape, r->data()}};
  return EvalDotWithDimensions(instr, dequantized, dnums);
}

// The custom-call as XLA:GPU's BlockScalingRewriter expands it (ExpandBlockScaledDotCustomCall
// and BuildBlockScaledDotInput in xla/backends/gpu/transforms/block_scaling_rewriter.cc at
// openxla/xla 2c731115): operands lhs, rhs, lhs_scale, then optionally rhs_scale (without it
// rhs is used as it is) and a global scale (a scalar of the result type the dot is multiplied
// by). A scale may be padded: its dimension next to last may be longer than the operand's,
// and with block_size in the backend config (block_scaled_dot_backend_config) its last one
// may cover more than the operand; the scale is sliced to what the operand needs (ceil(k /
// block_size) in the last dimension) and the blocks follow from the sliced sizes.
absl::StatusOr<Bytes> EvalBlockScaledDotCustomCall(const Instruction& instr,
                                                   absl::Span<const ArrayRef> operands) {
  const std::string what(instr.custom_call_target());
  if (operands.size() < 3 || operands.size() > 5) {
    return Refuse(instr, what,
                  "it takes lhs, rhs, lhs_scale, and optionally rhs_scale and a global scale (3 "
                  "to 5 operands)");
  }
  const int64_t rank = operands[0].shape->rank();
  if ((rank != 2 && rank != 3) || operands[1].shape->rank() != rank) {
    return Refuse(instr, what, "lhs and rhs must both be of rank 2 or 3");
  }
  const Shape& out = instr.shape();
  if (!out.IsArray() || !IsFloatType(out.element_type)) {
    return Refuse(instr, what, "its result must be a float array");
  }
  DotDimensionNumbers dnums;
  dnums.lhs_contracting.push_back(rank - 1);
  dnums.rhs_contracting.push_back(rank - 1);
  if (rank == 3) {
    dnums.lhs_batch.push_back(0);
    dnums.rhs_batch.push_back(0);
  }
  std::optional<int64_t> block_size;
  if (std::optional<double> b = ConfigNumber(BackendConfigText(instr), "block_size")) {
    if (*b < 1 || *b != static_cast<double>(static_cast<int64_t>(*b))) {
      return Refuse(instr, what, "its block_size must be a positive integer");
    }
    block_size = static_cast<int64_t>(*b);
  }
  Shape dequantized[2];
  Bytes data[2];
  for (size_t k = 0; k < 2; ++k) {
    const char* side = k == 0 ? "lhs" : "rhs";
    const ArrayRef& operand = operands[k];
    const Shape& o = *operand.shape;
    absl::StatusOr<Bytes> d;
    if (k == 1 && operands.size() == 3) {
      // No rhs scale: rhs as it is, in the result type (a scale of 1 changes nothing).
      Shape one_shape;
      one_shape.element_type = out.element_type;
      Bytes one(static_cast<size_t>(ElementBytes(out.element_type)));
      StoreDouble(out.element_type, one.data(), 1.0);
      d = Dequantize(instr, what, side, operand, ArrayRef{&one_shape, one.data()}, out.element_type,
                     dequantized[k]);
    } else {
      const Shape& sc = *operands[k + 2].shape;
      std::vector<int64_t> dims(sc.dims.begin(), sc.dims.end());
      bool fits = sc.rank() == rank && (rank != 3 || sc.dims[0] == o.dims[0]) &&
                  o.dims[static_cast<size_t>(rank - 2)] <= sc.dims[static_cast<size_t>(rank - 2)];
      if (fits) dims[static_cast<size_t>(rank - 2)] = o.dims[static_cast<size_t>(rank - 2)];
      if (fits && block_size) {
        const int64_t kdim = o.dims[static_cast<size_t>(rank - 1)];
        fits = kdim <= *block_size * sc.dims[static_cast<size_t>(rank - 1)];
        dims[static_cast<size_t>(rank - 1)] = (kdim + *block_size - 1) / *block_size;
      }
      if (!fits) {
        return Refuse(instr, what,
                      StrCat("its ", side, " scale ", sc.ToString(false), " does not cover ",
                             o.ToString(false),
                             block_size ? StrCat(" in blocks of ", *block_size) : std::string(),
                             " (the same batch, at least as many rows, the last dimension in "
                             "blocks)"));
      }
      d = Dequantize(instr, what, side, operand, operands[k + 2], out.element_type, dequantized[k],
                     dims);
    }
    if (!d.ok()) return d.status();
    data[k] = *std::move(d);
  }
  const ArrayRef both[2] = {ArrayRef{&dequantized[0], data[0].data()},
                            ArrayRef{&dequantized[1], data[1].data()}};
  absl::StatusOr<Bytes> r = EvalDotWithDimensions(instr, both, dnums);
  if (!r.ok() || operands.size() != 5) return r;
  const Shape& g = *operands[4].shape;
  if (!g.IsArray() || g.rank() != 0 || g.element_type != out.element_type) {
    return Refuse(instr, what, "its global scale must be a scalar of the result type");
  }
  // The dot's result times the global scale, in the result type (XLA's Mul).
  const double scale = LoadDouble(g.element_type, operands[4].data);
  const int eb = ElementBytes(out.element_type);
  for (int64_t i = 0; i < out.ElementCount(); ++i) {
    uint8_t* p = r->data() + i * eb;
    StoreDouble(out.element_type, p, LoadDouble(out.element_type, p) * scale);
  }
  return r;
}

}  // namespace hloscope::eval
