// Checks that an instruction's operands fit its attributes and result shape before a kernel
// indexes into them. The verifier checks declared shapes, but a library caller may evaluate a
// module it never verified, and the checks here read the operands' run-time shapes; the
// interpreter must never read or write outside an array, so it refuses instead.
#pragma once

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "hlo/instruction.h"

namespace hloscope::eval {

// InvalidArgument "cannot run %name: <why>" when the operands (given by their run-time shapes)
// do not fit; OK otherwise. Only array kernels are checked (kernels.h).
absl::Status CheckOperands(const Instruction& instr, absl::Span<const Shape* const> operands);

}  // namespace hloscope::eval
