// XLA's peak memory (its ComputePeakMemory, xla/service/buffer_assignment.cc at ROCm/xla
// 183fa00cb5) counted on our model of XLA's buffer assignment instead of on XLA's dump: the
// model's allocations and its simulated heap trace (XlaModelAssignment::heap_traces) are
// written as the BufferAssignmentProto XLA would write for them and replayed by the same code
// that replays XLA's own (xla_peak_memory.h). So where the model's assignment and trace are
// XLA's, the figure is XLA's to the byte:
//
//   absl::StatusOr<XlaModelPeak> p = XlaModelPeakMemory(*AssignLikeXla(module));
//   fmt::print("{} bytes ({} live throughout)\n", p->peak_bytes, p->static_bytes);
//
// The figure differs from the memory report's timeline peak (MemoryReport::peak_bytes): that
// one counts whole entry steps and a control-flow callee's peak as a block at its call; this
// one counts the trace call by call on the whole-module sequence, where a result that takes
// over its dying operand's chunk (SHARE_WITH) adds nothing.
#pragma once

#include <cstdint>

#include "absl/status/statusor.h"
#include "analysis/memory/xla_assignment_model.h"

namespace hloscope {

namespace xla_ba {
class BufferAssignmentProto;
}  // namespace xla_ba

struct XlaModelPeak {
  int64_t peak_bytes = 0;
  // The static part, counted before the traces: each entry-parameter, constant and
  // maybe-live-out allocation (not thread-local) by the largest value it holds.
  int64_t static_bytes = 0;
};

// The assignment as XLA's BufferAssignmentProto: a logical buffer per value (its XlaModelValue
// id and size; the wrapped tuple tables, which have no value of ours and are never traced or
// static, left out), an allocation per allocation with its kinds and values, a trace per
// heap_traces entry.
void XlaModelAssignmentProto(const XlaModelAssignment& assignment,
                             xla_ba::BufferAssignmentProto& proto);

// ComputePeakMemory (padded sizes: each value's size as assigned) over that proto. Errors:
// the replay's (a trace naming a value no allocation holds, a sum past int64).
absl::StatusOr<XlaModelPeak> XlaModelPeakMemory(const XlaModelAssignment& assignment);

}  // namespace hloscope
