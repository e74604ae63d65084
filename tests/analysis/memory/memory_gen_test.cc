// Acceptance of the memory profiler on hlo-gen's pipelined training steps: the per-stage
// activation bytes per microbatch equal what the generator stashes, computed here from its
// parameters (hlo-gen --help: per layer the input and every [B,S,H] activation for
// --remat=none (9), input, q, k, v and the output projection for out-proj (5), the input
// only for full (1); layers/stages layers per stage).
#include <memory>
#include <string>
#include <vector>

#include "analysis/memory/memory_profile.h"
#include "fmt/core.h"
#include "gtest/gtest.h"
#include "hlo/parser.h"
#include "hlo/verifier.h"
#include "support/status_text.h"
#include "tests/test_util.h"
#include "tools/hlo-gen/model.h"
#include "tools/hlo-gen/options.h"
#include "tools/hlo-gen/text_emitter.h"

namespace hloscope {
namespace {

int64_t StashedPerLayer(gen::Remat remat) {
  switch (remat) {
    case gen::Remat::kNone:
      return 9;
    case gen::Remat::kOutProj:
      return 5;
    case gen::Remat::kFull:
      return 1;
  }
  return 0;
}

int64_t ExpectedPerMicrobatch(const gen::Options& o) {
  const int64_t dtype_bytes = o.dtype == "f32" ? 4 : 2;
  return StashedPerLayer(o.remat) * (o.layers / o.stages) * o.microbatch * o.seq * o.hidden *
         dtype_bytes;
}

std::unique_ptr<Module> Generate(const gen::Options& o, int stage) {
  std::string text;
  gen::Sink sink(&text);
  gen::GenerateModule(o, stage, sink);
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(text, {.filename = "gen.hlo"});
  EXPECT_TRUE(m.ok()) << StatusText(m.status());
  if (!m.ok()) return nullptr;
  absl::Status v = VerifyModule(**m);
  EXPECT_TRUE(v.ok()) << StatusText(v);
  return *std::move(m);
}

gen::Options Small(gen::Layout layout, gen::Remat remat, std::string dtype) {
  gen::Options o;
  o.layout = layout;
  o.remat = remat;
  o.dtype = std::move(dtype);
  o.layers = 8;
  o.hidden = 64;
  o.heads = 4;
  o.seq = 16;
  o.microbatch = 2;
  o.microbatches = 6;
  o.stages = 4;
  return o;
}

struct Case {
  gen::Remat remat;
  const char* dtype;
  bool xla_copies;
};

class MemoryGenTest : public ::testing::TestWithParam<Case> {};

TEST_P(MemoryGenTest, MpmdStagesByModule) {
  gen::Options o = Small(gen::Layout::kMpmd, GetParam().remat, GetParam().dtype);
  o.xla_copies = GetParam().xla_copies;
  std::vector<std::unique_ptr<Module>> modules;
  std::vector<const Module*> stages;
  for (int s = 0; s < o.stages; ++s) {
    modules.push_back(Generate(o, s));
    ASSERT_NE(modules.back(), nullptr);
    stages.push_back(modules.back().get());
  }
  MemoryOptions options;
  options.stage_by = MemoryOptions::StageBy::kModule;
  absl::StatusOr<MemoryReport> r = ProfileModules(stages, options);
  ASSERT_TRUE(r.ok()) << StatusText(r.status());
  ASSERT_EQ(r->stages.size(), static_cast<size_t>(o.stages));
  for (int s = 0; s < o.stages; ++s) {
    const StageMemory& st = r->stages[s];
    EXPECT_EQ(st.stage, std::to_string(s));
    EXPECT_EQ(st.activation_source, "stash");
    EXPECT_EQ(st.activation_bytes_per_microbatch, ExpectedPerMicrobatch(o)) << "stage " << s;
    EXPECT_EQ(st.microbatch_slots, o.microbatches);  // one row per microbatch
    EXPECT_EQ(st.stash_buffers, StashedPerLayer(o.remat) * (o.layers / o.stages));
    // All stash rows are allocated up front, so they are all live together.
    EXPECT_EQ(st.peak_activation_bytes, st.activation_bytes_per_microbatch * o.microbatches);
    EXPECT_GE(st.peak_bytes, st.peak_activation_bytes);
  }
}

TEST_P(MemoryGenTest, SpmdCircularStashStageDimension) {
  gen::Options o = Small(gen::Layout::kSpmdCircular, GetParam().remat, GetParam().dtype);
  o.xla_copies = GetParam().xla_copies;
  std::unique_ptr<Module> m = Generate(o, 0);
  ASSERT_NE(m, nullptr);
  absl::StatusOr<MemoryReport> r = ProfileModule(*m, {});
  ASSERT_TRUE(r.ok()) << StatusText(r.status());
  // Every device runs one stage: the stash's stage dimension is 1.
  ASSERT_EQ(r->stages.size(), 1u);
  const StageMemory& st = r->stages[0];
  EXPECT_EQ(st.activation_source, "stash");
  EXPECT_EQ(st.activation_bytes_per_microbatch, ExpectedPerMicrobatch(o));
  // The forward loop runs M+P-1 iterations, one stash row each.
  EXPECT_EQ(st.microbatch_slots, o.microbatches + o.stages - 1);
  EXPECT_EQ(st.peak_activation_bytes, st.activation_bytes_per_microbatch * st.microbatch_slots);
}

INSTANTIATE_TEST_SUITE_P(RematAndDtype, MemoryGenTest,
                         ::testing::Values(Case{gen::Remat::kNone, "bf16", true},
                                           Case{gen::Remat::kOutProj, "bf16", true},
                                           Case{gen::Remat::kFull, "bf16", true},
                                           Case{gen::Remat::kOutProj, "f32", false}),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           const char* remat = info.param.remat == gen::Remat::kNone ? "none"
                                               : info.param.remat == gen::Remat::kOutProj
                                                   ? "outproj"
                                                   : "full";
                           return fmt::format("{}_{}_{}", remat, info.param.dtype,
                                              info.param.xla_copies ? "copies" : "nocopies");
                         });

// The copies XLA's copy insertion adds around the stash cost memory at the copy; without them
// the peak is never higher.
TEST(MemoryGen, CopiesNeverLowerThePeak) {
  gen::Options with = Small(gen::Layout::kSpmdCircular, gen::Remat::kOutProj, "bf16");
  gen::Options without = with;
  without.xla_copies = false;
  std::unique_ptr<Module> a = Generate(with, 0);
  std::unique_ptr<Module> b = Generate(without, 0);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  absl::StatusOr<MemoryReport> ra = ProfileModule(*a, {});
  absl::StatusOr<MemoryReport> rb = ProfileModule(*b, {});
  ASSERT_TRUE(ra.ok() && rb.ok());
  EXPECT_GE(ra->peak_bytes, rb->peak_bytes);
  EXPECT_EQ(ra->stages[0].activation_bytes_per_microbatch,
            rb->stages[0].activation_bytes_per_microbatch);
}

}  // namespace
}  // namespace hloscope
