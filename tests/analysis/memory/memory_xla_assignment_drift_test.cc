// The XLA buffer-assignment model (analysis/memory/xla_assignment_model.h) against the TESTs
// XLA's buffer_assignment_test.cc gained after the commit memory_xla_assignment_test.cc
// translates (read at ROCm/xla 183fa00cb5d82384463a1a7aed1ab06bc9026974; docs/xla_memory_tests.md,
// "XLA's tests at 183fa00cb5"). Each test named after XLA's builds XLA's module as HLO text (the
// test's schedule, or its builder order, as the text order, is_scheduled=true) and checks the
// assertions of XLA's test that the model answers: which values share an allocation or a slice,
// the allocations' kinds, counts and sizes. XLA's test helpers run with alignment 1, as
// AssignLikeXla's default.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "analysis/dataflow.h"
#include "analysis/memory/xla_assignment_model.h"
#include "gtest/gtest.h"
#include "hlo/computation.h"
#include "passes/pass_registry.h"
#include "support/status_text.h"
#include "tests/test_util.h"

namespace hloscope {
namespace {

using testing::Parse;

// A slice as XLA's Slice compares them: (allocation, offset, size); -1s for none.
using Slice = std::tuple<int64_t, int64_t, int64_t>;

// The modeled assignment and, as XLA's GetUniqueSlice and GetTopLevelAllocation answer them,
// the slice of the one value at each position "instruction" or "instruction{i}" (a position
// that forwards a value answers with that value's slice, as XLA's do).
struct Assigned {
  XlaModelAssignment a;
  absl::flat_hash_map<std::string, Slice> at;

  Slice SliceAt(std::string_view position) const {
    auto it = at.find(std::string(position));
    EXPECT_NE(it, at.end()) << position << " has no single value";
    return it == at.end() ? Slice{-1, -1, -1} : it->second;
  }
  const XlaModelAllocation& AllocAt(std::string_view position) const {
    static const XlaModelAllocation kNone{.index = -1};
    const int64_t i = std::get<0>(SliceAt(position));
    EXPECT_GE(i, 0) << position << " has no allocation";
    return i < 0 ? kNone : a.allocations[i];
  }
};

// The module after `passes` (comma-separated registry names; empty: none), assigned as XLA.
Assigned Assign(std::string_view text, std::string_view passes = "", XlaModelOptions options = {}) {
  auto m = Parse(text);
  EXPECT_NE(m, nullptr);
  if (m == nullptr) return {};
  for (size_t at = 0; at < passes.size();) {
    const size_t comma = std::min(passes.find(',', at), passes.size());
    absl::StatusOr<std::unique_ptr<Pass>> pass =
        PassRegistry::Global().Create(std::string(passes.substr(at, comma - at)));
    EXPECT_TRUE(pass.ok()) << StatusText(pass.status());
    if (!pass.ok()) return {};
    absl::StatusOr<bool> changed = (*pass)->Run(*m);
    EXPECT_TRUE(changed.ok()) << StatusText(changed.status());
    at = comma + 1;
  }
  absl::StatusOr<XlaModelAssignment> a = AssignLikeXla(*m, options);
  EXPECT_TRUE(a.ok()) << StatusText(a.status());
  if (!a.ok()) return {};
  // value_allocation is by ValueId of the default dataflow analysis.
  absl::StatusOr<std::unique_ptr<DataflowAnalysis>> flow = DataflowAnalysis::Run(*m);
  EXPECT_TRUE(flow.ok());
  if (!flow.ok()) return {};
  Assigned out{.a = *std::move(a), .at = {}};
  for (const Computation* c : m->computations()) {
    for (const Instruction* in : c->instructions()) {
      for (int32_t p = 0; p < (*flow)->PositionCount(*in); ++p) {
        absl::Span<const ValueId> values = (*flow)->ValuesAtPosition(*in, p);
        if (values.size() != 1) continue;
        std::string name(in->name());
        const ShapeIndex index = (*flow)->IndexAt(*in, p);
        if (!index.empty()) name += ShapeIndexToString(index);
        Slice slice{-1, -1, -1};
        const int64_t alloc = out.a.value_allocation[values[0]];
        if (alloc >= 0) {
          for (const XlaModelValue& v : out.a.allocations[alloc].values) {
            if (v.id == static_cast<int64_t>(values[0])) slice = {alloc, v.offset, v.size};
          }
        }
        out.at[name] = slice;
      }
    }
  }
  return out;
}

// BufferAssignmentTest.BasicUniquelyColored and .BasicPartiallyColored (XLA 183fa00cb5): XLA's
// test colorers give values colors (memory spaces) and check that colors keep values apart and
// end up in the instructions' layouts. Written where a user meets colors, in the layouts of the
// HLO text (`{0:S(n)}`, what XLA's colorer writes back), the model assigns by them: a value
// shares an allocation only with values of its own memory space. Uniquely: every value its own
// space (XLA's colorer numbers them by value id), so add cannot reuse mul's allocation.
TEST(XlaBufferAssignmentDrift, BasicUniquelyColored) {
  const Assigned a = Assign(R"(
HloModule test, is_scheduled=true
ENTRY main {
  p = f32[] parameter(0)
  broadcast = f32[100]{0:S(1)} broadcast(p), dimensions={}
  p1 = f32[100]{0:S(2)} parameter(1)
  p2 = f32[100]{0:S(3)} parameter(2)
  mul = f32[100]{0:S(4)} multiply(broadcast, p1)
  add = f32[100]{0:S(5)} add(mul, p2)
  ROOT sub = f32[100]{0:S(6)} subtract(add, p2)
})");
  const int64_t p = a.AllocAt("p").index, p1 = a.AllocAt("p1").index, p2 = a.AllocAt("p2").index;
  EXPECT_NE(p, p1);
  EXPECT_NE(p, p2);
  EXPECT_NE(p1, p2);
  EXPECT_NE(a.AllocAt("mul").index, p1);
  EXPECT_NE(a.AllocAt("add").index, a.AllocAt("mul").index);
  EXPECT_TRUE(a.AllocAt("sub").maybe_live_out);
  // Each allocation is in its value's memory space (XLA's check of the layouts' colors).
  EXPECT_EQ(a.AllocAt("mul").memory_space, 4);
  EXPECT_EQ(a.AllocAt("add").memory_space, 5);
  EXPECT_EQ(a.AllocAt("sub").memory_space, 6);
  EXPECT_EQ(a.AllocAt("p1").memory_space, 2);
}

// Partially: mul and add in memory space 1, the rest in 0, so add can reuse mul's allocation.
TEST(XlaBufferAssignmentDrift, BasicPartiallyColored) {
  const Assigned a = Assign(R"(
HloModule test, is_scheduled=true
ENTRY main {
  p = f32[] parameter(0)
  broadcast = f32[100]{0} broadcast(p), dimensions={}
  p1 = f32[100]{0} parameter(1)
  p2 = f32[100]{0} parameter(2)
  mul = f32[100]{0:S(1)} multiply(broadcast, p1)
  add = f32[100]{0:S(1)} add(mul, p2)
  ROOT sub = f32[100]{0} subtract(add, p2)
})");
  const int64_t p = a.AllocAt("p").index, p1 = a.AllocAt("p1").index, p2 = a.AllocAt("p2").index;
  EXPECT_NE(p, p1);
  EXPECT_NE(p, p2);
  EXPECT_NE(p1, p2);
  EXPECT_NE(a.AllocAt("mul").index, p1);
  EXPECT_EQ(a.AllocAt("add").index, a.AllocAt("mul").index);
  EXPECT_TRUE(a.AllocAt("sub").maybe_live_out);
  EXPECT_EQ(a.AllocAt("mul").memory_space, 1);
  EXPECT_EQ(a.AllocAt("add").memory_space, 1);
  EXPECT_EQ(a.AllocAt("sub").memory_space, 0);
  EXPECT_EQ(a.AllocAt("p1").memory_space, 0);
  EXPECT_EQ(a.AllocAt("p2").memory_space, 0);
}

// BufferAssignmentTest.DusViewColorUnsetAllocatesBuffer (XLA 183fa00cb5): without a backend's
// dus_view_color (the shipped default, the only one the model has), a value of any color is
// allocated like any other: the view, in memory space 7 here (the test colorer's color), gets
// an allocation of its own, in its space, and so does the output.
TEST(XlaBufferAssignmentDrift, DusViewColorUnsetAllocatesBuffer) {
  const Assigned a = Assign(R"(
HloModule DusViewDisabled, is_scheduled=true
ENTRY e {
  p0 = f32[100,10]{1,0} parameter(0)
  view = f32[100,10]{1,0:S(7)} custom-call(p0), custom_call_target="view"
  ROOT out = f32[100,10]{1,0} add(view, view)
})");
  EXPECT_GE(a.AllocAt("view").index, 0);
  EXPECT_EQ(a.AllocAt("view").memory_space, 7);
  EXPECT_GE(a.AllocAt("out").index, 0);
  EXPECT_NE(a.AllocAt("view").index, a.AllocAt("out").index);
}

// BufferAssignmentTest.IntermediateValueWithMultiplePositionsCanBeReused: x_intermediate also
// flows through the loop (its buffer holds the loop's element), and its last position is inside
// the loop; x_final, which reads it last, still takes its allocation.
TEST(XlaBufferAssignmentDrift, IntermediateValueWithMultiplePositionsCanBeReused) {
  const Assigned a = Assign(R"(
HloModule test, is_scheduled=true
while_cond {
  param = (s32[], f32[100]) parameter(0)
  i = s32[] get-tuple-element(param), index=0
  five = s32[] constant(5)
  ROOT cmp = pred[] compare(i, five), direction=LT
}
while_body {
  param = (s32[], f32[100]) parameter(0)
  i = s32[] get-tuple-element(param), index=0
  val = f32[100] get-tuple-element(param), index=1
  one = s32[] constant(1)
  i_next = s32[] add(i, one)
  ROOT tuple = (s32[], f32[100]) tuple(i_next, val)
}
ENTRY main {
  p0 = f32[100]{0} parameter(0)
  x_intermediate = f32[100]{0} negate(p0)
  zero = s32[] constant(0)
  init_tuple = (s32[], f32[100]) tuple(zero, x_intermediate)
  loop = (s32[], f32[100]) while(init_tuple), condition=while_cond, body=while_body
  s = f32[100] get-tuple-element(loop), index=1
  abs = f32[100] abs(s)
  x_final = f32[100] add(x_intermediate, abs)
  ROOT res = (f32[100], f32[100]) tuple(x_final, abs)
})");
  EXPECT_EQ(a.AllocAt("x_intermediate").index, a.AllocAt("x_final").index);
}

// WhileBufferAssignmentTest.TupleSortSharesBuffers: after copy insertion, the sort's two
// results take the slices of the arrays it sorts (a sort updates its operands in place).
TEST(XlaBufferAssignmentDrift, TupleSortSharesBuffers) {
  const Assigned a = Assign(R"(
HloModule test, is_scheduled=true
less_than {
  p0 = s32[] parameter(0)
  p1 = s32[] parameter(1)
  p2 = s32[] parameter(2)
  p3 = s32[] parameter(3)
  ROOT res = pred[] compare(p0, p1), direction=LT
}
ENTRY main {
  p0 = s32[] parameter(0)
  broadcast = s32[128] broadcast(p0), dimensions={}
  p1 = s32[128] parameter(1)
  add = s32[128] add(broadcast, p1)
  iota = s32[128] iota(), iota_dimension=0
  ROOT sort = (s32[128], s32[128]) sort(add, iota), dimensions={0}, to_apply=less_than, is_stable=true
})",
                            "copy-insertion");
  ASSERT_GE(std::get<0>(a.SliceAt("add")), 0);
  EXPECT_EQ(a.SliceAt("sort{0}"), a.SliceAt("add"));
  EXPECT_EQ(a.SliceAt("sort{1}"), a.SliceAt("iota"));
}

// BufferAssignmentTest.ScanComputation: no value of the scan's computation shares a slice with
// the scan or its operands in the entry.
TEST(XlaBufferAssignmentDrift, ScanComputation) {
  const Assigned a = Assign(R"(
HloModule ScanComputation, is_scheduled=true
scan_add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  add = f32[] add(x, y)
  ROOT tuple = (f32[], f32[]) tuple(add, add)
}
ENTRY ScanComputation {
  input = f32[100] parameter(0)
  init = f32[] constant(0)
  ROOT scan = (f32[100], f32[]) scan(input, init), dimensions={0}, to_apply=scan_add
})");
  std::set<Slice> outer;
  for (std::string_view v : {"scan", "input", "init"}) {
    const auto slice = a.SliceAt(v);
    ASSERT_GE(std::get<0>(slice), 0) << v;
    outer.insert(slice);
  }
  for (std::string_view v : {"tuple", "add", "x", "y"}) {
    const auto slice = a.SliceAt(v);
    if (std::get<0>(slice) < 0) continue;  // XLA's helper skips values without a slice too
    EXPECT_FALSE(outer.contains(slice)) << v;
  }
}

// BufferAssignmentTest.CustomCallSubcomputationBuffers: the custom-call's computation and the
// computation it calls are thread-local, neither parameter nor live out.
TEST(XlaBufferAssignmentDrift, CustomCallSubcomputationBuffers) {
  const Assigned a = Assign(R"(
HloModule CustomCallSubcomputationBuffers, is_scheduled=true
subcomputation {
  subcomputation_param = f32[] parameter(0)
  ROOT subcomputation_root = f32[] negate(subcomputation_param)
}
map {
  map_param = f32[] parameter(0)
  ROOT map_root = f32[] call(map_param), to_apply=subcomputation
}
ENTRY e {
  param = f32[] parameter(0)
  ROOT cc = f32[] custom-call(param), custom_call_target="call_name", to_apply=map
})");
  for (std::string_view v :
       {"map_param", "map_root", "subcomputation_param", "subcomputation_root"}) {
    EXPECT_FALSE(a.AllocAt(v).parameter) << v;
    EXPECT_FALSE(a.AllocAt(v).maybe_live_out) << v;
    EXPECT_TRUE(a.AllocAt(v).thread_local_) << v;
  }
}

// BufferAssignmentTest.AsyncCallImplicitSharding: the computation is written for a shard of
// f32[4]; the call's operand is f32[8], and both it and the dynamic-update-slice that updates
// it in place have 32-byte slices.
TEST(XlaBufferAssignmentDrift, AsyncCallImplicitSharding) {
  const Assigned a = Assign(R"(
HloModule module, is_scheduled=true
called_computation {
  param0 = f32[4] parameter(0)
  constant = f32[1] constant(1)
  dynamic-update-slice = f32[4] dynamic-update-slice(param0, constant, constant)
  ROOT negate = f32[4] negate(dynamic-update-slice)
}
ENTRY entry {
  p0 = f32[8] parameter(0)
  call-start = ((f32[8]), f32[8], s32[]) call-start(p0), async_execution_thread="foo", to_apply=called_computation
  ROOT call-done = f32[8] call-done(call-start)
})");
  EXPECT_EQ(std::get<2>(a.SliceAt("p0")), 32);
  EXPECT_EQ(std::get<2>(a.SliceAt("dynamic-update-slice")), 32);
}

constexpr std::string_view kAsyncCustomCall = R"(
HloModule AsyncCustomCall, is_scheduled=true
ENTRY %main (a: f32[4096]) -> f32[4096] {
  %a = f32[4096]{0} parameter(0)
  %neg_0 = f32[4096]{0} negate(f32[4096]{0} %a)
  %async-start = ((f32[4096]{0}), f32[4096]{0}, u32[]) custom-call-start(f32[4096]{0} %neg_0), custom_call_target="Foo"ALIASING
  %async-done = f32[4096]{0} custom-call-done(((f32[4096]{0}), f32[4096]{0}, u32[]) %async-start)
  ROOT %neg_1 = f32[4096]{0} negate(f32[4096]{0} %async-done)
})";

std::string AsyncCustomCallModule(std::string_view aliasing) {
  std::string text(kAsyncCustomCall);
  text.replace(text.find("ALIASING"), 8, aliasing);
  return text;
}

// BufferAssignmentTest.AsyncCustomCall: without aliasing, the result never shares neg_0's
// slice (neg_0 is read while the call runs).
TEST(XlaBufferAssignmentDrift, AsyncCustomCall) {
  const Assigned a = Assign(AsyncCustomCallModule(""));
  ASSERT_GE(std::get<0>(a.SliceAt("async-done")), 0);
  EXPECT_NE(a.SliceAt("neg_0"), a.SliceAt("async-done"));
}

// BufferAssignmentTest.AsyncCustomCallWithAliasing: output_to_operand_aliasing makes the
// result neg_0's slice.
TEST(XlaBufferAssignmentDrift, AsyncCustomCallWithAliasing) {
  const Assigned a = Assign(AsyncCustomCallModule(", output_to_operand_aliasing={{}: (0, {})}"));
  ASSERT_GE(std::get<0>(a.SliceAt("async-done")), 0);
  EXPECT_EQ(a.SliceAt("neg_0"), a.SliceAt("async-done"));
}

// BufferAssignmentTest.TopologicalOrder, its kBiggestFirst half (XLA's default buffer order,
// the model's): the larger buffer (f32[100]) is assigned first, so its allocation comes before
// the scalar's. The kTopological half needs BufferAssigner::Options::buffer_order, a backend
// option with no XLA flag (docs/xla_memory_tests.md).
TEST(XlaBufferAssignmentDrift, TopologicalOrder) {
  const Assigned a = Assign(R"(
HloModule TopologicalOrder, is_scheduled=true
ENTRY TopologicalOrder {
  param0 = f32[] parameter(0)
  small = f32[] negate(param0)
  large = f32[100] broadcast(small), dimensions={}
  ROOT tuple = (f32[], f32[100]) tuple(small, large)
})");
  EXPECT_TRUE(a.AllocAt("large").maybe_live_out);
  EXPECT_TRUE(a.AllocAt("small").maybe_live_out);
  EXPECT_LT(a.AllocAt("large").index, a.AllocAt("small").index);
}

// BufferAssignmentTest.BufferAssignmentBuildsSuccessfullyWithDependencyOrdering: a module
// without a schedule is assigned (in its text order made topological), and both values have
// an allocation.
TEST(XlaBufferAssignmentDrift, BufferAssignmentBuildsSuccessfullyWithDependencyOrdering) {
  const Assigned a = Assign(R"(
HloModule BufferAssignmentBuildsSuccessfullyWithDependencyOrdering
ENTRY e {
  param = f32[4] parameter(0)
  ROOT add = f32[4] add(param, param)
})");
  EXPECT_GE(std::get<0>(a.SliceAt("param")), 0);
  EXPECT_GE(std::get<0>(a.SliceAt("add")), 0);
}

constexpr std::string_view kFourDots = R"(
HloModule TempAllocationLimitResetsBuffer, is_scheduled=true
ENTRY TempAllocationLimitResetsBuffer {
  param_a = f32[10,10] parameter(0)
  param_b = f32[10,10] parameter(1)
  param_c = f32[10,10] parameter(2)
  param_d = f32[10,10] parameter(3)
  param_e = f32[10,10] parameter(4)
  dot_ab = f32[10,10] dot(param_a, param_b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  dot_bc = f32[10,10] dot(param_b, param_c), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  dot_cd = f32[10,10] dot(param_c, param_d), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  dot_de = f32[10,10] dot(param_d, param_e), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT concatenate = f32[40,10] concatenate(dot_ab, dot_bc, dot_cd, dot_de), dimensions={0}
})";

// BufferAssignmentTest.TempAllocationLimitResetsBuffer (xla_multiheap_size_constraint_per_heap
// 801, alignment 1): the four 400-byte dots, live together, fill two heaps of two (a third would
// end at 1200 > 801), and the two 800-byte parts stay apart (800 + 800 >= 801): five parameter
// allocations, the output and two temp allocations of 800, each dot in one of them.
TEST(XlaBufferAssignmentDrift, TempAllocationLimitResetsBuffer) {
  const Assigned a = Assign(kFourDots, "", {.multiheap_size_constraint_per_heap = 801});
  EXPECT_EQ(a.a.allocations.size(), 8u);
  std::set<int64_t> temps;
  for (std::string_view dot : {"dot_ab", "dot_bc", "dot_cd", "dot_de"}) {
    EXPECT_EQ(std::get<2>(a.SliceAt(dot)), 400) << dot;
    EXPECT_EQ(a.AllocAt(dot).size, 800) << dot;
    EXPECT_TRUE(a.AllocAt(dot).preallocated_temp) << dot;
    temps.insert(a.AllocAt(dot).index);
  }
  EXPECT_EQ(temps.size(), 2u);
}

// Without the limit (-1, XLA's default) the same dots share one heap: 1600 bytes, seven
// allocations.
TEST(XlaBufferAssignmentDrift, RuleNoHeapLimitByDefault) {
  const Assigned a = Assign(kFourDots);
  EXPECT_EQ(a.a.allocations.size(), 7u);
  EXPECT_EQ(a.AllocAt("dot_ab").size, 1600);
  EXPECT_EQ(a.AllocAt("dot_de").index, a.AllocAt("dot_ab").index);
}

// A limit under one buffer's size is soft, as XLA's: each buffer still gets a heap (of its own
// size), and no two parts combine (each sum reaches the limit).
TEST(XlaBufferAssignmentDrift, RuleHeapLimitBelowABufferIsSoft) {
  const Assigned a = Assign(kFourDots, "", {.multiheap_size_constraint_per_heap = 100});
  EXPECT_EQ(a.a.allocations.size(), 10u);
  std::set<int64_t> temps;
  for (std::string_view dot : {"dot_ab", "dot_bc", "dot_cd", "dot_de"}) {
    EXPECT_EQ(a.AllocAt(dot).size, 400) << dot;
    EXPECT_EQ(std::get<1>(a.SliceAt(dot)), 0) << dot;
    temps.insert(a.AllocAt(dot).index);
  }
  EXPECT_EQ(temps.size(), 4u);
}

}  // namespace
}  // namespace hloscope
