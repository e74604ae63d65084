// Memory profiler: per-stage attribution by each method (modules, op_name regex, frontend
// attribute, stash buffers) and activations told apart by op_name.
#include <algorithm>
#include <string>
#include <vector>

#include "analysis/memory/memory_profile.h"
#include "gtest/gtest.h"
#include "support/status_text.h"
#include "tests/test_util.h"

namespace hloscope {
namespace {

using testing::Parse;

MemoryReport Profile(std::vector<const Module*> modules, MemoryOptions options) {
  absl::StatusOr<MemoryReport> r = ProfileModules(std::move(modules), options);
  EXPECT_TRUE(r.ok()) << StatusText(r.status());
  return r.ok() ? *std::move(r) : MemoryReport{};
}

// Two stages in one module; stage 1 is written first so numeric order must be restored.
constexpr char kTwoStages[] = R"(
HloModule two, is_scheduled=true
ENTRY e {
  p = f32[256] parameter(0)
  a = f32[2,256] broadcast(p), dimensions={1}, metadata={op_name="jit(f)/stage_1/bcast"}, frontend_attributes={stage="1"}
  s = f32[1,256] slice(a), slice={[0:1], [0:256]}, metadata={op_name="jit(f)/stage_1/slice"}, frontend_attributes={stage="1"}
  b = f32[8,256] broadcast(p), dimensions={1}, metadata={op_name="jit(f)/stage_0/bcast"}, frontend_attributes={stage="0"}
  ROOT c = f32[1,256] slice(b), slice={[0:1], [0:256]}, metadata={op_name="jit(f)/stage_0/slice"}, frontend_attributes={stage="0"}
})";

void ExpectTwoStages(const MemoryReport& r) {
  ASSERT_EQ(r.stages.size(), 2u);
  EXPECT_EQ(r.stage_names, (std::vector<std::string>{"0", "1"}));
  EXPECT_EQ(r.stages[0].stage, "0");
  // Stage 0's buffers: b (8 KiB) and c (1 KiB), both live at c.
  EXPECT_EQ(r.stages[0].peak_bytes, 9216);
  EXPECT_EQ(r.stages[0].peak_instruction, "c");
  // Stage 1's: a (2 KiB) and s (1 KiB), both live at s.
  EXPECT_EQ(r.stages[1].stage, "1");
  EXPECT_EQ(r.stages[1].peak_bytes, 3072);
  EXPECT_EQ(r.stages[1].peak_instruction, "s");
  ASSERT_EQ(r.stages[1].timeline.size(), 5u);
  EXPECT_EQ(r.stages[1].timeline[4], 0);
  // Timeline points carry the stage index.
  EXPECT_EQ(r.modules[0].timeline[1].stage, 1);
  EXPECT_EQ(r.modules[0].timeline[4].stage, 0);
  EXPECT_EQ(r.modules[0].timeline[0].stage, -1);
}

TEST(MemoryStages, ByOpNameRegex) {
  auto m = Parse(kTwoStages);
  ASSERT_NE(m, nullptr);
  MemoryOptions o;
  o.stage_by = MemoryOptions::StageBy::kOpNameRegex;
  o.stage_regex = R"(/stage_(\d+)/)";
  ExpectTwoStages(Profile({m.get()}, o));
}

TEST(MemoryStages, ByFrontendAttribute) {
  auto m = Parse(kTwoStages);
  ASSERT_NE(m, nullptr);
  MemoryOptions o;
  o.stage_by = MemoryOptions::StageBy::kFrontendAttribute;
  o.stage_attr = "stage";
  ExpectTwoStages(Profile({m.get()}, o));
}

TEST(MemoryStages, ByModule) {
  auto a = Parse(
      "HloModule s0\nENTRY e {\n  p = f32[256] parameter(0)\n"
      "  ROOT b = f32[4,256] broadcast(p), dimensions={1}\n}\n");
  auto b = Parse("HloModule s1\nENTRY e {\n  ROOT p = f32[2,256] parameter(0)\n}\n");
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  MemoryOptions o;
  o.stage_by = MemoryOptions::StageBy::kModule;
  MemoryReport r = Profile({a.get(), b.get()}, o);
  ASSERT_EQ(r.stages.size(), 2u);
  EXPECT_EQ(r.stages[0].stage, "0");
  EXPECT_EQ(r.stages[0].module, "s0");
  EXPECT_EQ(r.stages[0].peak_bytes, 5120);
  EXPECT_EQ(r.stages[1].stage, "1");
  EXPECT_EQ(r.stages[1].module, "s1");
  EXPECT_EQ(r.stages[1].peak_bytes, 2048);
  EXPECT_EQ(r.peak_bytes, 5120);
  EXPECT_EQ(r.peak_module, "s0");
  EXPECT_EQ(r.modules.size(), 2u);
}

// Each stage row splits the device's part from the host's (host_placement.h), as the module's
// peak is split (worked by hand in testdata/analysis/memory/report_ux/stage_host_split.test, here
// under the xla model): stage 0 offloads h to the host, stage 1 brings it back.
constexpr char kStagesWithHostValue[] = R"(
HloModule staged_offload, is_scheduled=true
ENTRY e {
  p = f32[256] parameter(0)
  a = f32[4,256] broadcast(p), dimensions={1}, metadata={op_name="jit(f)/stage_0/bcast"}
  h = f32[4,256] custom-call(a), custom_call_target="MoveToHost", metadata={op_name="jit(f)/stage_0/offload"}
  d = f32[4,256] custom-call(h), custom_call_target="MoveToDevice", metadata={op_name="jit(f)/stage_1/reload"}
  ROOT s = f32[2,256] slice(d), slice={[0:2], [0:256]}, metadata={op_name="jit(f)/stage_1/slice"}
})";

TEST(MemoryStages, DeviceAndHostPerNamedStage) {
  auto m = Parse(kStagesWithHostValue);
  ASSERT_NE(m, nullptr);
  MemoryOptions o;
  o.stage_by = MemoryOptions::StageBy::kOpNameRegex;
  o.stage_regex = R"(/stage_(\d+)/)";
  const MemoryReport r = Profile({m.get()}, o);
  ASSERT_EQ(r.stages.size(), 2u);
  // Stage 0: a (4 KiB) until h reads it, h (4 KiB, the host's) until d: 8 KiB at h.
  const StageMemory& zero = r.stages[0];
  EXPECT_EQ(zero.peak_bytes, 8192);
  EXPECT_EQ(zero.host_peak_bytes, 4096);
  EXPECT_EQ(zero.host_peak_instruction, "h");
  EXPECT_EQ(zero.device_peak_bytes, 4096);
  EXPECT_EQ(zero.device_peak_instruction, "a");
  // Stage 1: d (4 KiB) and s (2 KiB), all on the device: its figures are the stage's.
  const StageMemory& one = r.stages[1];
  EXPECT_EQ(one.peak_bytes, 6144);
  EXPECT_EQ(one.host_peak_bytes, 0);
  EXPECT_EQ(one.host_peak_instruction, "");
  EXPECT_EQ(one.device_peak_bytes, 6144);
  EXPECT_EQ(one.device_peak_instruction, "s");
  // The module's split holds the same host value.
  EXPECT_EQ(r.modules[0].host_peak_bytes, 4096);
  // The series the HTML plot draws per stage (issue 31): stage 0's device part and host part
  // step by step, adding up to its timeline, each peaking where its peak above is; stage 1
  // holds no host buffer and keeps its timeline alone.
  ASSERT_EQ(zero.device_timeline.size(), zero.timeline.size());
  ASSERT_EQ(zero.host_timeline.size(), zero.timeline.size());
  for (size_t t = 0; t < zero.timeline.size(); ++t) {
    EXPECT_EQ(zero.device_timeline[t] + zero.host_timeline[t], zero.timeline[t]) << "step " << t;
  }
  EXPECT_EQ(*std::max_element(zero.device_timeline.begin(), zero.device_timeline.end()), 4096);
  EXPECT_EQ(*std::max_element(zero.host_timeline.begin(), zero.host_timeline.end()), 4096);
  EXPECT_EQ(zero.host_timeline[1], 0);     // a: on the device alone
  EXPECT_EQ(zero.host_timeline[2], 4096);  // h: on the host
  EXPECT_TRUE(one.device_timeline.empty());
  EXPECT_TRUE(one.host_timeline.empty());
}

TEST(MemoryStages, AModuleStageTakesTheModulesDeviceAndHost) {
  auto m = Parse(kStagesWithHostValue);
  ASSERT_NE(m, nullptr);
  MemoryOptions o;
  o.stage_by = MemoryOptions::StageBy::kModule;
  const MemoryReport r = Profile({m.get()}, o);
  ASSERT_EQ(r.stages.size(), 1u);
  const ModuleMemory& module = r.modules[0];
  EXPECT_GT(module.host_peak_bytes, 0);
  EXPECT_EQ(r.stages[0].peak_bytes, module.peak_bytes);
  EXPECT_EQ(r.stages[0].device_peak_bytes, module.device_peak_bytes);
  EXPECT_EQ(r.stages[0].device_peak_instruction, module.device_peak_instruction);
  EXPECT_EQ(r.stages[0].host_peak_bytes, module.host_peak_bytes);
  EXPECT_EQ(r.stages[0].host_peak_instruction, module.host_peak_instruction);
}

// Forward values read by the backward pass are activations; a forward value only the forward
// pass reads is not, nor is a parameter.
constexpr char kForwardBackward[] = R"(
HloModule fb, is_scheduled=true
ENTRY e {
  x = f32[256] parameter(0)
  h = f32[256] tanh(x), metadata={op_name="jit(f)/jvp(model)/tanh"}
  t = f32[2,256] broadcast(h), dimensions={1}, metadata={op_name="jit(f)/jvp(model)/tmp"}
  y = f32[1,256] slice(t), slice={[0:1], [0:256]}, metadata={op_name="jit(f)/jvp(model)/slice"}
  g = f32[256] multiply(h, x), metadata={op_name="jit(f)/transpose(jvp(model))/mul"}
  ROOT r = (f32[1,256], f32[256]) tuple(y, g)
})";

TEST(MemoryActivations, ByOpName) {
  auto m = Parse(kForwardBackward);
  ASSERT_NE(m, nullptr);
  MemoryReport r = Profile({m.get()}, {});
  ASSERT_EQ(r.stages.size(), 1u);
  EXPECT_EQ(r.stages[0].activation_source, "op_name");
  EXPECT_EQ(r.stages[0].activation_bytes_per_microbatch, 1024);  // h only
  EXPECT_EQ(r.stages[0].peak_activation_bytes, 1024);
}

TEST(MemoryActivations, RegexesOverride) {
  auto m = Parse(kForwardBackward);
  ASSERT_NE(m, nullptr);
  MemoryOptions o;
  o.forward_regex = "/tmp$";  // only t is forward now; nothing backward reads it
  MemoryReport r = Profile({m.get()}, o);
  EXPECT_EQ(r.stages[0].activation_bytes_per_microbatch, 0);
  EXPECT_EQ(r.stages[0].activation_source, "none");
  o.forward_regex = "jvp";
  o.backward_regex = "/slice$";  // y reads t: t is the activation
  r = Profile({m.get()}, o);
  EXPECT_EQ(r.stages[0].activation_bytes_per_microbatch, 2048);
}

// A loop that stashes one stage's [1,1,256] row per iteration into a [4,2,256] state element
// at the loop index, read back by a dynamic-slice: 1 KiB per microbatch and stage, 4 slots,
// 2 stages.
constexpr char kStash[] = R"(
HloModule stash, is_scheduled=true
body {
  s = (s32[], f32[4,2,256]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  buf = f32[4,2,256] get-tuple-element(s), index=1
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  c = f32[] constant(1)
  row = f32[1,1,256] broadcast(c), dimensions={}
  z = s32[] constant(0)
  upd = f32[4,2,256] dynamic-update-slice(buf, row, i, z, z)
  ROOT t = (s32[], f32[4,2,256]) tuple(i2, upd)
}
cond {
  s = (s32[], f32[4,2,256]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(4)
  ROOT lt = pred[] compare(i, n), direction=LT
}
ENTRY e {
  z = s32[] constant(0)
  zf = f32[] constant(0)
  init_buf = f32[4,2,256] broadcast(zf), dimensions={}
  init = (s32[], f32[4,2,256]) tuple(z, init_buf)
  w = (s32[], f32[4,2,256]) while(init), condition=cond, body=body
  stash = f32[4,2,256] get-tuple-element(w), index=1
  k = s32[] parameter(0)
  ROOT back = f32[1,2,256] dynamic-slice(stash, k, z, z), dynamic_slice_sizes={1,2,256}
})";

TEST(MemoryActivations, StashWithStageDimension) {
  auto m = Parse(kStash);
  ASSERT_NE(m, nullptr);
  MemoryReport r = Profile({m.get()}, {});
  ASSERT_EQ(r.stages.size(), 2u);
  for (const StageMemory& s : r.stages) {
    EXPECT_EQ(s.activation_source, "stash");
    EXPECT_EQ(s.activation_bytes_per_microbatch, 1024);
    EXPECT_EQ(s.microbatch_slots, 4);
    EXPECT_EQ(s.stash_buffers, 1);
    EXPECT_EQ(s.peak_activation_bytes, 4096);  // half of the 8 KiB stash
  }
  EXPECT_EQ(r.stages[0].stage, "0");
  EXPECT_EQ(r.stages[1].stage, "1");
}

TEST(MemoryActivations, NoReaderNoStash) {
  std::string text = kStash;
  text.replace(text.find("ROOT back = f32[1,2,256] dynamic-slice(stash, k, z, z), "
                         "dynamic_slice_sizes={1,2,256}"),
               std::string("ROOT back = f32[1,2,256] dynamic-slice(stash, k, z, z), "
                           "dynamic_slice_sizes={1,2,256}")
                   .size(),
               "ROOT back = f32[4,2,256] negate(stash)");
  auto m = Parse(text);
  ASSERT_NE(m, nullptr);
  MemoryReport r = Profile({m.get()}, {});
  ASSERT_EQ(r.stages.size(), 1u);
  EXPECT_EQ(r.stages[0].activation_source, "none");
  EXPECT_EQ(r.stages[0].stash_buffers, 0);
}

}  // namespace
}  // namespace hloscope
