// XLA's ComputePeakMemory on our modeled assignment (xla_model_peak.h).
#include "analysis/memory/xla_model_peak.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "analysis/memory/xla_buffer_assignment.pb.h"
#include "analysis/memory/xla_peak_memory.h"

namespace hloscope {

void XlaModelAssignmentProto(const XlaModelAssignment& assignment,
                             xla_ba::BufferAssignmentProto& proto) {
  absl::flat_hash_set<int64_t> defined;
  for (const XlaModelAllocation& a : assignment.allocations) {
    xla_ba::BufferAllocation* out = proto.add_buffer_allocations();
    out->set_index(a.index);
    out->set_size(a.size);
    out->set_is_thread_local(a.thread_local_);
    out->set_is_entry_computation_parameter(a.parameter);
    out->set_maybe_live_out(a.maybe_live_out);
    out->set_is_tuple(a.tuple);
    out->set_is_constant(a.constant);
    for (const XlaModelValue& v : a.values) {
      // A wrapped tuple table (buffer -1) borrows its async-start value's id; it lives in a
      // temporary tuple allocation of its own, which XLA neither traces nor counts as static.
      if (v.buffer == -1) continue;
      xla_ba::AssignedBuffer* assigned = out->add_assigned();
      assigned->set_logical_buffer_id(v.id);
      assigned->set_offset(v.offset);
      assigned->set_size(v.size);
      if (!defined.insert(v.id).second) continue;
      xla_ba::LogicalBuffer* b = proto.add_logical_buffers();
      b->set_id(v.id);
      b->set_size(v.size);
    }
  }
  for (const std::vector<XlaModelHeapEvent>& trace : assignment.heap_traces) {
    xla_ba::HeapSimulatorTrace* out = proto.add_heap_simulator_traces();
    for (const XlaModelHeapEvent& e : trace) {
      xla_ba::HeapSimulatorEvent* event = out->add_events();
      event->set_buffer_id(e.value);
      switch (e.kind) {
        case XlaModelHeapEvent::Kind::kAlloc:
          event->set_kind(xla_ba::HeapSimulatorEvent::ALLOC);
          break;
        case XlaModelHeapEvent::Kind::kFree:
          event->set_kind(xla_ba::HeapSimulatorEvent::FREE);
          break;
        case XlaModelHeapEvent::Kind::kShareWith:
          event->set_kind(xla_ba::HeapSimulatorEvent::SHARE_WITH);
          event->set_share_with_canonical_id(e.shared_with);
          break;
      }
    }
  }
}

absl::StatusOr<XlaModelPeak> XlaModelPeakMemory(const XlaModelAssignment& assignment) {
  xla_ba::BufferAssignmentProto proto;
  XlaModelAssignmentProto(assignment, proto);
  absl::StatusOr<int64_t> peak = XlaPaddedPeakMemory(proto);
  if (!peak.ok()) return peak.status();
  // The static part alone: the same proto without its traces.
  proto.clear_heap_simulator_traces();
  absl::StatusOr<int64_t> static_bytes = XlaPaddedPeakMemory(proto);
  if (!static_bytes.ok()) return static_bytes.status();
  return XlaModelPeak{.peak_bytes = *peak, .static_bytes = *static_bytes};
}

}  // namespace hloscope
