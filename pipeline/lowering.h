// Lowers a compute-only schedule to one with explicit communication: for every edge between
// stages on different ranks, a SEND right after the producing compute and a RECV right before
// the consuming compute. Edges between stages on the same rank (the tip of a V placement) get
// nothing: the activation or gradient is passed in memory.
//
// Why this cannot deadlock: sends are asynchronous (posted and forgotten, like isend), and a RECV
// sits immediately before the one action that needs its data, so it waits exactly as long as
// that action would have waited in the compute-only schedule. A compute-only schedule that the
// simulator can run therefore lowers to one it can run, with the same timing when SEND/RECV take
// no time on the rank. The input is validated; a deadlock in it (a cycle across ranks) is still
// a deadlock after lowering and is reported by Simulate.
#pragma once

#include "absl/status/statusor.h"
#include "pipeline/schedule.h"

namespace hloscope::pipeline {

// Idle cells are dropped. A schedule that already has SEND/RECV is an error: lowering it twice
// would double every transfer.
absl::StatusOr<Schedule> AddSendRecv(const Schedule& compute);

}  // namespace hloscope::pipeline
