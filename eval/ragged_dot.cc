// ragged-dot(lhs, rhs, group_sizes): a dot whose lhs is cut along one dimension
// (lhs_ragged_dims) into consecutive groups of group_sizes[g] elements, as XLA and StableHLO
// define it. Three modes, by what kind of lhs dimension is ragged:
//   - non-contracting: rhs has a group dimension (rhs_group_dims); lhs row m of group g is
//     multiplied with rhs group g. Rows past the last group give 0. Result: batch, lhs free,
//     rhs free (without the group dimension) dimensions, as dot.
//   - contracting: the contraction is split by group; result [G, batch, lhs free, rhs free],
//     entry g summing only over the contracted positions in group g.
//   - batch: a plain dot, but batches past the last group give 0 (XLA's evaluator,
//     HandleRaggedDotBatchModeWithLiterals since ee9909a2d6; its RaggedDotBatchMode* tests).
// group_sizes is [G], or [b..., x..., G] (a set of groups for each index of those dims), as
// XLA's shape inference requires (InferRaggedDotOpShape in xla/service/shape_inference.cc at
// openxla/xla 2c731115): b... are the lhs batch dims (in batch mode only those before the
// ragged one), x... the lhs dims of the ragged one's kind before it: free dims in
// non-contracting mode, contracting dims (in lhs_contracting_dims order) in contracting mode,
// none in batch mode. A group's extent
// is clipped to the ragged dimension. Products are summed in the accumulator type dot uses (f64 for
// f64, float for narrower floats, 64-bit wrapping for integers).
#include <algorithm>
#include <vector>

#include "absl/status/status.h"
#include "eval/element_io.h"
#include "eval/kernels.h"
#include "eval/layout_util.h"
#include "hlo/attribute_values.h"
#include "support/str_util.h"

namespace hloscope::eval {
namespace {

bool Has(absl::Span<const int64_t> v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

template <typename Acc>
absl::StatusOr<Bytes> RaggedDotWith(const Instruction& instr, absl::Span<const ArrayRef> ops) {
  const DotDimensionNumbers dn = ReadDotDimensionNumbers(instr);
  const Shape& ls = *ops[0].shape;
  const Shape& rs = *ops[1].shape;
  const Shape& gs = *ops[2].shape;
  const Shape& out = instr.shape();
  auto refuse = [&](std::string_view why) {
    return absl::InvalidArgumentError(StrCat("cannot run %", instr.name(), ": ragged-dot ", why));
  };
  if (dn.lhs_ragged.size() != 1 || dn.lhs_batch.size() != dn.rhs_batch.size() ||
      dn.lhs_contracting.size() != dn.rhs_contracting.size() || gs.rank() < 1) {
    return refuse("needs one ragged lhs dimension and matching batch and contracting dimensions");
  }
  const int64_t ragged = dn.lhs_ragged[0];
  enum {
    kNonContracting,
    kContracting,
    kBatch
  } mode = Has(dn.lhs_contracting, ragged) ? kContracting
           : Has(dn.lhs_batch, ragged)     ? kBatch
                                           : kNonContracting;
  if ((mode == kNonContracting) != (dn.rhs_group.size() == 1)) {
    return refuse("has a rhs group dimension exactly when an lhs non-contracting dim is ragged");
  }
  const int64_t group_dim = dn.rhs_group.empty() ? -1 : dn.rhs_group[0];
  std::vector<int64_t> lf, rf;
  for (int64_t d = 0; d < ls.rank(); ++d)
    if (!Has(dn.lhs_batch, d) && !Has(dn.lhs_contracting, d)) lf.push_back(d);
  for (int64_t d = 0; d < rs.rank(); ++d)
    if (!Has(dn.rhs_batch, d) && !Has(dn.rhs_contracting, d) && d != group_dim) rf.push_back(d);
  const int64_t G = gs.dims.back();
  // With more than one dimension, group_sizes has a set of groups for each index of the
  // prefix dims (the header's b... and x...).
  std::vector<int64_t> prefix;
  if (gs.rank() > 1) {
    auto before_ragged = [&](absl::Span<const int64_t> dims) {
      for (int64_t d : dims) {
        if (d == ragged) break;
        prefix.push_back(d);
      }
    };
    if (mode == kBatch) {
      before_ragged(dn.lhs_batch);
    } else {
      prefix.assign(dn.lhs_batch.begin(), dn.lhs_batch.end());
      before_ragged(mode == kContracting ? absl::Span<const int64_t>(dn.lhs_contracting)
                                         : absl::Span<const int64_t>(lf));
    }
    bool fits = static_cast<size_t>(gs.rank() - 1) == prefix.size();
    for (size_t i = 0; fits && i < prefix.size(); ++i)
      fits = gs.dims[i] == ls.dims[static_cast<size_t>(prefix[i])];
    if (!fits) {
      return refuse(StrCat("group_sizes ", gs.ToString(false), " must be [G] or [",
                           mode == kBatch ? "the lhs batch dims before the ragged one"
                           : mode == kContracting
                               ? "the lhs batch dims..., the lhs contracting dims before the "
                                 "ragged one"
                               : "the lhs batch dims..., the lhs free dims before the ragged one",
                           "..., G]"));
    }
  }
  // In contracting mode the groups may differ between contracted positions (a contracting
  // dim in the prefix): they are then found for each one.
  bool groups_per_contraction = false;
  for (int64_t d : prefix) groups_per_contraction |= Has(dn.lhs_contracting, d);
  std::vector<int64_t> want;
  if (mode == kContracting) want.push_back(G);
  for (int64_t d : dn.lhs_batch) want.push_back(ls.dims[static_cast<size_t>(d)]);
  for (int64_t d : lf) want.push_back(ls.dims[static_cast<size_t>(d)]);
  for (int64_t d : rf) want.push_back(rs.dims[static_cast<size_t>(d)]);
  bool ok = std::vector<int64_t>(out.dims.begin(), out.dims.end()) == want;
  for (size_t i = 0; ok && i < dn.lhs_batch.size(); ++i) {
    ok = ls.dims[static_cast<size_t>(dn.lhs_batch[i])] ==
         rs.dims[static_cast<size_t>(dn.rhs_batch[i])];
  }
  for (size_t i = 0; ok && i < dn.lhs_contracting.size(); ++i) {
    ok = ls.dims[static_cast<size_t>(dn.lhs_contracting[i])] ==
         rs.dims[static_cast<size_t>(dn.rhs_contracting[i])];
  }
  if (ok && group_dim >= 0) ok = rs.dims[static_cast<size_t>(group_dim)] == G;
  if (!ok) return refuse("dimension numbers do not fit the shapes");

  const std::vector<int64_t> lstr = PhysicalStrides(ls), rstr = PhysicalStrides(rs),
                             gstr = PhysicalStrides(gs);
  const int leb = ElementBytes(ls.element_type), reb = ElementBytes(rs.element_type),
            geb = ElementBytes(gs.element_type), oeb = ElementBytes(out.element_type);
  std::vector<int64_t> kdims;
  for (int64_t d : dn.lhs_contracting) kdims.push_back(ls.dims[static_cast<size_t>(d)]);
  // The [start, end) of each group along the ragged dimension, for the lhs index `at`.
  const int64_t extent = ls.dims[static_cast<size_t>(ragged)];
  auto groups = [&](const std::vector<int64_t>& at) {
    std::vector<std::pair<int64_t, int64_t>> r;
    int64_t off = 0;
    for (size_t i = 0; i < prefix.size(); ++i) off += at[static_cast<size_t>(prefix[i])] * gstr[i];
    int64_t start = 0;
    for (int64_t g = 0; g < G; ++g) {
      int64_t size = LoadInt(gs.element_type, ops[2].data + (off + g * gstr.back()) * geb);
      int64_t end = std::clamp<int64_t>(start + std::max<int64_t>(size, 0), 0, extent);
      r.emplace_back(start, end);
      start = end;
    }
    return r;
  };
  Bytes result(static_cast<size_t>(out.ElementCount() * oeb));
  std::vector<int64_t> lidx(static_cast<size_t>(ls.rank())), ridx(static_cast<size_t>(rs.rank()));
  int64_t linear = 0;
  ForEachIndex(want, [&](const std::vector<int64_t>& o) {
    size_t p = 0;
    int64_t g = -1;
    if (mode == kContracting) g = o[p++];
    for (size_t i = 0; i < dn.lhs_batch.size(); ++i, ++p) {
      lidx[static_cast<size_t>(dn.lhs_batch[i])] = o[p];
      ridx[static_cast<size_t>(dn.rhs_batch[i])] = o[p];
    }
    for (int64_t d : lf) lidx[static_cast<size_t>(d)] = o[p++];
    for (int64_t d : rf) ridx[static_cast<size_t>(d)] = o[p++];
    const std::vector<std::pair<int64_t, int64_t>> bounds = groups(lidx);
    bool zero = false;
    if (mode == kNonContracting) {
      const int64_t m = lidx[static_cast<size_t>(ragged)];
      g = -1;
      for (int64_t k = 0; k < G; ++k)
        if (m >= bounds[static_cast<size_t>(k)].first && m < bounds[static_cast<size_t>(k)].second)
          g = k;
      if (g < 0)
        zero = true;
      else
        ridx[static_cast<size_t>(group_dim)] = g;
    } else if (mode == kBatch) {
      zero = bounds.empty() || lidx[static_cast<size_t>(ragged)] >= bounds.back().second;
    }
    Acc acc{0};
    if (!zero) {
      ForEachIndex(kdims, [&](const std::vector<int64_t>& k) {
        for (size_t i = 0; i < k.size(); ++i) {
          lidx[static_cast<size_t>(dn.lhs_contracting[i])] = k[i];
          ridx[static_cast<size_t>(dn.rhs_contracting[i])] = k[i];
        }
        if (mode == kContracting) {
          const int64_t at = lidx[static_cast<size_t>(ragged)];
          const auto b = groups_per_contraction ? groups(lidx)[static_cast<size_t>(g)]
                                                : bounds[static_cast<size_t>(g)];
          if (at < b.first || at >= b.second) return;
        }
        int64_t lo = 0, ro = 0;
        for (size_t d = 0; d < lidx.size(); ++d) lo += lidx[d] * lstr[d];
        for (size_t d = 0; d < ridx.size(); ++d) ro += ridx[d] * rstr[d];
        const Acc a = LoadAs<Acc>(ls.element_type, ops[0].data + lo * leb);
        const Acc b = LoadAs<Acc>(rs.element_type, ops[1].data + ro * reb);
        if constexpr (std::is_same_v<Acc, int64_t>) {
          acc = static_cast<int64_t>(static_cast<uint64_t>(acc) +
                                     static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
        } else {
          acc += a * b;
        }
      });
    }
    uint8_t* dst = result.data() + linear++ * oeb;
    if constexpr (std::is_same_v<Acc, int64_t>) {
      StoreInt(out.element_type, dst, acc);
    } else {
      StoreDouble(out.element_type, dst, static_cast<double>(acc));
    }
  });
  return ToPhysical(out, std::move(result));
}

}  // namespace

absl::StatusOr<Bytes> EvalRaggedDot(const Instruction& instr, absl::Span<const ArrayRef> operands) {
  if (operands.size() != 3) {
    return absl::InvalidArgumentError(
        StrCat("cannot run %", instr.name(), ": ragged-dot needs lhs, rhs and group_sizes"));
  }
  const PrimitiveType t = instr.shape().element_type;
  if (t == PrimitiveType::kF64) return RaggedDotWith<double>(instr, operands);
  if (IsFloatType(t)) return RaggedDotWith<float>(instr, operands);
  return RaggedDotWith<int64_t>(instr, operands);
}

}  // namespace hloscope::eval
