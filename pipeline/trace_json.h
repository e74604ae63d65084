// Chrome trace-event JSON of a simulated schedule, for chrome://tracing and ui.perfetto.dev.
//
// Layout: one process per rank ("rank r"), with a "compute" thread holding F/B/I/W slices at their
// simulated times, a "send/recv" thread holding SEND and RECV slices, and a counter track of live
// activations. Every SEND is joined to its RECV by a flow arrow, bound explicitly to the two
// slices with flow-v2 fields (bind_id, flow_out, flow_in): a SEND or RECV usually takes no time,
// and binding by timestamp (flow v1) picks the wrong slice when several share an instant.
// Times are written as microseconds, the unit of the cost model.
#pragma once

#include <string>

#include "pipeline/simulator.h"

namespace hloscope::pipeline {

struct TraceOptions {
  // Name of the counter's value: "bytes", or "stage-equivalents" when no sizes were given.
  std::string size_unit = "bytes";
};

std::string ChromeTraceJson(const Schedule& schedule, const Simulation& sim,
                            const TraceOptions& options = {});

}  // namespace hloscope::pipeline
