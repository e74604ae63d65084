// Pieces of the verifier shared by its two files: verifier.cc (structure: operand/user
// consistency, parameters, roots, cycles, names) and verifier_shape_rules.cc (per-opcode shape
// rules). Not part of the public API.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "hlo/module.h"

namespace hloscope::verifier_internal {

// Message helpers. All messages go through these so the `computation '...': instruction '...':`
// prefix stays identical everywhere.
std::string ShapeText(const Shape& s);
std::string Count(int64_t n, std::string_view singular, std::string_view plural);
absl::Status ModuleError(const Module& m, std::string_view what);
absl::Status ComputationError(const Computation& c, std::string_view what);
absl::Status InstrError(const Computation& c, const Instruction& instr, std::string_view what);
// For the shape rules, which run after the structure check proved every parent right.
absl::Status InstrError(const Instruction& instr, std::string_view what);
// "operand 1 'x'"
std::string OperandRef(const Instruction& instr, int64_t i);
bool IsIntegerScalar(const Shape& s);
bool IsScalarOf(const Shape& s, PrimitiveType t);

// Step 3 (verifier_shape_rules.cc): whether `op` has a shape rule, and running the rules on
// instructions the structure check passed.
bool HasShapeRule(Opcode op);
absl::Status CheckShapes(absl::Span<const Instruction* const> instrs);

}  // namespace hloscope::verifier_internal
