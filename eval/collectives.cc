#include "eval/collectives.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <string>

#include "absl/status/status.h"
#include "eval/element_io.h"
#include "eval/layout_util.h"
#include "hlo/attribute_values.h"
#include "support/str_util.h"

namespace hloscope::eval {
namespace {

absl::Status Refuse(const Instruction& instr, std::string_view why) {
  return absl::InvalidArgumentError(
      StrCat("cannot run %", instr.name(), " (", instr.PrintedOpcode(), "): ", why));
}

// Writes result[i] = source(i)[map(i)] for every logical index i of `to`: `map` rewrites the
// index in place and returns which participant's array to read (same rank and element type).
template <typename Map>
Bytes Assemble(absl::Span<const ArrayRef> sources, const Shape& to, Map map) {
  const int64_t size = ElementBytes(to.element_type);
  Bytes out(static_cast<size_t>(DenseBytes(to)), 0);
  std::vector<std::vector<int64_t>> strides;
  for (const ArrayRef& s : sources) strides.push_back(PhysicalStrides(*s.shape));
  const std::vector<int64_t> to_strides = PhysicalStrides(to);
  std::vector<int64_t> source;
  ForEachIndex(to.dims, [&](const std::vector<int64_t>& index) {
    source = index;
    const size_t p = map(source);
    int64_t f = 0, t = 0;
    for (size_t d = 0; d < index.size(); ++d) {
      f += source[d] * strides[p][d];
      t += index[d] * to_strides[d];
    }
    std::memcpy(out.data() + t * size, sources[p].data + f * size, static_cast<size_t>(size));
  });
  return out;
}

// to_apply folded over the participants' arrays, in group order, in the physical order of the
// first one's shape.
absl::StatusOr<Bytes> Fold(absl::Span<const ArrayRef> parts, const ScalarComputation& apply) {
  const Shape& shape = *parts[0].shape;
  const PrimitiveType type = shape.element_type;
  const int64_t size = ElementBytes(type);
  const int64_t n = DenseBytes(shape) / std::max<int64_t>(size, 1);
  std::vector<Bytes> relaid;  // the others in the first one's layout
  for (size_t p = 1; p < parts.size(); ++p) {
    Bytes b(static_cast<size_t>(DenseBytes(shape)));
    Relayout(*parts[p].shape, parts[p].data, shape, b.data());
    relaid.push_back(std::move(b));
  }
  Bytes out(parts[0].data, parts[0].data + DenseBytes(shape));
  if (parts.size() == 1) return out;
  for (int64_t i = 0; i < n; ++i) {
    Scalar acc = LoadScalar(type, parts[0].data + i * size);
    for (const Bytes& other : relaid) {
      const Scalar args[2] = {acc, LoadScalar(type, other.data() + i * size)};
      absl::StatusOr<std::vector<Scalar>> r = apply(args);
      if (!r.ok()) return r.status();
      acc = (*r)[0];
    }
    StoreScalar(type, out.data() + i * size, acc);
  }
  return out;
}

// Whether all-to-all has its split dimension (`dimensions={d}`): the array form.
bool HasSplitDimension(const Instruction& instr) {
  return !instr.dimensions().empty() || !IntListAttribute(instr, "dimensions").empty();
}

// The one dimension of `dimensions={d}` (all-gather, reduce-scatter, array all-to-all).
absl::StatusOr<size_t> OneDimension(const Instruction& instr, const Shape& operand) {
  std::vector<int64_t> dims(instr.dimensions().begin(), instr.dimensions().end());
  if (dims.empty()) dims = IntListAttribute(instr, "dimensions");
  if (dims.size() != 1 || dims[0] < 0 || dims[0] >= operand.rank()) {
    return Refuse(instr, "needs one dimension within the operand's rank in dimensions={...}");
  }
  return static_cast<size_t>(dims[0]);
}

// replica_groups as lists of replica ids; empty when absent or `{}`.
absl::StatusOr<std::vector<std::vector<int64_t>>> ReadGroups(const Instruction& instr) {
  std::vector<std::vector<int64_t>> groups;
  std::optional<std::string_view> text = RawAttribute(instr, "replica_groups");
  if (!text.has_value()) return groups;
  std::string_view t = *text;
  if (t.starts_with("[")) {  // iota form [groups,size]<=[dims...] optionally T(perm...)
    const size_t lte = t.find("<=");
    std::vector<int64_t> shape, dims, perm;
    AppendIntList(t.substr(0, lte), shape);
    if (lte == std::string_view::npos || shape.size() != 2) {
      return Refuse(instr, "replica_groups in iota form needs [groups,size]<=[dims]");
    }
    std::string_view rest = t.substr(lte + 2);
    const size_t tpos = rest.find('T');
    AppendIntList(rest.substr(0, tpos), dims);
    if (tpos != std::string_view::npos) AppendIntList(rest.substr(tpos), perm);
    if (perm.empty()) {
      perm.resize(dims.size());
      std::iota(perm.begin(), perm.end(), 0);
    }
    const int64_t total =
        std::accumulate(dims.begin(), dims.end(), int64_t{1}, std::multiplies<int64_t>());
    if (perm.size() != dims.size() || total != shape[0] * shape[1] ||
        !IsPermutation(perm, static_cast<int64_t>(dims.size()))) {
      return Refuse(instr, "replica_groups in iota form does not fit its dimensions");
    }
    // The iota over `dims`, transposed by `perm`, read in row-major order.
    std::vector<int64_t> tdims;
    for (int64_t p : perm) tdims.push_back(dims[static_cast<size_t>(p)]);
    const std::vector<int64_t> strides = RowMajorStrides(dims);
    std::vector<int64_t> flat;
    ForEachIndex(tdims, [&](const std::vector<int64_t>& index) {
      int64_t v = 0;
      for (size_t k = 0; k < index.size(); ++k) {
        v += index[k] * strides[static_cast<size_t>(perm[k])];
      }
      flat.push_back(v);
    });
    for (int64_t g = 0; g < shape[0]; ++g) {
      groups.emplace_back(flat.begin() + g * shape[1], flat.begin() + (g + 1) * shape[1]);
    }
    return groups;
  }
  size_t pos = 0;
  while ((pos = t.find('{', pos)) != std::string_view::npos) {
    const size_t close = t.find('}', pos);
    if (close == std::string_view::npos) break;
    std::string_view group = t.substr(pos + 1, close - pos - 1);
    if (group.find('{') != std::string_view::npos) {
      ++pos;
      continue;
    }
    std::vector<int64_t> ids;
    AppendIntList(group, ids);
    if (!ids.empty()) groups.push_back(std::move(ids));
    pos = close + 1;
  }
  return groups;
}

}  // namespace

absl::StatusOr<CollectiveGroup> GroupOf(const Instruction& instr, int64_t replica,
                                        int64_t replica_count) {
  absl::StatusOr<std::vector<std::vector<int64_t>>> groups = ReadGroups(instr);
  if (!groups.ok()) return groups.status();
  CollectiveGroup out;
  for (const std::vector<int64_t>& g : *groups) {
    auto it = std::find(g.begin(), g.end(), replica);
    if (it == g.end()) continue;
    out.replicas = g;
    out.me = static_cast<size_t>(it - g.begin());
    break;
  }
  if (out.replicas.empty() && replica_count == 0 && !groups->empty()) {
    // The single-replica model stands for any replica: one that is not 0 (groups that leave
    // replica 0 out) is the first member of the first group.
    out.replicas = groups->front();
    out.me = 0;
  }
  if (out.replicas.empty()) {
    if (!groups->empty()) {
      return Refuse(instr, StrCat("replica ", replica, " is in none of its replica_groups"));
    }
    out.replicas.resize(static_cast<size_t>(std::max<int64_t>(replica_count, 1)));
    std::iota(out.replicas.begin(), out.replicas.end(), 0);
    out.me = static_cast<size_t>(replica_count == 0 ? 0 : replica);
  }
  for (int64_t r : out.replicas) {
    if (replica_count > 0 && (r < 0 || r >= replica_count)) {
      return Refuse(instr, StrCat("replica_groups names replica ", r, " of ", replica_count));
    }
  }
  return out;
}

absl::StatusOr<CollectiveGroup> SingleReplicaGroup(const Instruction& instr, Opcode kind,
                                                   const Shape& operand, const Shape& result) {
  absl::StatusOr<CollectiveGroup> group = GroupOf(instr, 0, 0);
  if (!group.ok()) return group;
  if ((kind != Opcode::kAllGather && kind != Opcode::kReduceScatter) || !operand.IsArray() ||
      !result.IsArray() || operand.rank() != result.rank()) {
    return group;
  }
  absl::StatusOr<size_t> d = OneDimension(instr, operand);
  if (!d.ok()) return d.status();
  const int64_t small = kind == Opcode::kAllGather ? operand.dims[*d] : result.dims[*d];
  const int64_t large = kind == Opcode::kAllGather ? result.dims[*d] : operand.dims[*d];
  // The shapes decide: groups of replicas that also span partitions (channel_id without
  // global ids) gather over more participants than a replica group lists.
  const int64_t factor = small > 0 && large % small == 0 ? large / small : 0;
  if (factor > 0 && factor != static_cast<int64_t>(group->replicas.size())) {
    if (group->me >= static_cast<size_t>(factor)) group->me = 0;
    group->replicas.resize(static_cast<size_t>(factor));
    std::iota(group->replicas.begin(), group->replicas.end(), 0);
  }
  return group;
}

absl::StatusOr<std::vector<Bytes>> EvalCollective(const Instruction& instr, Opcode kind,
                                                  const CollectiveGroup& group,
                                                  absl::Span<const std::vector<ArrayRef>> operands,
                                                  absl::Span<const Shape* const> results,
                                                  const ScalarComputation& apply) {
  const size_t participants = operands.size();
  if (participants == 0 || participants != group.replicas.size() || group.me >= participants) {
    return Refuse(instr, "has no operands from its group's participants");
  }
  if (kind == Opcode::kRaggedAllToAll) return EvalRaggedAllToAll(instr, group, operands, results);
  const std::vector<ArrayRef>& mine = operands[group.me];
  if (results.size() != mine.size()) {
    // all-reduce-start returning (operands, results): the form XLA's MHLO import tests write;
    // XLA's verifier wants all-reduce's shape (InferAllReduceStartShape), so it is not run.
    if (instr.opcode() == Opcode::kAllReduceStart && results.size() == 2 * mine.size()) {
      return Refuse(instr, StrCat("returns (operands, results), the old form that XLA's verifier "
                                  "no longer accepts; it returns all-reduce's shape, ",
                                  mine.size() == 1 ? "the operand's" : "a tuple of the operands'"));
    }
    return Refuse(instr, StrCat("has ", mine.size(), " operands but ", results.size(), " results"));
  }
  std::vector<Bytes> out;
  for (size_t k = 0; k < mine.size(); ++k) {
    std::vector<ArrayRef> parts;  // operand k of every participant
    for (const std::vector<ArrayRef>& p : operands) {
      if (p.size() != mine.size()) return Refuse(instr, "participants differ in operand count");
      parts.push_back(p[k]);
    }
    const Shape& to = *results[k];
    for (const ArrayRef& x : parts) {
      if (x.shape == nullptr || !x.shape->IsArray() || !to.IsArray() ||
          x.shape->element_type != to.element_type || x.shape->rank() != to.rank() ||
          x.shape->dims != parts[0].shape->dims) {
        // Mixed precision (bf16 operands, f32 results) verifies, as in XLA, but what it would
        // reduce in is not defined anywhere, so it is not run.
        if (x.shape != nullptr && x.shape->IsArray() && to.IsArray() &&
            x.shape->element_type != to.element_type) {
          return Refuse(instr,
                        StrCat("operand ", k, " is ", x.shape->ToString(false), " but result ", k,
                               " is ", to.ToString(false), " (mixed precision is not run)"));
        }
        return Refuse(instr, "needs array operands of the results' element types and ranks");
      }
    }
    const Shape& in = *parts[0].shape;
    const int64_t g = static_cast<int64_t>(participants);
    const int64_t me = static_cast<int64_t>(group.me);
    switch (kind) {
      case Opcode::kAllReduce: {
        if (in.dims != to.dims) return Refuse(instr, "the operand and result shapes differ");
        absl::StatusOr<Bytes> folded = Fold(parts, apply);
        if (!folded.ok()) return folded.status();
        Bytes b(static_cast<size_t>(DenseBytes(to)));
        Relayout(in, folded->data(), to, b.data());
        out.push_back(std::move(b));
        break;
      }
      case Opcode::kAllGather: {
        absl::StatusOr<size_t> d = OneDimension(instr, in);
        if (!d.ok()) return d.status();
        const int64_t n = in.dims[*d];
        if (to.dims[*d] != n * g) {
          return Refuse(instr, StrCat("the result's dimension is not ", g,
                                      " times the operand's (the group's size)"));
        }
        out.push_back(Assemble(parts, to, [&](std::vector<int64_t>& i) {
          const int64_t p = i[*d] / n;
          i[*d] %= n;
          return static_cast<size_t>(p);
        }));
        break;
      }
      case Opcode::kReduceScatter: {
        absl::StatusOr<size_t> d = OneDimension(instr, in);
        if (!d.ok()) return d.status();
        const int64_t block = to.dims[*d];
        if (block * g != in.dims[*d]) {
          return Refuse(instr, StrCat("the operand's dimension is not ", g,
                                      " times the result's (the group's size)"));
        }
        absl::StatusOr<Bytes> folded = Fold(parts, apply);
        if (!folded.ok()) return folded.status();
        const ArrayRef whole{&in, folded->data()};
        out.push_back(Assemble(absl::MakeConstSpan(&whole, 1), to, [&](std::vector<int64_t>& i) {
          i[*d] += me * block;
          return size_t{0};
        }));
        break;
      }
      case Opcode::kAllToAll: {
        // Tuple form (no split dimension): output k is participant k's operand `me`. One
        // operand is that form too when there is no dimensions={...} (a 1-tuple result).
        if (mine.size() > 1 || !HasSplitDimension(instr)) {
          if (mine.size() != participants) {
            return Refuse(instr, StrCat("tuple form needs one operand per participant: it has ",
                                        mine.size(), " and its group has ", participants));
          }
          const ArrayRef& x = operands[k][group.me];
          if (x.shape->dims != to.dims || x.shape->element_type != to.element_type) {
            return Refuse(instr, "tuple form needs operands and results of one shape");
          }
          Bytes b(static_cast<size_t>(DenseBytes(to)));
          Relayout(*x.shape, x.data, to, b.data());
          out.push_back(std::move(b));
          break;
        }
        absl::StatusOr<size_t> d = OneDimension(instr, in);
        if (!d.ok()) return d.status();
        if (in.dims[*d] % g != 0 || to.dims != in.dims) {
          return Refuse(instr, "the split dimension does not divide into the group");
        }
        const int64_t block = in.dims[*d] / g;
        out.push_back(Assemble(parts, to, [&](std::vector<int64_t>& i) {
          const int64_t p = i[*d] / block;
          i[*d] = i[*d] % block + me * block;
          return static_cast<size_t>(p);
        }));
        break;
      }
      case Opcode::kCollectiveBroadcast: {  // the group's first participant's operand
        if (in.dims != to.dims) return Refuse(instr, "the operand and result shapes differ");
        Bytes b(static_cast<size_t>(DenseBytes(to)));
        Relayout(*parts[0].shape, parts[0].data, to, b.data());
        out.push_back(std::move(b));
        break;
      }
      case Opcode::kCollectivePermute: {
        const int64_t my_id = group.replicas[group.me];
        std::vector<int64_t> pairs = IntListAttribute(instr, "source_target_pairs");
        std::optional<size_t> from;
        for (size_t i = 0; i + 1 < pairs.size(); i += 2) {
          if (pairs[i + 1] != my_id) continue;
          auto it = std::find(group.replicas.begin(), group.replicas.end(), pairs[i]);
          // The single-replica model has only its own operands: every source holds them.
          from = it == group.replicas.end() ? group.me
                                            : static_cast<size_t>(it - group.replicas.begin());
          break;
        }
        Bytes b(static_cast<size_t>(DenseBytes(to)), 0);
        if (from.has_value()) {
          if (in.dims != to.dims) return Refuse(instr, "the operand and result shapes differ");
          Relayout(*parts[*from].shape, parts[*from].data, to, b.data());
        }
        out.push_back(std::move(b));
        break;
      }
      default:
        return Refuse(instr, "is not a collective the interpreter knows");
    }
  }
  return out;
}

}  // namespace hloscope::eval
