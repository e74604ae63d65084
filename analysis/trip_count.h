// How many times a while loop runs its body, when the module says or shows it:
//  - `known_trip_count` in the while's backend_config (XLA writes it for counted loops), else
//  - the counted-loop shape: the condition's root compares a state element with an integer
//    constant (i < N, i <= N, or N > i, N >= i), the loop's init tuple sets that element to an
//    integer constant, and the body's root tuple sets it to the element plus the constant 1.
//    Copies in between are looked through (a copy holds its operand's value): copy insertion
//    puts them on the init, the body's parameter elements and its root elements.
//
//   std::optional<int64_t> n = WhileTripCount(*while_instr);   // nullopt: not known
#pragma once

#include <cstdint>
#include <optional>

#include "hlo/instruction.h"

namespace hloscope {

std::optional<int64_t> WhileTripCount(const Instruction& while_instr);

}  // namespace hloscope
