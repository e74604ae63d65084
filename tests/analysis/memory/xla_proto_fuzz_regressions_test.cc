// Inputs the proto fuzzer (scripts/fuzz --fuzzer=proto, tests/fuzz/proto_fuzzer.cc) found to
// break the readers of XLA's HloProto dumps (issue 35: a damaged dump gets a clear error, never
// a crash or a hang), each at its smallest. Labelled robustness: scripts/test runs it again
// under ASan+UBSan.
#include <cstdint>
#include <string>

#include "analysis/memory/xla_buffer_assignment.h"
#include "analysis/memory/xla_buffer_assignment.pb.h"
#include "analysis/memory/xla_peak_memory.h"
#include "gtest/gtest.h"

namespace hloscope {
namespace {

using xla_ba::BufferAssignmentProto;
using xla_ba::HeapSimulatorEvent;
using xla_ba::HeapSimulatorTrace;

// A temp allocation of two 16-byte logical buffers (ids 0 and 1, defined at instructions 1
// and 2) and one trace over it.
BufferAssignmentProto TwoBuffers() {
  BufferAssignmentProto proto;
  for (int64_t id : {0, 1}) {
    xla_ba::LogicalBuffer* b = proto.add_logical_buffers();
    b->set_id(id);
    b->set_size(16);
    b->mutable_defined_at()->set_instruction_id(id + 1);
  }
  xla_ba::BufferAllocation* a = proto.add_buffer_allocations();
  a->set_size(32);
  xla_ba::AssignedBuffer* first = a->add_assigned();
  first->set_logical_buffer_id(0);
  first->set_size(16);
  xla_ba::AssignedBuffer* second = a->add_assigned();
  second->set_logical_buffer_id(1);
  second->set_offset(16);
  second->set_size(16);
  proto.add_heap_simulator_traces();
  return proto;
}

void AddEvent(BufferAssignmentProto& proto, HeapSimulatorEvent::Kind kind, int64_t id,
              int64_t share_with = 0) {
  HeapSimulatorEvent* e = proto.mutable_heap_simulator_traces(0)->add_events();
  e->set_kind(kind);
  e->set_buffer_id(id);
  e->set_share_with_canonical_id(share_with);
}

// A SHARE_WITH of the buffer itself made its chain of shares a cycle (XLA's replay,
// ComputePeakMemoryImpl at ROCm/xla 183fa00cb5, sets buffer->underlying = buffer); the FREE
// after it walked the chain forever: proto_fuzzer's timeout. Now the walk that would loop is
// an error naming the buffer.
TEST(XlaProtoFuzzRegressions, SharingItsOwnRegionThenFreeIsAnError) {
  BufferAssignmentProto proto = TwoBuffers();
  AddEvent(proto, HeapSimulatorEvent::ALLOC, 0);
  AddEvent(proto, HeapSimulatorEvent::SHARE_WITH, 0, 0);
  AddEvent(proto, HeapSimulatorEvent::FREE, 0);
  absl::StatusOr<int64_t> peak = XlaPaddedPeakMemory(proto);
  ASSERT_FALSE(peak.ok()) << *peak;
  EXPECT_EQ(std::string(peak.status().message()),
            "a heap-simulator event (FREE of logical buffer 0) walks the shares to logical "
            "buffer 0, which an earlier SHARE_WITH made share its own region: XLA's replay "
            "never ends there");
}

// The same cycle made through another buffer (1 shares 0's region, then 0 shares 1's, whose
// root is 0 itself) and reached by a later SHARE_WITH of 1.
TEST(XlaProtoFuzzRegressions, SharingBackThroughAChainThenShareIsAnError) {
  BufferAssignmentProto proto = TwoBuffers();
  AddEvent(proto, HeapSimulatorEvent::ALLOC, 0);
  AddEvent(proto, HeapSimulatorEvent::SHARE_WITH, 1, 0);
  AddEvent(proto, HeapSimulatorEvent::SHARE_WITH, 0, 1);
  AddEvent(proto, HeapSimulatorEvent::SHARE_WITH, 1, 1);
  absl::StatusOr<int64_t> peak = XlaPaddedPeakMemory(proto);
  ASSERT_FALSE(peak.ok()) << *peak;
  EXPECT_EQ(std::string(peak.status().message()),
            "a heap-simulator event (SHARE_WITH by logical buffer 1) walks the shares to logical "
            "buffer 0, which an earlier SHARE_WITH made share its own region: XLA's replay "
            "never ends there");
}

// XLA finishes a trace whose self-share no later event walks through: the peak is its figure
// (16 bytes: the share of a live buffer allocates nothing), not an error.
TEST(XlaProtoFuzzRegressions, SharingItsOwnRegionLastIsXlasPeak) {
  BufferAssignmentProto proto = TwoBuffers();
  AddEvent(proto, HeapSimulatorEvent::ALLOC, 0);
  AddEvent(proto, HeapSimulatorEvent::SHARE_WITH, 0, 0);
  AddEvent(proto, HeapSimulatorEvent::ALLOC, 1);
  AddEvent(proto, HeapSimulatorEvent::FREE, 1);
  absl::StatusOr<int64_t> peak = XlaPaddedPeakMemory(proto);
  ASSERT_TRUE(peak.ok()) << peak.status();
  EXPECT_EQ(*peak, 32);
}

// Through the reader of `.hlo.pb` dumps, as hlo-opt --xla-buffer-assignment reads one: the
// error names the file.
TEST(XlaProtoFuzzRegressions, ReaderRefusesTheDumpWhoseReplayWouldNotEnd) {
  xla_ba::HloProtoBufferAssignment hlo_proto;
  xla_ba::ComputationNameView* entry = hlo_proto.mutable_hlo_module()->add_computations();
  for (int64_t id : {1, 2}) {
    xla_ba::InstructionNameView* i = entry->add_instructions();
    i->set_name(id == 1 ? "x" : "y");
    i->set_id(id);
  }
  *hlo_proto.mutable_buffer_assignment() = TwoBuffers();
  AddEvent(*hlo_proto.mutable_buffer_assignment(), HeapSimulatorEvent::SHARE_WITH, 0, 0);
  AddEvent(*hlo_proto.mutable_buffer_assignment(), HeapSimulatorEvent::FREE, 0);
  absl::StatusOr<XlaBufferAssignment> read =
      ReadXlaBufferAssignmentProto(hlo_proto.SerializeAsString(), "t.hlo.pb");
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(std::string(read.status().message()),
            "t.hlo.pb: error: XLA's peak memory cannot be computed: a heap-simulator event "
            "(FREE of logical buffer 0) walks the shares to logical buffer 0, which an earlier "
            "SHARE_WITH made share its own region: XLA's replay never ends there");
}

}  // namespace
}  // namespace hloscope
