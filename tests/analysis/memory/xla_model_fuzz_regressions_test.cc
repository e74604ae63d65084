// Inputs the memory fuzzer (scripts/fuzz --fuzzer=memory, tests/fuzz/memory_fuzzer.cc) found to
// break our model of XLA's buffer assignment (analysis/memory/xla_assignment_model.h), each kept
// as a regression test (issue 35: bad input gets a clear error, never a crash; the model's
// figures are XLA's). Labelled robustness, so scripts/test runs them under ASan+UBSan as well:
// the signed overflow below shows only there.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "analysis/memory/xla_assignment_model.h"
#include "analysis/memory/xla_buffer_assignment.h"
#include "gtest/gtest.h"
#include "hlo/parser.h"
#include "hlo/verifier.h"
#include "support/status_text.h"

namespace hloscope {
namespace {

std::unique_ptr<Module> ParseVerified(std::string_view text) {
  absl::StatusOr<std::unique_ptr<Module>> module = ParseModule(text);
  EXPECT_TRUE(module.ok()) << StatusText(module.status());
  if (!module.ok()) return nullptr;
  absl::Status verified = VerifyModule(**module);
  EXPECT_TRUE(verified.ok()) << StatusText(verified);
  return verified.ok() ? *std::move(module) : nullptr;
}

// testdata/analysis/memory/bugs/Inputs/past_int64.hlo: two parameters of 2^62 bytes each. Their
// sum wrapped to a negative parameter total (UBSan: signed integer overflow in the model's
// totals). The memory profile saturates such sums and says so; the model's offsets and sizes
// would mean nothing, so it refuses the module with an error that says why.
TEST(XlaModelFuzzRegressions, BuffersPastInt64AreRefused) {
  std::unique_ptr<Module> m = ParseVerified(R"(
HloModule past_int64, is_scheduled=true
ENTRY e {
  a = f32[1152921504606846976] parameter(0)
  b = f32[1152921504606846976] parameter(1)
  ROOT t = (f32[1152921504606846976], f32[1152921504606846976]) tuple(a, b)
})");
  ASSERT_NE(m, nullptr);
  absl::StatusOr<XlaModelAssignment> a = AssignLikeXla(*m);
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_EQ(StatusText(a.status()),
            "module 'past_int64': XLA's buffer assignment cannot be modeled: its buffers (with "
            "alignment 1) add up past int64 bytes");
}

// Small buffers and an alignment near int64's end (hlo-opt --alignment takes any positive
// number): rounding a chunk up to it would wrap, so the module is refused the same way; a
// large alignment that does fit still assigns.
TEST(XlaModelFuzzRegressions, AlignmentPastInt64IsRefused) {
  std::unique_ptr<Module> m = ParseVerified(R"(
HloModule aligned, is_scheduled=true
ENTRY e {
  p = f32[4] parameter(0)
  x = f32[4] negate(p)
  y = f32[4] exponential(x)
  ROOT r = f32[4] add(x, y)
})");
  ASSERT_NE(m, nullptr);
  absl::StatusOr<XlaModelAssignment> a = AssignLikeXla(*m, {.alignment = int64_t{1} << 62});
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().code(), absl::StatusCode::kOutOfRange);
  EXPECT_NE(StatusText(a.status()).find("(with alignment 4611686018427387904)"), std::string::npos)
      << StatusText(a.status());
  absl::StatusOr<XlaModelAssignment> fits = AssignLikeXla(*m, {.alignment = int64_t{1} << 40});
  ASSERT_TRUE(fits.ok()) << StatusText(fits.status());
  EXPECT_EQ(fits->totals.preallocated_temp_bytes, 16);  // x alone in the heap: one chunk at 0
}

// testdata/analysis/memory/html_peak_groups.hlo (a memory report lit test, a fuzzer seed). Timeline
// p 0, a 1, b 2, c 3, d 4, r 5; f32[256] = 1 KiB. c takes the result allocation (it dies at r,
// which may share it), so the heap holds a [1, 4], b [2, 4] and d [4, 5]: d takes over a's
// chunk as a dies at d. Heap: a and d at 1024, b at 0, 2048 bytes. XLA's heap simulator calls
// Free(a) before ShareWith(d, a) (HeapSimulator::RunComputation, openxla/xla
// xla/service/heap_simulator/heap_simulator.cc as in tensorflow/tensorflow commit
// 035ec0cc308efcd2bebfc058a648edcc049b019d), so its no-fragmentation heap never holds a and d
// at once: it peaks at 2048 (a and b, then b and d), and the fragmentation is 0. The model
// counted by schedule step, a and d both at d: 3072, and printed -1024 (the fuzzer's check
// that a heap of values each alone in its buffer holds its own peak).
TEST(XlaModelFuzzRegressions, FragmentationCountsASharingResultAfterTheOperandsFree) {
  std::unique_ptr<Module> m = ParseVerified(R"(
HloModule groups, is_scheduled=true
ENTRY e {
  p = f32[256] parameter(0)
  a = f32[256] negate(p)
  b = f32[256] exponential(p)
  c = f32[256] log(p)
  d = f32[256] add(a, b)
  ROOT r = f32[256] add(c, d)
})");
  ASSERT_NE(m, nullptr);
  absl::StatusOr<XlaModelAssignment> a = AssignLikeXla(*m);
  ASSERT_TRUE(a.ok()) << StatusText(a.status());
  const int64_t heap = a->AllocationOf("a");
  ASSERT_GE(heap, 0);
  EXPECT_EQ(a->AllocationOf("d"), heap);
  EXPECT_EQ(a->AllocationOf("b"), heap);
  EXPECT_EQ(a->allocations[heap].size, 2048);
  EXPECT_EQ(a->totals.temp_fragmentation_bytes, 0);
  // The whole module likewise: p (1 KiB, the caller's to the end), c and r in one allocation,
  // and the heap's 2 KiB: at most 4 KiB at once, of 4 KiB allocated.
  EXPECT_EQ(a->totals.total_bytes, 4096);
  EXPECT_EQ(a->totals.total_fragmentation_bytes, 0);
}

// The heap's peak counts a chunk while one of the values sharing it lives, not over the whole
// span from the first one's start to the last one's end. The loop state element (x, the
// condition's and body's parameters, y, loop{1}: one buffer, a temporary as r slices it) is
// free in the body from u, its last read, to y: the heap puts g into that gap, at the loop's
// offset (2064, after the 16-byte tuple table and u's and k's chunks). At k the heap holds u, g
// and k: 3072 bytes of its 3072. Counted over the loop chunk's whole span, the peak was 4096
// at k, past the heap's size (found by the memory fuzzer on the corpus seed
// ..._collective_pipeline_parallelism_test.cc__JaxExampleWithDecomposedCycle.hlo, a layer loop
// whose 2 GiB heap peaked at 2.25 GiB).
TEST(XlaModelFuzzRegressions, PeakCountsAChunkOnlyWhileOneOfItsValuesLives) {
  std::unique_ptr<Module> m = ParseVerified(R"(
HloModule gap, is_scheduled=true
cond {
  cp = (s32[], f32[256]) parameter(0)
  ci = s32[] get-tuple-element(cp), index=0
  ck = s32[] constant(4)
  ROOT lt = pred[] compare(ci, ck), direction=LT
}
body {
  bp = (s32[], f32[256]) parameter(0)
  bi = s32[] get-tuple-element(bp), index=0
  bv = f32[256] get-tuple-element(bp), index=1
  one = s32[] constant(1)
  next = s32[] add(bi, one)
  u = f32[256] negate(bv)
  g = f32[256] exponential(u)
  k = f32[256] log(u)
  gk = f32[256] add(g, k)
  h = f32[1] slice(gk), slice={[0:1]}
  hs = f32[] reshape(h)
  bm = f32[256] broadcast(hs), dimensions={}
  y = f32[256] add(u, bm)
  ROOT bt = (s32[], f32[256]) tuple(next, y)
}
ENTRY e {
  p = f32[256] parameter(0)
  zero = s32[] constant(0)
  x = f32[256] negate(p)
  init = (s32[], f32[256]) tuple(zero, x)
  loop = (s32[], f32[256]) while(init), condition=cond, body=body
  res = f32[256] get-tuple-element(loop), index=1
  ROOT r = f32[128] slice(res), slice={[0:128]}
})");
  ASSERT_NE(m, nullptr);
  absl::StatusOr<XlaModelAssignment> a = AssignLikeXla(*m);
  ASSERT_TRUE(a.ok()) << StatusText(a.status());
  const int64_t temp = a->AllocationOf("y");
  ASSERT_GE(temp, 0);
  const XlaModelAllocation& heap = a->allocations[temp];
  ASSERT_TRUE(heap.preallocated_temp);
  auto offset_of = [&](std::string_view name) -> int64_t {
    for (const XlaModelValue& v : heap.values) {
      if (v.name == name) return v.offset;
    }
    ADD_FAILURE() << name << " is not in the temp allocation";
    return -1;
  };
  EXPECT_EQ(offset_of("g"), 2064);
  EXPECT_EQ(offset_of("y"), 2064);
  EXPECT_EQ(offset_of("x"), 2064);
  EXPECT_EQ(heap.size, 3088);
  EXPECT_EQ(heap.peak_bytes, 3072);
  EXPECT_EQ(heap.peak_instruction, "k");
  EXPECT_EQ(heap.heap_peak_values, (std::vector<std::string>{"u", "g", "k"}));
}

// Fuzz round 10, testdata/xla/dataflow/tuple_shaped_async_op.hlo (XLA's TupleShapedAsyncOp, a
// seed): the model lists the table of the tuple-shaped custom-call that the start wraps as
// `<async-start{1}.wrapped @0>`, and the reader of XLA's text stopped after the index
// ("expected '> (size=BYTES,offset=BYTES):'"), and the table had the id of the start's {1}
// ("value 3 is assigned twice"): the model's own listing did not read back. It reads back now
// as one value named `async-start{1}.wrapped` (the name the module mapping gives XLA's own
// value of that table) under an id of its own, with the model's totals.
TEST(XlaModelFuzzRegressions, WrappedTupleTableReadsBack) {
  std::unique_ptr<Module> m = ParseVerified(R"(
HloModule module
ENTRY entry {
  p0 = f32[2,3] parameter(0)
  async-start = ((f32[2,3]), (f32[2,3], f32[2,3]), u32[]) custom-call-start(p0), custom_call_target="foo"
  async-update = ((f32[2,3]), (f32[2,3], f32[2,3]), u32[]) custom-call-update(async-start)
  ROOT async-done = (f32[2,3], f32[2,3]) custom-call-done(async-update)
})");
  ASSERT_NE(m, nullptr);
  absl::StatusOr<XlaModelAssignment> a = AssignLikeXla(*m, {.alignment = 256});
  ASSERT_TRUE(a.ok()) << StatusText(a.status());
  const std::string listing = XlaAssignmentToString(*a);
  ASSERT_NE(listing.find(" async-start{1}.wrapped @0>"), std::string::npos) << listing;
  absl::StatusOr<XlaBufferAssignment> read = ParseXlaBufferAssignment(listing, "listing");
  ASSERT_TRUE(read.ok()) << StatusText(read.status()) << "\n" << listing;
  // The table and the start's {1} each read back once, under ids of their own.
  const XlaAssignedValue* wrapped = nullptr;
  const XlaAssignedValue* start_table = nullptr;
  for (const XlaAllocation& alloc : read->allocations) {
    for (const XlaAssignedValue& v : alloc.values) {
      if (v.instruction == "async-start{1}.wrapped") wrapped = &v;
      if (v.instruction == "async-start" && v.index == std::vector<int64_t>{1}) start_table = &v;
    }
  }
  ASSERT_NE(wrapped, nullptr) << listing;
  ASSERT_NE(start_table, nullptr) << listing;
  EXPECT_TRUE(wrapped->index.empty());
  EXPECT_NE(wrapped->id, start_table->id);
  EXPECT_EQ(read->Totals().total_bytes, a->totals.total_bytes);
  EXPECT_EQ(read->allocations.size(), a->allocations.size());
}

}  // namespace
}  // namespace hloscope
