#include "eval/dynamic_shapes.h"

#include <algorithm>
#include <cstring>

#include "absl/status/status.h"
#include "eval/attributes.h"
#include "eval/element_io.h"
#include "eval/layout_util.h"
#include "hlo/attribute_values.h"
#include "support/str_util.h"

namespace hloscope::eval {

bool HasUnboundedDimension(const Shape& shape) {
  for (int64_t d : shape.dims) {
    if (d == Shape::kUnboundedSize) return true;
  }
  return false;
}

bool BelowBound(const Shape& shape, absl::Span<const int64_t> sizes) {
  for (size_t i = 0; i < sizes.size() && i < shape.dims.size(); ++i) {
    if (sizes[i] < shape.dims[i]) return true;
  }
  return false;
}

DynamicSizes SizesOrBound(const Shape& shape, absl::Span<const int64_t> sizes) {
  if (sizes.empty()) return DynamicSizes(shape.dims.begin(), shape.dims.end());
  return DynamicSizes(sizes.begin(), sizes.end());
}

DynamicSizes OutputSizes(const Shape& shape, absl::Span<const int64_t> sizes) {
  DynamicSizes out = SizesOrBound(shape, sizes);
  for (size_t i = 0; i < out.size() && i < shape.dims.size(); ++i) {
    if (!IsDynamicDim(shape, i)) out[i] = shape.dims[i];
  }
  return out;
}

bool IsDynamicShapeCustomCall(std::string_view target) {
  return target == "PadToStatic" || target == "SliceToDynamic";
}

bool KeepsValidRegion(Opcode op) {
  switch (op) {
    case Opcode::kBroadcast:
    case Opcode::kTranspose:
    case Opcode::kSlice:
    case Opcode::kCopy:
    case Opcode::kMap:
    // Computed over the bound with the bound's clamping, as XLA's evaluator does: the valid
    // region of the operand stays where it is (dynamic_padder_test.cc WhileLoopStack).
    case Opcode::kDynamicSlice:
    case Opcode::kDynamicUpdateSlice:
    // A whole dynamic dimension gathered keeps its size (GatherSizes).
    case Opcode::kGather:
      return true;
    default:
      return IsSupportedElementwise(op);
  }
}

absl::Status RefuseBelowBound(const Instruction& instr, std::string_view why) {
  return absl::UnimplementedError(StrCat("the interpreter does not run ", instr.PrintedOpcode(),
                                         " %", instr.name(),
                                         " on a dynamic dimension below its bound: ", why));
}

namespace {

bool Contains(const std::vector<int64_t>& list, int64_t x) {
  return std::find(list.begin(), list.end(), x) != list.end();
}

// gather, as dynamic_dimension_inference.cc HandleGather: an operand dimension sliced whole
// gives its size to its offset dimension of the result, one sliced to 1 loses it, any other
// slice is refused; the indices' dimensions give theirs to the batch dimensions.
absl::StatusOr<DynamicSizes> GatherSizes(const Instruction& instr,
                                         absl::Span<const ArrayRef> operands,
                                         absl::Span<const DynamicSizes> sizes) {
  const Shape& out = instr.shape();
  DynamicSizes result(out.dims.begin(), out.dims.end());
  if (operands.size() != 2) return result;
  const std::vector<int64_t> offset_dims = IntListAttribute(instr, "offset_dims");
  const std::vector<int64_t> collapsed = IntListAttribute(instr, "collapsed_slice_dims");
  const std::vector<int64_t> batching = IntListAttribute(instr, "operand_batching_dims");
  const std::vector<int64_t> slice_sizes = IntListAttribute(instr, "slice_sizes");
  const Shape& operand = *operands[0].shape;
  const DynamicSizes valid = SizesOrBound(operand, sizes[0]);
  size_t window = 0;  // the offset dimensions take the operand's uncollapsed ones in order
  for (size_t i = 0; i < valid.size(); ++i) {
    const auto d = static_cast<int64_t>(i);
    if (Contains(collapsed, d) || Contains(batching, d)) {
      if (valid[i] < operand.dims[i]) {
        return RefuseBelowBound(instr, "a collapsed operand dimension is dynamic");
      }
      continue;
    }
    const size_t at = window++;
    if (valid[i] == operand.dims[i] || i >= slice_sizes.size() || slice_sizes[i] == 1) continue;
    if (slice_sizes[i] != operand.dims[i] || at >= offset_dims.size()) {
      return RefuseBelowBound(instr, "it gathers part of a dynamic dimension");
    }
    result[static_cast<size_t>(offset_dims[at])] = valid[i];
  }
  const Shape& indices = *operands[1].shape;
  const DynamicSizes index_sizes = SizesOrBound(indices, sizes[1]);
  const std::vector<int64_t> ivd = IntListAttribute(instr, "index_vector_dim");
  const int64_t index_vector_dim = ivd.empty() ? indices.rank() : ivd[0];
  std::vector<size_t> batch_dims;  // result dimensions that are not offset dimensions
  for (size_t d = 0; d < out.dims.size(); ++d) {
    if (!Contains(offset_dims, static_cast<int64_t>(d))) batch_dims.push_back(d);
  }
  size_t batch = 0;
  for (size_t j = 0; j < index_sizes.size(); ++j) {
    if (static_cast<int64_t>(j) == index_vector_dim) continue;
    const size_t at = batch++;
    if (index_sizes[j] < indices.dims[j] && at < batch_dims.size()) {
      result[batch_dims[at]] = index_sizes[j];
    }
  }
  return result;
}

}  // namespace

absl::StatusOr<DynamicSizes> PropagatedSizes(const Instruction& instr,
                                             absl::Span<const ArrayRef> operands,
                                             absl::Span<const DynamicSizes> sizes) {
  if (instr.opcode() == Opcode::kGather) return GatherSizes(instr, operands, sizes);
  const Shape& out = instr.shape();
  DynamicSizes result(out.dims.begin(), out.dims.end());
  std::vector<bool> taken(out.dims.size(), false);
  // A result dimension takes the size of the operands that are dynamic there, else its own.
  auto merge = [&](size_t rd, int64_t size) -> absl::Status {
    if (rd >= result.size()) return absl::OkStatus();
    if (!taken[rd]) {
      result[rd] = size;
      taken[rd] = true;
      return absl::OkStatus();
    }
    // Elementwise operands that disagree: a size-1 operand was broadcast, else the smaller
    // size holds (ImplicitBroadcasts).
    if (size != 1) result[rd] = result[rd] == 1 ? size : std::min(result[rd], size);
    return absl::OkStatus();
  };
  const Opcode op = instr.opcode();
  for (size_t k = 0; k < operands.size(); ++k) {
    const Shape* s = operands[k].shape;
    if (s == nullptr || !s->IsArray() || s->rank() == 0) continue;
    // dynamic-slice and dynamic-update-slice: the result's sizes are the operand's.
    if (k > 0 && (op == Opcode::kDynamicSlice || op == Opcode::kDynamicUpdateSlice)) break;
    const DynamicSizes mine = SizesOrBound(*s, sizes[k]);
    for (size_t i = 0; i < mine.size(); ++i) {
      // A static operand dimension at its size is cut to the dynamic size. (A dimension
      // declared static can still hold a valid size below it: XLA's verifier compares shapes
      // ignoring dynamism, and its dynamic dimension inference tracks sizes set on them.)
      if (!IsDynamicDim(*s, i) && mine[i] == s->dims[i]) continue;
      size_t rd = i;
      if (op == Opcode::kBroadcast) {
        if (i >= instr.dimensions().size()) break;
        rd = static_cast<size_t>(instr.dimensions()[i]);
      } else if (op == Opcode::kTranspose) {
        // result dimension j reads operand dimension dimensions()[j]
        rd = out.dims.size();
        for (size_t j = 0; j < instr.dimensions().size(); ++j) {
          if (instr.dimensions()[j] == static_cast<int64_t>(i)) rd = j;
        }
      } else if (op == Opcode::kSlice) {
        // dynamic_dimension_inference.cc HandleSlice: only a whole-dimension slice keeps the
        // dynamic size; any other slice gives the static result size.
        const SliceDim& d = instr.slice()[i];
        if (d.start != 0 || d.stride != 1 || d.limit != s->dims[i]) continue;
      } else if (op == Opcode::kDynamicSlice) {
        // HandleDynamicSlice likewise: a dimension sliced whole keeps its size.
        if (i >= out.dims.size() || out.dims[i] != s->dims[i]) continue;
      } else if (s->rank() != out.rank()) {
        return RefuseBelowBound(instr, "its operand and result ranks differ");
      }
      if (absl::Status m = merge(rd, mine[i]); !m.ok()) return m;
    }
  }
  return result;
}

std::vector<std::vector<size_t>> ImplicitBroadcasts(absl::Span<const ArrayRef> operands,
                                                    absl::Span<const DynamicSizes> sizes) {
  std::vector<std::vector<size_t>> out(operands.size());
  for (size_t k = 0; k < operands.size(); ++k) {
    const Shape* s = operands[k].shape;
    if (s == nullptr || !s->IsArray() || sizes[k].empty()) continue;
    for (size_t i = 0; i < sizes[k].size(); ++i) {
      if (sizes[k][i] != 1) continue;
      // Broadcast when another operand is dynamic in this dimension with a larger size.
      for (size_t j = 0; j < operands.size(); ++j) {
        const Shape* o = operands[j].shape;
        if (j == k || o == nullptr || !o->IsArray() || o->rank() != s->rank() ||
            !IsDynamicDim(*o, i))
          continue;
        if (SizesOrBound(*o, sizes[j])[i] > 1) {
          out[k].push_back(i);
          break;
        }
      }
    }
  }
  return out;
}

namespace {

// Byte offset of a multi-index in the physical order given by `strides`.
int64_t OffsetOf(absl::Span<const int64_t> index, const std::vector<int64_t>& strides,
                 int64_t bytes) {
  int64_t off = 0;
  for (size_t k = 0; k < index.size(); ++k) off += index[k] * strides[k];
  return off * bytes;
}

}  // namespace

Bytes RepeatIndexZero(const ArrayRef& array, absl::Span<const size_t> dims) {
  const Shape& s = *array.shape;
  const int64_t bytes = ElementBytes(s.element_type);
  Bytes out(static_cast<size_t>(DenseBytes(s)));
  const std::vector<int64_t> strides = PhysicalStrides(s);
  ForEachIndex(s.dims, [&](const std::vector<int64_t>& index) {
    std::vector<int64_t> from = index;
    for (size_t d : dims) from[d] = 0;
    std::memcpy(out.data() + OffsetOf(index, strides, bytes),
                array.data + OffsetOf(from, strides, bytes), static_cast<size_t>(bytes));
  });
  return out;
}

Bytes MaskOutsideSizes(const ArrayRef& array, absl::Span<const int64_t> sizes,
                       const uint8_t* fill) {
  const Shape& s = *array.shape;
  const int64_t bytes = ElementBytes(s.element_type);
  Bytes out(array.data, array.data + DenseBytes(s));
  if (sizes.empty()) return out;
  const std::vector<int64_t> strides = PhysicalStrides(s);
  ForEachIndex(s.dims, [&](const std::vector<int64_t>& index) {
    for (size_t k = 0; k < index.size(); ++k) {
      if (index[k] >= sizes[k]) {
        std::memcpy(out.data() + OffsetOf(index, strides, bytes), fill, static_cast<size_t>(bytes));
        return;
      }
    }
  });
  return out;
}

Bytes CompactValid(const ArrayRef& array, absl::Span<const int64_t> sizes) {
  const Shape& s = *array.shape;
  const int64_t bytes = ElementBytes(s.element_type);
  int64_t count = 1;
  for (int64_t d : sizes) count *= d;
  Bytes out(static_cast<size_t>(count * bytes));
  const std::vector<int64_t> strides = PhysicalStrides(s);
  uint8_t* dst = out.data();
  ForEachIndex(sizes, [&](const std::vector<int64_t>& index) {
    std::memcpy(dst, array.data + OffsetOf(index, strides, bytes), static_cast<size_t>(bytes));
    dst += bytes;
  });
  return out;
}

Bytes ExpandValid(const Shape& shape, const uint8_t* compact, absl::Span<const int64_t> sizes) {
  const int64_t bytes = ElementBytes(shape.element_type);
  Bytes out(static_cast<size_t>(DenseBytes(shape)), 0);
  const std::vector<int64_t> strides = PhysicalStrides(shape);
  const uint8_t* src = compact;
  ForEachIndex(sizes, [&](const std::vector<int64_t>& index) {
    std::memcpy(out.data() + OffsetOf(index, strides, bytes), src, static_cast<size_t>(bytes));
    src += bytes;
  });
  return out;
}

DynamicSizes ReduceResultSizes(absl::Span<const int64_t> operand_sizes,
                               absl::Span<const int64_t> reduced) {
  DynamicSizes out;
  for (size_t i = 0; i < operand_sizes.size(); ++i) {
    bool gone = false;
    for (int64_t r : reduced) gone |= r == static_cast<int64_t>(i);
    if (!gone) out.push_back(operand_sizes[i]);
  }
  return out;
}

DynamicSizes DotResultSizes(const Instruction& dot, absl::Span<const int64_t> lhs_sizes,
                            absl::Span<const int64_t> rhs_sizes) {
  const DotDimensionNumbers dn = ReadDotDimensionNumbers(dot);
  auto listed = [](const DotDimensionNumbers::DimList& a, const DotDimensionNumbers::DimList& b,
                   int64_t d) {
    for (int64_t x : a) {
      if (x == d) return true;
    }
    for (int64_t x : b) {
      if (x == d) return true;
    }
    return false;
  };
  DynamicSizes out;
  for (int64_t d : dn.lhs_batch) out.push_back(lhs_sizes[static_cast<size_t>(d)]);
  for (size_t i = 0; i < lhs_sizes.size(); ++i) {
    if (!listed(dn.lhs_batch, dn.lhs_contracting, static_cast<int64_t>(i)))
      out.push_back(lhs_sizes[i]);
  }
  for (size_t i = 0; i < rhs_sizes.size(); ++i) {
    if (!listed(dn.rhs_batch, dn.rhs_contracting, static_cast<int64_t>(i)))
      out.push_back(rhs_sizes[i]);
  }
  return out;
}

absl::StatusOr<DynamicSizes> ReshapeResultSizes(const Instruction& instr,
                                                absl::Span<const int64_t> operand_sizes) {
  const Shape& in = instr.operand(0)->shape();
  const Shape& out = instr.shape();
  DynamicSizes sizes(out.dims.begin(), out.dims.end());
  const std::optional<int64_t> inferred = IntAttribute(instr, "inferred_dimension");
  // Groups of operand and result dimensions whose bounds have equal products (the reshape
  // moves elements only within a group); each group's valid count lands on one result
  // dimension of the group: the one the result shape marks dynamic, else inferred_dimension
  // (as XLA's dynamic dimension inference does), else the group's only one.
  size_t i = 0, j = 0;
  while (i < in.dims.size() || j < out.dims.size()) {
    const size_t i0 = i, j0 = j;
    int64_t pin = 1, pout = 1;
    if (i < in.dims.size()) pin *= in.dims[i++];
    if (j < out.dims.size()) pout *= out.dims[j++];
    while (pin != pout) {
      if (pin < pout && i < in.dims.size()) {
        pin *= in.dims[i++];
      } else if (pout < pin && j < out.dims.size()) {
        pout *= out.dims[j++];
      } else {
        break;
      }
    }
    // Trailing size-1 dimensions join this group.
    while (i < in.dims.size() && in.dims[i] == 1 && (j == out.dims.size() || out.dims[j] != 1)) ++i;
    int64_t count = 1;
    for (size_t k = i0; k < i; ++k) count *= operand_sizes[k];
    if (count == pout) continue;
    std::vector<size_t> candidates;
    for (size_t k = j0; k < j; ++k) {
      if (IsDynamicDim(out, k)) candidates.push_back(k);
    }
    if (candidates.empty() && inferred.has_value() && *inferred >= static_cast<int64_t>(j0) &&
        *inferred < static_cast<int64_t>(j)) {
      candidates.push_back(static_cast<size_t>(*inferred));
    }
    if (candidates.empty() && j - j0 == 1) candidates.push_back(j0);
    if (candidates.size() != 1) {
      return RefuseBelowBound(instr, StrCat("no single result dimension of ", j0, "..", j - 1,
                                            " is named to take its valid size"));
    }
    const size_t d = candidates[0];
    const int64_t others = pout / out.dims[d];
    if (others == 0 || count % others != 0) {
      return absl::InvalidArgumentError(StrCat("cannot run %", instr.name(), ": reshape of ", count,
                                               " valid elements into ", out.ToString(false),
                                               " leaves no whole size for dimension ", d));
    }
    sizes[d] = count / others;
  }
  return sizes;
}

absl::StatusOr<DynamicResult> ConcatenateValid(const Instruction& instr,
                                               absl::Span<const ArrayRef> operands,
                                               absl::Span<const DynamicSizes> sizes) {
  const Shape& out = instr.shape();
  if (instr.dimensions().size() != 1 || instr.dimensions()[0] < 0 ||
      instr.dimensions()[0] >= out.rank()) {
    return absl::InvalidArgumentError(
        StrCat("cannot run %", instr.name(), ": concatenate needs one dimension of its result"));
  }
  const auto cat = static_cast<size_t>(instr.dimensions()[0]);
  DynamicResult r;
  r.sizes.assign(out.dims.begin(), out.dims.end());
  int64_t total = 0;
  std::vector<DynamicSizes> valid;
  for (size_t k = 0; k < operands.size(); ++k) {
    const Shape& s = *operands[k].shape;
    if (!s.IsArray() || s.rank() != out.rank() || s.element_type != out.element_type) {
      return absl::InvalidArgumentError(
          StrCat("cannot run %", instr.name(), ": concatenate operands do not fit the result"));
    }
    valid.push_back(SizesOrBound(s, sizes[k]));
    total += valid.back()[cat];
    for (size_t i = 0; i < out.dims.size(); ++i) {
      if (i != cat && valid.back()[i] < s.dims[i]) r.sizes[i] = valid.back()[i];
    }
  }
  if (total > out.dims[cat]) {
    return absl::InvalidArgumentError(
        StrCat("cannot run %", instr.name(), ": its operands' valid sizes along dimension ", cat,
               " add up to ", total, ", which does not fit the result ", out.ToString(false)));
  }
  r.sizes[cat] = total;
  const int64_t bytes = ElementBytes(out.element_type);
  r.bytes.assign(static_cast<size_t>(DenseBytes(out)), 0);
  const std::vector<int64_t> out_strides = PhysicalStrides(out);
  int64_t offset = 0;
  for (size_t k = 0; k < operands.size(); ++k) {
    const std::vector<int64_t> strides = PhysicalStrides(*operands[k].shape);
    DynamicSizes region = valid[k];
    for (size_t i = 0; i < region.size(); ++i) {
      if (i != cat) region[i] = std::min(region[i], r.sizes[i]);
    }
    ForEachIndex(region, [&](const std::vector<int64_t>& index) {
      std::vector<int64_t> at = index;
      at[cat] += offset;
      std::memcpy(r.bytes.data() + OffsetOf(at, out_strides, bytes),
                  operands[k].data + OffsetOf(index, strides, bytes), static_cast<size_t>(bytes));
    });
    offset += valid[k][cat];
  }
  return r;
}

absl::StatusOr<DynamicResult> ReverseValid(const Instruction& instr, const ArrayRef& operand,
                                           absl::Span<const int64_t> sizes) {
  const Shape& out = instr.shape();
  const Shape& in = *operand.shape;
  if (!in.IsArray() || in.dims != out.dims || in.element_type != out.element_type) {
    return absl::InvalidArgumentError(
        StrCat("cannot run %", instr.name(), ": reverse needs a result of its operand's shape"));
  }
  DynamicResult r;
  r.sizes = SizesOrBound(in, sizes);
  const int64_t bytes = ElementBytes(out.element_type);
  r.bytes.assign(static_cast<size_t>(DenseBytes(out)), 0);
  const std::vector<int64_t> in_strides = PhysicalStrides(in), out_strides = PhysicalStrides(out);
  // XLA's dynamic padder reverses the valid elements among themselves: element i of a
  // reversed dimension of size n goes to n-1-i, whatever the bound.
  ForEachIndex(r.sizes, [&](const std::vector<int64_t>& index) {
    std::vector<int64_t> at = index;
    for (int64_t d : instr.dimensions()) {
      if (d < 0 || d >= out.rank()) continue;
      const auto u = static_cast<size_t>(d);
      at[u] = r.sizes[u] - 1 - index[u];
    }
    std::memcpy(r.bytes.data() + OffsetOf(at, out_strides, bytes),
                operand.data + OffsetOf(index, in_strides, bytes), static_cast<size_t>(bytes));
  });
  return r;
}

absl::StatusOr<DynamicResult> PadValid(const Instruction& instr, const ArrayRef& operand,
                                       absl::Span<const int64_t> sizes, const ArrayRef& value) {
  const Shape& out = instr.shape();
  const Shape& in = *operand.shape;
  absl::StatusOr<std::vector<PadDim>> pads = PaddingAttribute(instr);
  if (!pads.ok()) return pads.status();
  if (!in.IsArray() || in.rank() != out.rank() || pads->size() != out.dims.size() ||
      in.element_type != out.element_type || value.shape->element_type != out.element_type) {
    return absl::InvalidArgumentError(
        StrCat("cannot run %", instr.name(),
               ": pad needs an operand, a padding value and a padding of the result's rank and "
               "element type"));
  }
  DynamicResult r;
  const DynamicSizes valid = SizesOrBound(in, sizes);
  for (size_t k = 0; k < valid.size(); ++k) {
    const PadDim& p = (*pads)[k];
    const int64_t n = valid[k];
    const int64_t size =
        std::max<int64_t>(0, p.low + p.high + n + (n > 0 ? (n - 1) * p.interior : 0));
    if (size > out.dims[k]) {
      return absl::InvalidArgumentError(StrCat("cannot run %", instr.name(), ": padding ", n,
                                               " valid elements gives ", size,
                                               ", more than the result's bound ", out.dims[k]));
    }
    r.sizes.push_back(size);
  }
  const int64_t bytes = ElementBytes(out.element_type);
  r.bytes.resize(static_cast<size_t>(DenseBytes(out)));
  for (size_t at = 0; at < r.bytes.size(); at += static_cast<size_t>(bytes))
    std::memcpy(r.bytes.data() + at, value.data, static_cast<size_t>(bytes));
  const std::vector<int64_t> in_strides = PhysicalStrides(in), out_strides = PhysicalStrides(out);
  ForEachIndex(valid, [&](const std::vector<int64_t>& index) {
    std::vector<int64_t> at(index.size());
    for (size_t k = 0; k < index.size(); ++k) {
      at[k] = (*pads)[k].low + index[k] * ((*pads)[k].interior + 1);
      if (at[k] < 0 || at[k] >= r.sizes[k]) return;
    }
    std::memcpy(r.bytes.data() + OffsetOf(at, out_strides, bytes),
                operand.data + OffsetOf(index, in_strides, bytes), static_cast<size_t>(bytes));
  });
  return r;
}

}  // namespace hloscope::eval
