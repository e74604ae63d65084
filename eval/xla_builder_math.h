// The elementwise functions of XLA's builder library (xla/hlo/builder/lib/math.cc and
// math_impl.h) that XLA's test-only-xla-builder pass expands the custom-calls
// `xla_builder.math.<Name>` into, stated as scalar HLO computations in hloscope's own code
// (eval/xla_builder_math.cc): the same formula, with the same operations, constants and
// order of roundings in the operand's element type, so that hlo-run's ops give what XLA's
// expansion gives, bit for bit (testdata/tools/hlo_run/evaluator/xla_builder_math.hlo
// compares them against XLA's own test expectations, read from the corpus by path).
//
//   Acos, Acosh, Asin, Asinh, Atan, Cosh   f32, f64, c64, c128
//   NextAfter                              f32, f8e5m2fnuz
//
// Only the element types XLA's builder tests expand (xla/hlo/builder/tests/math_*.hlo) are
// offered: those are the ones checked against XLA.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "hlo/primitive_type.h"

namespace hloscope::eval {

// Whether `target` is one of the functions above (for any element type).
bool IsXlaBuilderMathTarget(std::string_view target);
// How many operands the function of `target` takes (1, or 2 for NextAfter); 0 if unknown.
int XlaBuilderMathArity(std::string_view target);
// The element types `target` is offered for, comma-separated, for messages.
std::string XlaBuilderMathTypes(std::string_view target);
// The text of a module whose entry computation is the scalar function of `target` on
// `type` (parameters of `type`, result of `type`); nullopt when not offered for `type`.
std::optional<std::string> XlaBuilderMathModuleText(std::string_view target, PrimitiveType type);

}  // namespace hloscope::eval
