// Result shapes for instructions written without one (`t = tuple(a, b)`), as XLA's parser
// allows. Only opcodes whose result follows from operands or the callee are inferred; others
// get an error asking for the shape.
#pragma once

#include <string>

#include "absl/status/statusor.h"
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

}  // namespace hloscope
