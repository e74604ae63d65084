// Result shapes for instructions written without one (`t = tuple(a, b)`), as XLA's parser
// allows. Only opcodes whose result follows from operands or the callee are inferred; others
// get an error asking for the shape.
#pragma once

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hlo/attribute_values.h"
#include "hlo/module.h"

namespace hloscope {

// `callee` is the first computation the instruction calls (nullptr if none or not yet
// defined). Returns nullptr and sets *error when the shape cannot be inferred.
const Shape* InferShape(const Instruction& instr, const Computation* callee, Module& module,
                        std::string* error);

// The result shapes of a convolution and of a single-input reduce-window as inferred from
// their operands and attributes (no layout), or why they cannot be; the verifier compares
// written shapes with them. `module` holds the instruction's attribute keys.
absl::StatusOr<Shape> InferConvolutionResult(const Instruction& instr, const Module& module);
absl::StatusOr<Shape> InferReduceWindowResult(const Instruction& instr, const Module& module);

// The shape rules themselves, on shapes alone, so that the parser's inference (InferShape), the
// verifier's rules and the interpreter's operand checks (which reads run-time shapes) derive a
// result shape one way. Each gives the result without a layout, dynamic dimensions staying
// dynamic; nullopt means the operands and attributes do not fit together, and the caller says
// why in its own words. The rules check only what building the result needs: sizes that
// must agree between operands (a dot's contracting pairs, a concatenate's other dimensions)
// are the callers' checks, as they differ on `?` sizes.

// `permutation` names each operand dimension once; result dimension i is operand dimension
// permutation[i].
std::optional<Shape> InferTransposeShape(const Shape& operand,
                                         absl::Span<const int64_t> permutation);
// Arrays of one rank joined along `dimension`: the first operand's dimensions, the joined one
// the sum (unbounded when any part is), each dynamic when it is in any operand. nullopt for no
// operands, a dimension out of range, a rank that differs, or a sum that overflows.
std::optional<Shape> InferConcatenateShape(absl::Span<const Shape* const> operands,
                                           int64_t dimension);
// One PaddingDim per operand dimension; an unbounded dimension stays unbounded. nullopt for a
// rank that differs or a padded size that is negative or overflows (PaddedSize).
std::optional<Shape> InferPadShape(const Shape& operand, absl::Span<const PaddingDim> padding);
// The operand without the `reduced` dimensions (each in range), of element type `type`.
std::optional<Shape> InferReduceShape(const Shape& operand, absl::Span<const int64_t> reduced,
                                      PrimitiveType type);
// Whether a dot's batch and contracting lists pair up (as many lhs as rhs entries) and name
// dimensions of their operand: what InferDotShape needs.
bool DotDimensionsInRange(const Shape& lhs, const Shape& rhs, const DotDimensionNumbers& dnums);
// A dot's result: batch dimensions (dynamic when either side's is), then the lhs's free
// dimensions, then the rhs's, each in increasing order, of element type `type`.
// Requires DotDimensionsInRange.
Shape InferDotShape(const Shape& lhs, const Shape& rhs, const DotDimensionNumbers& dnums,
                    PrimitiveType type);
// A ragged-dot's result, whose one lhs ragged dimension (dnums.lhs_ragged) splits into the
// groups that `group_sizes`'s last dimension counts. Where that dimension sits decides: a free
// one drops the rhs group dimension (dnums.rhs_group[0]) from the dot's result, a contracting
// one puts the group count before it, a batch one changes nothing. Requires
// DotDimensionsInRange, one lhs ragged dimension in range, for a free one one rhs group
// dimension in range, and a group_sizes of rank 1 or more.
Shape InferRaggedDotShape(const Shape& lhs, const Shape& rhs, const Shape& group_sizes,
                          const DotDimensionNumbers& dnums, PrimitiveType type);

}  // namespace hloscope
