#include "eval/collectives.h"

#include <cstring>
#include <string>

#include "absl/status/status.h"
#include "eval/element_io.h"
#include "eval/layout_util.h"
#include "hlo/attribute_values.h"
#include "hlo/str_util.h"

namespace hloscope::eval {
namespace {

absl::Status Refuse(const Instruction& instr, std::string_view why) {
  return absl::InvalidArgumentError(
      StrCat("cannot run %", instr.name(), " (", instr.PrintedOpcode(), "): ", why));
}

// Writes result[i] = operand[map(i)] for every logical index i of `to`, where map rewrites
// the index in place (same rank, same element type).
template <typename Map>
Bytes Gather(const Shape& from, const uint8_t* src, const Shape& to, Map map) {
  const int64_t size = ElementBytes(to.element_type);
  Bytes out(static_cast<size_t>(DenseBytes(to)), 0);
  const std::vector<int64_t> from_strides = PhysicalStrides(from);
  const std::vector<int64_t> to_strides = PhysicalStrides(to);
  std::vector<int64_t> source;
  ForEachIndex(to.dims, [&](const std::vector<int64_t>& index) {
    source = index;
    map(source);
    int64_t f = 0, t = 0;
    for (size_t d = 0; d < index.size(); ++d) {
      f += source[d] * from_strides[d];
      t += index[d] * to_strides[d];
    }
    std::memcpy(out.data() + t * size, src + f * size, static_cast<size_t>(size));
  });
  return out;
}

// to_apply folded over `copies` identical operands, in the operand's own physical order.
absl::StatusOr<Bytes> FoldCopies(const ArrayRef& x, int64_t copies,
                                 const ScalarComputation& apply) {
  const PrimitiveType type = x.shape->element_type;
  const int64_t size = ElementBytes(type);
  const int64_t n = DenseBytes(*x.shape) / size;
  Bytes out(x.data, x.data + DenseBytes(*x.shape));
  if (copies <= 1) return out;
  for (int64_t i = 0; i < n; ++i) {
    const Scalar v = LoadScalar(type, x.data + i * size);
    Scalar acc = v;
    for (int64_t g = 1; g < copies; ++g) {
      const Scalar args[2] = {acc, v};
      absl::StatusOr<std::vector<Scalar>> r = apply(args);
      if (!r.ok()) return r.status();
      acc = (*r)[0];
    }
    StoreScalar(type, out.data() + i * size, acc);
  }
  return out;
}

// The one dimension of `dimensions={d}` (all-gather, reduce-scatter, array all-to-all).
absl::StatusOr<size_t> OneDimension(const Instruction& instr, const Shape& operand) {
  absl::Span<const int64_t> dims = instr.dimensions();
  std::vector<int64_t> read;
  if (dims.empty()) {
    read = IntListAttribute(instr, "dimensions");
    dims = read;
  }
  if (dims.size() != 1 || dims[0] < 0 || dims[0] >= static_cast<int64_t>(operand.dims.size())) {
    return Refuse(instr, "needs one dimension within the operand's rank in dimensions={...}");
  }
  return static_cast<size_t>(dims[0]);
}

}  // namespace

int64_t GroupSizeOfReplicaZero(const Instruction& instr) {
  std::optional<std::string_view> text = RawAttribute(instr, "replica_groups");
  if (!text.has_value()) return 1;
  std::string_view t = *text;
  if (t.starts_with("[")) {
    // Iota form [groups,size]<=[...]: replica 0 is first in the first group.
    std::vector<int64_t> shape;
    AppendIntList(t.substr(0, t.find(']')), shape);
    return shape.size() >= 2 ? std::max<int64_t>(shape[1], 1) : 1;
  }
  // {{0,1},{2,3}}: the group that lists 0.
  size_t pos = 0;
  while ((pos = t.find('{', pos)) != std::string_view::npos) {
    const size_t close = t.find('}', pos);
    if (close == std::string_view::npos) break;
    std::string_view group = t.substr(pos + 1, close - pos - 1);
    if (group.find('{') == std::string_view::npos) {
      std::vector<int64_t> ids;
      AppendIntList(group, ids);
      if (std::find(ids.begin(), ids.end(), 0) != ids.end()) {
        return static_cast<int64_t>(ids.size());
      }
      pos = close + 1;
    } else {
      ++pos;
    }
  }
  return 1;
}

absl::StatusOr<std::vector<Bytes>> EvalCollective(const Instruction& instr, Opcode kind,
                                                  absl::Span<const ArrayRef> operands,
                                                  absl::Span<const Shape* const> results,
                                                  const ScalarComputation& apply) {
  if (results.size() != operands.size()) {
    return Refuse(instr,
                  StrCat("has ", operands.size(), " operands but ", results.size(), " results"));
  }
  std::vector<Bytes> out;
  for (size_t k = 0; k < operands.size(); ++k) {
    const ArrayRef& x = operands[k];
    const Shape& to = *results[k];
    if (x.shape == nullptr || !x.shape->IsArray() || !to.IsArray() ||
        x.shape->element_type != to.element_type || x.shape->dims.size() != to.dims.size()) {
      return Refuse(instr, "needs array operands of the results' element types and ranks");
    }
    switch (kind) {
      case Opcode::kAllReduce: {
        absl::StatusOr<Bytes> folded = FoldCopies(x, GroupSizeOfReplicaZero(instr), apply);
        if (!folded.ok()) return folded.status();
        Bytes b(static_cast<size_t>(DenseBytes(to)));
        Relayout(*x.shape, folded->data(), to, b.data());
        out.push_back(std::move(b));
        break;
      }
      case Opcode::kAllGather: {
        absl::StatusOr<size_t> d = OneDimension(instr, *x.shape);
        if (!d.ok()) return d.status();
        const int64_t in = x.shape->dims[*d];
        if (in == 0 || to.dims[*d] % in != 0) {
          return Refuse(instr, "the result's dimension is not a multiple of the operand's");
        }
        out.push_back(Gather(*x.shape, x.data, to, [&](std::vector<int64_t>& i) { i[*d] %= in; }));
        break;
      }
      case Opcode::kReduceScatter: {
        absl::StatusOr<size_t> d = OneDimension(instr, *x.shape);
        if (!d.ok()) return d.status();
        const int64_t block = to.dims[*d];
        if (block == 0 || x.shape->dims[*d] % block != 0) {
          return Refuse(instr, "the operand's dimension is not a multiple of the result's");
        }
        absl::StatusOr<Bytes> folded = FoldCopies(x, x.shape->dims[*d] / block, apply);
        if (!folded.ok()) return folded.status();
        out.push_back(Gather(*x.shape, folded->data(), to, [](std::vector<int64_t>&) {}));
        break;
      }
      case Opcode::kAllToAll: {
        if (operands.size() > 1) {  // tuple form: participant j's operand 0 for replica 0
          Bytes b(static_cast<size_t>(DenseBytes(to)));
          if (operands[0].shape->dims != to.dims ||
              operands[0].shape->element_type != to.element_type) {
            return Refuse(instr, "tuple form needs operands and results of one shape");
          }
          Relayout(*operands[0].shape, operands[0].data, to, b.data());
          out.push_back(std::move(b));
          break;
        }
        absl::StatusOr<size_t> d = OneDimension(instr, *x.shape);
        if (!d.ok()) return d.status();
        const int64_t groups = GroupSizeOfReplicaZero(instr);
        const int64_t n = x.shape->dims[*d];
        if (n % groups != 0 || to.dims != x.shape->dims) {
          return Refuse(instr, "the split dimension does not divide into the group");
        }
        const int64_t block = n / groups;
        out.push_back(Gather(*x.shape, x.data, to, [&](std::vector<int64_t>& i) {
          if (block > 0) i[*d] %= block;
        }));
        break;
      }
      case Opcode::kCollectivePermute: {
        bool receives = false;
        std::vector<int64_t> pairs = IntListAttribute(instr, "source_target_pairs");
        for (size_t i = 1; i < pairs.size(); i += 2) receives |= pairs[i] == 0;
        Bytes b(static_cast<size_t>(DenseBytes(to)), 0);
        if (receives) {
          if (x.shape->dims != to.dims) {
            return Refuse(instr, "the operand and result shapes differ");
          }
          Relayout(*x.shape, x.data, to, b.data());
        }
        out.push_back(std::move(b));
        break;
      }
      default:
        return Refuse(instr, "is not a collective hlo-run knows");
    }
  }
  return out;
}

}  // namespace hloscope::eval
