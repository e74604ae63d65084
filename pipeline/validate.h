// Static checks of a schedule: everything that can be decided without timing. Deadlocks across
// ranks (rank 0 waits for rank 1, which waits for rank 0) need the dependency walk of the
// simulator and are reported by Simulate, in the same format.
//
// Rules, for S stages and M microbatches:
//   - every action names a stage < S and a microbatch < M;
//   - a stage runs on one rank (its SEND/RECV run there too);
//   - each (stage, microbatch) has exactly one F, and either one B or one I and one W;
//   - on its own rank an action comes after what it consumes: B/I after F, W after I, SEND after
//     the compute that produced the data, a consumer after its RECV, and a stage after the
//     neighbouring stage when both share the rank (V placement passes activations directly);
//   - SEND/RECV only cross ranks and come in matching pairs; a schedule with any SEND/RECV is
//     treated as lowered, so every cross-rank input must then have its RECV.
// The error lists each problem with its rank and step and prints the grid with the cells marked.
#pragma once

#include "absl/status/status.h"
#include "pipeline/schedule.h"

namespace hloscope::pipeline {

absl::Status ValidateSchedule(const Schedule& schedule);

}  // namespace hloscope::pipeline
