// The unit the dataflow analysis reasons about: a value, i.e. one array (or tuple, token)
// created at one place of the module. A value is defined at an (instruction, shape index)
// position; a phi value stands for "whichever of several values reaches this merge point"
// (a while or conditional result, a while body/condition parameter) in SSA form.
#pragma once

#include <cstdint>
#include <limits>
#include <string>

#include "hlo/instruction.h"
#include "hlo/shape.h"

namespace hloscope {

// Dense ids: values are numbered 0..n-1 in the order of their defining positions (computations
// in module order, instructions in text order, indices in pre-order).
using ValueId = uint32_t;
inline constexpr ValueId kNoValue = std::numeric_limits<ValueId>::max();

struct HloValue {
  ValueId id = kNoValue;
  const Instruction* instruction = nullptr;  // defining instruction
  ShapeIndex index;                          // defining index in its shape
  const Shape* shape = nullptr;              // the subshape at `index`
  bool is_phi = false;

  // "name{1,0}" or "name{} (phi)".
  std::string ToString() const;
};

}  // namespace hloscope
