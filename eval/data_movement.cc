// Kernels that move elements without arithmetic. Each works on row-major views of its operands
// (layout_util.h) and converts the row-major result to the instruction's layout at the end.
#include <algorithm>
#include <cstring>

#include "absl/status/status.h"
#include "eval/attributes.h"
#include "eval/element_io.h"
#include "eval/kernels.h"
#include "eval/layout_util.h"
#include "eval/wrapped_ops.h"
#include "support/str_util.h"

namespace hloscope::eval {
namespace {

// An operand in row-major order with its strides.
struct RowMajor {
  const Shape* shape;
  const uint8_t* data;
  std::vector<int64_t> strides;
  Bytes scratch;
};

void MakeRowMajor(const ArrayRef& a, RowMajor& out) {
  out.shape = a.shape;
  out.data = RowMajorData(*a.shape, a.data, out.scratch);
  out.strides = RowMajorStrides(a.shape->dims);
}

int64_t ReadIndex(const ArrayRef& a) { return LoadInt(a.shape->element_type, a.data); }

absl::Status Unsupported(const Instruction& instr, std::string_view what) {
  return absl::UnimplementedError(
      StrCat("the interpreter does not support ", what, " (instruction %", instr.name(), ")"));
}

// Clamps a start index as XLA does: into [0, dim - size].
int64_t ClampStart(int64_t start, int64_t dim, int64_t size) {
  return std::clamp<int64_t>(start, 0, std::max<int64_t>(dim - size, 0));
}

absl::StatusOr<Bytes> Gather(const Instruction& instr, const RowMajor& operand,
                             const RowMajor& indices) {
  const Shape& out = instr.shape();
  // Batching dims: operand dim operand_batching_dims[i] is indexed by the start index's
  // coordinate in dim start_indices_batching_dims[i] (like a collapsed dim of size 1).
  std::vector<int64_t> batching = IntListAttribute(instr, "operand_batching_dims");
  std::vector<int64_t> index_batching = IntListAttribute(instr, "start_indices_batching_dims");
  if (batching.size() != index_batching.size()) return Unsupported(instr, "this gather form");
  std::vector<int64_t> offset_dims = IntListAttribute(instr, "offset_dims");
  std::vector<int64_t> collapsed = IntListAttribute(instr, "collapsed_slice_dims");
  std::vector<int64_t> start_map = IntListAttribute(instr, "start_index_map");
  std::vector<int64_t> slice_sizes = IntListAttribute(instr, "slice_sizes");
  std::vector<int64_t> ivd = IntListAttribute(instr, "index_vector_dim");
  int64_t index_vector_dim = ivd.empty() ? indices.shape->rank() : ivd[0];
  const Shape& os = *operand.shape;
  if (static_cast<int64_t>(slice_sizes.size()) != os.rank())
    return Unsupported(instr, "this gather form");
  std::vector<int64_t> batch_dims;  // output dims that are not offset dims
  for (int64_t d = 0; d < out.rank(); ++d) {
    if (std::find(offset_dims.begin(), offset_dims.end(), d) == offset_dims.end())
      batch_dims.push_back(d);
  }
  std::vector<int64_t> window_dims;  // operand dims that are not collapsed, in order
  for (int64_t d = 0; d < os.rank(); ++d) {
    if (std::find(collapsed.begin(), collapsed.end(), d) == collapsed.end() &&
        std::find(batching.begin(), batching.end(), d) == batching.end())
      window_dims.push_back(d);
  }
  if (window_dims.size() != offset_dims.size()) return Unsupported(instr, "this gather form");
  int eb = ElementBytes(os.element_type);
  PrimitiveType it = indices.shape->element_type;
  int ib = ElementBytes(it);
  Bytes result(static_cast<size_t>(DenseBytes(out)));
  // A slice of size 0 (always so when the operand is empty) has no element to read: the
  // output is zeros, as XLA's gather simplifier rewrites it (gather_simplifier_test
  // ZeroSizeSlice). Reading on would index past the operand.
  if (std::find(slice_sizes.begin(), slice_sizes.end(), 0) != slice_sizes.end()) return result;
  int64_t linear = 0;
  std::vector<int64_t> idx_index(static_cast<size_t>(indices.shape->rank()), 0);
  std::vector<int64_t> in_index(static_cast<size_t>(os.rank()));
  ForEachIndex(out.dims, [&](const std::vector<int64_t>& o) {
    // The batch part of the output index selects a start vector in `indices`.
    size_t b = 0;
    for (int64_t d = 0; d < indices.shape->rank(); ++d) {
      if (d == index_vector_dim) continue;
      idx_index[static_cast<size_t>(d)] = o[static_cast<size_t>(batch_dims[b++])];
    }
    std::fill(in_index.begin(), in_index.end(), 0);
    for (size_t k = 0; k < start_map.size(); ++k) {
      if (index_vector_dim < indices.shape->rank())
        idx_index[static_cast<size_t>(index_vector_dim)] = static_cast<int64_t>(k);
      int64_t off = 0;
      for (size_t d = 0; d < idx_index.size(); ++d) off += idx_index[d] * indices.strides[d];
      int64_t dim = start_map[k];
      in_index[static_cast<size_t>(dim)] =
          ClampStart(LoadInt(it, indices.data + off * ib), os.dims[static_cast<size_t>(dim)],
                     slice_sizes[static_cast<size_t>(dim)]);
    }
    for (size_t k = 0; k < batching.size(); ++k) {
      in_index[static_cast<size_t>(batching[k])] =
          idx_index[static_cast<size_t>(index_batching[k])];
    }
    for (size_t w = 0; w < window_dims.size(); ++w) {
      in_index[static_cast<size_t>(window_dims[w])] += o[static_cast<size_t>(offset_dims[w])];
    }
    int64_t src = 0;
    for (size_t d = 0; d < in_index.size(); ++d) src += in_index[d] * operand.strides[d];
    std::memcpy(result.data() + linear * eb, operand.data + src * eb, static_cast<size_t>(eb));
    ++linear;
  });
  return result;
}

}  // namespace

bool IsSupportedDataMovement(Opcode op) {
  switch (op) {
    case Opcode::kBroadcast:
    case Opcode::kTranspose:
    case Opcode::kReshape:
    case Opcode::kSlice:
    case Opcode::kDynamicSlice:
    case Opcode::kDynamicUpdateSlice:
    case Opcode::kConcatenate:
    case Opcode::kPad:
    case Opcode::kReverse:
    case Opcode::kIota:
    case Opcode::kGather:
    case Opcode::kCopy:
      return true;
    default:
      return false;
  }
}

namespace {

// dynamic-slice: the window at the clamped start indices (operands 1..rank).
void DynamicSliceInto(const Shape& out, absl::Span<const ArrayRef> operands,
                      const RowMajor& operand, Bytes& result) {
  const int eb = ElementBytes(out.element_type);
  const auto ueb = static_cast<size_t>(eb);
  int64_t linear = 0;
  const Shape& os = *operand.shape;
  std::vector<int64_t> start(static_cast<size_t>(os.rank()));
  for (int64_t d = 0; d < os.rank(); ++d) {
    start[static_cast<size_t>(d)] =
        ClampStart(ReadIndex(operands[static_cast<size_t>(d + 1)]), os.dims[static_cast<size_t>(d)],
                   out.dims[static_cast<size_t>(d)]);
  }
  ForEachIndex(out.dims, [&](const std::vector<int64_t>& o) {
    int64_t src = 0;
    for (size_t i = 0; i < o.size(); ++i) src += (start[i] + o[i]) * operand.strides[i];
    std::memcpy(result.data() + linear++ * eb, operand.data + src * eb, ueb);
  });
}

// dynamic-update-slice: the operand with the update written at the clamped start indices.
void DynamicUpdateSliceInto(const Shape& out, absl::Span<const ArrayRef> operands,
                            const RowMajor& operand, const RowMajor& update, Bytes& result) {
  const int eb = ElementBytes(out.element_type);
  const auto ueb = static_cast<size_t>(eb);
  int64_t linear = 0;
  const Shape& us = *update.shape;
  // An empty array's bytes may have a null data(): memcpy must not see it, even for 0 bytes.
  if (!result.empty()) std::memcpy(result.data(), operand.data, result.size());
  std::vector<int64_t> start(static_cast<size_t>(out.rank()));
  for (int64_t d = 0; d < out.rank(); ++d) {
    start[static_cast<size_t>(d)] =
        ClampStart(ReadIndex(operands[static_cast<size_t>(d + 2)]),
                   out.dims[static_cast<size_t>(d)], us.dims[static_cast<size_t>(d)]);
  }
  std::vector<int64_t> ostrides = RowMajorStrides(out.dims);
  ForEachIndex(us.dims, [&](const std::vector<int64_t>& u) {
    int64_t dst = 0;
    for (size_t i = 0; i < u.size(); ++i) dst += (start[i] + u[i]) * ostrides[i];
    std::memcpy(result.data() + dst * eb, update.data + linear++ * eb, ueb);
  });
}

// slice: every stride-th element from each dimension's start.
void SliceInto(const Shape& out, absl::Span<const SliceDim> slice, const RowMajor& operand,
               Bytes& result) {
  const int eb = ElementBytes(out.element_type);
  const auto ueb = static_cast<size_t>(eb);
  int64_t linear = 0;
  ForEachIndex(out.dims, [&](const std::vector<int64_t>& o) {
    int64_t src = 0;
    for (size_t i = 0; i < o.size(); ++i)
      src += (slice[i].start + o[i] * slice[i].stride) * operand.strides[i];
    std::memcpy(result.data() + linear++ * eb, operand.data + src * eb, ueb);
  });
}

// concatenate: each operand placed after the previous ones along the joined dimension.
void ConcatenateInto(const Instruction& instr, absl::Span<const RowMajor> in, Bytes& result) {
  const Shape& out = instr.shape();
  const int eb = ElementBytes(out.element_type);
  const auto ueb = static_cast<size_t>(eb);
  auto dim = static_cast<size_t>(instr.dimensions()[0]);
  std::vector<int64_t> ostrides = RowMajorStrides(out.dims);
  int64_t offset = 0;
  for (const RowMajor& part : in) {
    int64_t i = 0;
    ForEachIndex(part.shape->dims, [&](const std::vector<int64_t>& p) {
      int64_t dst = 0;
      for (size_t k = 0; k < p.size(); ++k) dst += (p[k] + (k == dim ? offset : 0)) * ostrides[k];
      std::memcpy(result.data() + dst * eb, part.data + i++ * eb, ueb);
    });
    offset += part.shape->dims[dim];
  }
}

// pad: the padding value everywhere, then the operand's elements at their padded positions.
absl::Status PadInto(const Instruction& instr, const RowMajor& operand, const RowMajor& padding,
                     Bytes& result) {
  const Shape& out = instr.shape();
  const int eb = ElementBytes(out.element_type);
  const auto ueb = static_cast<size_t>(eb);
  int64_t linear = 0;
  absl::StatusOr<std::vector<PadDim>> pads = PaddingAttribute(instr);
  if (!pads.ok()) return pads.status();
  if (static_cast<int64_t>(pads->size()) != out.rank()) {
    return absl::InvalidArgumentError(StrCat("pad %", instr.name(), ": padding has ", pads->size(),
                                             " dimensions, the shape ", out.rank()));
  }
  // The padding value in the result's type (an f32 value padding a bf16 array is
  // converted, not cut to its first two bytes).
  uint8_t value[16];  // the widest element: c128
  StoreDouble(out.element_type, value, LoadDouble(padding.shape->element_type, padding.data));
  const uint8_t* pad_value = padding.shape->element_type == out.element_type ? padding.data : value;
  for (int64_t i = 0; i < out.ElementCount(); ++i)
    std::memcpy(result.data() + i * eb, pad_value, ueb);
  // An operand of another float type is converted to the result's, as XLA's evaluator does
  // (HandlePad converts it since fd39f27068; operand_checks.cc admits floats only).
  const PrimitiveType from = operand.shape->element_type;
  const bool convert = from != out.element_type;
  const int64_t operand_eb = ElementBytes(from);
  std::vector<int64_t> ostrides = RowMajorStrides(out.dims);
  ForEachIndex(operand.shape->dims, [&](const std::vector<int64_t>& p) {
    int64_t dst = 0;
    bool inside = true;
    for (size_t k = 0; k < p.size(); ++k) {
      int64_t pos = (*pads)[k].low + p[k] * ((*pads)[k].interior + 1);
      if (pos < 0 || pos >= out.dims[k]) inside = false;
      dst += pos * ostrides[k];
    }
    if (inside && !convert) {
      std::memcpy(result.data() + dst * eb, operand.data + linear * eb, ueb);
    } else if (inside) {
      StoreDouble(out.element_type, result.data() + dst * eb,
                  LoadDouble(from, operand.data + linear * operand_eb));
    }
    ++linear;
  });
  return absl::OkStatus();
}

// iota: each element its index along iota_dimension.
absl::Status IotaInto(const Instruction& instr, Bytes& result) {
  const Shape& out = instr.shape();
  const int eb = ElementBytes(out.element_type);
  int64_t linear = 0;
  std::vector<int64_t> d = IntListAttribute(instr, "iota_dimension");
  if (d.size() != 1 || d[0] < 0 || d[0] >= out.rank()) {
    return absl::InvalidArgumentError(
        StrCat("iota %", instr.name(), " needs iota_dimension= within its rank"));
  }
  ForEachIndex(out.dims, [&](const std::vector<int64_t>& o) {
    StoreInt(out.element_type, result.data() + linear++ * eb, o[static_cast<size_t>(d[0])]);
  });
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Bytes> EvalDataMovement(const Instruction& instr,
                                       absl::Span<const ArrayRef> operands) {
  const Shape& out = instr.shape();
  int eb = ElementBytes(out.element_type);
  auto ueb = static_cast<size_t>(eb);
  std::vector<RowMajor> in(operands.size());
  for (size_t k = 0; k < operands.size(); ++k) {
    if (operands[k].shape->IsArray()) MakeRowMajor(operands[k], in[k]);
  }
  Bytes result(static_cast<size_t>(DenseBytes(out)));
  int64_t linear = 0;
  switch (instr.opcode()) {
    case Opcode::kCopy:
      if (operands[0].shape->element_type != out.element_type) {
        // A mixed-precision copy (f32 of a bf16 operand, which XLA's verifier lets through
        // with allow_mixed_precision) converts each element, as XLA's HandleCopy does
        // (Literal::Convert in xla/hlo/evaluator/hlo_evaluator.cc at openxla/xla 33ab2836).
        const PrimitiveType from = operands[0].shape->element_type;
        const int64_t from_bytes = ElementBytes(from);
        for (int64_t i = 0; i < out.ElementCount(); ++i) {
          StoreDouble(out.element_type, result.data() + i * eb,
                      LoadDouble(from, in[0].data + i * from_bytes));
        }
        break;
      }
      [[fallthrough]];
    case Opcode::kReshape:
      // Same logical elements in row-major order (none: an empty array's data() may be null).
      if (!result.empty()) std::memcpy(result.data(), in[0].data, result.size());
      break;
    case Opcode::kBroadcast: {
      auto dims = instr.dimensions();
      ForEachIndex(out.dims, [&](const std::vector<int64_t>& o) {
        int64_t src = 0;
        for (size_t i = 0; i < dims.size(); ++i)
          src += o[static_cast<size_t>(dims[i])] * in[0].strides[i];
        std::memcpy(result.data() + linear++ * eb, in[0].data + src * eb, ueb);
      });
      break;
    }
    case Opcode::kTranspose: {
      auto perm = instr.dimensions();
      ForEachIndex(out.dims, [&](const std::vector<int64_t>& o) {
        int64_t src = 0;
        for (size_t i = 0; i < perm.size(); ++i)
          src += o[i] * in[0].strides[static_cast<size_t>(perm[i])];
        std::memcpy(result.data() + linear++ * eb, in[0].data + src * eb, ueb);
      });
      break;
    }
    case Opcode::kSlice:
      SliceInto(out, instr.slice(), in[0], result);
      break;
    case Opcode::kDynamicSlice:
      DynamicSliceInto(out, operands, in[0], result);
      break;
    case Opcode::kDynamicUpdateSlice:
      DynamicUpdateSliceInto(out, operands, in[0], in[1], result);
      break;
    case Opcode::kConcatenate:
      ConcatenateInto(instr, in, result);
      break;
    case Opcode::kPad:
      if (absl::Status s = PadInto(instr, in[0], in[1], result); !s.ok()) return s;
      break;
    case Opcode::kReverse: {
      auto dims = instr.dimensions();
      ForEachIndex(out.dims, [&](const std::vector<int64_t>& o) {
        int64_t src = 0;
        for (size_t i = 0; i < o.size(); ++i) {
          bool rev = std::find(dims.begin(), dims.end(), static_cast<int64_t>(i)) != dims.end();
          src += (rev ? out.dims[i] - 1 - o[i] : o[i]) * in[0].strides[i];
        }
        std::memcpy(result.data() + linear++ * eb, in[0].data + src * eb, ueb);
      });
      break;
    }
    case Opcode::kIota:
      if (absl::Status s = IotaInto(instr, result); !s.ok()) return s;
      break;
    case Opcode::kGather: {
      absl::StatusOr<Bytes> g = Gather(instr, in[0], in[1]);
      if (!g.ok()) return g.status();
      result = std::move(*g);
      break;
    }
    default:
      return Unsupported(instr, StrCat("opcode '", OpcodeName(instr.opcode()), "'"));
  }
  return ToPhysical(out, std::move(result));
}

absl::StatusOr<Bytes> EvalSliceAs(Opcode op, absl::Span<const SliceDim> slice, const Shape& out,
                                  absl::Span<const ArrayRef> operands) {
  std::vector<RowMajor> in(std::min<size_t>(operands.size(), 2));
  for (size_t k = 0; k < in.size(); ++k) MakeRowMajor(operands[k], in[k]);
  Bytes result(static_cast<size_t>(DenseBytes(out)));
  if (op == Opcode::kSlice) {
    SliceInto(out, slice, in[0], result);
  } else if (op == Opcode::kDynamicSlice) {
    DynamicSliceInto(out, operands, in[0], result);
  } else {
    DynamicUpdateSliceInto(out, operands, in[0], in[1], result);
  }
  return ToPhysical(out, std::move(result));
}

}  // namespace hloscope::eval
