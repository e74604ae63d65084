// Reading attributes that the IR keeps only as text (dot dimension numbers, padding,
// dim_labels, ...), for the analyses and tools that need their values.
//
//   std::vector<int64_t> dims = IntListAttribute(*dot, "lhs_contracting_dims");   // {1}
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "hlo/instruction.h"

namespace hloscope {

class Module;

// The text of attribute `key` as written, or nullopt when the instruction has none.
std::optional<std::string_view> RawAttribute(const Instruction& instr, std::string_view key);
// The integers of `key={1,2}` or `key=3`, in order; empty when absent.
std::vector<int64_t> IntListAttribute(const Instruction& instr, std::string_view key);

// The same for an instruction that is not in a computation yet (the parser's shape inference):
// `module` interns its attribute keys.
std::optional<std::string_view> RawAttribute(const Instruction& instr, const Module& module,
                                             std::string_view key);
std::vector<int64_t> IntListAttribute(const Instruction& instr, const Module& module,
                                      std::string_view key);

}  // namespace hloscope
