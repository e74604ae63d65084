// Mixed precision as XLA's backends compute it, a judge-only mode (EvalOptions::mixed_precision =
// kConvertOperands; hlo-run --mixed-precision=convert). XLA's verifier lets an op mix
// floating-point types (add(f32, bf16) -> f32, select(pred, f32, bf16), broadcast of f64 into
// f32) when mixed precision is allowed; XLA's evaluator reads every operand as one type, so
// hlo-run refuses such an op by default. XLA's CPU and GPU compilers run FloatNormalization
// (xla/hlo/transforms/simplifiers/float_normalization.cc, HandleInstruction, at openxla/xla
// 2c731115) before code generation: an op that does not support mixed precision (every
// elementwise and data-movement op) gets its low-precision operands converted to the high
// precision type, is computed there, and its result converted back to its type. This mode does
// the same with the widest of the op's floating-point types as the high one. For an op that
// only moves elements (select's branches, broadcast, transpose, ...) converting first or last
// gives the same bits, so its operands are converted straight to the result's type.
//
// docs/interpreter_coverage.md ("Judge-only run modes") says which type pairs a backend pass
// normalizes and why the rule is sound for the judge for the others.
#pragma once

#include <cstdint>
#include <deque>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/types/span.h"
#include "eval/kernels.h"
#include "hlo/instruction.h"

namespace hloscope::eval {

// The element type each operand is to be read as when `instr` mixes floating-point types in
// the way this mode converts (one entry per operand; an operand that stays as it is keeps its
// type); empty when it does not (same types, integer types mixed, or an op outside the rule),
// so the op runs, or is refused, as it is.
std::vector<PrimitiveType> MixedPrecisionOperandTypes(const Instruction& instr,
                                                      absl::Span<const Shape* const> operands);

// all-reduce of operands into results of other floating-point types (bf16 into f32, f32 into
// bf16): the type each operand k is reduced in, the wider of operand k's and result k's, as
// FloatNormalization gives the backends (low-precision operands converted up, a low-precision
// result computed in the high type and converted back, the reducer converted with them). Empty
// when no pair mixes float types, or a pair differs otherwise (then it is refused as it is).
std::vector<PrimitiveType> MixedAllReduceTypes(absl::Span<const Shape* const> operands,
                                               absl::Span<const Shape* const> results);

// The elements of array `shape` at `data` converted to `to`, in the same layout.
Bytes ConvertElements(const Shape& shape, const uint8_t* data, PrimitiveType to);

// Shapes of converted operands (a shape with another element type), made once per shape and
// type and kept for the run, as the values that point at them may live that long.
class ConvertedShapes {
 public:
  const Shape* Get(const Shape& shape, PrimitiveType to);

 private:
  std::deque<Shape> shapes_;
  absl::flat_hash_map<std::pair<const Shape*, PrimitiveType>, const Shape*> made_;
};

}  // namespace hloscope::eval
