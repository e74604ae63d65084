// XLA's buffer assignment read from what XLA dumps (analysis/memory/xla_buffer_assignment.h):
// the three real HloProto dumps of the corpus (their per-kind totals are XLA's, summed
// independently from `protoc --decode` of the same files), the text dump on our own fixtures,
// the memory usage report, the match to a module, and every error path.
#include "analysis/memory/xla_buffer_assignment.h"

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "gtest/gtest.h"
#include "hlo/parser.h"
#include "hlo/proto_reader.h"
#include "support/status_text.h"

namespace hloscope {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

const std::string kDumps = std::string(HLOSCOPE_CORPUS_DIR) + "/xla_dumps/";
const std::string kInit =
    kDumps +
    "NVIDIA_JAX-Toolbox__maxtext_fsdp4__module_0003.jit__unnamed_wrapped_function_.sm_9.0_gpu_"
    "after_optimizations.hlo.pb";
const std::string kTrainStep =
    kDumps +
    "NVIDIA_JAX-Toolbox__maxtext_fsdp4__module_0016.jit_train_step.sm_9.0_gpu_after_"
    "optimizations.hlo.pb";
const std::string kPax =
    kDumps +
    "NVIDIA_JAX-Toolbox__pax_fsdp4_proc0__module_0040.pjit__wrapped_step_fn.sm_8.0_gpu_after_"
    "optimizations.hlo.pb";
const std::string kFixtures =
    std::string(HLOSCOPE_SOURCE_DIR) + "/testdata/analysis/memory/Inputs/xla/";

struct ExpectedTotals {
  const std::string* path;
  XlaAllocationTotals totals;
};

// Per kind as XLA's BufferAssignment stats count them; the totals are those of
// shared/README.md (XLA's own "Total bytes used"), the kinds summed with awk from protoc's
// text form of each file.
TEST(XlaBufferAssignmentProto, RealDumpsHaveXlasTotalsPerKind) {
  const ExpectedTotals cases[] = {
      {&kInit,
       {.parameter_bytes = 16,
        .constant_bytes = 4,
        .maybe_live_out_bytes = 2007644436,
        .thread_local_bytes = 24,
        .preallocated_temp_bytes = 7560,
        .total_bytes = 2007652040,
        .allocations = 40}},
      {&kTrainStep,
       {.parameter_bytes = 2007726092,
        .constant_bytes = 32,
        .maybe_live_out_bytes = 2007644484,
        .thread_local_bytes = 474,
        .preallocated_temp_bytes = 3871611744,
        .total_bytes = 5879338654,
        .allocations = 202}},
      {&kPax,
       {.parameter_bytes = 376927268,
        .constant_bytes = 8,
        .maybe_live_out_bytes = 376933486,
        .thread_local_bytes = 2561,
        .preallocated_temp_bytes = 16384178784,
        .total_bytes = 16761245927,
        .allocations = 1323}},
  };
  for (const ExpectedTotals& c : cases) {
    SCOPED_TRACE(*c.path);
    absl::StatusOr<XlaBufferAssignment> ba =
        ReadXlaBufferAssignmentProto(ReadFile(*c.path), *c.path);
    ASSERT_TRUE(ba.ok()) << ba.status();
    const XlaAllocationTotals t = ba->Totals();
    EXPECT_EQ(t.parameter_bytes, c.totals.parameter_bytes);
    EXPECT_EQ(t.constant_bytes, c.totals.constant_bytes);
    EXPECT_EQ(t.maybe_live_out_bytes, c.totals.maybe_live_out_bytes);
    EXPECT_EQ(t.thread_local_bytes, c.totals.thread_local_bytes);
    EXPECT_EQ(t.preallocated_temp_bytes, c.totals.preallocated_temp_bytes);
    EXPECT_EQ(t.total_bytes, c.totals.total_bytes);
    EXPECT_EQ(t.allocations, c.totals.allocations);
    EXPECT_EQ(ba->heap_traces.size(), 1u);
    EXPECT_FALSE(ba->heap_traces.front().events.empty());
  }
}

TEST(XlaBufferAssignmentProto, SpotCheckedAllocationOfTheTrainStep) {
  absl::StatusOr<XlaBufferAssignment> ba =
      ReadXlaBufferAssignmentProto(ReadFile(kTrainStep), kTrainStep);
  ASSERT_TRUE(ba.ok()) << ba.status();
  EXPECT_EQ(ba->module_name.substr(0, 15), "jit_train_step");
  // Allocation 0: parameter 2, donated (maybe-live-out), holding the parameter and the fusion
  // output that overwrites it (ids from the file, names through the module's instruction ids).
  const XlaAllocation& a = ba->allocations.at(0);
  EXPECT_EQ(a.index, 0);
  EXPECT_EQ(a.bytes, 167772160);
  EXPECT_TRUE(a.is_entry_parameter);
  EXPECT_EQ(a.parameter_number, 2);
  EXPECT_TRUE(a.parameter_index.empty());
  EXPECT_TRUE(a.maybe_live_out);
  EXPECT_FALSE(a.is_preallocated_temp());
  EXPECT_EQ(a.KindText(), "parameter 2 {}, maybe-live-out");
  ASSERT_EQ(a.values.size(), 2u);
  EXPECT_EQ(a.values[0].id, 5777);
  EXPECT_EQ(XlaValueName(a.values[0]), "param.9.0");
  EXPECT_EQ(a.values[1].id, 6586);
  EXPECT_EQ(XlaValueName(a.values[1]), "input_add_reduce_fusion.7{1}");
  EXPECT_EQ(a.values[1].bytes, 167772160);
  EXPECT_EQ(a.values[1].offset, 0);
  // The whole-module heap trace starts with an allocation in the entry.
  const XlaHeapEvent& first = ba->heap_traces.front().events.front();
  EXPECT_EQ(first.kind, XlaHeapEvent::Kind::kAlloc);
  EXPECT_EQ(first.value_id, 5799);
  EXPECT_EQ(first.instruction, "loop_convert_fusion.21");
  EXPECT_NE(ba->FindValue(5799), nullptr);
}

// XLA's unique ids of the module's instructions, by name (protoc's text form of the file: the
// entry's layer loop was made long before the reduce-scatter scheduled ahead of it), for the
// model's call-site order; a text dump has none.
TEST(XlaBufferAssignmentProto, InstructionIdsOfTheTrainStep) {
  absl::StatusOr<XlaBufferAssignment> ba =
      ReadXlaBufferAssignmentProto(ReadFile(kTrainStep), kTrainStep);
  ASSERT_TRUE(ba.ok()) << ba.status();
  EXPECT_EQ(ba->instruction_ids.at("while.7.0"), 9483);
  EXPECT_EQ(ba->instruction_ids.at("reduce-scatter-start.4"), 65158);
  EXPECT_EQ(ba->instruction_ids.at("reduce-scatter-start"), 65084);
  absl::StatusOr<XlaBufferAssignment> text = ParseXlaBufferAssignment(
      ReadFile(kFixtures + "small.after_optimizations-buffer-assignment.txt"), "fixture");
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_TRUE(text->instruction_ids.empty());
}

TEST(XlaBufferAssignmentProto, ChosenByContent) {
  absl::StatusOr<XlaBufferAssignment> ba = ParseXlaBufferAssignment(ReadFile(kInit), kInit);
  ASSERT_TRUE(ba.ok()) << ba.status();
  EXPECT_EQ(ba->Totals().total_bytes, 2007652040);
}

TEST(XlaBufferAssignmentProto, TruncatedDumpNamesTheByteOffset) {
  std::string bytes = ReadFile(kInit);
  bytes.resize(bytes.size() / 2);
  absl::StatusOr<XlaBufferAssignment> ba = ReadXlaBufferAssignmentProto(bytes, "cut.hlo.pb");
  ASSERT_FALSE(ba.ok());
  EXPECT_NE(
      StatusText(ba.status()).find("cut.hlo.pb: error: not a valid HloProto: at byte offset "),
      std::string::npos)
      << ba.status();
  EXPECT_NE(StatusText(ba.status()).find("runs past the end"), std::string::npos) << ba.status();
}

TEST(XlaBufferAssignmentProto, CorruptBytesNameTheByteOffset) {
  // Field 1 (the module) is a message of 2 bytes holding a field with wire type 7.
  const std::string bytes("\x0a\x02\x0f\x00", 4);
  absl::StatusOr<XlaBufferAssignment> ba = ReadXlaBufferAssignmentProto(bytes, "bad.pb");
  ASSERT_FALSE(ba.ok());
  EXPECT_EQ(StatusText(ba.status()),
            "bad.pb: error: not a valid HloProto: at byte offset 2: field 1 has wire type 7, "
            "which this format never uses");
}

struct ProtoError {
  std::string bytes;
  std::string message;
};

// Every place the wire format can break, and every inconsistency of a well-formed proto.
TEST(XlaBufferAssignmentProto, EveryErrorOfTheBinaryForm) {
  const std::string bad = "b.pb: error: not a valid HloProto: at byte offset ";
  const std::string wrong = "b.pb: error: ";
  const ProtoError cases[] = {
      {std::string("\x80", 1), bad + "0: a field tag runs past the end of its message"},
      {std::string("\x00", 1), bad + "0: field number 0 (not a protobuf)"},
      {std::string("\x1a\x02\x08\x80", 4),
       bad + "2: field 1: a varint runs past the end of its message"},
      {std::string("\x1a\x01\x0a", 3),
       bad + "2: field 1: its length runs past the end of its message"},
      {std::string("\x1a\x02\x09\x00", 4),
       bad + "2: field 1: a fixed-size value runs past the end"},
      {std::string("\x1a\x02\x0d\x00", 4),
       bad + "2: field 1: a fixed-size value runs past the end"},
      // A module name that is not UTF-8: a well-formed wire format that protobuf refuses.
      {std::string("\x0a\x03\x0a\x01\xff\x1a\x00", 7),
       "b.pb: error: not a valid HloProto: protobuf's parser refused it (a name that is not "
       "UTF-8?)"},
      // logical_buffers { id: 1 defined_at { instruction_name: "a" } } twice.
      {std::string("\x1a\x12\x0a\x07\x08\x01\x1a\x03\x12\x01"
                   "a"
                   "\x0a\x07\x08\x01\x1a\x03\x12\x01"
                   "a",
                   20),
       wrong + "logical buffer 1 is defined twice"},
      // buffer_allocations { index: 1 }
      {std::string("\x1a\x04\x1a\x02\x08\x01", 6),
       wrong + "allocation 1 is listed at position 0 (XLA writes them by index)"},
      // heap_simulator_traces { events { buffer_id: 5 } }
      {std::string("\x1a\x06\x22\x04\x0a\x02\x10\x05", 8),
       wrong + "a heap-simulator event names logical buffer 5, which the buffer assignment does "
               "not define"},
      // logical_buffers { id: 1 defined_at { instruction_name: "a" } }
      // heap_simulator_traces { events { kind: 7 buffer_id: 1 } }
      {std::string("\x1a\x11\x0a\x07\x08\x01\x1a\x03\x12\x01"
                   "a"
                   "\x22\x06\x0a\x04\x08\x07\x10\x01",
                   19),
       wrong + "a heap-simulator event of unknown kind 7"},
  };
  for (const ProtoError& c : cases) {
    absl::StatusOr<XlaBufferAssignment> ba = ReadXlaBufferAssignmentProto(c.bytes, "b.pb");
    ASSERT_FALSE(ba.ok()) << c.message;
    EXPECT_EQ(StatusText(ba.status()), c.message);
  }
}

TEST(XlaBufferAssignmentProto, ModuleWithoutBufferAssignmentIsRefused) {
  // An HloProto holding only a module named "m" (field 1 { field 1: "m" }).
  const std::string bytes("\x0a\x03\x0a\x01m", 5);
  absl::StatusOr<XlaBufferAssignment> ba = ReadXlaBufferAssignmentProto(bytes, "m.pb");
  ASSERT_FALSE(ba.ok());
  EXPECT_NE(StatusText(ba.status()).find("m.pb: error: no buffer assignment in this HloProto"),
            std::string::npos)
      << ba.status();
}

TEST(XlaBufferAssignmentProto, ModuleProtoIsNotTakenForAnAssignment) {
  // An HloModuleProto: name "m" (1), entry_computation_name "main" (2), one computation (3).
  const std::string module("\x0a\x01m\x12\x04main\x1a\x02\x0a\x00", 13);
  EXPECT_FALSE(HasXlaBufferAssignment(module));
  absl::StatusOr<XlaBufferAssignment> ba = ReadXlaBufferAssignmentProto(module, "m.pb");
  ASSERT_FALSE(ba.ok());
  EXPECT_EQ(StatusText(ba.status()),
            "m.pb: error: not an HloProto with XLA's buffer assignment: it has top-level field "
            "2, which an HloProto (fields 1 and 3) does not: an HloModuleProto, the module "
            "without XLA's buffer assignment?");
  // Two computations and nothing else: field 3 twice.
  const std::string two("\x1a\x00\x1a\x00", 4);
  ba = ReadXlaBufferAssignmentProto(two, "t.pb");
  ASSERT_FALSE(ba.ok());
  EXPECT_EQ(StatusText(ba.status()),
            "t.pb: error: not an HloProto with XLA's buffer assignment: field 3 appears 2 times "
            "(an HloProto has one buffer assignment; an HloModuleProto's computations are field "
            "3)");
  EXPECT_TRUE(HasXlaBufferAssignment(ReadFile(kInit)));
  EXPECT_FALSE(HasXlaBufferAssignment("\x0a\x03\x0a\x01m"));  // a module, no assignment
  EXPECT_FALSE(HasXlaBufferAssignment("HloModule m"));
}

TEST(XlaBufferAssignmentProto, UndefinedLogicalBufferIsRefused) {
  // buffer_assignment { buffer_allocations { size: 8 assigned { logical_buffer_id: 7 } } }
  const std::string bytes("\x1a\x08\x1a\x06\x10\x08\x4a\x02\x08\x07", 10);
  absl::StatusOr<XlaBufferAssignment> ba = ReadXlaBufferAssignmentProto(bytes, "x.pb");
  ASSERT_FALSE(ba.ok());
  EXPECT_EQ(StatusText(ba.status()),
            "x.pb: error: allocation 0 holds logical buffer 7, which the buffer assignment "
            "does not define");
}

TEST(XlaBufferAssignmentProto, UnknownInstructionIdIsRefused) {
  // buffer_assignment { logical_buffers { id: 3 defined_at { instruction_id: 9 } } }
  const std::string bytes("\x1a\x08\x0a\x06\x08\x03\x1a\x02\x20\x09", 10);
  absl::StatusOr<XlaBufferAssignment> ba = ReadXlaBufferAssignmentProto(bytes, "x.pb");
  ASSERT_FALSE(ba.ok());
  EXPECT_EQ(StatusText(ba.status()),
            "x.pb: error: logical buffer 3 is defined at instruction id 9, which the HloProto's "
            "module does not have");
}

TEST(XlaBufferAssignmentProto, ValuePastItsAllocationIsRefused) {
  // logical_buffers { id: 1 defined_at { instruction_name: "a" } }
  // buffer_allocations { size: 4 assigned { logical_buffer_id: 1 offset: 2 size: 4 } }
  const std::string bytes(
      "\x1a\x15"
      "\x0a\x07\x08\x01\x1a\x03\x12\x01"
      "a"
      "\x1a\x0a\x10\x04\x4a\x06\x08\x01\x10\x02\x18\x04",
      23);
  absl::StatusOr<XlaBufferAssignment> ba = ReadXlaBufferAssignmentProto(bytes, "x.pb");
  ASSERT_FALSE(ba.ok());
  EXPECT_EQ(StatusText(ba.status()),
            "x.pb: error: allocation 0 of 4 bytes holds logical buffer 1 at offset 2 with 4 "
            "bytes: past its end");
}

// XLA's BufferAssignmentTest.FromProtoRejectsNegativeOffset and FromProtoRejectsNegativeSize
// and BufferAllocationSliceProtoTest.FromProtoErrorNegativeOffsetOrSize (ROCm/xla 183fa00cb5):
// a value at a negative offset or with a negative size is refused and named as such (a negative
// offset is not "inside" the allocation). The varint of -1 is ten bytes.
TEST(XlaBufferAssignmentProto, NegativeOffsetOrSizeIsRefused) {
  const std::string minus_one("\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 10);
  // logical_buffers { id: 1 defined_at { instruction_name: "a" } }
  const std::string buffer(
      "\x0a\x07\x08\x01\x1a\x03\x12\x01"
      "a",
      9);
  // buffer_allocations { size: 4 assigned { logical_buffer_id: 1 offset: -1 size: 4 } }
  const std::string negative_offset = std::string("\x1a\x1e", 2) + buffer +
                                      std::string("\x1a\x13\x10\x04\x4a\x0f\x08\x01\x10", 9) +
                                      minus_one + std::string("\x18\x04", 2);
  // buffer_allocations { size: 4 assigned { logical_buffer_id: 1 offset: 0 size: -1 } }
  const std::string negative_size =
      std::string("\x1a\x1e", 2) + buffer +
      std::string("\x1a\x13\x10\x04\x4a\x0f\x08\x01\x10\x00\x18", 11) + minus_one;
  // buffer_allocations { size: -1 }
  const std::string negative_allocation = std::string("\x1a\x0d\x1a\x0b\x10", 5) + minus_one;
  const ProtoError cases[] = {
      {negative_offset, "x.pb: error: allocation 0 holds logical buffer 1 at a negative offset -1"},
      {negative_size, "x.pb: error: allocation 0 holds logical buffer 1 with a negative size -1"},
      {negative_allocation, "x.pb: error: allocation 0 has a negative size -1"},
  };
  for (const ProtoError& c : cases) {
    absl::StatusOr<XlaBufferAssignment> ba = ReadXlaBufferAssignmentProto(c.bytes, "x.pb");
    ASSERT_FALSE(ba.ok()) << c.message;
    EXPECT_EQ(StatusText(ba.status()), c.message);
  }
}

// XLA's BufferAllocationSliceProtoTest.FromProtoErrorAllocationNotFound: what names an
// allocation must name one the assignment has. In a BufferAssignmentProto that is a heap trace's
// buffer_allocation_index (slices are in other protos).
TEST(XlaBufferAssignmentProto, HeapTraceOfAnUnknownAllocationIsRefused) {
  // logical_buffers { id: 1 defined_at { instruction_name: "a" } }
  // buffer_allocations { size: 4 }
  // heap_simulator_traces { events { buffer_id: 1 } buffer_allocation_index: 2 }
  const std::string bytes(
      "\x1a\x15"
      "\x0a\x07\x08\x01\x1a\x03\x12\x01"
      "a"
      "\x1a\x02\x10\x04"
      "\x22\x06\x0a\x02\x10\x01\x18\x02",
      23);
  absl::StatusOr<XlaBufferAssignment> ba = ReadXlaBufferAssignmentProto(bytes, "x.pb");
  ASSERT_FALSE(ba.ok());
  EXPECT_EQ(StatusText(ba.status()),
            "x.pb: error: a heap-simulator trace names allocation 2, which the buffer assignment "
            "does not have (it has 1)");
  // The same trace on allocation 0 is read.
  std::string good = bytes;
  good.back() = '\x00';
  absl::StatusOr<XlaBufferAssignment> ok = ReadXlaBufferAssignmentProto(good, "x.pb");
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(ok->heap_traces.at(0).allocation_index, 0);
}

// A BufferAssignmentProto inside an HloProto, written field by field: allocations in index
// order (XLA writes each one's index; our reader holds it to its position).
struct ProtoAllocation {
  int64_t size = 0;
  bool thread_local_ = false;
  bool parameter = false;
  bool constant = false;
  bool live_out = false;
};

std::string Varint(uint64_t v) {
  std::string out;
  do {
    const uint8_t low = v & 0x7f;
    v >>= 7;
    out.push_back(static_cast<char>(v ? (low | 0x80) : low));
  } while (v);
  return out;
}

std::string VarintField(uint64_t field, uint64_t v) { return Varint(field << 3) + Varint(v); }

std::string MessageField(uint64_t field, const std::string& body) {
  return Varint(field << 3 | 2) + Varint(body.size()) + body;
}

std::string HloProtoWithAllocations(const std::vector<ProtoAllocation>& allocations) {
  std::string assignment;
  for (size_t i = 0; i < allocations.size(); ++i) {
    const ProtoAllocation& a = allocations[i];
    std::string body = VarintField(1, i) + VarintField(2, static_cast<uint64_t>(a.size));
    if (a.thread_local_) body += VarintField(3, 1);
    if (a.parameter) body += VarintField(5, 1);
    if (a.live_out) body += VarintField(7, 1);
    if (a.constant) body += VarintField(12, 1);
    assignment += MessageField(3, body);
  }
  return MessageField(3, assignment);
}

// XLA's ComputeTotalAllocationBytesTest (ROCm/xla 183fa00cb5) where every allocation is in
// memory space 0: the total is Totals().total_bytes, which our side-by-side report prints
// (it sums every memory space; the tests with other colors ask for one space's total, which
// the report does not compute).
TEST(XlaBufferAssignmentProto, ComputeTotalAllocationBytes) {
  struct Case {
    std::string_view xla_test;
    std::vector<ProtoAllocation> allocations;
    int64_t total;
  };
  const Case cases[] = {
      {"EmptyProto", {}, 0},
      {"LargeAllocations",
       {{.size = int64_t{1} << 33}, {.size = int64_t{1} << 33}},
       int64_t{1} << 34},
      {"OnlyMatchingColorAllocations", {{.size = 10}, {.size = 20}}, 30},
  };
  for (const Case& c : cases) {
    absl::StatusOr<XlaBufferAssignment> ba =
        ReadXlaBufferAssignmentProto(HloProtoWithAllocations(c.allocations), "t.pb");
    ASSERT_TRUE(ba.ok()) << c.xla_test << ": " << ba.status();
    EXPECT_EQ(ba->Totals().total_bytes, c.total) << c.xla_test;
    EXPECT_EQ(ba->Totals().allocations, static_cast<int64_t>(c.allocations.size())) << c.xla_test;
    // Memory space 0's own total (XLA's memory_color=0), which the report prints per space.
    const std::vector<XlaMemorySpaceTotals> spaces = ba->MemorySpaces();
    EXPECT_EQ(spaces.empty() ? 0 : spaces.front().total_bytes, c.total) << c.xla_test;
    EXPECT_LE(spaces.size(), 1u) << c.xla_test;
  }
}

// XLA's ComputeIndefiniteAllocationsTest where every allocation is in memory space 0: the bytes
// of allocations that live throughout (thread-local, parameter, constant or maybe-live-out) are
// every allocation but the preallocated temporaries, Totals().total_bytes less
// Totals().preallocated_temp_bytes (each allocation once, whatever kinds it has).
TEST(XlaBufferAssignmentProto, ComputeIndefiniteAllocations) {
  struct Case {
    std::string_view xla_test;
    std::vector<ProtoAllocation> allocations;
    int64_t indefinite;
  };
  const Case cases[] = {
      {"Empty", {}, 0},
      {"AllConditionsFalse", {{.size = 10}}, 0},
      {"IsThreadLocal", {{.size = 10, .thread_local_ = true}}, 10},
      {"IsEntryComputationParameter", {{.size = 10, .parameter = true}}, 10},
      {"IsConstant", {{.size = 10, .constant = true}}, 10},
      {"MaybeLiveOut", {{.size = 10, .live_out = true}}, 10},
      {"AllConditionsTrue",
       {{.size = 10, .thread_local_ = true, .parameter = true, .constant = true, .live_out = true}},
       10},
      {"MultipleAllocations",
       {{.size = 10, .thread_local_ = true},
        {.size = 20, .parameter = true},
        {.size = 30, .constant = true},
        {.size = 40, .live_out = true},
        {.size = 500}},
       100},
      {"OnlyMatchingColorAllocations",
       {{.size = 10, .thread_local_ = true}, {.size = 20, .constant = true}},
       30},
  };
  for (const Case& c : cases) {
    absl::StatusOr<XlaBufferAssignment> ba =
        ReadXlaBufferAssignmentProto(HloProtoWithAllocations(c.allocations), "t.pb");
    ASSERT_TRUE(ba.ok()) << c.xla_test << ": " << ba.status();
    const XlaAllocationTotals t = ba->Totals();
    EXPECT_EQ(t.total_bytes - t.preallocated_temp_bytes, c.indefinite) << c.xla_test;
    const std::vector<XlaMemorySpaceTotals> spaces = ba->MemorySpaces();
    EXPECT_EQ(spaces.empty() ? 0 : spaces.front().indefinite_bytes, c.indefinite) << c.xla_test;
  }
}

TEST(XlaBufferAssignmentText, ReadsTheFixture) {
  const std::string path = kFixtures + "small.after_optimizations-buffer-assignment.txt";
  absl::StatusOr<XlaBufferAssignment> ba = ParseXlaBufferAssignment(ReadFile(path), path);
  ASSERT_TRUE(ba.ok()) << ba.status();
  ASSERT_EQ(ba->allocations.size(), 5u);
  EXPECT_EQ(ba->stated_total_bytes, 5124);
  const XlaAllocationTotals t = ba->Totals();
  EXPECT_EQ(t.parameter_bytes, 2048);
  EXPECT_EQ(t.constant_bytes, 4);
  EXPECT_EQ(t.maybe_live_out_bytes, 1024);
  EXPECT_EQ(t.thread_local_bytes, 0);
  EXPECT_EQ(t.preallocated_temp_bytes, 2048);
  EXPECT_EQ(t.total_bytes, 5124);
  EXPECT_EQ(ba->allocations[1].KindText(), "parameter 1 {}");
  EXPECT_EQ(ba->allocations[2].KindText(), "constant");
  const XlaAllocation& out = ba->allocations[3];
  EXPECT_EQ(out.KindText(), "maybe-live-out");
  ASSERT_EQ(out.values.size(), 2u);
  EXPECT_EQ(out.values[0].instruction, "a");
  EXPECT_EQ(out.values[1].instruction, "n");
  const XlaAllocation& temp = ba->allocations[4];
  EXPECT_EQ(temp.KindText(), "preallocated-temp");
  ASSERT_EQ(temp.values.size(), 2u);
  EXPECT_EQ(temp.values[1].instruction, "m");
  EXPECT_EQ(temp.values[1].offset, 1024);
  EXPECT_EQ(temp.values[1].bytes, 1024);
  EXPECT_TRUE(ba->heap_traces.empty());
}

TEST(XlaBufferAssignmentText, ReadsEveryKindAndTheValueForms) {
  const std::string text =
      "BufferAssignment OOM Debugging.\n"
      "BufferAssignment stats:\n"
      "             parameter allocation:    8B\n"
      "\n"
      "BufferAssignment:\n"
      "allocation 0: size 8, parameter 0, shape |(f32[], f32[])| at ShapeIndex {1}, "
      "maybe-live-out:\n"
      " value: <3 p{1} @0> (size=4,offset=4): f32[]\n"
      "allocation 1: size 16, color 1, thread-local:\n"
      " value: <7 add.1 (phi) @1> (size=16,offset=0): f32[4]{0}\n"
      "allocation 2: size 24, output shape is |(f32[2], f32[2], f32[2])|, maybe-live-out:\n"
      " value: <9 tuple{} @0> (size=24,offset=0): (f32[2], f32[2], f32[2])\n"
      "Total bytes used: 48 (48B)\n"
      "this line is after the total and not read\n";
  absl::StatusOr<XlaBufferAssignment> ba = ParseXlaBufferAssignmentText(text, "v.txt");
  ASSERT_TRUE(ba.ok()) << ba.status();
  ASSERT_EQ(ba->allocations.size(), 3u);
  EXPECT_EQ(ba->allocations[0].KindText(), "parameter 0 {1}, maybe-live-out");
  EXPECT_EQ(XlaValueName(ba->allocations[0].values[0]), "p{1}");
  EXPECT_EQ(ba->allocations[0].values[0].offset, 4);
  EXPECT_EQ(ba->allocations[1].color, 1);
  EXPECT_EQ(ba->allocations[1].KindText(), "thread-local");
  EXPECT_EQ(XlaValueName(ba->allocations[1].values[0]), "add.1");
  // XLA writes the top-level index of a tuple-shaped value ("{}"); the name leaves it out.
  EXPECT_EQ(XlaValueName(ba->allocations[2].values[0]), "tuple");
  EXPECT_TRUE(ba->allocations[2].values[0].index.empty());
  EXPECT_EQ(ba->Totals().thread_local_bytes, 16);
  EXPECT_EQ(ba->Totals().maybe_live_out_bytes, 32);
}

struct TextError {
  std::string text;
  std::string message;
};

TEST(XlaBufferAssignmentText, EveryErrorNamesFileLineAndColumn) {
  const TextError cases[] = {
      {"allocation x: size 4, constant:\n",
       "t.txt:1:12: error: expected 'allocation N: size BYTES, KIND...:'"},
      {"allocation 0: size 4.0KiB, constant:\n",
       "t.txt:1:21: error: expected ': size BYTES' (a byte count: the memory usage report's "
       "rounded sizes are not read)"},
      {"allocation 0: size 4, bogus:\n", "t.txt:1:23: error: unknown allocation kind 'bogus:'"},
      {"allocation 0: size 4, constant\n",
       "t.txt:1:31: error: expected ', KIND' or the ':' that ends the allocation line"},
      {"allocation 0: size 4:\n",
       "t.txt:1:22: error: an allocation of no kind (XLA writes 'preallocated-temp')"},
      {"allocation 0: size 4, constant, preallocated-temp:\n",
       "t.txt:1:51: error: 'preallocated-temp' together with another kind"},
      {"allocation 0: size 4, parameter 0, shape f32[]:\n",
       "t.txt:1:34: error: expected 'parameter N, shape |SHAPE| at ShapeIndex {...}'"},
      {"allocation 0: size 4, output shape is |f32[]:\n",
       "t.txt:1:40: error: expected '|' after the shape"},
      {"allocation 0: size 4, color x, constant:\n",
       "t.txt:1:29: error: expected the color's number"},
      {"allocation 1: size 4, constant:\n",
       "t.txt:1:1: error: allocation 1 where allocation 0 was expected (XLA writes them by "
       "index)"},
      {"allocation 0: size 4, constant:\nvalue: <0 c @0> (size=4,offset=0): f32[]\n",
       "t.txt:2:1: error: expected ' value: <ID NAME> (size=BYTES,offset=BYTES): SHAPE', "
       "'allocation N: ...' or 'Total bytes used: N'"},
      {"allocation 0: size 4, constant:\n value: <x c @0> (size=4,offset=0): f32[]\n",
       "t.txt:2:10: error: expected ' value: <ID NAME> (size=BYTES,offset=BYTES): SHAPE'"},
      {"allocation 0: size 4, constant:\n value: <0 c{x} @0> (size=4,offset=0): f32[]\n",
       "t.txt:2:14: error: expected a shape index"},
      {"allocation 0: size 4, constant:\n value: <0 c @z> (size=4,offset=0): f32[]\n",
       "t.txt:2:15: error: expected the value's color after '@'"},
      {"allocation 0: size 4, constant:\n value: <0 c @0> (size=4): f32[]\n",
       "t.txt:2:25: error: expected '> (size=BYTES,offset=BYTES):'"},
      {"allocation 0: size 4, constant:\n value: <0 c @0> (size=4,offset=2): f32[]\n",
       "t.txt:2:33: error: value 'c' at offset 2 with 4 bytes is past the end of allocation 0 "
       "(4 bytes)"},
      {"allocation 0: size 8, preallocated-temp:\n value: <0 c @0> (size=4,offset=0): f32[]\n"
       " value: <0 d @0> (size=4,offset=4): f32[]\n",
       "t.txt:3:1: error: value 0 is assigned twice"},
      {"allocation 0: size 4, constant:\nTotal bytes used: many\n",
       "t.txt:2:19: error: expected the total's byte count"},
      {"allocation 0: size 4, constant:\nTotal bytes used: 5 (5B)\n",
       "t.txt:2:1: error: 'Total bytes used: 5' but the allocations add up to 4 bytes (a "
       "truncated or edited dump?)"},
      {"BufferAssignment:\n",
       "t.txt:1:1: error: no 'allocation N: size BYTES, ...:' line: not XLA's buffer assignment "
       "dump"},
  };
  for (const TextError& c : cases) {
    absl::StatusOr<XlaBufferAssignment> ba = ParseXlaBufferAssignmentText(c.text, "t.txt");
    ASSERT_FALSE(ba.ok()) << c.text;
    EXPECT_EQ(StatusText(ba.status()), c.message) << c.text;
  }
}

TEST(XlaBufferAssignmentText, MemoryUsageReportGivesTheTotalOnly) {
  const std::string path = kFixtures + "small.after_optimizations-memory-usage-report.txt";
  const std::string text = ReadFile(path);
  absl::StatusOr<XlaMemoryUsageReport> r = ParseXlaMemoryUsageReport(text, path);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->total_bytes, 5124);
  EXPECT_EQ(r->allocations, 5);
  // As a buffer assignment it is refused, saying what it is.
  absl::StatusOr<XlaBufferAssignment> ba = ParseXlaBufferAssignment(text, "r.txt");
  ASSERT_FALSE(ba.ok());
  EXPECT_EQ(StatusText(ba.status()),
            "r.txt: error: this is XLA's memory usage report, whose sizes are rounded; give the "
            "-buffer-assignment.txt or the .hlo.pb of the same module");
}

TEST(XlaBufferAssignmentText, MemoryUsageReportErrors) {
  absl::StatusOr<XlaMemoryUsageReport> r = ParseXlaMemoryUsageReport("Total: 5\n", "r.txt");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(StatusText(r.status()),
            "r.txt:1:1: error: expected 'Total bytes used: N': not XLA's memory usage report");
  r = ParseXlaMemoryUsageReport("\n", "r.txt");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(StatusText(r.status()), "r.txt:1:1: error: empty: expected 'Total bytes used: N'");
  r = ParseXlaMemoryUsageReport("Total bytes used: 4 (4B)\n 4B(100%); 0B; allocation x\n", "r.txt");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(StatusText(r.status()),
            "r.txt:2:1: error: expected 'allocation N: size ...' after ';'");
}

TEST(XlaBufferAssignment, EmptyFileIsRefused) {
  absl::StatusOr<XlaBufferAssignment> ba = ParseXlaBufferAssignment("", "e.txt");
  ASSERT_FALSE(ba.ok());
  EXPECT_EQ(StatusText(ba.status()), "e.txt: error: empty file: no buffer assignment");
}

TEST(XlaBufferAssignment, ModuleTextIsRefused) {
  absl::StatusOr<XlaBufferAssignment> ba = ParseXlaBufferAssignment("HloModule m\n", "m.hlo");
  ASSERT_FALSE(ba.ok());
  EXPECT_EQ(StatusText(ba.status()),
            "m.hlo: error: this is an HLO module, not XLA's buffer assignment: give the module's "
            "-buffer-assignment.txt or .hlo.pb from the same XLA dump");
}

TEST(XlaBufferAssignment, ResolvesAgainstItsModuleAndRefusesAnother) {
  absl::StatusOr<std::unique_ptr<Module>> module = ParseModule(ReadFile(kFixtures + "small.hlo"));
  ASSERT_TRUE(module.ok()) << module.status();
  const std::string own = kFixtures + "small.after_optimizations-buffer-assignment.txt";
  absl::StatusOr<XlaBufferAssignment> ba = ParseXlaBufferAssignment(ReadFile(own), own);
  ASSERT_TRUE(ba.ok()) << ba.status();
  EXPECT_TRUE(ResolveXlaBufferAssignment(*ba, **module).ok());

  const std::string other = kFixtures + "other_module-buffer-assignment.txt";
  ba = ParseXlaBufferAssignment(ReadFile(other), "other.txt");
  ASSERT_TRUE(ba.ok()) << ba.status();
  absl::Status s = ResolveXlaBufferAssignment(*ba, **module);
  EXPECT_EQ(StatusText(s),
            "other.txt: error: buffer assignment does not match module 'small': no instruction "
            "'m.other' (allocation 4)");
}

// The train step prints its reduce-scatters in XLA's short form (`reduce-scatter-start(...)`,
// no wrapped computation), but XLA's assignment names the wrapped `reduce-scatter.60`: its
// values become the async-start's output element {1, ...}, none is dropped; its top-level
// tuple table, which XLA keeps apart from the async-start's {1} table, becomes
// `<async-start>{1}.wrapped` (the XLA assignment model's name for it).
TEST(XlaBufferAssignment, MapsAsyncWrappedValuesOntoTheAsyncStart) {
  const std::string bytes = ReadFile(kTrainStep);
  absl::StatusOr<std::string> text = ProtoToHloText(bytes, InputFormat::kBinaryProto, kTrainStep);
  ASSERT_TRUE(text.ok()) << text.status();
  absl::StatusOr<std::unique_ptr<Module>> module = ParseModule(*text);
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<XlaBufferAssignment> ba = ReadXlaBufferAssignmentProto(bytes, "step.hlo.pb");
  ASSERT_TRUE(ba.ok()) << ba.status();

  const XlaAsyncWrapping* wrapping = nullptr;
  for (const XlaAsyncWrapping& w : ba->async_wrappings) {
    if (w.wrapped_instruction == "reduce-scatter.60") wrapping = &w;
  }
  ASSERT_NE(wrapping, nullptr);
  EXPECT_EQ(wrapping->async_start_computation, "region_15.1227_spmd.clone.1.clone");
  EXPECT_TRUE(wrapping->async_start.starts_with("reduce-scatter-start")) << wrapping->async_start;

  absl::StatusOr<XlaBufferAssignment> mapped = MapXlaBufferAssignmentOntoModule(*ba, **module);
  ASSERT_TRUE(mapped.ok()) << mapped.status();
  ASSERT_EQ(mapped->allocations.size(), ba->allocations.size());
  int wrapped_values = 0;
  for (size_t a = 0; a < ba->allocations.size(); ++a) {
    const std::vector<XlaAssignedValue>& before = ba->allocations[a].values;
    const std::vector<XlaAssignedValue>& after = mapped->allocations[a].values;
    ASSERT_EQ(before.size(), after.size()) << "allocation " << a;
    for (size_t v = 0; v < before.size(); ++v) {
      EXPECT_EQ(before[v].id, after[v].id);
      EXPECT_EQ(before[v].bytes, after[v].bytes);
      if (before[v].instruction != "reduce-scatter.60") {
        continue;
      }
      ++wrapped_values;
      if (before[v].index.empty()) {
        // The wrapped reduce-scatter's own tuple table, apart from the async-start's {1} (which
        // XLA's assignment holds too): named as the model names it.
        EXPECT_EQ(after[v].instruction, wrapping->async_start + "{1}.wrapped");
        EXPECT_TRUE(after[v].index.empty());
        continue;
      }
      EXPECT_EQ(after[v].instruction, wrapping->async_start);
      std::vector<int64_t> index = {1};
      index.insert(index.end(), before[v].index.begin(), before[v].index.end());
      EXPECT_EQ(after[v].index, index);
    }
  }
  EXPECT_GT(wrapped_values, 0);
  EXPECT_EQ(mapped->Totals().total_bytes, 5879338654);
  EXPECT_TRUE(ResolveXlaBufferAssignment(*ba, **module).ok());

  // Without an async-start in the module to carry them, the values have no counterpart: the
  // error names the first, as for an assignment of another module.
  for (XlaAsyncWrapping& w : ba->async_wrappings) w.async_start = "no-such-start";
  absl::Status s = ResolveXlaBufferAssignment(*ba, **module);
  EXPECT_TRUE(
      StatusText(s).starts_with("step.hlo.pb: error: buffer assignment does not match module "
                                "'jit_train_step': no instruction '"))
      << s;
}

}  // namespace
}  // namespace hloscope
