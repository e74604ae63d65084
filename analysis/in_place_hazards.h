// In-place hazards: fusions that update an operand in place while also reading it where the
// update may already have written.
//
//   InPlaceHazardReport r = FindInPlaceHazards(module);
//   for (const InPlaceHazard& h : r.hazards) fmt::print("{}\n", h.message);
//
// A fusion with in-place pairs (in_place_pairs.h: a dynamic-update-slice or scatter root, or
// output_to_operand_aliasing) writes its output into an operand's buffer while it runs. A
// backend emits it in place, so any other read of that operand inside the fusion may see
// elements the update already wrote: XLA computes wrong results for
// `dynamic-update-slice(base, slice(base), ...)` fused on CPU (openxla/xla issue 49176). For
// each fused parameter updated in place (followed through bitcasts, which share its bytes), the
// readers of that parameter other than the update's own operand slot are hazards, except the
// reads that only see the element being written:
//  - the same-index read-modify-write: a dynamic-slice of the parameter with the update's own
//    start indices (the same instructions, or constants of equal value) and the update's sizes,
//    or a slice whose constant start is the update's and whose size is the update's;
//  - a read of the update's own operand form that feeds an update of a single element (the
//    one write follows the read);
//  - for output_to_operand_aliasing without a dynamic-update-slice or scatter, elementwise
//    reads of the whole parameter (each output element reads the input element it replaces).
// A read through a bitcast, any other slice, dynamic-slice or gather (a different or unknown
// offset), and any other read of the whole parameter are hazards; a tuple only passes the
// parameter on to the fusion's output and reads nothing. Operands that are tuples are
// not followed. The walk is linear in the fused computations.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hlo/module.h"

namespace hloscope {

struct InPlaceHazard {
  const Instruction* fusion = nullptr;
  int64_t operand = 0;                     // the fusion operand updated in place
  const Instruction* parameter = nullptr;  // its fused parameter
  const Instruction* update = nullptr;     // the in-place op inside, or nullptr
  const Instruction* reader = nullptr;     // the read the update may overwrite
  // "%fusion.3 (in %main) updates operand 0 (%p0) in place with %dus.1, but %slice.2 reads
  // %p0 at another offset (slice [0:2] where the update writes at %i)"
  std::string message;
};

struct InPlaceHazardReport {
  int64_t in_place_fusions = 0;        // fusions with at least one in-place pair
  std::vector<InPlaceHazard> hazards;  // module order
};

InPlaceHazardReport FindInPlaceHazards(const Module& module);

}  // namespace hloscope
