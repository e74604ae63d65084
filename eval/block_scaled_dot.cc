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
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "eval/dot_dims.h"
#include "eval/element_io.h"
#include "eval/layout_util.h"
#include "support/str_util.h"

namespace hloscope::eval {
namespace {

absl::Status Refuse(const Instruction& instr, std::string_view what, std::string_view why) {
  return absl::InvalidArgumentError(StrCat("cannot run %", instr.name(), " (", what, "): ", why));
}

// `operand` times its block's scale, in `type`, row-major; `dequantized` gets its shape.
absl::StatusOr<Bytes> Dequantize(const Instruction& instr, std::string_view what,
                                 std::string_view side, const ArrayRef& operand,
                                 const ArrayRef& scale, PrimitiveType type, Shape& dequantized) {
  const Shape& os = *operand.shape;
  const Shape& ss = *scale.shape;
  if (ss.rank() != 0 && ss.rank() != os.rank()) {
    return Refuse(instr, what,
                  StrCat("the ", side, " scale must be a scalar or have the ", side, "'s rank"));
  }
  std::vector<int64_t> block(os.dims.size(), 1);
  for (size_t d = 0; ss.rank() != 0 && d < os.dims.size(); ++d) {
    if (ss.dims[d] <= 0 || os.dims[d] % ss.dims[d] != 0) {
      return Refuse(instr, what,
                    StrCat("the ", side, " scale does not split dimension ", d, " (size ",
                           os.dims[d], ") into whole blocks"));
    }
    block[d] = os.dims[d] / ss.dims[d];
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

absl::StatusOr<Bytes> EvalBlockScaledDotCustomCall(const Instruction& instr,
                                                   absl::Span<const ArrayRef> operands) {
  if (operands.size() != 4) {
    return Refuse(instr, instr.custom_call_target(),
                  "it takes lhs, rhs, lhs_scale and rhs_scale (4 operands)");
  }
  const int64_t rank = operands[0].shape->rank();
  if ((rank != 2 && rank != 3) || operands[1].shape->rank() != rank) {
    return Refuse(instr, instr.custom_call_target(), "lhs and rhs must both be of rank 2 or 3");
  }
  DotDimensionNumbers dnums;
  dnums.lhs_contracting.push_back(rank - 1);
  dnums.rhs_contracting.push_back(rank - 1);
  if (rank == 3) {
    dnums.lhs_batch.push_back(0);
    dnums.rhs_batch.push_back(0);
  }
  // The block lies along the last dimension only: the other dimensions of a scale match.
  for (int k = 2; k < 4; ++k) {
    const Shape& s = *operands[static_cast<size_t>(k)].shape;
    const Shape& o = *operands[static_cast<size_t>(k - 2)].shape;
    if (s.rank() != rank || !std::equal(s.dims.begin(), s.dims.end() - 1, o.dims.begin())) {
      return Refuse(instr, instr.custom_call_target(),
                    StrCat("its ", k == 2 ? "lhs" : "rhs",
                           " scale must match its operand but in the last dimension"));
    }
  }
  return EvalBlockScaledDot(instr, operands, dnums);
}

}  // namespace hloscope::eval
