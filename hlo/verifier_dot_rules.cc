// Step 3 of the verifier, continued: the dot family. dot, ragged-dot and scaled-dot share their
// dimension numbers (`lhs_batch_dims`, `lhs_contracting_dims`, `rhs_batch_dims`,
// `rhs_contracting_dims`) and the order of their result: batch dimensions, then the lhs's free
// dimensions, then the rhs's. What each adds:
//  - ragged-dot(lhs, rhs, group_sizes): one lhs dimension (`lhs_ragged_dims`) is split into
//    groups whose sizes the third operand holds. Where that dimension sits picks the mode: a
//    free lhs dimension takes one rhs group dimension (`rhs_group_dims`, dropped from the
//    result); a contracting one puts the group count first in the result; a batch one changes
//    nothing in the shape. group_sizes is [..., groups], its leading sizes the lhs dimensions
//    that come before the ragged one (a rank-1 group_sizes stands for any of them).
//  - scaled-dot(lhs, rhs, lhs_scale, rhs_scale): each scale has its operand's rank, and every
//    dimension of the operand is a whole number of blocks of the scale's; the operand has one
//    contracting dimension. A bf16 scale of all ones beside a bf16 operand means "no scale",
//    as in XLA; the two scales may not both be scalars.
// As for dot, result element types are free (preferred_element_type), `?` sizes match any size,
// and group_sizes' element type is not checked (XLA does not either).
#include <algorithm>
#include <cstdint>
#include <string>

#include "hlo/attribute_values.h"
#include "hlo/shape_inference.h"
#include "hlo/verifier_internal.h"
#include "support/str_util.h"

namespace hloscope::verifier_internal {
namespace {

// Batch and contracting dimensions pair up with equal sizes, and no operand dimension is named
// twice among its own batch and contracting dimensions.
absl::Status CheckDimensionNumbers(const Instruction& instr, const DotDimensionNumbers& d) {
  const std::string op = instr.PrintedOpcode();
  const Shape& lhs = instr.operand(0)->shape();
  const Shape& rhs = instr.operand(1)->shape();
  auto check_pairs = [&](const Dims& l, const Dims& r, std::string_view kind) -> absl::Status {
    if (l.size() != r.size()) {
      return InstrError(instr, StrCat(op, " has ", l.size(), " lhs and ", r.size(), " rhs ", kind,
                                      " dimensions"));
    }
    for (size_t k = 0; k < l.size(); ++k) {
      if (l[k] < 0 || l[k] >= lhs.rank() || r[k] < 0 || r[k] >= rhs.rank()) {
        return InstrError(instr, StrCat(op, " ", kind, " dimension pair (", l[k], ", ", r[k],
                                        ") is out of range for operand shapes ", ShapeText(lhs),
                                        " and ", ShapeText(rhs)));
      }
      if (!SizesAgree(lhs.dims[l[k]], rhs.dims[r[k]])) {
        return InstrError(instr, StrCat(op, " ", kind, " dimension ", l[k], " of lhs shape ",
                                        ShapeText(lhs), " and dimension ", r[k], " of rhs shape ",
                                        ShapeText(rhs), " have different sizes"));
      }
    }
    return absl::OkStatus();
  };
  if (absl::Status s = check_pairs(d.lhs_batch, d.rhs_batch, "batch"); !s.ok()) return s;
  if (absl::Status s = check_pairs(d.lhs_contracting, d.rhs_contracting, "contracting"); !s.ok())
    return s;
  auto check_distinct = [&](const Dims& batch, const Dims& contracting,
                            std::string_view side) -> absl::Status {
    Dims seen;
    for (const Dims* list : {&batch, &contracting}) {
      for (int64_t x : *list) {
        if (Contains(seen, x)) {
          return InstrError(instr, StrCat(op, " names ", side, " dimension ", x,
                                          " more than once among its batch and contracting "
                                          "dimensions"));
        }
        seen.push_back(x);
      }
    }
    return absl::OkStatus();
  };
  if (absl::Status s = check_distinct(d.lhs_batch, d.lhs_contracting, "lhs"); !s.ok()) return s;
  return check_distinct(d.rhs_batch, d.rhs_contracting, "rhs");
}

constexpr std::string_view kDotOrder = "batch dimensions, then the free dimensions of lhs and rhs";

absl::Status CheckDot(const Instruction& instr, const VerifierOptions&) {
  if (absl::Status s = RequireArrays(instr); !s.ok()) return s;
  const DotDimensionNumbers d = ReadDotDimensionNumbers(instr);
  if (absl::Status s = CheckDimensionNumbers(instr, d); !s.ok()) return s;
  // CheckDimensionNumbers proved what InferDotShape requires. Its dynamic flags are left out of
  // the message's expected shape, as dynamic bounds are not compared.
  const PrimitiveType type = instr.shape().element_type;
  const Shape dot = InferDotShape(instr.operand(0)->shape(), instr.operand(1)->shape(), d, type);
  if (!DimsAre(instr.shape(), dot.dims)) {
    return ResultMismatch(instr, ExpectedArray(type, dot.dims), kDotOrder);
  }
  return absl::OkStatus();
}

// --- ragged-dot ----------------------------------------------------------------------------

enum class RaggedMode { kFree, kContracting, kBatch };

absl::Status CheckRaggedDot(const Instruction& instr, const VerifierOptions&) {
  if (absl::Status s = RequireArrays(instr); !s.ok()) return s;
  const DotDimensionNumbers d = ReadDotDimensionNumbers(instr);
  if (absl::Status s = CheckDimensionNumbers(instr, d); !s.ok()) return s;
  const Shape& lhs = instr.operand(0)->shape();
  const Shape& rhs = instr.operand(1)->shape();
  const Shape& sizes = instr.operand(2)->shape();
  if (d.lhs_ragged.size() != 1) {
    return InstrError(instr, StrCat("ragged-dot has ", DimsAttr("lhs_ragged_dims", d.lhs_ragged),
                                    "; it needs exactly one lhs ragged dimension"));
  }
  const int64_t ragged = d.lhs_ragged[0];
  if (ragged < 0 || ragged >= lhs.rank()) {
    return InstrError(instr, StrCat("ragged-dot lhs ragged dimension ", ragged,
                                    " is out of range for lhs shape ", ShapeText(lhs)));
  }
  const RaggedMode mode = Contains(d.lhs_batch, ragged)         ? RaggedMode::kBatch
                          : Contains(d.lhs_contracting, ragged) ? RaggedMode::kContracting
                                                                : RaggedMode::kFree;
  // The lhs dimensions group_sizes is indexed by, before its last (group) dimension.
  Dims prefix;
  std::string_view prefix_rule;
  switch (mode) {
    case RaggedMode::kBatch:
      for (int64_t x : d.lhs_batch) {
        if (x == ragged) break;
        prefix.push_back(x);
      }
      prefix_rule = "the batch dimensions listed before the ragged one";
      break;
    case RaggedMode::kContracting:
      prefix = d.lhs_batch;
      for (int64_t x : d.lhs_contracting) {
        if (x == ragged) break;
        prefix.push_back(x);
      }
      prefix_rule = "the batch dimensions, then the contracting ones listed before the ragged one";
      break;
    case RaggedMode::kFree:
      prefix = d.lhs_batch;
      for (int64_t i = 0; i < ragged; ++i) {
        if (!Contains(d.lhs_batch, i) && !Contains(d.lhs_contracting, i)) prefix.push_back(i);
      }
      prefix_rule = "the batch dimensions, then the free ones before the ragged one";
      break;
  }
  if (sizes.rank() == 0) {
    return InstrError(instr, StrCat("ragged-dot group sizes ", OperandRef(instr, 2), " shape ",
                                    ShapeText(sizes), " has no group dimension"));
  }
  // Rank 1 is [groups], the same sizes for every prefix index.
  if (sizes.rank() != 1) {
    bool ok = sizes.rank() == static_cast<int64_t>(prefix.size()) + 1;
    for (size_t k = 0; ok && k < prefix.size(); ++k) {
      ok = SizesAgree(sizes.dims[k], lhs.dims[prefix[k]]);
    }
    if (!ok) {
      return InstrError(instr,
                        StrCat("ragged-dot group sizes ", OperandRef(instr, 2), " shape ",
                               ShapeText(sizes), " is not the sizes of lhs dimensions {",
                               StrJoin(prefix, ","), "} of ", ShapeText(lhs), " (", prefix_rule,
                               ") followed by the group count, nor the group count alone"));
    }
  }
  const int64_t groups = sizes.dims.back();
  for (int64_t g : d.rhs_group) {
    if (g < 0 || g >= rhs.rank()) {
      return InstrError(instr, StrCat("ragged-dot rhs group dimension ", g,
                                      " is out of range for rhs shape ", ShapeText(rhs)));
    }
    if (Contains(d.rhs_batch, g) || Contains(d.rhs_contracting, g)) {
      return InstrError(instr, StrCat("ragged-dot rhs group dimension ", g,
                                      " is also a batch or contracting dimension of rhs"));
    }
  }
  if (mode == RaggedMode::kFree) {
    if (d.rhs_group.size() != 1) {
      return InstrError(instr, StrCat("ragged-dot has ", DimsAttr("rhs_group_dims", d.rhs_group),
                                      "; a free lhs ragged dimension (", ragged,
                                      ") needs exactly one rhs group dimension"));
    }
    const int64_t rhs_group = d.rhs_group[0];
    if (!SizesAgree(rhs.dims[rhs_group], groups)) {
      return InstrError(
          instr,
          StrCat("ragged-dot rhs group dimension ", rhs_group, " of rhs shape ", ShapeText(rhs),
                 " has size ", rhs.dims[rhs_group], ", but group sizes ", OperandRef(instr, 2),
                 " shape ", ShapeText(sizes), " counts ", groups, " groups"));
    }
  } else if (!d.rhs_group.empty()) {
    return InstrError(instr, StrCat("ragged-dot has ", DimsAttr("rhs_group_dims", d.rhs_group),
                                    ", but its lhs ragged dimension ", ragged, " is a ",
                                    mode == RaggedMode::kBatch ? "batch" : "contracting",
                                    " dimension, which takes no rhs group dimension"));
  }
  const PrimitiveType type = instr.shape().element_type;
  const Shape dot = InferRaggedDotShape(lhs, rhs, sizes, d, type);
  if (!DimsAre(instr.shape(), dot.dims)) {
    return ResultMismatch(
        instr, ExpectedArray(type, dot.dims),
        mode == RaggedMode::kContracting
            ? "the group count, then batch dimensions, then the free dimensions of lhs and rhs"
        : mode == RaggedMode::kFree
            ? "batch dimensions, then the free dimensions of lhs and of rhs without its group "
              "dimension"
            : kDotOrder);
  }
  return absl::OkStatus();
}

// --- scaled-dot ----------------------------------------------------------------------------

// `scale` (operand scale_index) scales `operand` (0 lhs, 1 rhs) in blocks.
absl::Status CheckScale(const Instruction& instr, int64_t operand_index, int64_t scale_index,
                        const Dims& contracting) {
  const std::string_view side = operand_index == 0 ? "lhs" : "rhs";
  const Shape& operand = instr.operand(operand_index)->shape();
  const Shape& scale = instr.operand(scale_index)->shape();
  const bool all_ones =
      std::all_of(scale.dims.begin(), scale.dims.end(), [](int64_t n) { return n == 1; });
  const bool operand_all_ones =
      std::all_of(operand.dims.begin(), operand.dims.end(), [](int64_t n) { return n == 1; });
  if (all_ones && !operand_all_ones && scale.element_type == PrimitiveType::kBF16 &&
      operand.element_type == PrimitiveType::kBF16) {
    return absl::OkStatus();  // no scale
  }
  if (scale.rank() != operand.rank()) {
    return InstrError(instr, StrCat("scaled-dot ", side, " scale ", OperandRef(instr, scale_index),
                                    " shape ", ShapeText(scale), " does not have the rank of ",
                                    side, " shape ", ShapeText(operand)));
  }
  if (contracting.size() != 1) {
    return InstrError(instr, StrCat("scaled-dot ", side, " has ",
                                    Count(static_cast<int64_t>(contracting.size()),
                                          "contracting dimension", "contracting dimensions"),
                                    "; a scaled operand needs exactly one"));
  }
  for (int64_t i = 0; i < operand.rank(); ++i) {
    const int64_t n = operand.dims[i], block_count = scale.dims[i];
    if (n == Shape::kUnboundedSize || block_count == Shape::kUnboundedSize) continue;
    if (block_count == 0 ? n != 0 : n % block_count != 0) {
      return InstrError(
          instr, StrCat("scaled-dot ", side, " scale ", OperandRef(instr, scale_index), " shape ",
                        ShapeText(scale), " does not split ", side, " shape ", ShapeText(operand),
                        " into whole blocks: ", "dimension ", i, " has size ", n,
                        ", not a multiple of ", block_count));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckScaledDot(const Instruction& instr, const VerifierOptions&) {
  if (absl::Status s = RequireArrays(instr); !s.ok()) return s;
  const DotDimensionNumbers d = ReadDotDimensionNumbers(instr);
  if (absl::Status s = CheckDimensionNumbers(instr, d); !s.ok()) return s;
  if (absl::Status s = CheckScale(instr, 0, 2, d.lhs_contracting); !s.ok()) return s;
  if (absl::Status s = CheckScale(instr, 1, 3, d.rhs_contracting); !s.ok()) return s;
  if (instr.operand(2)->shape().rank() == 0 && instr.operand(3)->shape().rank() == 0) {
    return InstrError(instr, "scaled-dot has scalar scales for both lhs and rhs");
  }
  // CheckDimensionNumbers proved what InferDotShape requires. Its dynamic flags are left out of
  // the message's expected shape, as dynamic bounds are not compared.
  const PrimitiveType type = instr.shape().element_type;
  const Shape dot = InferDotShape(instr.operand(0)->shape(), instr.operand(1)->shape(), d, type);
  if (!DimsAre(instr.shape(), dot.dims)) {
    return ResultMismatch(instr, ExpectedArray(type, dot.dims), kDotOrder);
  }
  return absl::OkStatus();
}

}  // namespace

ShapeRule DotShapeRule(Opcode op) {
  switch (op) {
    case Opcode::kDot:
      return CheckDot;
    case Opcode::kRaggedDot:
      return CheckRaggedDot;
    case Opcode::kScaledDot:
      return CheckScaledDot;
    default:
      return nullptr;
  }
}

}  // namespace hloscope::verifier_internal
