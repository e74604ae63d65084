// Result shapes for instructions written without one (`t = tuple(a, b)`), as XLA's parser
// allows. Only opcodes whose result follows from operands or the callee are inferred; others
// get an error asking for the shape.
#pragma once

#include <string>

#include "hlo/module.h"

namespace hloscope {

// `callee` is the first computation the instruction calls (nullptr if none or not yet
// defined). Returns nullptr and sets *error when the shape cannot be inferred.
const Shape* InferShape(const Instruction& instr, const Computation* callee, Module& module,
                        std::string* error);

}  // namespace hloscope
