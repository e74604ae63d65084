// Module → text. The canonical style is XLA's current short form (no `%`, no operand shapes,
// computations without signatures); the legacy style writes `%name`, operand shapes and
// computation signatures. parse → print → parse → print yields the same text twice.
#pragma once

#include <string>

#include "hlo/module.h"

namespace hloscope {

enum class PrintStyle { kCanonical, kLegacy };

struct PrintOptions {
  PrintStyle style = PrintStyle::kCanonical;
  bool print_metadata = true;
};

std::string PrintModule(const Module& module, const PrintOptions& options = {});
void AppendModule(const Module& module, const PrintOptions& options, std::string& out);
std::string PrintComputation(const Computation& computation, const PrintOptions& options = {});
std::string PrintInstruction(const Instruction& instr, const PrintOptions& options = {});

}  // namespace hloscope
