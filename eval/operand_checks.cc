#include "eval/operand_checks.h"

#include <algorithm>
#include <vector>

#include "eval/attributes.h"
#include "eval/element_io.h"
#include "eval/kernels.h"
#include "hlo/shape_inference.h"
#include "support/str_util.h"

namespace hloscope::eval {
namespace {

absl::Status Bad(const Instruction& instr, std::string_view why) {
  return absl::InvalidArgumentError(StrCat("cannot run %", instr.name(), ": ", why));
}

std::string Dims(const Shape& s) { return s.ToString(false); }

bool SameDims(const Shape& a, const Shape& b) { return a.dims == b.dims; }

absl::Status CheckElementwise(const Instruction& instr, absl::Span<const Shape* const> ops) {
  const Shape& out = instr.shape();
  for (size_t k = 0; k < ops.size(); ++k) {
    const Shape& s = *ops[k];
    if (!s.IsArray()) return Bad(instr, StrCat("operand ", k, " is not an array"));
    // select's predicate and clamp's bounds may be scalars.
    bool scalar_ok = s.rank() == 0 && ((instr.opcode() == Opcode::kSelect && k == 0) ||
                                       (instr.opcode() == Opcode::kClamp && k != 1));
    if (!SameDims(s, out) && !scalar_ok) {
      return Bad(instr,
                 StrCat("operand ", k, " has shape ", Dims(s), " but the result is ", Dims(out)));
    }
  }
  Opcode op = instr.opcode();
  if (op == Opcode::kSelect && ops.size() == 3 &&
      (ops[0]->element_type != PrimitiveType::kPred || ops[1]->element_type != out.element_type ||
       ops[2]->element_type != out.element_type)) {
    // Mixed precision (f32 and bf16 branches) verifies by default, but XLA's evaluator reads
    // both branches as the result type (ElementwiseTernaryOp), undefined for another type.
    const bool mixed = ops[0]->element_type == PrimitiveType::kPred &&
                       IsFloatType(ops[1]->element_type) && IsFloatType(ops[2]->element_type) &&
                       IsFloatType(out.element_type);
    return Bad(instr, StrCat("select needs a pred and two operands of the result type, not ",
                             PrimitiveTypeName(ops[0]->element_type), ", ",
                             PrimitiveTypeName(ops[1]->element_type), " and ",
                             PrimitiveTypeName(ops[2]->element_type), " into ",
                             PrimitiveTypeName(out.element_type),
                             mixed ? " (mixed precision is not run: XLA's evaluator reads both "
                                     "branches as the result type)"
                                   : ""));
  }
  // map's operands are f's parameters, each of its own type; stochastic-convert's random bits
  // are unsigned integers (its kernel checks them).
  // Mixed precision (add(f16, f32) -> f32) verifies by default, but XLA's evaluator reads both
  // operands as one type (ElementWiseBinaryOp: lhs_literal.Get<ReturnT>, only a DCHECK
  // guarding it; hlo_evaluator_typed_visitor.h at openxla/xla 2c731115), so what it computes
  // is not defined: refused, as it is not really run there either.
  if (ops.size() >= 2 && op != Opcode::kSelect && op != Opcode::kMap &&
      op != Opcode::kStochasticConvert && ops[0]->element_type != ops[1]->element_type) {
    return Bad(instr, StrCat("operands have different element types, ",
                             PrimitiveTypeName(ops[0]->element_type), " and ",
                             PrimitiveTypeName(ops[1]->element_type),
                             " (mixed precision is not run: XLA's evaluator reads both operands as "
                             "one type)"));
  }
  return absl::OkStatus();
}

absl::Status CheckSlice(const Instruction& instr, const Shape& in) {
  auto slice = instr.slice();
  const Shape& out = instr.shape();
  if (static_cast<int64_t>(slice.size()) != in.rank() || out.rank() != in.rank()) {
    return Bad(instr, "slice={...} does not have one entry per dimension");
  }
  for (size_t d = 0; d < slice.size(); ++d) {
    const SliceDim& s = slice[d];
    if (s.start < 0 || s.limit > in.dims[d] || s.start > s.limit || s.stride <= 0 ||
        out.dims[d] != s.size()) {
      return Bad(instr, StrCat("slice dimension ", d, " [", s.start, ":", s.limit, ":", s.stride,
                               "] does not fit ", Dims(in), " -> ", Dims(out)));
    }
  }
  return absl::OkStatus();
}

bool ValidDims(absl::Span<const int64_t> dims, int64_t rank) {
  return std::all_of(dims.begin(), dims.end(), [&](int64_t d) { return d >= 0 && d < rank; });
}

// Data movement copies element bytes as they are: an operand of another element type (mixed
// precision, which the verifier accepts by default) would be read with the result's element
// size, past its end. Such a module is refused here rather than run on garbage.
absl::Status CheckMovedElementTypes(const Instruction& instr, absl::Span<const Shape* const> ops) {
  const Shape& out = instr.shape();
  const Opcode op = instr.opcode();
  const size_t moved = op == Opcode::kConcatenate ? ops.size()
                       : op == Opcode::kPad || op == Opcode::kDynamicUpdateSlice
                           ? std::min<size_t>(ops.size(), 2)
                           : std::min<size_t>(ops.size(), 1);
  for (size_t k = 0; k < moved; ++k) {
    // pad converts a float operand or padding value of another width to the result's float
    // type (data_movement.cc), as XLA's evaluator does (HandlePad converts both since
    // fd39f27068, any types; hlo-run converts floats only).
    if (op == Opcode::kPad && IsFloatType(ops[k]->element_type) && IsFloatType(out.element_type)) {
      continue;
    }
    if (ops[k]->element_type != out.element_type) {
      // XLA's evaluator refuses a broadcast from another type outright (HandleBroadcast:
      // "broadcast from a different data type is not supported").
      // XLA's HandleDynamicUpdateSlice copies the update's bytes as the result's type
      // (CopyElementFrom, where only a DCHECK compares the types): no defined value.
      std::string_view xla = op == Opcode::kBroadcast ? ", nor by XLA's evaluator)"
                             : op == Opcode::kDynamicUpdateSlice
                                 ? ": XLA's evaluator copies the bytes unconverted)"
                                 : ")";
      return Bad(instr, StrCat(OpcodeName(op), " moves operand ", k, "'s ",
                               PrimitiveTypeName(ops[k]->element_type), " elements into a ",
                               PrimitiveTypeName(out.element_type),
                               " result (mixed precision is not run", xla));
    }
  }
  return absl::OkStatus();
}

// broadcast: the operand's dimensions land on result dimensions of the same size.
absl::Status CheckBroadcast(const Instruction& instr, absl::Span<const Shape* const> ops) {
  const Shape& out = instr.shape();
  auto dims = instr.dimensions();
  if (static_cast<int64_t>(dims.size()) != ops[0]->rank() || !ValidDims(dims, out.rank())) {
    return Bad(instr, "broadcast dimensions={...} do not fit the operand and result ranks");
  }
  for (size_t i = 0; i < dims.size(); ++i) {
    if (ops[0]->dims[i] != out.dims[static_cast<size_t>(dims[i])]) {
      return Bad(instr, StrCat("broadcast of ", Dims(*ops[0]), " to ", Dims(out),
                               " with dimensions={", StrJoin(dims, ","), "}"));
    }
  }
  return absl::OkStatus();
}

// The old form of dynamic-slice and dynamic-update-slice: all start indices in one rank-1
// operand (`dynamic-slice(s32[4,5,6] p, s32[3] i)`). XLA's verifier accepts it (shape
// inference's vector path), but XLA's evaluator reads only the first element of each start
// operand (GetS64Indices), so it slices right only where that is all: a rank-1 operand with a
// [1] start vector, which runs here as its scalar form. A longer vector is refused, as
// XLA's evaluator indexes past its one start there (HandleDynamicSlice, HandleDynamicUpdateSlice
// in xla/hlo/evaluator/hlo_evaluator.cc at openxla/xla 2c731115).
absl::Status CheckStartVector(const Instruction& instr, absl::Span<const Shape* const> ops,
                              size_t first_start) {
  if (ops.size() != first_start + 1 || ops[first_start]->rank() != 1) return absl::OkStatus();
  const int64_t rank = ops[0]->rank();
  if (rank == 1 && ops[first_start]->dims[0] == 1) return absl::OkStatus();
  return Bad(instr, StrCat(OpcodeName(instr.opcode()), " with its ", rank,
                           " start indices in one vector ", Dims(*ops[first_start]),
                           " (the old form) is not run: XLA's evaluator reads only its first "
                           "element"));
}

bool IsStart(const Shape& s, int64_t rank, size_t starts) {
  return s.rank() == 0 || (rank == 1 && starts == 1 && s.rank() == 1 && s.dims[0] == 1);
}

// dynamic-slice: one scalar start per dimension, the result no larger than the operand.
absl::Status CheckDynamicSlice(const Instruction& instr, absl::Span<const Shape* const> ops) {
  if (absl::Status s = CheckStartVector(instr, ops, 1); !s.ok()) return s;
  const Shape& out = instr.shape();
  auto sizes = instr.dynamic_slice_sizes();
  bool ok = static_cast<int64_t>(ops.size()) == 1 + ops[0]->rank() && out.rank() == ops[0]->rank();
  for (int64_t d = 0; ok && d < out.rank(); ++d) {
    auto u = static_cast<size_t>(d);
    ok = out.dims[u] <= ops[0]->dims[u] && (sizes.empty() || sizes[u] == out.dims[u]);
  }
  for (size_t k = 1; ok && k < ops.size(); ++k)
    ok = IsStart(*ops[k], ops[0]->rank(), ops.size() - 1);
  return ok ? absl::OkStatus() : Bad(instr, "dynamic-slice operands do not fit the result");
}

// dynamic-update-slice: the update fits inside the operand, one scalar start per dimension.
absl::Status CheckDynamicUpdateSlice(const Instruction& instr, absl::Span<const Shape* const> ops) {
  if (ops.size() >= 2) {
    if (absl::Status s = CheckStartVector(instr, ops, 2); !s.ok()) return s;
  }
  const Shape& out = instr.shape();
  bool ok = static_cast<int64_t>(ops.size()) == 2 + ops[0]->rank() &&
            ops[1]->rank() == ops[0]->rank() && SameDims(*ops[0], out) &&
            ops[0]->element_type == ops[1]->element_type;
  for (int64_t d = 0; ok && d < out.rank(); ++d)
    ok = ops[1]->dims[static_cast<size_t>(d)] <= out.dims[static_cast<size_t>(d)];
  for (size_t k = 2; ok && k < ops.size(); ++k)
    ok = IsStart(*ops[k], ops[0]->rank(), ops.size() - 2);
  return ok ? absl::OkStatus() : Bad(instr, "dynamic-update-slice operands do not fit the result");
}

// concatenate: operands agree off the joined dimension, whose sizes add up to the result's.
absl::Status CheckConcatenate(const Instruction& instr, absl::Span<const Shape* const> ops) {
  const Shape& out = instr.shape();
  auto dim = instr.dimensions();
  if (dim.size() != 1 || dim[0] < 0 || dim[0] >= out.rank())
    return Bad(instr, "concatenate needs one dimension");
  for (const Shape* s : ops) {
    if (s->rank() != out.rank()) return Bad(instr, "concatenate operands have different ranks");
    for (int64_t d = 0; d < out.rank(); ++d) {
      if (d != dim[0] && s->dims[static_cast<size_t>(d)] != out.dims[static_cast<size_t>(d)]) {
        return Bad(instr, StrCat("concatenate operand ", Dims(*s), " does not fit ", Dims(out)));
      }
    }
  }
  // The other dimensions fit; inference gives the joined one's size (nullopt on overflow).
  // Inference needs an operand; an unverified concatenate of none joins nothing to size 0.
  const bool joins = ops.empty() ? out.dims[static_cast<size_t>(dim[0])] == 0 : [&] {
    std::optional<Shape> joined = InferConcatenateShape(ops, dim[0]);
    return joined && joined->dims == out.dims;
  }();
  return joins ? absl::OkStatus() : Bad(instr, "concatenate sizes do not add up");
}

// pad: each dimension padded as the attribute says gives the result's.
absl::Status CheckPad(const Instruction& instr, absl::Span<const Shape* const> ops) {
  const Shape& out = instr.shape();
  absl::StatusOr<std::vector<PadDim>> pads = PaddingAttribute(instr);
  if (!pads.ok()) return pads.status();
  if (static_cast<int64_t>(pads->size()) != out.rank() || ops[0]->rank() != out.rank() ||
      ops[1]->rank() != 0) {
    return Bad(instr, "padding does not fit the operand rank");
  }
  for (size_t d = 0; d < pads->size(); ++d) {
    std::optional<int64_t> padded = PaddedSize(ops[0]->dims[d], (*pads)[d]);
    if (!padded || out.dims[d] != *padded) {
      return Bad(instr, StrCat("padding of dimension ", d, " does not give ", Dims(out)));
    }
  }
  return absl::OkStatus();
}

// gather: the dimension numbers fit the operand, the indices and the result.
absl::Status CheckGather(const Instruction& instr, absl::Span<const Shape* const> ops) {
  const Shape& out = instr.shape();
  std::vector<int64_t> sizes = IntListAttribute(instr, "slice_sizes");
  std::vector<int64_t> offset_dims = IntListAttribute(instr, "offset_dims");
  std::vector<int64_t> start_map = IntListAttribute(instr, "start_index_map");
  std::vector<int64_t> collapsed = IntListAttribute(instr, "collapsed_slice_dims");
  // Operand batching dims are not part of the slice's window, as collapsed dims.
  std::vector<int64_t> batching = IntListAttribute(instr, "operand_batching_dims");
  std::vector<int64_t> index_batching = IntListAttribute(instr, "start_indices_batching_dims");
  std::vector<int64_t> ivd = IntListAttribute(instr, "index_vector_dim");
  const Shape& idx = *ops[1];
  int64_t index_vector_dim = ivd.empty() ? idx.rank() : ivd[0];
  bool ok = static_cast<int64_t>(sizes.size()) == ops[0]->rank() &&
            ValidDims(start_map, ops[0]->rank()) && ValidDims(collapsed, ops[0]->rank()) &&
            ValidDims(batching, ops[0]->rank()) && ValidDims(index_batching, idx.rank()) &&
            batching.size() == index_batching.size() && ValidDims(offset_dims, out.rank()) &&
            index_vector_dim >= 0 && index_vector_dim <= idx.rank() &&
            out.rank() == static_cast<int64_t>(offset_dims.size()) + idx.rank() -
                              (index_vector_dim < idx.rank() ? 1 : 0) &&
            (index_vector_dim == idx.rank() ? start_map.size() == 1
                                            : idx.dims[static_cast<size_t>(index_vector_dim)] ==
                                                  static_cast<int64_t>(start_map.size()));
  for (size_t d = 0; ok && d < sizes.size(); ++d) ok = sizes[d] >= 0 && sizes[d] <= ops[0]->dims[d];
  // A batching dim pairs an operand dim with an index dim of the same size (the batch
  // coordinate indexes the operand directly).
  for (size_t i = 0; ok && i < batching.size(); ++i) {
    ok = index_batching[i] != index_vector_dim &&
         ops[0]->dims[static_cast<size_t>(batching[i])] ==
             idx.dims[static_cast<size_t>(index_batching[i])];
  }
  // Offset dims of the result take the sizes of the slice's uncollapsed dims, in order.
  size_t w = 0;
  for (int64_t d = 0; ok && d < ops[0]->rank(); ++d) {
    if (std::find(collapsed.begin(), collapsed.end(), d) != collapsed.end()) continue;
    if (std::find(batching.begin(), batching.end(), d) != batching.end()) continue;
    ok = w < offset_dims.size() &&
         out.dims[static_cast<size_t>(offset_dims[w])] <= sizes[static_cast<size_t>(d)];
    ++w;
  }
  ok = ok && w == offset_dims.size();
  // The batch dims of the result follow the index array's dims (without index_vector_dim).
  size_t b = 0;
  for (int64_t d = 0; ok && d < out.rank(); ++d) {
    if (std::find(offset_dims.begin(), offset_dims.end(), d) != offset_dims.end()) continue;
    if (static_cast<int64_t>(b) == index_vector_dim) ++b;
    ok = static_cast<int64_t>(b) < idx.rank() && out.dims[static_cast<size_t>(d)] == idx.dims[b];
    ++b;
  }
  return ok ? absl::OkStatus() : Bad(instr, "gather dimension numbers do not fit the shapes");
}

// dot: the dimension numbers fit both operands and give the result's shape.
absl::Status CheckDot(const Instruction& instr, absl::Span<const Shape* const> ops) {
  const Shape& out = instr.shape();
  // Shape inference gives the result; the interpreter also needs each batch and contracting
  // pair to have one size, as it walks them together.
  const DotDimensionNumbers dnums = ReadDotDimensionNumbers(instr);
  bool ok = ops.size() == 2 && DotDimensionsInRange(*ops[0], *ops[1], dnums);
  for (size_t i = 0; ok && i < dnums.lhs_batch.size(); ++i) {
    ok = ops[0]->dims[static_cast<size_t>(dnums.lhs_batch[i])] ==
         ops[1]->dims[static_cast<size_t>(dnums.rhs_batch[i])];
  }
  for (size_t i = 0; ok && i < dnums.lhs_contracting.size(); ++i) {
    ok = ops[0]->dims[static_cast<size_t>(dnums.lhs_contracting[i])] ==
         ops[1]->dims[static_cast<size_t>(dnums.rhs_contracting[i])];
  }
  ok = ok && InferDotShape(*ops[0], *ops[1], dnums, out.element_type).dims == out.dims;
  return ok ? absl::OkStatus() : Bad(instr, "dot dimension numbers do not fit the shapes");
}

// reduce: inputs and init values pair up, each output its input without the reduced dimensions.
absl::Status CheckReduce(const Instruction& instr, absl::Span<const Shape* const> ops) {
  const Shape& out = instr.shape();
  size_t n = ops.size() / 2;
  // Each output is its input without the reduced dimensions (shape inference's rule; the
  // inputs all have the first one's dimensions).
  std::optional<Shape> kept;
  if (ops.size() % 2 == 0 && n > 0) {
    kept = InferReduceShape(*ops[0], instr.dimensions(), ops[0]->element_type);
  }
  if (!kept) return Bad(instr, "reduce operands do not fit");
  for (size_t k = 0; k < n; ++k) {
    const Shape* o =
        out.IsTuple() ? (k < out.tuple_elements.size() ? out.tuple_elements[k] : nullptr) : &out;
    if (o == nullptr || !SameDims(*ops[k], *ops[0]) || ops[n + k]->rank() != 0 ||
        kept->dims != o->dims) {
      return Bad(instr, "reduce operands do not fit the result");
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckOperands(const Instruction& instr, absl::Span<const Shape* const> ops) {
  const Shape& out = instr.shape();
  Opcode op = instr.opcode();
  if (IsElementwise(op) && op != Opcode::kCopy) return CheckElementwise(instr, ops);
  for (size_t k = 0; k < ops.size(); ++k) {
    if (!ops[k]->IsArray() && op != Opcode::kCopy)
      return Bad(instr, StrCat("operand ", k, " is not an array"));
  }
  if (op != Opcode::kCopy && op != Opcode::kIota && IsSupportedDataMovement(op)) {
    if (absl::Status s = CheckMovedElementTypes(instr, ops); !s.ok()) return s;
  }
  switch (op) {
    case Opcode::kCopy:
      // Mixed precision converts (an array of one floating-point type to another, as XLA's
      // HandleCopy); a tuple copy moves its elements unconverted.
      if (ops[0]->IsArray() && out.IsArray() && ops[0]->dims == out.dims &&
          IsFloatType(ops[0]->element_type) && IsFloatType(out.element_type)) {
        return absl::OkStatus();
      }
      if (!ops[0]->Compatible(out))
        return Bad(instr, StrCat("copy of ", Dims(*ops[0]), " to ", Dims(out)));
      return absl::OkStatus();
    case Opcode::kReshape:
      if (ops[0]->ElementCount() != out.ElementCount()) {
        return Bad(instr, StrCat("reshape of ", Dims(*ops[0]), " to ", Dims(out),
                                 " changes the element count"));
      }
      return absl::OkStatus();
    case Opcode::kBroadcast:
      return CheckBroadcast(instr, ops);
    case Opcode::kTranspose: {
      std::optional<Shape> transposed = InferTransposeShape(*ops[0], instr.dimensions());
      return transposed && transposed->dims == out.dims
                 ? absl::OkStatus()
                 : Bad(instr, "transpose dimensions={...} do not fit the shapes");
    }
    case Opcode::kSlice:
      return CheckSlice(instr, *ops[0]);
    case Opcode::kDynamicSlice:
      return CheckDynamicSlice(instr, ops);
    case Opcode::kDynamicUpdateSlice:
      return CheckDynamicUpdateSlice(instr, ops);
    case Opcode::kConcatenate:
      return CheckConcatenate(instr, ops);
    case Opcode::kPad:
      return CheckPad(instr, ops);
    case Opcode::kReverse:
      if (!SameDims(*ops[0], out) || !ValidDims(instr.dimensions(), out.rank())) {
        return Bad(instr, "reverse dimensions do not fit");
      }
      return absl::OkStatus();
    case Opcode::kGather:
      return CheckGather(instr, ops);
    case Opcode::kDot:
      return CheckDot(instr, ops);
    case Opcode::kReduce:
      return CheckReduce(instr, ops);
    default:
      return absl::OkStatus();
  }
}

}  // namespace hloscope::eval
