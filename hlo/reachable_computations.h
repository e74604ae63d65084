// The computations that run: the entry and everything its instructions call, transitively
// (control flow, fusions, reducers, async wrapped computations). Linear in the module; the
// call edges are read in one prefetching sweep in module order. Instructions removed but not
// yet compacted still count as callers. Defined in module.cc, where
// Module::RemoveUnreachableComputations drops the rest with it.
#pragma once

#include "absl/container/flat_hash_set.h"
#include "hlo/module.h"

namespace hloscope {

// Empty when the module has no entry.
absl::flat_hash_set<const Computation*> ReachableComputations(const Module& module);

}  // namespace hloscope
