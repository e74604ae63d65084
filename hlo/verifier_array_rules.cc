// Step 3 of the verifier, continued: shape rules for array ops (elementwise, broadcast, reshape,
// dynamic-reshape, transpose, slice, concatenate, pad, reduce, iota, convolution, reduce-window;
// the dot family is in verifier_dot_rules.cc). verifier_shape_rules.cc has the rules for tuples,
// control flow, in-place updates and bitcasts, and the rule table.
//
// These rules are deliberately lenient where XLA's own verifier has options or history:
//  - Dimension sizes are compared, whether a dimension is dynamic is not, and `?` matches any
//    size (XLA's Compatible ignores dynamic dimensions too).
//  - A reshape is only checked for its element count when both shapes are static.
//  - select may have a scalar predicate and clamp scalar bounds (older HLO uses both).
//  - dot's and convolution's result element types are free (preferred_element_type).
//  - Floating-point element types may differ where XLA wants one type, with the option
//    allow_mixed_precision (on by default).
//  - Sparse convolutions (tuple kernels) and variadic reduce-window are not checked.
// Each rule reports the first problem; the caller has already checked operand counts.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "hlo/attribute_values.h"
#include "hlo/shape_inference.h"
#include "hlo/verifier_internal.h"
#include "support/status_text.h"
#include "support/str_util.h"

namespace hloscope::verifier_internal {

bool SizesAgree(int64_t a, int64_t b) {
  return a == b || a == Shape::kUnboundedSize || b == Shape::kUnboundedSize;
}

bool DimsAre(const Shape& s, absl::Span<const int64_t> dims) {
  if (s.rank() != static_cast<int64_t>(dims.size())) return false;
  for (int64_t d = 0; d < s.rank(); ++d) {
    if (!SizesAgree(s.dims[d], dims[d])) return false;
  }
  return true;
}

bool DimsAgree(const Shape& a, const Shape& b) { return DimsAre(a, b.dims); }

bool TypesAgree(PrimitiveType a, PrimitiveType b, const VerifierOptions& options) {
  if (a == b) return true;
  return options.allow_mixed_precision && GetPrimitiveTypeInfo(a).is_float &&
         GetPrimitiveTypeInfo(b).is_float;
}

bool Contains(absl::Span<const int64_t> v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

std::string DimsAttr(std::string_view key, absl::Span<const int64_t> dims) {
  return StrCat(key, "={", StrJoin(dims, ","), "}");
}

Shape ExpectedArray(PrimitiveType type, absl::Span<const int64_t> dims) {
  Shape s;
  s.element_type = type;
  s.dims.assign(dims.begin(), dims.end());
  for (int64_t d : dims) s.dynamic.push_back(d == Shape::kUnboundedSize);
  return s;
}

absl::Status ResultMismatch(const Instruction& instr, const Shape& expected,
                            std::string_view because) {
  return InstrError(instr, StrCat(instr.PrintedOpcode(), " shape ", ShapeText(instr.shape()),
                                  " does not match ", ShapeText(expected), " (", because, ")"));
}

absl::Status RequireArrays(const Instruction& instr) {
  if (!instr.shape().IsArray()) {
    return InstrError(instr, StrCat(instr.PrintedOpcode(), " shape ", ShapeText(instr.shape()),
                                    " is not an array"));
  }
  for (int64_t i = 0; i < instr.operand_count(); ++i) {
    const Shape& s = instr.operand(i)->shape();
    if (!s.IsArray()) {
      return InstrError(instr, StrCat(instr.PrintedOpcode(), " ", OperandRef(instr, i), " shape ",
                                      ShapeText(s), " is not an array"));
    }
  }
  return absl::OkStatus();
}

namespace {

absl::Status TypeMismatch(const Instruction& instr, int64_t i, std::string_view expected_what,
                          PrimitiveType expected) {
  return InstrError(
      instr, StrCat(instr.PrintedOpcode(), " ", OperandRef(instr, i), " element type ",
                    PrimitiveTypeName(instr.operand(i)->shape().element_type), " does not match ",
                    expected_what, " ", PrimitiveTypeName(expected)));
}

absl::Status RequireSameType(const Instruction& instr, int64_t i, std::string_view what,
                             PrimitiveType t, const VerifierOptions& options) {
  if (TypesAgree(instr.operand(i)->shape().element_type, t, options)) return absl::OkStatus();
  return TypeMismatch(instr, i, what, t);
}

// Every operand has the result's dimensions, except the operands that may be scalars
// (select's predicate, clamp's bounds). Element types follow the opcode.
absl::Status CheckElementwise(const Instruction& instr, const VerifierOptions& options) {
  const Opcode op = instr.opcode();
  // Most elementwise instructions have operands of exactly their own shape, which satisfies
  // every rule below except the predicate types of compare, is-finite and select and the
  // operand types of abs, real and imag. The parser interns shapes, so that is one pointer
  // comparison per operand.
  if (op != Opcode::kCompare && op != Opcode::kIsFinite && op != Opcode::kSelect &&
      op != Opcode::kAbs && op != Opcode::kReal && op != Opcode::kImag && instr.shape().IsArray()) {
    bool same = true;
    for (const Instruction* operand : instr.operands()) {
      same = same && operand->shape_ptr() == instr.shape_ptr();
    }
    if (same) return CheckElementTypes(instr);
  }
  if (absl::Status s = RequireArrays(instr); !s.ok()) return s;
  const Shape& out = instr.shape();
  for (int64_t i = 0; i < instr.operand_count(); ++i) {
    const Shape& in = instr.operand(i)->shape();
    const bool may_be_scalar =
        (op == Opcode::kSelect && i == 0) || (op == Opcode::kClamp && i != 1);
    if (may_be_scalar && in.rank() == 0) continue;
    if (!DimsAgree(in, out)) {
      return InstrError(
          instr, StrCat(instr.PrintedOpcode(), " ", OperandRef(instr, i), " shape ", ShapeText(in),
                        " does not have the dimensions of its shape ", ShapeText(out)));
    }
  }
  if (absl::Status s = CheckElementTypes(instr); !s.ok()) return s;
  const PrimitiveType t = out.element_type;
  switch (op) {
    // Conversions, and ops whose result type is not an operand's: only dimensions are checked
    // (complex's result is complex; map's follows its computation).
    case Opcode::kConvert:
    case Opcode::kComplex:
    case Opcode::kMap:
      return absl::OkStatus();
    case Opcode::kStochasticConvert: {
      // A real floating-point operand and unsigned random bits of its width (XLA's
      // InferStochasticConvertShape, xla/service/shape_inference.cc at openxla/xla 33ab2836).
      const PrimitiveType in = instr.operand(0)->shape().element_type;
      const PrimitiveType bits = instr.operand(1)->shape().element_type;
      const int width = GetPrimitiveTypeInfo(in).bits;
      if (!GetPrimitiveTypeInfo(in).is_float) {
        return InstrError(instr,
                          StrCat(instr.PrintedOpcode(), " ", OperandRef(instr, 0), " element type ",
                                 PrimitiveTypeName(in), " is not a real floating-point type"));
      }
      if (!GetPrimitiveTypeInfo(bits).is_unsigned_int || GetPrimitiveTypeInfo(bits).bits != width) {
        return InstrError(
            instr, StrCat(instr.PrintedOpcode(), " ", OperandRef(instr, 1), " element type ",
                          PrimitiveTypeName(bits),
                          " is not an unsigned integer type of the operand's ", width, " bits"));
      }
      return absl::OkStatus();
    }
    case Opcode::kCompare:
    case Opcode::kIsFinite:
      if (t != PrimitiveType::kPred) {
        return InstrError(instr, StrCat(instr.PrintedOpcode(), " shape ", ShapeText(out),
                                        " does not have element type pred"));
      }
      if (op == Opcode::kCompare) {
        return RequireSameType(instr, 1, "operand 0's element type",
                               instr.operand(0)->shape().element_type, options);
      }
      return absl::OkStatus();
    case Opcode::kAbs:
    case Opcode::kReal:
    case Opcode::kImag: {
      // A complex operand gives its real component type (c64 -> f32), any other its own type,
      // as XLA's InferUnaryOpShape; real and imag take floating-point or complex operands, abs
      // signed ones too. (The result type is compared exactly: hlo-run reads it as given.)
      const PrimitiveType in = instr.operand(0)->shape().element_type;
      const PrimitiveTypeInfo& info = GetPrimitiveTypeInfo(in);
      if (!info.is_complex && !info.is_float && !(op == Opcode::kAbs && info.is_signed_int)) {
        return InstrError(instr, StrCat(instr.PrintedOpcode(), " ", OperandRef(instr, 0),
                                        " element type ", PrimitiveTypeName(in), " is not ",
                                        op == Opcode::kAbs ? "signed, floating-point or complex"
                                                           : "floating-point or complex"));
      }
      if (t == (info.is_complex ? ComponentType(in) : in)) return absl::OkStatus();
      return TypeMismatch(instr, 0, "the element type of its shape", t);
    }
    case Opcode::kSelect:
      if (instr.operand(0)->shape().element_type != PrimitiveType::kPred) {
        return TypeMismatch(instr, 0, "the predicate type", PrimitiveType::kPred);
      }
      for (int64_t i = 1; i < 3; ++i) {
        if (absl::Status s = RequireSameType(instr, i, "the element type of its shape", t, options);
            !s.ok()) {
          return s;
        }
      }
      return absl::OkStatus();
    default:
      for (int64_t i = 0; i < instr.operand_count(); ++i) {
        if (absl::Status s = RequireSameType(instr, i, "the element type of its shape", t, options);
            !s.ok()) {
          return s;
        }
      }
      return absl::OkStatus();
  }
}

// dimensions={...} maps operand dimension i to result dimension dimensions[i].
absl::Status CheckBroadcast(const Instruction& instr, const VerifierOptions& options) {
  if (absl::Status s = RequireArrays(instr); !s.ok()) return s;
  const Instruction& op = *instr.operand(0);
  const Shape& in = op.shape();
  const Shape& out = instr.shape();
  absl::Span<const int64_t> dims = instr.dimensions();
  if (static_cast<int64_t>(dims.size()) != in.rank()) {
    return InstrError(instr, StrCat("broadcast ", DimsAttr("dimensions", dims), " has ",
                                    Count(static_cast<int64_t>(dims.size()), "entry", "entries"),
                                    " but operand '", op.name(), "' has rank ", in.rank()));
  }
  absl::InlinedVector<bool, 8> used(static_cast<size_t>(out.rank()), false);
  for (int64_t i = 0; i < in.rank(); ++i) {
    const int64_t d = dims[i];
    if (d < 0 || d >= out.rank() || used[static_cast<size_t>(d)]) {
      return InstrError(instr, StrCat("broadcast ", DimsAttr("dimensions", dims),
                                      " is not a list of distinct "
                                      "dimensions of its shape ",
                                      ShapeText(out)));
    }
    used[static_cast<size_t>(d)] = true;
    if (!SizesAgree(in.dims[i], out.dims[d])) {
      return InstrError(instr, StrCat("broadcast operand '", op.name(), "' dimension ", i,
                                      " has size ", in.dims[i], " but dimension ", d,
                                      " of its shape ", ShapeText(out), " has size ", out.dims[d]));
    }
  }
  return RequireSameType(instr, 0, "the element type of its shape", out.element_type, options);
}

absl::Status CheckReshape(const Instruction& instr, const VerifierOptions& options) {
  if (absl::Status s = RequireArrays(instr); !s.ok()) return s;
  const Shape& in = instr.operand(0)->shape();
  const Shape& out = instr.shape();
  if (absl::Status s =
          RequireSameType(instr, 0, "the element type of its shape", out.element_type, options);
      !s.ok()) {
    return s;
  }
  auto is_static = [](const Shape& s) {
    return std::none_of(s.dynamic.begin(), s.dynamic.end(), [](bool d) { return d; });
  };
  if (is_static(in) && is_static(out) && in.ElementCount() != out.ElementCount()) {
    return InstrError(instr, StrCat("reshape shape ", ShapeText(out), " has ",
                                    Count(out.ElementCount(), "element", "elements"),
                                    " but operand '", instr.operand(0)->name(), "' shape ",
                                    ShapeText(in), " has ", in.ElementCount()));
  }
  return absl::OkStatus();
}

// dynamic-reshape(x, sizes...) has one s32[] size per result dimension and x's element type;
// the element counts are not compared (the sizes are known only at run time).
absl::Status CheckDynamicReshape(const Instruction& instr, const VerifierOptions& options) {
  const Shape& in = instr.operand(0)->shape();
  const Shape& out = instr.shape();
  if (!in.IsArray() || !out.IsArray()) return RequireArrays(instr);
  if (out.rank() != instr.operand_count() - 1) {
    return InstrError(
        instr, StrCat("dynamic-reshape shape ", ShapeText(out), " has rank ", out.rank(), " but ",
                      Count(instr.operand_count() - 1, "size operand", "size operands")));
  }
  for (int64_t i = 1; i < instr.operand_count(); ++i) {
    if (!IsScalarOf(instr.operand(i)->shape(), PrimitiveType::kS32)) {
      return InstrError(instr, StrCat("dynamic-reshape size ", OperandRef(instr, i), " shape ",
                                      ShapeText(instr.operand(i)->shape()), " is not s32[]"));
    }
  }
  return RequireSameType(instr, 0, "the element type of its shape", out.element_type, options);
}

absl::Status CheckTranspose(const Instruction& instr, const VerifierOptions& options) {
  if (absl::Status s = RequireArrays(instr); !s.ok()) return s;
  const Shape& in = instr.operand(0)->shape();
  const Shape& out = instr.shape();
  absl::Span<const int64_t> perm = instr.dimensions();
  if (!IsPermutation(perm, in.rank())) {
    return InstrError(
        instr, StrCat("transpose ", DimsAttr("dimensions", perm), " is not a permutation of the ",
                      in.rank(), " dimensions of operand '", instr.operand(0)->name(), "'"));
  }
  // A permutation, so inference gives the result.
  const Shape transposed = *InferTransposeShape(in, perm);
  if (!TypesAgree(out.element_type, in.element_type, options) || !DimsAre(out, transposed.dims)) {
    return ResultMismatch(instr, ExpectedArray(in.element_type, transposed.dims),
                          StrCat("operand '", instr.operand(0)->name(), "' permuted by ",
                                 DimsAttr("dimensions", perm)));
  }
  return absl::OkStatus();
}

absl::Status CheckSlice(const Instruction& instr, const VerifierOptions& options) {
  if (absl::Status s = RequireArrays(instr); !s.ok()) return s;
  const Instruction& op = *instr.operand(0);
  const Shape& in = op.shape();
  absl::Span<const SliceDim> slice = instr.slice();
  if (static_cast<int64_t>(slice.size()) != in.rank()) {
    return InstrError(
        instr, StrCat("slice has ", Count(static_cast<int64_t>(slice.size()), "range", "ranges"),
                      " but operand '", op.name(), "' has rank ", in.rank()));
  }
  Dims dims;
  for (int64_t d = 0; d < in.rank(); ++d) {
    const SliceDim& r = slice[d];
    const bool fits = r.start >= 0 && r.start <= r.limit &&
                      (in.dims[d] == Shape::kUnboundedSize || r.limit <= in.dims[d]);
    if (!fits || r.stride <= 0) {
      return InstrError(
          instr, StrCat("slice range [", r.start, ":", r.limit, ":", r.stride, "] in dimension ", d,
                        " does not fit in operand '", op.name(), "' shape ", ShapeText(in)));
    }
    dims.push_back(r.size());
  }
  if (!TypesAgree(instr.shape().element_type, in.element_type, options) ||
      !DimsAre(instr.shape(), dims)) {
    return ResultMismatch(instr, ExpectedArray(in.element_type, dims),
                          StrCat("operand '", op.name(), "' sliced"));
  }
  return absl::OkStatus();
}

absl::Status CheckConcatenate(const Instruction& instr, const VerifierOptions& options) {
  if (absl::Status s = RequireArrays(instr); !s.ok()) return s;
  if (instr.operand_count() == 0) return InstrError(instr, "concatenate has no operands");
  const Shape& first = instr.operand(0)->shape();
  absl::Span<const int64_t> dim = instr.dimensions();
  if (dim.size() != 1 || dim[0] < 0 || dim[0] >= first.rank()) {
    return InstrError(instr, StrCat("concatenate dimensions={", StrJoin(dim, ","),
                                    "} is not one dimension of operand '", instr.operand(0)->name(),
                                    "' shape ", ShapeText(first)));
  }
  const int64_t axis = dim[0];
  Dims dims(first.dims.begin(), first.dims.end());
  dims[axis] = 0;
  for (int64_t i = 0; i < instr.operand_count(); ++i) {
    const Shape& part = instr.operand(i)->shape();
    if (absl::Status s =
            RequireSameType(instr, i, "operand 0's element type", first.element_type, options);
        !s.ok()) {
      return s;
    }
    bool fits = part.rank() == first.rank();
    for (int64_t d = 0; fits && d < first.rank(); ++d) {
      fits = d == axis || SizesAgree(part.dims[d], first.dims[d]);
    }
    if (!fits) {
      return InstrError(instr, StrCat("concatenate ", OperandRef(instr, i), " shape ",
                                      ShapeText(part), " does not fit operand 0 shape ",
                                      ShapeText(first), " outside dimension ", axis));
    }
    if (part.dims[axis] == Shape::kUnboundedSize || dims[axis] == Shape::kUnboundedSize) {
      dims[axis] = Shape::kUnboundedSize;
    } else if (__builtin_add_overflow(dims[axis], part.dims[axis], &dims[axis])) {
      return InstrError(instr, "concatenate's joined dimension overflows");
    }
  }
  if (!TypesAgree(instr.shape().element_type, first.element_type, options) ||
      !DimsAre(instr.shape(), dims)) {
    return ResultMismatch(instr, ExpectedArray(first.element_type, dims),
                          StrCat("operands joined in dimension ", axis));
  }
  return absl::OkStatus();
}

absl::Status CheckPad(const Instruction& instr, const VerifierOptions& options) {
  if (absl::Status s = RequireArrays(instr); !s.ok()) return s;
  const Instruction& op = *instr.operand(0);
  const Shape& in = op.shape();
  if (instr.operand(1)->shape().rank() != 0) {
    return InstrError(instr, StrCat("pad ", OperandRef(instr, 1), " shape ",
                                    ShapeText(instr.operand(1)->shape()), " is not a scalar"));
  }
  if (absl::Status s =
          RequireSameType(instr, 1, "operand 0's element type", in.element_type, options);
      !s.ok()) {
    return s;
  }
  std::optional<std::string_view> text = RawAttribute(instr, "padding");
  std::optional<std::vector<PaddingDim>> pads;
  if (text) pads = ParsePadding(*text);
  if (!pads || static_cast<int64_t>(pads->size()) != in.rank()) {
    return InstrError(
        instr, StrCat("pad padding=", text.value_or(""),
                      " is not one low_high[_interior] entry per dimension of operand '", op.name(),
                      "' shape ", ShapeText(in)));
  }
  const std::optional<Shape> padded = InferPadShape(in, *pads);
  if (!padded) {
    // Inference does not say which dimension has no size; the message names the first.
    int64_t d = 0;
    while (in.dims[d] == Shape::kUnboundedSize || PaddedSize(in.dims[d], (*pads)[d])) ++d;
    return InstrError(
        instr, StrCat("pad padding=", *text, " gives dimension ", d, " of operand '", op.name(),
                      "' no size: negative interior padding, a negative "
                      "result or an overflow"));
  }
  if (!TypesAgree(instr.shape().element_type, in.element_type, options) ||
      !DimsAre(instr.shape(), padded->dims)) {
    return ResultMismatch(instr, ExpectedArray(in.element_type, padded->dims),
                          StrCat("operand '", op.name(), "' padded by ", *text));
  }
  return absl::OkStatus();
}

// reduce(inputs..., inits...): N inputs of the same dimensions and N scalar init values; the
// result (an array, or a tuple of N arrays) is the input without the reduced dimensions.
// XLA's reducer rule (ShapeInference's VerifyReducerShape, verifier_callee_rules.cc): a reduce
// of N inputs applies a computation of 2N scalar parameters (N accumulators, then N input
// elements) that returns one scalar, or a tuple of N. The interpreter applies it element by
// element on that promise.
absl::Status CheckReducer(const Instruction& instr, int64_t n, const VerifierOptions& options) {
  Dims inputs, inits;
  for (int64_t i = 0; i < n; ++i) {
    inputs.push_back(i);
    inits.push_back(n + i);
  }
  return CheckReducerSignature(instr, "to_apply", instr.to_apply(), n, inits, inputs, options);
}

absl::Status CheckReduce(const Instruction& instr, const VerifierOptions& options) {
  const int64_t n = instr.operand_count() / 2;
  if (instr.operand_count() % 2 != 0 || n == 0) {
    return InstrError(instr,
                      StrCat("reduce has ", Count(instr.operand_count(), "operand", "operands"),
                             ", expected inputs and as many init values"));
  }
  for (int64_t i = 0; i < instr.operand_count(); ++i) {
    const Shape& s = instr.operand(i)->shape();
    if (!s.IsArray()) {
      return InstrError(instr, StrCat("reduce ", OperandRef(instr, i), " shape ", ShapeText(s),
                                      " is not an array"));
    }
    if (i >= n && s.rank() != 0) {
      return InstrError(instr, StrCat("reduce init value ", OperandRef(instr, i), " shape ",
                                      ShapeText(s), " is not a scalar"));
    }
  }
  const Shape& first = instr.operand(0)->shape();
  absl::Span<const int64_t> reduced = instr.dimensions();
  for (int64_t d : reduced) {
    if (d < 0 || d >= first.rank()) {
      return InstrError(instr, StrCat("reduce ", DimsAttr("dimensions", reduced),
                                      " is out of range for operand '", instr.operand(0)->name(),
                                      "' shape ", ShapeText(first)));
    }
  }
  // The dimensions are in range, so inference gives what is left of them.
  const Shape left = *InferReduceShape(first, reduced, first.element_type);
  absl::Span<const int64_t> dims = left.dims;
  // One input gives an array, or a 1-tuple when the reducer returns one; N inputs a tuple.
  const Shape& out = instr.shape();
  const bool tuple_out = out.IsTuple();
  if (tuple_out ? static_cast<int64_t>(out.tuple_elements.size()) != n : n != 1 || !out.IsArray()) {
    return InstrError(instr, StrCat("reduce shape ", ShapeText(out), " is not ",
                                    n == 1 ? "an array or a tuple of 1 array"
                                           : StrCat("a tuple of ", n, " arrays"),
                                    " for ", Count(n, "input", "inputs")));
  }
  for (int64_t k = 0; k < n; ++k) {
    const Shape& in = instr.operand(k)->shape();
    if (!DimsAgree(in, first)) {
      return InstrError(
          instr, StrCat("reduce ", OperandRef(instr, k), " shape ", ShapeText(in),
                        " does not have the dimensions of operand 0 shape ", ShapeText(first)));
    }
    const Shape& part = tuple_out ? *out.tuple_elements[k] : out;
    if (part.IsArray() &&
        !TypesAgree(part.element_type, instr.operand(n + k)->shape().element_type, options)) {
      return InstrError(instr, StrCat("reduce result ", tuple_out ? StrCat("element ", k, " ") : "",
                                      "shape ", ShapeText(part), " does not have the element type ",
                                      PrimitiveTypeName(instr.operand(n + k)->shape().element_type),
                                      " of init value ", OperandRef(instr, n + k)));
    }
    if (!part.IsArray() || !DimsAre(part, dims)) {
      return InstrError(instr, StrCat("reduce result ", tuple_out ? StrCat("element ", k, " ") : "",
                                      "shape ", ShapeText(part), " does not have the dimensions ",
                                      ShapeText(ExpectedArray(part.element_type, dims)),
                                      " left after reducing ", DimsAttr("dimensions", reduced)));
    }
  }
  return CheckReducer(instr, n, options);
}

// The result shape inferred for a convolution or reduce-window (hlo/shape_inference.h) and
// what went into it, or why none can be.
absl::Status CheckInferred(const Instruction& instr, const Shape& out,
                           const absl::StatusOr<Shape>& expected, std::string_view from) {
  if (!expected.ok()) {
    return InstrError(instr, StrCat(instr.PrintedOpcode(),
                                    "'s shape cannot be checked: ", StatusText(expected.status())));
  }
  if (!DimsAre(out, expected->dims)) return ResultMismatch(instr, *expected, from);
  return absl::OkStatus();
}

// A convolution's dimensions follow from its operands, window, dim_labels and group counts
// (hlo/convolution_shape.h); its element type is free (preferred_element_type). XLA's sparse
// convolutions take a (values, indices) tuple as kernel; those are not checked.
absl::Status CheckConvolution(const Instruction& instr, const VerifierOptions&) {
  for (const Instruction* operand : instr.operands()) {
    if (!operand->shape().IsArray()) return absl::OkStatus();
  }
  if (absl::Status s = RequireArrays(instr); !s.ok()) return s;
  return CheckInferred(instr, instr.shape(), InferConvolutionResult(instr, *instr.module()),
                       "the operands under window, dim_labels and the group counts");
}

// reduce-window of one input: its dimensions are the window positions over the input, its
// element type the init value's; the result is an array, or a 1-tuple when the reducer returns
// one. Of a variadic reduce-window only the reducer's signature is checked.
absl::Status CheckReduceWindow(const Instruction& instr, const VerifierOptions& options) {
  if (instr.operand_count() != 2) {
    if (instr.operand_count() % 2 != 0) return absl::OkStatus();
    return CheckReducer(instr, instr.operand_count() / 2, options);
  }
  const Shape& written = instr.shape();
  const Shape& out = written.IsTuple() && written.tuple_elements.size() == 1
                         ? *written.tuple_elements[0]
                         : written;
  for (int64_t i = 0; i < 2; ++i) {
    const Shape& s = instr.operand(i)->shape();
    if (!s.IsArray()) {
      return InstrError(instr, StrCat("reduce-window ", OperandRef(instr, i), " shape ",
                                      ShapeText(s), " is not an array"));
    }
  }
  if (!out.IsArray()) {
    return InstrError(instr, StrCat("reduce-window shape ", ShapeText(written),
                                    " is not an array or a tuple of 1 array"));
  }
  if (instr.operand(1)->shape().rank() != 0) {
    return InstrError(instr, StrCat("reduce-window init value ", OperandRef(instr, 1), " shape ",
                                    ShapeText(instr.operand(1)->shape()), " is not a scalar"));
  }
  if (!TypesAgree(out.element_type, instr.operand(1)->shape().element_type, options)) {
    return InstrError(instr, StrCat("reduce-window shape ", ShapeText(written),
                                    " does not have the element type ",
                                    PrimitiveTypeName(instr.operand(1)->shape().element_type),
                                    " of init value ", OperandRef(instr, 1)));
  }
  if (absl::Status s = CheckInferred(
          instr, out, InferReduceWindowResult(instr, *instr.module()),
          StrCat("the window's positions over operand '", instr.operand(0)->name(), "'"));
      !s.ok()) {
    return s;
  }
  return CheckReducer(instr, 1, options);
}

// map: an elementwise op whose element function is its to_apply computation.
absl::Status CheckMap(const Instruction& instr, const VerifierOptions& options) {
  if (absl::Status s = CheckElementwise(instr, options); !s.ok()) return s;
  return CheckMapComputation(instr, options);
}

absl::Status CheckIota(const Instruction& instr, const VerifierOptions&) {
  if (absl::Status s = RequireArrays(instr); !s.ok()) return s;
  std::optional<std::string_view> text = RawAttribute(instr, "iota_dimension");
  const int64_t d = text ? ParseInt64(*text).value_or(-1) : -1;
  if (d < 0 || d >= instr.shape().rank()) {
    return InstrError(instr, StrCat("iota iota_dimension=", text.value_or(""),
                                    " is not a dimension of its shape ", ShapeText(instr.shape())));
  }
  return absl::OkStatus();
}

}  // namespace

ShapeRule ArrayShapeRule(Opcode op) {
  switch (op) {
    case Opcode::kBroadcast:
      return CheckBroadcast;
    case Opcode::kReshape:
      return CheckReshape;
    case Opcode::kDynamicReshape:
      return CheckDynamicReshape;
    case Opcode::kTranspose:
      return CheckTranspose;
    case Opcode::kSlice:
      return CheckSlice;
    case Opcode::kConcatenate:
      return CheckConcatenate;
    case Opcode::kPad:
      return CheckPad;
    case Opcode::kReduce:
      return CheckReduce;
    case Opcode::kIota:
      return CheckIota;
    case Opcode::kConvolution:
      return CheckConvolution;
    case Opcode::kReduceWindow:
      return CheckReduceWindow;
    case Opcode::kMap:
      return CheckMap;
    default:
      return IsElementwise(op) ? CheckElementwise : nullptr;
  }
}

}  // namespace hloscope::verifier_internal
