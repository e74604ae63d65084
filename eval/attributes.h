// pad's `padding=` as the interpreter needs it: hlo/attribute_values.h's ParsePadding, with a
// failure turned into an error that names the instruction.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "hlo/attribute_values.h"
#include "hlo/instruction.h"

namespace hloscope::eval {

using PadDim = PaddingDim;
// padding=0_1x2_3_1: one entry per dimension; an error when the text does not parse.
absl::StatusOr<std::vector<PadDim>> PaddingAttribute(const Instruction& instr);

}  // namespace hloscope::eval
