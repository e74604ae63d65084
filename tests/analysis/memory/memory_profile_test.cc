// Memory profiler: peaks computed by hand for small modules (f32[256] = 1 KiB throughout), the
// schedule, tuples, dynamic dimensions and the error paths.
#include "analysis/memory/memory_profile.h"

#include <string>
#include <vector>

#include "analysis/memory/instruction_sequence.h"
#include "gtest/gtest.h"
#include "hlo/computation.h"
#include "support/option_error.h"
#include "support/status_text.h"
#include "tests/test_util.h"

namespace hloscope {
namespace {

using testing::Parse;

// The hand-computed numbers below are the liveness model's (every buffer from definition to
// last use); XLA's model (the default) is checked where a test says so.
MemoryReport Profile(const Module& m, MemoryOptions options = {},
                     MemoryOptions::Model model = MemoryOptions::Model::kLiveness) {
  options.model = model;
  absl::StatusOr<MemoryReport> r = ProfileModule(m, options);
  EXPECT_TRUE(r.ok()) << StatusText(r.status());
  return r.ok() ? *std::move(r) : MemoryReport{};
}

std::vector<int64_t> Timeline(const MemoryReport& r) {
  std::vector<int64_t> out;
  for (const TimelinePoint& p : r.modules.at(0).timeline) out.push_back(p.live_bytes);
  return out;
}

// p lives throughout (the caller's); each step holds its operands and its result.
TEST(MemoryProfile, StraightLine) {
  auto m = Parse(R"(
HloModule straight, is_scheduled=true
ENTRY e {
  p = f32[256] parameter(0)
  a = f32[256] negate(p)
  b = f32[4,256] broadcast(a), dimensions={1}
  c = f32[4,256] exponential(b)
  d = f32[1,256] slice(c), slice={[0:1], [0:256]}
  ROOT r = f32[256] reshape(d)
})");
  ASSERT_NE(m, nullptr);
  MemoryReport r = Profile(*m);
  EXPECT_EQ(Timeline(r), (std::vector<int64_t>{1024, 2048, 6144, 9216, 6144, 3072}));
  EXPECT_EQ(r.peak_bytes, 9216);
  EXPECT_EQ(r.peak_instruction, "c");
  ASSERT_EQ(r.top_buffers.size(), 3u);
  EXPECT_EQ(r.top_buffers[0].bytes, 4096);
  EXPECT_EQ(r.top_buffers[0].instruction, "b");
  EXPECT_EQ(r.top_buffers[1].instruction, "c");
  EXPECT_EQ(r.top_buffers[2].instruction, "p");
  EXPECT_EQ(r.top_buffers[2].shape, "f32[256]");

  // XLA's model: exponential is elementwise and b dies at c, so c takes over b's buffer
  // (CanShareOperandBufferWithUser): c's step holds 5120, not 9216; the peak is b's step.
  MemoryReport x = Profile(*m, {}, MemoryOptions::Model::kXla);
  EXPECT_EQ(Timeline(x), (std::vector<int64_t>{1024, 2048, 6144, 5120, 6144, 3072}));
  EXPECT_EQ(x.peak_bytes, 6144);
  EXPECT_EQ(x.peak_instruction, "b");
  ASSERT_EQ(x.modules.size(), 1u);
  EXPECT_EQ(x.modules[0].model, "xla");
  // Allocations as XLA makes them: p (parameter) and r (output) have their own, 2048; the
  // temporaries share one packed best-fit: b and c (4096, disjoint lives) at 0, a and d
  // above them, 5120. 7168 in all: 1024 more than the live peak, the price of r's own
  // allocation.
  EXPECT_EQ(x.modules[0].heap_bytes, 7168);
  const AllocationSummary& a = x.modules[0].allocations;
  EXPECT_EQ(a.parameter_bytes, 1024);
  EXPECT_EQ(a.maybe_live_out_bytes, 1024);  // r (d's reshape is its own buffer)
  EXPECT_EQ(a.constant_bytes, 0);
  EXPECT_EQ(a.total_bytes, a.parameter_bytes + a.maybe_live_out_bytes + a.temp_bytes);
}

// XLA's model on testdata/analysis/memory/xla_model/heap_best_fit.hlo's module (the numbers
// are derived there): the constant is its own allocation, best fit reuses the hole c leaves
// for e2 and r, and the categories add up.
TEST(MemoryProfile, XlaModelHeapAndConstants) {
  auto m = Parse(R"(
HloModule heap, is_scheduled=true
ENTRY e {
  k = f32[1024] constant({...})
  p = f32[256] parameter(0)
  a = f32[1024] concatenate(p, p, p, p), dimensions={0}
  b = f32[256] slice(a), slice={[0:256]}
  c = f32[512] concatenate(b, p), dimensions={0}
  ka = f32[1024] add(k, k)
  d = f32[256] slice(c), slice={[0:256]}
  e2 = f32[256] slice(ka), slice={[0:256]}
  ROOT r = f32[256] add(d, e2)
})");
  ASSERT_NE(m, nullptr);
  MemoryReport x = Profile(*m, {}, MemoryOptions::Model::kXla);
  ASSERT_EQ(x.modules.size(), 1u);
  const ModuleMemory& mm = x.modules[0];
  EXPECT_EQ(Timeline(x),
            (std::vector<int64_t>{1024, 1024, 5120, 6144, 4096, 7168, 8192, 7168, 3072}));
  // p and r have their own allocations (2048), the temporaries' heap is 7168 above them.
  EXPECT_EQ(mm.heap_bytes, 9216);
  const AllocationSummary& a = mm.allocations;
  EXPECT_EQ(a.parameter_bytes, 1024);
  EXPECT_EQ(a.constant_bytes, 4096);
  EXPECT_EQ(a.maybe_live_out_bytes, 1024);
  EXPECT_EQ(a.temp_bytes, 7168);
  EXPECT_EQ(a.total_bytes, 13312);
  ASSERT_EQ(mm.peak_layout.size(), 4u);
  EXPECT_EQ(mm.peak_layout[0].name, "p");
  EXPECT_EQ(mm.peak_layout[1].name, "ka");
  EXPECT_EQ(mm.peak_layout[1].offset, 2048);
  EXPECT_EQ(mm.peak_layout[3].offset, 8192);
  for (size_t i = 1; i < mm.peak_layout.size(); ++i) {
    EXPECT_LE(mm.peak_layout[i - 1].offset + mm.peak_layout[i - 1].bytes, mm.peak_layout[i].offset);
  }
  // The liveness model keeps k in the heap, live from step 0 to ka.
  MemoryReport l = Profile(*m);
  EXPECT_EQ(l.peak_bytes, 11264);
  EXPECT_EQ(l.peak_instruction, "ka");
}

TEST(MemoryProfile, TopBuffersAreLimited) {
  auto m = Parse(R"(
HloModule straight, is_scheduled=true
ENTRY e {
  p = f32[256] parameter(0)
  b = f32[4,256] broadcast(p), dimensions={1}
  ROOT c = f32[4,256] exponential(b)
})");
  ASSERT_NE(m, nullptr);
  MemoryOptions o;
  o.top_buffers = 1;
  MemoryReport r = Profile(*m, o);
  ASSERT_EQ(r.top_buffers.size(), 1u);
  EXPECT_EQ(r.top_buffers[0].bytes, 4096);
}

constexpr char kWhile[] = R"(
HloModule w, is_scheduled=true
body {
  s = (s32[], f32[256]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[256] get-tuple-element(s), index=1
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  big = f32[4,256] broadcast(x), dimensions={1}
  sl = f32[1,256] slice(big), slice={[0:1], [0:256]}
  x2 = f32[256] reshape(sl)
  ROOT t = (s32[], f32[256]) tuple(i2, x2)
}
cond {
  s = (s32[], f32[256]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(4)
  ROOT lt = pred[] compare(i, n), direction=LT
}
ENTRY e {
  p = f32[256] parameter(0)
  z = s32[] constant(0)
  init = (s32[], f32[256]) tuple(z, p)
  w = (s32[], f32[256]) while(init), condition=cond, body=body
  ROOT r = f32[256] get-tuple-element(w), index=1
})";

// The loop state is one buffer with p (counted in the entry); the body adds its own peak
// (big + sl = 5120) at the while.
TEST(MemoryProfile, WhileWithState) {
  auto m = Parse(kWhile);
  ASSERT_NE(m, nullptr);
  MemoryReport r = Profile(*m);
  EXPECT_EQ(Timeline(r), (std::vector<int64_t>{1024, 1028, 1028, 6148, 1024}));
  EXPECT_EQ(r.peak_instruction, "w");
  ASSERT_FALSE(r.top_buffers.empty());
  EXPECT_EQ(r.top_buffers[0].kind, LiveBufferKind::kCallee);
  EXPECT_EQ(r.top_buffers[0].bytes, 5120);
}

TEST(MemoryProfile, TupleTablesCountWhenAsked) {
  auto m = Parse(kWhile);
  ASSERT_NE(m, nullptr);
  MemoryOptions o;
  o.count_tuple_tables = true;
  MemoryReport r = Profile(*m, o);
  // The state table (16 bytes) from init to the while's last reader; the body's own table
  // is the loop state's, so the body peak stays 5120.
  EXPECT_EQ(Timeline(r), (std::vector<int64_t>{1024, 1028, 1044, 6164, 1040}));
}

// The conditional adds its larger branch's own peak (8192 + 1024).
TEST(MemoryProfile, Conditional) {
  auto m = Parse(R"(
HloModule c, is_scheduled=true
b0 {
  p = f32[256] parameter(0)
  big = f32[8,256] broadcast(p), dimensions={1}
  sl = f32[1,256] slice(big), slice={[0:1], [0:256]}
  ROOT r = f32[256] reshape(sl)
}
b1 {
  p = f32[256] parameter(0)
  ROOT r = f32[256] negate(p)
}
ENTRY e {
  idx = s32[] parameter(0)
  x = f32[256] parameter(1)
  c = f32[256] conditional(idx, x, x), branch_computations={b0, b1}
  ROOT out = f32[256] add(c, x)
})");
  ASSERT_NE(m, nullptr);
  MemoryReport r = Profile(*m);
  EXPECT_EQ(Timeline(r), (std::vector<int64_t>{1028, 1028, 11268, 3076}));
  EXPECT_EQ(r.peak_instruction, "c");
}

// A call inside a call: the inner peak (16 KiB + 1 KiB) rides on the outer one's operand.
TEST(MemoryProfile, NestedCall) {
  auto m = Parse(R"(
HloModule n, is_scheduled=true
inner {
  p = f32[256] parameter(0)
  big = f32[16,256] broadcast(p), dimensions={1}
  sl = f32[1,256] slice(big), slice={[0:1], [0:256]}
  ROOT r = f32[256] reshape(sl)
}
outer {
  p = f32[256] parameter(0)
  t = f32[2,256] broadcast(p), dimensions={1}
  s = f32[1,256] slice(t), slice={[0:1], [0:256]}
  q = f32[256] reshape(s)
  ROOT c = f32[256] call(q), to_apply=inner
}
ENTRY e {
  x = f32[256] parameter(0)
  ROOT y = f32[256] call(x), to_apply=outer
})");
  ASSERT_NE(m, nullptr);
  MemoryReport r = Profile(*m);
  EXPECT_EQ(Timeline(r), (std::vector<int64_t>{1024, 20480}));
  EXPECT_EQ(r.peak_bytes, 20480);
  EXPECT_EQ(r.peak_instruction, "y");
}

// The DUS writes into its operand's buffer: 8 KiB once, not twice.
TEST(MemoryProfile, InPlaceDynamicUpdateSlice) {
  auto m = Parse(R"(
HloModule d, is_scheduled=true
ENTRY e {
  buf = f32[8,256] parameter(0)
  upd = f32[1,256] parameter(1)
  i = s32[] parameter(2)
  z = s32[] constant(0)
  d = f32[8,256] dynamic-update-slice(buf, upd, i, z)
  ROOT n = f32[8,256] negate(d)
})");
  ASSERT_NE(m, nullptr);
  MemoryReport r = Profile(*m);
  EXPECT_EQ(Timeline(r), (std::vector<int64_t>{9220, 9220, 9220, 9224, 9224, 17412}));
  EXPECT_EQ(r.peak_instruction, "n");
}

// The loop body's copy of its state (XLA copy insertion) needs the source and the copy.
TEST(MemoryProfile, SameBufferCopyHoldsTwoCopies) {
  constexpr char kText[] = R"(
HloModule cp, is_scheduled=true
body {
  s = (s32[], f32[8,256]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  b = f32[8,256] get-tuple-element(s), index=1
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  c0 = f32[] constant(1)
  row = f32[1,256] broadcast(c0), dimensions={}
  z = s32[] constant(0)
  u = f32[8,256] dynamic-update-slice(b, row, i, z)
  %s = f32[8,256] STATE
  ROOT t = (s32[], f32[8,256]) tuple(i2, OUT)
}
cond {
  s = (s32[], f32[8,256]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(4)
  ROOT lt = pred[] compare(i, n), direction=LT
}
ENTRY e {
  p = f32[8,256] parameter(0)
  z = s32[] constant(0)
  init = (s32[], f32[8,256]) tuple(z, p)
  w = (s32[], f32[8,256]) while(init), condition=cond, body=body
  ROOT r = f32[8,256] get-tuple-element(w), index=1
})";
  std::string with_copy = kText;
  with_copy.replace(with_copy.find("%s = f32[8,256] STATE"), 21, "cp = f32[8,256] copy(u)");
  with_copy.replace(with_copy.find("OUT"), 3, "cp");
  std::string without_copy = kText;
  without_copy.replace(without_copy.find("  %s = f32[8,256] STATE\n"), 24, "");
  without_copy.replace(without_copy.find("OUT"), 3, "u");
  auto a = Parse(with_copy);
  auto b = Parse(without_copy);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  MemoryReport ra = Profile(*a);
  MemoryReport rb = Profile(*b);
  // Body peaks: 8192 (the copy) and 1028 (row and z); the entry holds p and z (8196).
  EXPECT_EQ(ra.peak_bytes, 8196 + 8192);
  EXPECT_EQ(rb.peak_bytes, 8196 + 1028);
}

// A donated parameter shares the output's buffer; the others live to the end.
TEST(MemoryProfile, InputOutputAlias) {
  constexpr char kText[] = R"(
HloModule io, is_scheduled=true ALIAS
ENTRY e {
  p = f32[1024] parameter(0)
  q = f32[1024] parameter(1)
  a = f32[1024] add(p, q)
  b = f32[1024] negate(a)
  ROOT r = f32[1024] exponential(b)
})";
  std::string donated = kText;
  donated.replace(donated.find(" ALIAS"), 6, ", input_output_alias={ {}: (0, {}, must-alias) }");
  std::string kept = kText;
  kept.replace(kept.find(" ALIAS"), 6, "");
  auto d = Parse(donated);
  auto k = Parse(kept);
  ASSERT_NE(d, nullptr);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(Timeline(Profile(*d)), (std::vector<int64_t>{8192, 8192, 12288, 16384, 12288}));
  EXPECT_EQ(Timeline(Profile(*k)), (std::vector<int64_t>{8192, 8192, 12288, 16384, 16384}));
}

TEST(MemoryProfile, DynamicDimensionsAtBoundOrValue) {
  auto m = Parse(R"(
HloModule dyn, is_scheduled=true
ENTRY e {
  ROOT p = f32[<=16,256] parameter(0)
})");
  ASSERT_NE(m, nullptr);
  MemoryReport at_bound = Profile(*m);
  EXPECT_TRUE(at_bound.has_dynamic_dims);
  EXPECT_EQ(at_bound.peak_bytes, 16 * 256 * 4);
  MemoryOptions o;
  o.dim_value = 4;
  EXPECT_EQ(Profile(*m, o).peak_bytes, 4 * 256 * 4);
  o.dim_value = 100;  // capped by the bound
  EXPECT_EQ(Profile(*m, o).peak_bytes, 16 * 256 * 4);
}

// Unscheduled text that names an operand before defining it still runs operands first.
TEST(MemorySchedule, TopologicalWhenNotScheduled) {
  auto m = Parse(R"(
HloModule t
ENTRY e {
  p = f32[4] parameter(0)
  ROOT r = f32[4] add(a, b)
  b = f32[4] negate(a)
  a = f32[4] exponential(p)
})");
  ASSERT_NE(m, nullptr);
  std::vector<std::string> names;
  for (const Instruction* in : InstructionSequence(*m->entry(), false))
    names.emplace_back(in->name());
  EXPECT_EQ(names, (std::vector<std::string>{"p", "a", "b", "r"}));
  names.clear();
  for (const Instruction* in : InstructionSequence(*m->entry(), true))
    names.emplace_back(in->name());
  EXPECT_EQ(names, (std::vector<std::string>{"p", "r", "b", "a"}));
  EXPECT_FALSE(Profile(*m).modules.at(0).scheduled);
}

TEST(MemoryProfile, Errors) {
  auto m = Parse("HloModule e\nENTRY e {\n  ROOT p = f32[4] parameter(0)\n}\n");
  ASSERT_NE(m, nullptr);
  MemoryOptions o;
  o.stage_by = MemoryOptions::StageBy::kOpNameRegex;
  o.stage_regex = "stage_\\d+";
  absl::StatusOr<MemoryReport> r = ProfileModule(*m, o);
  ASSERT_FALSE(r.ok());
  // The library names MemoryOptions' fields, never a tool's flags (support/option_error.h).
  EXPECT_EQ(StatusText(r.status()),
            "stage_regex 'stage_\\d+' needs exactly one capture group (it has 0)");
  EXPECT_EQ(ErrorOption(r.status()), "stage_regex");
  o.stage_regex = "(unclosed";
  r = ProfileModule(*m, o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(StatusText(r.status()).find("is not a valid regular expression"), std::string::npos);
  EXPECT_EQ(ErrorOption(r.status()), "stage_regex");
  MemoryOptions bad_forward;
  bad_forward.forward_regex = "[";
  r = ProfileModule(*m, bad_forward);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(StatusText(r.status()).find("forward_regex '['"), 0u);
  EXPECT_EQ(ErrorOption(r.status()), "forward_regex");
  MemoryOptions bad_backward;
  bad_backward.backward_regex = "(";
  r = ProfileModule(*m, bad_backward);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(StatusText(r.status()).find("backward_regex '('"), 0u);
  EXPECT_EQ(ErrorOption(r.status()), "backward_regex");
  MemoryOptions no_attr;
  no_attr.stage_by = MemoryOptions::StageBy::kFrontendAttribute;
  r = ProfileModule(*m, no_attr);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(StatusText(r.status()),
            "stage_attr is empty: stages by frontend attribute need the attribute's name");
  EXPECT_EQ(ErrorOption(r.status()), "stage_attr");
  EXPECT_FALSE(ProfileModules({}, {}).ok());
}

TEST(MemoryProfile, UnboundedDimensionNamesDimValue) {
  auto m = Parse("HloModule u\nENTRY e {\n  ROOT p = f32[?,4] parameter(0)\n}\n");
  ASSERT_NE(m, nullptr);
  absl::StatusOr<MemoryReport> r = ProfileModule(*m, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(StatusText(r.status()),
            "module 'u': the peak cannot be determined: p (f32[?,4]) has an unbounded dynamic "
            "dimension; size it with dim_value=N");
  EXPECT_EQ(ErrorOption(r.status()), "dim_value");
  MemoryOptions sized;
  sized.dim_value = 3;
  EXPECT_TRUE(ProfileModule(*m, sized).ok());
}

TEST(MemoryProfile, ModuleWithoutEntry) {
  Module m("empty");
  absl::StatusOr<MemoryReport> r = ProfileModule(m, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(StatusText(r.status()), "module 'empty' has no entry");
}

TEST(MemoryProfile, TimelineCanBeLeftOut) {
  auto m = Parse("HloModule t\nENTRY e {\n  ROOT p = f32[4] parameter(0)\n}\n");
  ASSERT_NE(m, nullptr);
  MemoryOptions o;
  o.timeline = false;
  MemoryReport r = Profile(*m, o);
  EXPECT_TRUE(r.modules.at(0).timeline.empty());
  EXPECT_TRUE(r.stages.at(0).timeline.empty());
  EXPECT_EQ(r.peak_bytes, 16);
}

// The profiler needs one call site per control-flow callee (a callee's buffers are counted
// once, at its calling instruction); the dataflow accepts shared callees, the profiler says
// what to run instead of giving a profile that is not XLA's.
TEST(MemoryProfile, SharedCalleeIsAnError) {
  auto m = Parse(R"(
HloModule two_sites
f {
  ROOT p = f32[4] parameter(0)
}
ENTRY e {
  x = f32[4] parameter(0)
  a = f32[4] call(x), to_apply=f
  ROOT b = f32[4] call(a), to_apply=f
})");
  ASSERT_NE(m, nullptr);
  absl::StatusOr<MemoryReport> r = ProfileModule(*m, {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(StatusText(r.status()).find("flatten-call-graph"), std::string::npos);
  EXPECT_NE(StatusText(r.status()).find("computation 'f' has more than one call site"),
            std::string::npos)
      << StatusText(r.status());
}

}  // namespace
}  // namespace hloscope
