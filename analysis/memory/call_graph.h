// The control-flow call graph the memory profiler walks: while bodies and conditions,
// conditional branches and `call` targets (fusions and other embedded computations are no
// memory of their own).
//
//   if (absl::Status s = CheckOneCallSitePerCallee(module); !s.ok()) return s;
//   for (const Computation* c : CalleesFirst(*module.entry())) ...
#pragma once

#include <vector>

#include "absl/status/status.h"
#include "hlo/module.h"

namespace hloscope {

// The control-flow callees reachable from `entry`, callees before their callers (post-order),
// `entry` last: each computation once, so callers can read their callees' peaks.
std::vector<const Computation*> CalleesFirst(const Computation& entry);

// An error naming the first control-flow callee with more than one call site among the
// computations CalleesFirst walks. The profiler
// computes a callee's live ranges once and adds its peak at the calling instruction, so a
// shared callee would be one set of buffers for all its callers; the dataflow accepts shared
// callees (their parameters hold the union), but that profile would not be XLA's.
// flatten-call-graph gives every callee its own copy.
absl::Status CheckOneCallSitePerCallee(const Module& module);

}  // namespace hloscope
