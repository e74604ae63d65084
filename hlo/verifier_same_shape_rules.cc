// Step 3 of the verifier, continued: ops whose result is their operands' shapes (reverse,
// sort, opt-barrier, add-dependency, domain, scatter, select-and-scatter, set-dimension-size),
// bitcast-convert, and ops whose result shape is fixed (get-dimension-size, partition-id,
// replica-id, after-all, rng-get-and-update-state). Layouts and dynamic flags are ignored, `?`
// agrees with any size, and floating-point types may differ with allow_mixed_precision. after-all's
// operands are not checked: XLA's token tests pass it arrays.
#include <algorithm>
#include <cstdint>
#include <string>

#include "hlo/verifier_internal.h"
#include "support/str_util.h"

namespace hloscope::verifier_internal {

bool ShapesAgree(const Shape& a, const Shape& b, const VerifierOptions& options) {
  if (&a == &b) return true;
  if (a.IsTuple() || b.IsTuple()) {
    if (!a.IsTuple() || !b.IsTuple() || a.tuple_elements.size() != b.tuple_elements.size()) {
      return false;
    }
    for (size_t i = 0; i < a.tuple_elements.size(); ++i) {
      if (!ShapesAgree(*a.tuple_elements[i], *b.tuple_elements[i], options)) return false;
    }
    return true;
  }
  if (a.IsArray() != b.IsArray()) return false;
  if (!a.IsArray()) return a.element_type == b.element_type;
  return TypesAgree(a.element_type, b.element_type, options) && DimsAgree(a, b);
}

namespace {

absl::Status NotOperandShape(const Instruction& instr, const Shape& result, int64_t i,
                             std::string_view which) {
  return InstrError(instr, StrCat(instr.PrintedOpcode(), " ", which, "shape ", ShapeText(result),
                                  " does not match ", OperandRef(instr, i), " shape ",
                                  ShapeText(instr.operand(i)->shape())));
}

// The result is operand 0's shape.
absl::Status CheckFirstOperandShape(const Instruction& instr, const VerifierOptions& options) {
  if (ShapesAgree(instr.shape(), instr.operand(0)->shape(), options)) return absl::OkStatus();
  return NotOperandShape(instr, instr.shape(), 0, "");
}

absl::Status CheckReverse(const Instruction& instr, const VerifierOptions& options) {
  const Shape& in = instr.operand(0)->shape();
  for (int64_t d : instr.dimensions()) {
    if (d < 0 || d >= in.rank()) {
      return InstrError(instr, StrCat("reverse dimensions={", StrJoin(instr.dimensions(), ","),
                                      "} is out of range for operand '", instr.operand(0)->name(),
                                      "' shape ", ShapeText(in)));
    }
  }
  return CheckFirstOperandShape(instr, options);
}

}  // namespace

absl::Status CheckFirstOperandsShapesAt(const Instruction& instr, const Shape& out, int64_t at,
                                        int64_t n, std::string_view which,
                                        const VerifierOptions& options) {
  // Messages name `out` as the instruction's shape, or as element `at` of it.
  const std::string self = at < 0 ? std::string() : StrCat("element ", at, " ");
  auto element = [&](int64_t i) {
    return at < 0 ? StrCat("element ", i, " ") : StrCat("element {", at, ",", i, "} ");
  };
  if (n == 1 && ShapesAgree(out, instr.operand(0)->shape(), options)) return absl::OkStatus();
  if (!out.IsTuple() || static_cast<int64_t>(out.tuple_elements.size()) != n) {
    if (n == 1) return NotOperandShape(instr, out, 0, self);
    return InstrError(instr, StrCat(instr.PrintedOpcode(), " ", self, "shape ", ShapeText(out),
                                    " is not a tuple of its ", n, " ", which, " shapes"));
  }
  for (int64_t i = 0; i < n; ++i) {
    const Shape& e = *out.tuple_elements[i];
    if (!ShapesAgree(e, instr.operand(i)->shape(), options)) {
      return NotOperandShape(instr, e, i, element(i));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckFirstOperandsShapes(const Instruction& instr, int64_t n, std::string_view which,
                                      const VerifierOptions& options) {
  return CheckFirstOperandsShapesAt(instr, instr.shape(), -1, n, which, options);
}

namespace {

// sort: the keys and values have one set of dimensions, and `dimensions={d}` is one of them.
absl::Status CheckSort(const Instruction& instr, const VerifierOptions& options) {
  const Shape& keys = instr.operand(0)->shape();
  for (int64_t i = 0; i < instr.operand_count(); ++i) {
    const Shape& s = instr.operand(i)->shape();
    if (!s.IsArray() || !DimsAgree(s, keys)) {
      return InstrError(
          instr, StrCat("sort ", OperandRef(instr, i), " shape ", ShapeText(s),
                        " does not have the dimensions of operand 0 shape ", ShapeText(keys)));
    }
  }
  absl::Span<const int64_t> dim = instr.dimensions();
  if (dim.size() != 1 || dim[0] < 0 || dim[0] >= keys.rank()) {
    return InstrError(instr, StrCat("sort dimensions={", StrJoin(dim, ","),
                                    "} is not one dimension of operand 0 shape ", ShapeText(keys)));
  }
  if (absl::Status s = CheckFirstOperandsShapes(instr, instr.operand_count(), "operands'", options);
      !s.ok()) {
    return s;
  }
  return CheckSortComparator(instr, options);
}

// scatter(operands..., indices, updates...) updates its N operands in place: the result is
// their shapes (an array for one operand, else a tuple). The indices and updates are not
// checked (scatter_dimension_numbers are kept as text).
absl::Status CheckScatter(const Instruction& instr, const VerifierOptions& options) {
  const int64_t count = instr.operand_count();
  if (count < 3 || count % 2 == 0) {
    return InstrError(instr, StrCat("scatter has ", Count(count, "operand", "operands"),
                                    ", expected operands, indices and as many updates"));
  }
  const int64_t n = (count - 1) / 2;
  if (absl::Status s = CheckFirstOperandsShapes(instr, n, "scattered operands'", options);
      !s.ok()) {
    return s;
  }
  // The update computation combines an operand's element (its accumulator) with an update's.
  Dims operands, updates;
  for (int64_t i = 0; i < n; ++i) {
    operands.push_back(i);
    updates.push_back(n + 1 + i);
  }
  return CheckReducerSignature(instr, "to_apply", instr.to_apply(), n, operands, updates, options);
}

// select-and-scatter(operand, source, init) returns the operand's shape; its select and
// scatter computations are checked as XLA's shape inference does.
absl::Status CheckSelectAndScatter(const Instruction& instr, const VerifierOptions& options) {
  if (absl::Status s = CheckFirstOperandShape(instr, options); !s.ok()) return s;
  return CheckSelectAndScatterComputations(instr, options);
}

// bitcast-convert reinterprets each element: between types of one width the dimensions stay;
// to a narrower type a minor dimension of the width ratio is added, to a wider one the minor
// dimension, of that ratio, is removed.
absl::Status CheckBitcastConvert(const Instruction& instr, const VerifierOptions&) {
  const Shape& in = instr.operand(0)->shape();
  const Shape& out = instr.shape();
  if (!in.IsArray() || !out.IsArray()) {
    return InstrError(instr, StrCat("bitcast-convert from ", ShapeText(in), " to ", ShapeText(out),
                                    " is not between arrays"));
  }
  const int64_t in_bits = GetPrimitiveTypeInfo(in.element_type).bits;
  const int64_t out_bits = GetPrimitiveTypeInfo(out.element_type).bits;
  const Shape& wide = in_bits >= out_bits ? in : out;
  const Shape& narrow = in_bits >= out_bits ? out : in;
  const int64_t wide_bits = std::max(in_bits, out_bits);
  const int64_t narrow_bits = std::min(in_bits, out_bits);
  bool fits;
  if (wide_bits == narrow_bits) {
    fits = DimsAgree(in, out);
  } else {
    fits = narrow_bits > 0 && wide_bits % narrow_bits == 0 && narrow.rank() == wide.rank() + 1 &&
           SizesAgree(narrow.dims.back(), wide_bits / narrow_bits);
    for (int64_t d = 0; fits && d < wide.rank(); ++d) {
      fits = SizesAgree(wide.dims[d], narrow.dims[d]);
    }
  }
  if (fits) return absl::OkStatus();
  return InstrError(instr, StrCat("bitcast-convert shape ", ShapeText(out),
                                  " does not hold the bits of operand '", instr.operand(0)->name(),
                                  "' shape ", ShapeText(in)));
}

absl::Status RequireScalar(const Instruction& instr, PrimitiveType type) {
  if (IsScalarOf(instr.shape(), type)) return absl::OkStatus();
  return InstrError(instr, StrCat(instr.PrintedOpcode(), " shape ", ShapeText(instr.shape()),
                                  " is not ", PrimitiveTypeName(type), "[]"));
}

// `dimensions={d}` names one dimension of operand 0 (get- and set-dimension-size).
absl::Status RequireOneDimension(const Instruction& instr) {
  const Shape& in = instr.operand(0)->shape();
  absl::Span<const int64_t> dim = instr.dimensions();
  if (in.IsArray() && dim.size() == 1 && dim[0] >= 0 && dim[0] < in.rank()) {
    return absl::OkStatus();
  }
  return InstrError(instr, StrCat(instr.PrintedOpcode(), " dimensions={", StrJoin(dim, ","),
                                  "} is not one dimension of operand '", instr.operand(0)->name(),
                                  "' shape ", ShapeText(in)));
}

absl::Status CheckGetDimensionSize(const Instruction& instr, const VerifierOptions&) {
  if (absl::Status s = RequireOneDimension(instr); !s.ok()) return s;
  return RequireScalar(instr, PrimitiveType::kS32);
}

// set-dimension-size(x, size) keeps x's dimensions (the one named becomes dynamic, which the
// rules do not compare); size is an s32[].
absl::Status CheckSetDimensionSize(const Instruction& instr, const VerifierOptions& options) {
  if (absl::Status s = RequireOneDimension(instr); !s.ok()) return s;
  if (!IsScalarOf(instr.operand(1)->shape(), PrimitiveType::kS32)) {
    return InstrError(instr, StrCat("set-dimension-size ", OperandRef(instr, 1), " shape ",
                                    ShapeText(instr.operand(1)->shape()), " is not s32[]"));
  }
  return CheckFirstOperandShape(instr, options);
}

absl::Status CheckReplicaOrPartitionId(const Instruction& instr, const VerifierOptions&) {
  return RequireScalar(instr, PrimitiveType::kU32);
}

absl::Status CheckRngGetAndUpdateState(const Instruction& instr, const VerifierOptions&) {
  const Shape& out = instr.shape();
  if (out.IsArray() && out.element_type == PrimitiveType::kU64 && DimsAre(out, {2})) {
    return absl::OkStatus();
  }
  return InstrError(instr,
                    StrCat("rng-get-and-update-state shape ", ShapeText(out), " is not u64[2]"));
}

absl::Status CheckAfterAll(const Instruction& instr, const VerifierOptions&) {
  if (instr.shape().IsToken()) return absl::OkStatus();
  return InstrError(instr, StrCat("after-all shape ", ShapeText(instr.shape()), " is not a token"));
}

}  // namespace

ShapeRule SameShapeRule(Opcode op) {
  switch (op) {
    case Opcode::kReverse:
      return CheckReverse;
    case Opcode::kOptBarrier:
    case Opcode::kAddDependency:
    case Opcode::kDomain:
      return CheckFirstOperandShape;
    case Opcode::kSelectAndScatter:
      return CheckSelectAndScatter;
    case Opcode::kScatter:
      return CheckScatter;
    case Opcode::kBitcastConvert:
      return CheckBitcastConvert;
    case Opcode::kSort:
      return CheckSort;
    case Opcode::kGetDimensionSize:
      return CheckGetDimensionSize;
    case Opcode::kSetDimensionSize:
      return CheckSetDimensionSize;
    case Opcode::kPartitionId:
    case Opcode::kReplicaId:
      return CheckReplicaOrPartitionId;
    case Opcode::kAfterAll:
      return CheckAfterAll;
    case Opcode::kRngGetAndUpdateState:
      return CheckRngGetAndUpdateState;
    default:
      return nullptr;
  }
}

}  // namespace hloscope::verifier_internal
