// Step 3 of the verifier, continued: gather. Its dimension numbers are kept as attribute text
// (offset_dims, collapsed_slice_dims, start_index_map, index_vector_dim, slice_sizes, and the
// batching dims of newer HLO), so this rule reads them, checks them against the operand and
// start-index shapes, and compares the result with the shape they describe:
//  - the start indices without index_vector_dim give the batch dimensions of the result, in
//    order, at the positions that are not offset_dims;
//  - the slice sizes of the operand dimensions that are neither collapsed nor batching give
//    the offset dimensions, in order, at offset_dims.
// A gather written without slice_sizes (the attribute names of 2018's HLO) is not checked, nor
// is whether start_index_map names a batching dimension (XLA's own simplifier tests do).
#include <algorithm>
#include <cstdint>
#include <string>

#include "hlo/attribute_values.h"
#include "hlo/verifier_internal.h"
#include "support/str_util.h"

namespace hloscope::verifier_internal {
namespace {

struct GatherDims {
  Dims offset_dims, collapsed, start_index_map, slice_sizes, operand_batching, indices_batching;
  bool has_slice_sizes = false;
  bool has_index_vector_dim = false;
  int64_t index_vector_dim = 0;
};

// One pass over the attributes (a lookup by name is a scan of them).
GatherDims ReadGatherDims(const Instruction& instr) {
  GatherDims g;
  const Module& module = *instr.module();
  for (const Attribute& a : instr.attributes()) {
    if (a.key < kAttrFirstUnknown) continue;
    const std::string_view key = module.AttrKeyName(a.key);
    if (key == "index_vector_dim") {
      Dims v;
      AppendIntList(a.value, v);
      g.has_index_vector_dim = v.size() == 1;
      if (g.has_index_vector_dim) g.index_vector_dim = v[0];
      continue;
    }
    g.has_slice_sizes = g.has_slice_sizes || key == "slice_sizes";
    Dims* list = key == "offset_dims"                   ? &g.offset_dims
                 : key == "collapsed_slice_dims"        ? &g.collapsed
                 : key == "start_index_map"             ? &g.start_index_map
                 : key == "slice_sizes"                 ? &g.slice_sizes
                 : key == "operand_batching_dims"       ? &g.operand_batching
                 : key == "start_indices_batching_dims" ? &g.indices_batching
                                                        : nullptr;
    if (list != nullptr && list->empty()) AppendIntList(a.value, *list);
  }
  return g;
}

// Distinct dimensions below `rank`, in increasing order when `sorted`.
bool ValidDimList(absl::Span<const int64_t> dims, int64_t rank, bool sorted) {
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0 || dims[i] >= rank) return false;
    if (sorted && i > 0 && dims[i] <= dims[i - 1]) return false;
    for (size_t j = 0; !sorted && j < i; ++j) {
      if (dims[j] == dims[i]) return false;
    }
  }
  return true;
}

absl::Status BadDimList(const Instruction& instr, std::string_view key,
                        absl::Span<const int64_t> dims, std::string_view what, const Shape& s) {
  return InstrError(instr, StrCat("gather ", DimsAttr(key, dims), " is not a list of ", what,
                                  " dimensions of shape ", ShapeText(s)));
}

}  // namespace

absl::Status CheckGather(const Instruction& instr, const VerifierOptions& options) {
  if (absl::Status s = RequireArrays(instr); !s.ok()) return s;
  const GatherDims g = ReadGatherDims(instr);
  if (!g.has_slice_sizes) return absl::OkStatus();
  const Shape& operand = instr.operand(0)->shape();
  const Shape& indices = instr.operand(1)->shape();
  const PrimitiveTypeInfo& index_type = GetPrimitiveTypeInfo(indices.element_type);
  if (!index_type.is_signed_int && !index_type.is_unsigned_int) {
    return InstrError(instr, StrCat("gather start indices ", OperandRef(instr, 1), " shape ",
                                    ShapeText(indices), " are not integers"));
  }
  // index_vector_dim may be one past the last dimension: each index is then a single number.
  const int64_t ivd = g.has_index_vector_dim ? g.index_vector_dim : indices.rank();
  if (ivd < 0 || ivd > indices.rank()) {
    return InstrError(
        instr, StrCat("gather index_vector_dim=", ivd, " is out of range for start indices shape ",
                      ShapeText(indices)));
  }
  const int64_t index_size = ivd == indices.rank() ? 1 : indices.dims[ivd];
  if (static_cast<int64_t>(g.slice_sizes.size()) != operand.rank()) {
    return InstrError(instr,
                      StrCat("gather ", DimsAttr("slice_sizes", g.slice_sizes), " has ",
                             Count(static_cast<int64_t>(g.slice_sizes.size()), "size", "sizes"),
                             " for operand shape ", ShapeText(operand)));
  }
  for (int64_t d = 0; d < operand.rank(); ++d) {
    const int64_t size = g.slice_sizes[d];
    if (size < 0 || (operand.dims[d] != Shape::kUnboundedSize && size > operand.dims[d])) {
      return InstrError(instr, StrCat("gather slice size ", size, " of dimension ", d,
                                      " does not fit operand shape ", ShapeText(operand)));
    }
  }
  if (!ValidDimList(g.start_index_map, operand.rank(), /*sorted=*/false)) {
    return BadDimList(instr, "start_index_map", g.start_index_map, "distinct operand", operand);
  }
  if (!SizesAgree(index_size, static_cast<int64_t>(g.start_index_map.size()))) {
    return InstrError(
        instr, StrCat("gather ", DimsAttr("start_index_map", g.start_index_map), " has ",
                      Count(static_cast<int64_t>(g.start_index_map.size()), "entry", "entries"),
                      ", but each index vector of start indices shape ", ShapeText(indices),
                      " has ", index_size));
  }
  if (!ValidDimList(g.collapsed, operand.rank(), /*sorted=*/true)) {
    return BadDimList(instr, "collapsed_slice_dims", g.collapsed, "sorted distinct operand",
                      operand);
  }
  if (!ValidDimList(g.operand_batching, operand.rank(), /*sorted=*/true)) {
    return BadDimList(instr, "operand_batching_dims", g.operand_batching, "sorted distinct operand",
                      operand);
  }
  for (int64_t d : g.indices_batching) {
    if (d == ivd) {
      return InstrError(
          instr, StrCat("gather ", DimsAttr("start_indices_batching_dims", g.indices_batching),
                        " names index_vector_dim=", ivd));
    }
  }
  if (!ValidDimList(g.indices_batching, indices.rank(), /*sorted=*/false)) {
    return BadDimList(instr, "start_indices_batching_dims", g.indices_batching,
                      "distinct start indices", indices);
  }
  if (g.operand_batching.size() != g.indices_batching.size()) {
    return InstrError(
        instr, StrCat("gather has ",
                      Count(static_cast<int64_t>(g.operand_batching.size()),
                            "operand batching dimension", "operand batching dimensions"),
                      " but ", g.indices_batching.size(), " start indices batching dimensions"));
  }
  for (int64_t d : g.operand_batching) {
    if (Contains(g.collapsed, d)) {
      return InstrError(instr, StrCat("gather operand dimension ", d,
                                      " is both collapsed and a batching dimension"));
    }
  }
  // Collapsed and batching dimensions leave the result, so their slices hold one element.
  for (const Dims* removed : {&g.collapsed, &g.operand_batching}) {
    for (int64_t d : *removed) {
      if (g.slice_sizes[d] > 1) {
        return InstrError(instr, StrCat("gather removes operand dimension ", d,
                                        " from the result, but its slice size is ",
                                        g.slice_sizes[d], ", not 0 or 1"));
      }
    }
  }
  const int64_t kept = operand.rank() - static_cast<int64_t>(g.collapsed.size()) -
                       static_cast<int64_t>(g.operand_batching.size());
  if (static_cast<int64_t>(g.offset_dims.size()) != kept) {
    return InstrError(
        instr, StrCat("gather ", DimsAttr("offset_dims", g.offset_dims), " has ",
                      Count(static_cast<int64_t>(g.offset_dims.size()), "dimension", "dimensions"),
                      ", but operand shape ", ShapeText(operand), " keeps ", kept,
                      " after collapsed and batching dimensions"));
  }
  const int64_t batch_rank = indices.rank() - (ivd < indices.rank() ? 1 : 0);
  const int64_t out_rank = kept + batch_rank;
  if (!ValidDimList(g.offset_dims, out_rank, /*sorted=*/true)) {
    return InstrError(instr, StrCat("gather ", DimsAttr("offset_dims", g.offset_dims),
                                    " is not a sorted list of distinct dimensions below the "
                                    "result rank ",
                                    out_rank));
  }
  Dims dims;
  int64_t next_window = 0;  // operand dimension
  int64_t next_batch = 0;   // start indices dimension
  for (int64_t d = 0; d < out_rank; ++d) {
    if (Contains(g.offset_dims, d)) {
      while (Contains(g.collapsed, next_window) || Contains(g.operand_batching, next_window)) {
        ++next_window;
      }
      dims.push_back(g.slice_sizes[next_window++]);
    } else {
      if (next_batch == ivd) ++next_batch;
      dims.push_back(indices.dims[next_batch++]);
    }
  }
  if (!DimsAre(instr.shape(), dims) ||
      !TypesAgree(instr.shape().element_type, operand.element_type, options)) {
    return ResultMismatch(instr, ExpectedArray(operand.element_type, dims),
                          "start indices' batch dimensions, and slice sizes at offset_dims");
  }
  return absl::OkStatus();
}

}  // namespace hloscope::verifier_internal
