// The per-opcode rules of the dataflow analysis, as data: for one instruction, which ranges of
// its output positions receive values from which positions of other instructions. Positions
// no range covers define a value. A merge instruction (while, conditional, while body and
// condition parameters) in SSA form is marked `phi`: all its positions define phi values and
// the ranges are the phi inputs.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "analysis/dataflow.h"

namespace hloscope {

struct ForwardRange {
  int32_t dst = 0;    // first position in the instruction's output
  int32_t count = 0;  // number of positions
  const Instruction* src = nullptr;
  int32_t src_pos = 0;  // first position in src's output
};

struct InstructionRule {
  bool phi = false;
  // A std::vector so that one InstructionRule, cleared between instructions, keeps its
  // capacity while the analysis walks a module.
  std::vector<ForwardRange> ranges;

  void Clear() {
    phi = false;
    ranges.clear();
  }
};

// Fills `rule` (cleared before) for `instr`. Fails (naming the instruction) when the shapes do
// not have the structure the opcode implies, e.g. a get-tuple-element index past its operand's
// elements. `calls` is read for parameters only (their rule depends on the caller); null means
// no call graph yet (the walk's instructions other than parameters).
absl::Status BuildRule(const Instruction& instr, const CallGraph* calls,
                       const DataflowAnalysis::Options& options, ShapePositions& positions,
                       InstructionRule& rule);

}  // namespace hloscope
