// custom-calls that XLA's builder library defines (xla/hlo/builder/lib/math.cc): the targets
// `xla_builder.math.*` that XLA's test-only-xla-builder pass replaces by the HLO the builder
// emits. hlo-run evaluates the same formula: eval/xla_builder_math.h states each function as
// a scalar computation with the operations, constants and rounding order of XLA's expansion,
// and the kernel applies it to each element through the running interpreter (so its steps
// count against the run's --max-steps like any to_apply call).
//
//   Acos, Acosh, Asin, Asinh, Atan, Cosh   f32, f64, c64, c128
//   NextAfter                              f32, f8e5m2fnuz
//
// Other element types, and the shape-dependent targets (matrix.Einsum,
// tridiagonal.TridiagonalSolver, ...), are refused with the reason (docs/interpreter_coverage.md,
// "xla_builder custom-calls").
#pragma once

#include <functional>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "eval/kernels.h"
#include "hlo/instruction.h"

namespace hloscope::eval {

// Runs a scalar computation on scalar arguments inside the current run (the evaluator's
// to_apply path), one result per output.
using ScalarRunner = std::function<absl::StatusOr<std::vector<Scalar>>(
    const Computation& computation, absl::Span<const Scalar> args)>;

// Whether `target` is an xla_builder function hlo-run knows (for some element type).
bool IsXlaBuilderTarget(std::string_view target);

// instr's function applied elementwise to `operands` (each of the result's shape and element
// type); one result.
absl::StatusOr<std::vector<Bytes>> EvalXlaBuilderCall(const Instruction& instr,
                                                      absl::Span<const ArrayRef> operands,
                                                      absl::Span<const Shape* const> results,
                                                      const ScalarRunner& run);

}  // namespace hloscope::eval
