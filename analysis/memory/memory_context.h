// What a module's memory report can and cannot promise, said before its numbers: a peak of a
// module XLA has not yet scheduled, fused or partitioned is not what XLA will allocate.
//
//   for (const std::string& w : MemoryContextWarnings(module)) fmt::print("warning: {}\n", w);
#pragma once

#include <string>
#include <vector>

#include "hlo/module.h"

namespace hloscope {

// One line per reason, each naming the module, whether the peak overstates or understates
// XLA's allocation, and why:
//  - not scheduled (no is_scheduled=true): the order is ours, XLA's scheduler picks another;
//  - not fused (no fusion instruction while elementwise or other fusible work is present: a
//    before-optimization dump): every intermediate counts, most of which XLA fuses away;
//  - not partitioned (tiled shardings but no collective): shapes are global, each device
//    holds a share.
std::vector<std::string> MemoryContextWarnings(const Module& module);

}  // namespace hloscope
