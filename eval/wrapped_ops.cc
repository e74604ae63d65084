// slice-start, dynamic-slice-start, dynamic-update-slice-start and dot-start: the wrapped op run
// from the start's attributes into the start's result element (see wrapped_ops.h for why no
// instruction is built).
#include "eval/wrapped_ops.h"

#include <algorithm>
#include <string>

#include "absl/status/status.h"
#include "eval/dot_dims.h"
#include "eval/element_io.h"
#include "hlo/attribute_values.h"
#include "support/str_util.h"

namespace hloscope::eval {
namespace {

absl::Status Misfit(const Instruction& start, std::string_view what) {
  return absl::InvalidArgumentError(StrCat("cannot run %", start.name(), ": its wrapped ",
                                           OpcodeName(start.async_wrapped_opcode()), ": ", what));
}

bool IsIndexScalar(const Shape& s) {
  return s.IsArray() && s.rank() == 0 &&
         (IsSignedType(s.element_type) || IsUnsignedType(s.element_type));
}

std::string DimsText(absl::Span<const int64_t> dims) {
  std::string text = "[";
  for (size_t i = 0; i < dims.size(); ++i) text += StrCat(i == 0 ? "" : ",", dims[i]);
  return text + "]";
}

absl::Status CheckSlice(const Instruction& start, const Shape& in, const Shape& out) {
  absl::Span<const SliceDim> slice = start.slice();
  if (static_cast<int64_t>(slice.size()) != in.rank()) {
    return Misfit(start, StrCat("has ", slice.size(), " slice dimensions for an operand of rank ",
                                in.rank()));
  }
  for (size_t i = 0; i < slice.size(); ++i) {
    const SliceDim& d = slice[i];
    if (d.start < 0 || d.start > d.limit || d.limit > in.dims[i] || d.stride <= 0) {
      return Misfit(start, StrCat("slice [", d.start, ":", d.limit, ":", d.stride,
                                  "] does not fit dimension ", i, " of size ", in.dims[i]));
    }
    if (d.size() != out.dims[i]) {
      return Misfit(start, StrCat("slice selects ", d.size(), " elements of dimension ", i,
                                  " but the result has ", out.dims[i]));
    }
  }
  return absl::OkStatus();
}

// dynamic-slice (operand, indices...) or dynamic-update-slice (operand, update, indices...).
absl::Status CheckDynamicSlice(const Instruction& start, absl::Span<const ArrayRef> operands,
                               const Shape& out, bool update) {
  const Shape& in = *operands[0].shape;
  const size_t first_index = update ? 2 : 1;
  if (operands.size() != first_index + static_cast<size_t>(in.rank())) {
    return Misfit(
        start, StrCat("needs ", first_index + static_cast<size_t>(in.rank()),
                      " operands for an operand of rank ", in.rank(), ", not ", operands.size()));
  }
  for (size_t k = first_index; k < operands.size(); ++k) {
    if (!IsIndexScalar(*operands[k].shape)) {
      return Misfit(start, StrCat("start index ", k - first_index, " is not an integer scalar"));
    }
  }
  const Shape& window = update ? *operands[1].shape : out;
  if (update && !out.Compatible(in)) {
    return Misfit(start, StrCat("result ", out.ToString(false), " is not its operand's shape ",
                                in.ToString(false)));
  }
  if (window.rank() != in.rank() || window.element_type != in.element_type) {
    return Misfit(start, StrCat(update ? "update " : "result ", window.ToString(false),
                                " does not match its operand ", in.ToString(false)));
  }
  for (size_t i = 0; i < in.dims.size(); ++i) {
    if (window.dims[i] > in.dims[i]) {
      return Misfit(start, StrCat(update ? "update " : "result ", window.ToString(false),
                                  " is larger than its operand ", in.ToString(false)));
    }
  }
  absl::Span<const int64_t> sizes = start.dynamic_slice_sizes();
  if (!update && !sizes.empty() &&
      !std::equal(sizes.begin(), sizes.end(), out.dims.begin(), out.dims.end())) {
    return Misfit(start, StrCat("dynamic_slice_sizes ", DimsText(sizes),
                                " are not the result's dimensions ", DimsText(out.dims)));
  }
  return absl::OkStatus();
}

// The dot's result dimensions: batch, lhs free, rhs free; each listed dimension in range and
// listed once.
absl::Status CheckDot(const Instruction& start, const Shape& lhs, const Shape& rhs,
                      const Shape& out, const DotDimensionNumbers& dn) {
  auto free_dims = [&](const Shape& s, absl::Span<const int64_t> batch,
                       absl::Span<const int64_t> contract,
                       std::string_view side) -> absl::StatusOr<std::vector<int64_t>> {
    std::vector<bool> listed(static_cast<size_t>(s.rank()), false);
    for (absl::Span<const int64_t> list : {batch, contract}) {
      for (int64_t d : list) {
        if (d < 0 || d >= s.rank() || listed[static_cast<size_t>(d)]) {
          return Misfit(start, StrCat("lists ", side, " dimension ", d, " of a rank-", s.rank(),
                                      " operand out of range or twice"));
        }
        listed[static_cast<size_t>(d)] = true;
      }
    }
    std::vector<int64_t> free;
    for (int64_t d = 0; d < s.rank(); ++d) {
      if (!listed[static_cast<size_t>(d)]) free.push_back(s.dims[static_cast<size_t>(d)]);
    }
    return free;
  };
  absl::StatusOr<std::vector<int64_t>> lf = free_dims(lhs, dn.lhs_batch, dn.lhs_contracting, "lhs");
  if (!lf.ok()) return lf.status();
  absl::StatusOr<std::vector<int64_t>> rf = free_dims(rhs, dn.rhs_batch, dn.rhs_contracting, "rhs");
  if (!rf.ok()) return rf.status();
  std::vector<int64_t> dims;
  for (int64_t d : dn.lhs_batch) dims.push_back(lhs.dims[static_cast<size_t>(d)]);
  dims.insert(dims.end(), lf->begin(), lf->end());
  dims.insert(dims.end(), rf->begin(), rf->end());
  if (!std::equal(dims.begin(), dims.end(), out.dims.begin(), out.dims.end())) {
    return Misfit(start, StrCat("gives ", DimsText(dims),
                                " (batch, lhs free, rhs free) but the "
                                "result is ",
                                out.ToString(false)));
  }
  return absl::OkStatus();
}

}  // namespace

bool IsWrappedArrayOp(Opcode op) {
  return op == Opcode::kSlice || op == Opcode::kDynamicSlice || op == Opcode::kDynamicUpdateSlice ||
         op == Opcode::kDot;
}

absl::StatusOr<Bytes> EvalWrappedArrayOp(const Instruction& start, const Shape& out,
                                         absl::Span<const ArrayRef> operands) {
  const Opcode op = start.async_wrapped_opcode();
  const size_t min_operands = op == Opcode::kSlice ? 1 : op == Opcode::kDynamicSlice ? 1 : 2;
  if (!IsWrappedArrayOp(op)) return Misfit(start, "is not an op hlo-run runs wrapped");
  if (!out.IsArray() || operands.size() < min_operands) {
    return Misfit(start, StrCat("needs ", min_operands, " or more array operands and an array ",
                                "result (the start's element 1)"));
  }
  for (const ArrayRef& a : operands) {
    if (!a.shape->IsArray() || a.data == nullptr) {
      return Misfit(start, "has an operand that is not an array");
    }
  }
  const Shape& in = *operands[0].shape;
  if (op == Opcode::kDot) {
    if (operands.size() != 2) return Misfit(start, "needs two operands");
    DotDimensionNumbers dn = ReadDotDimensionNumbers(start);
    if (absl::Status s = CheckDot(start, in, *operands[1].shape, out, dn); !s.ok()) return s;
    return EvalDotAs(start, out, operands, dn);
  }
  if (op == Opcode::kSlice) {
    if (operands.size() != 1 || out.rank() != in.rank() || out.element_type != in.element_type) {
      return Misfit(start,
                    StrCat("needs one operand of the result's rank and type; has ", operands.size(),
                           ", ", in.ToString(false), " for ", out.ToString(false)));
    }
    if (absl::Status s = CheckSlice(start, in, out); !s.ok()) return s;
  } else if (absl::Status s =
                 CheckDynamicSlice(start, operands, out, op == Opcode::kDynamicUpdateSlice);
             !s.ok()) {
    return s;
  }
  return EvalSliceAs(op, start.slice(), out, operands);
}

}  // namespace hloscope::eval
