// Bounded dynamic shapes (`f32[<=10,4]`) in the interpreter: the array computations over a
// value's valid region. See docs/interpreter_coverage.md, "Bounded dynamic shapes".
//
// A dynamic array is stored at its bound (the shape's dims, physical order as any array) and
// carries its valid size per dimension. The elements inside the sizes are the value, the rest
// is padding. Following XLA's HloEvaluator (hlo_evaluator.cc), most ops compute over the whole
// bound and keep the sizes; the ops whose valid result depends on where the padding is
// (reduce, dot, reshape, concatenate, reverse) compute what XLA's dynamic padder
// (service/dynamic_padder.cc) makes the backends compute: the padding masked with the
// reduction's init value (dot: zero), or the valid elements moved as a static op of the
// valid sizes would move them. Other ops refuse operands below their bound.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "eval/kernels.h"
#include "hlo/instruction.h"

namespace hloscope::eval {

// One valid size per dimension (each in [0, bound]).
using DynamicSizes = std::vector<int64_t>;

// Whether dimension `i` of `shape` is marked dynamic (`<=N`); false past the flags a shape
// built in code may lack.
inline bool IsDynamicDim(const Shape& shape, size_t i) {
  return i < shape.dynamic.size() && shape.dynamic[i];
}
// Whether a dimension of `shape` is unbounded (`?`): such shapes are refused.
bool HasUnboundedDimension(const Shape& shape);
// Whether `sizes` are below `shape`'s dims in some dimension (empty sizes: at the bound).
bool BelowBound(const Shape& shape, absl::Span<const int64_t> sizes);
// `sizes`, or the dims when empty.
DynamicSizes SizesOrBound(const Shape& shape, absl::Span<const int64_t> sizes);

// The sizes an output literal of `shape` carries: `sizes` on its dynamic dimensions, the
// static size on the others.
DynamicSizes OutputSizes(const Shape& shape, absl::Span<const int64_t> sizes);

// The custom-call targets that convert between dynamic and static arrays.
bool IsDynamicShapeCustomCall(std::string_view target);

// The ops that keep each valid element at a fixed place (elementwise, convert, copy,
// broadcast, transpose, slice, map, ...): run over the whole bound, their result's sizes follow
// the operands' (PropagatedSizes).
bool KeepsValidRegion(Opcode op);
// The result sizes of such an op. `sizes[k]` is operand k's (empty: at its bound). A static
// result dimension keeps its size; operands that disagree give the smaller size, or the
// larger where the other is 1 (see ImplicitBroadcasts).
absl::StatusOr<DynamicSizes> PropagatedSizes(const Instruction& instr,
                                             absl::Span<const ArrayRef> operands,
                                             absl::Span<const DynamicSizes> sizes);

// Elementwise ops whose dynamic operands disagree on a dimension's size: XLA's dynamic padder
// broadcasts an operand of size 1 to the other's size and otherwise cuts to the smaller
// (dynamic_padder_test.cc DynamicAddWithImplicitBroadcast, DynamicAddWithImplicitSlice).
// Returns, per operand, the dimensions to broadcast its index 0 along (empty: none).
std::vector<std::vector<size_t>> ImplicitBroadcasts(absl::Span<const ArrayRef> operands,
                                                    absl::Span<const DynamicSizes> sizes);
// A copy of the array with the elements at index 0 of `dims` repeated along them.
Bytes RepeatIndexZero(const ArrayRef& array, absl::Span<const size_t> dims);

// A copy of the array with every element outside `sizes` set to `fill` (one element's bytes).
Bytes MaskOutsideSizes(const ArrayRef& array, absl::Span<const int64_t> sizes, const uint8_t* fill);
// The elements inside `sizes`, row-major (a static array of dims `sizes`).
Bytes CompactValid(const ArrayRef& array, absl::Span<const int64_t> sizes);
// The inverse: `compact` (row-major over `sizes`) placed into storage of `shape` at the same
// multi-indices; the padding is zero.
Bytes ExpandValid(const Shape& shape, const uint8_t* compact, absl::Span<const int64_t> sizes);

// reduce: the sizes of the dimensions kept (operand dims minus `reduced`).
DynamicSizes ReduceResultSizes(absl::Span<const int64_t> operand_sizes,
                               absl::Span<const int64_t> reduced);
// dot: batch dims, then lhs free, then rhs free dims.
DynamicSizes DotResultSizes(const Instruction& dot, absl::Span<const int64_t> lhs_sizes,
                            absl::Span<const int64_t> rhs_sizes);
// reshape: the result's valid sizes from the operand's. The reshape is split into groups of
// dimensions whose bounds have equal products; a group whose valid count is below its bound
// gives it to one result dimension (marked dynamic, else inferred_dimension=). Refused when
// none or several could take it.
absl::StatusOr<DynamicSizes> ReshapeResultSizes(const Instruction& instr,
                                                absl::Span<const int64_t> operand_sizes);

// concatenate and reverse over the valid regions: the result bytes (padding zero) and sizes.
struct DynamicResult {
  Bytes bytes;
  DynamicSizes sizes;
};
absl::StatusOr<DynamicResult> ConcatenateValid(const Instruction& instr,
                                               absl::Span<const ArrayRef> operands,
                                               absl::Span<const DynamicSizes> sizes);
absl::StatusOr<DynamicResult> ReverseValid(const Instruction& instr, const ArrayRef& operand,
                                           absl::Span<const int64_t> sizes);

// pad: the padding around and between the valid elements (dynamic_padder_test.cc DynamicPad,
// DynamicPadInteriorPadding): each result size is low + high + n + (n-1) * interior.
absl::StatusOr<DynamicResult> PadValid(const Instruction& instr, const ArrayRef& operand,
                                       absl::Span<const int64_t> sizes, const ArrayRef& value);

// sort (sort.cc) with only the first `valid_length` elements of each slice along the sort
// dimension ordered and the rest left in place, as XLA's padder sorts a dynamic dimension
// (dynamic_padder_test.cc DynamicSort: {1, 4, 3, 2} of size 3 sorted descending gives
// {4, 3, 1, 2}); -1: the whole dimension.
absl::StatusOr<std::vector<Bytes>> EvalSortValid(const Instruction& instr,
                                                 absl::Span<const ArrayRef> operands,
                                                 const ScalarComputation& compare,
                                                 int64_t valid_length);

// The refusal for an op that is not run on an operand below its bound.
absl::Status RefuseBelowBound(const Instruction& instr, std::string_view why);

}  // namespace hloscope::eval
