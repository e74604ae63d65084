// --memory-limit's size syntax and verdicts (analysis/memory/memory_limit.h), and the honest-
// context warnings a report starts with (analysis/memory/memory_context.h).
#include "analysis/memory/memory_limit.h"

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/memory/memory_context.h"
#include "gtest/gtest.h"
#include "support/status_text.h"
#include "tests/test_util.h"

namespace hloscope {
namespace {

using testing::Parse;

TEST(ParseMemorySize, UnitsAndFractions) {
  EXPECT_EQ(*ParseMemorySize("4096"), 4096);
  EXPECT_EQ(*ParseMemorySize("4096B"), 4096);
  EXPECT_EQ(*ParseMemorySize("80GiB"), int64_t{80} << 30);
  EXPECT_EQ(*ParseMemorySize("80gib"), int64_t{80} << 30);
  EXPECT_EQ(*ParseMemorySize("1.5GB"), 1500000000);
  EXPECT_EQ(*ParseMemorySize("2KiB"), 2048);
  EXPECT_EQ(*ParseMemorySize("3MB"), 3000000);
  EXPECT_EQ(*ParseMemorySize("1TiB"), int64_t{1} << 40);
}

TEST(ParseMemorySize, BadSizesAreErrorsNamingTheText) {
  for (const char* bad : {"", "GiB", "-1GiB", "1.2.3GB", "80 GiB", "80GiBs", "x", "."}) {
    absl::StatusOr<int64_t> s = ParseMemorySize(bad);
    ASSERT_FALSE(s.ok()) << bad;
    EXPECT_NE(StatusText(s.status()).find(std::string("'") + bad + "'"), std::string::npos)
        << StatusText(s.status());
  }
  absl::StatusOr<int64_t> huge = ParseMemorySize("9000000TiB");
  ASSERT_FALSE(huge.ok());
  EXPECT_NE(StatusText(huge.status()).find("past int64"), std::string::npos);
}

TEST(MemoryLimitText, OverAndFitsPerModuleAndStage) {
  MemoryReport r;
  ModuleMemory m;
  m.module = "m";
  m.peak_bytes = 3 << 20;
  r.modules.push_back(m);
  StageMemory s0, s1;
  s0.stage = "0";
  s0.peak_bytes = 1 << 20;
  s1.stage = "1";
  s1.peak_bytes = 3 << 20;
  r.stages = {s0, s1};
  const std::string text = MemoryLimitText(r, 2 << 20);
  EXPECT_NE(text.find("memory limit: 2097152 bytes (2.0 MiB)"), std::string::npos) << text;
  EXPECT_NE(text.find("module m: peak 3145728 (3.0 MiB): over by 1048576 bytes (1.0 MiB)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("stage 0: peak 1048576 (1.0 MiB): fits with 1048576 bytes (1.0 MiB) to "
                      "spare"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("stage 1: peak 3145728 (3.0 MiB): over by"), std::string::npos) << text;
  EXPECT_EQ(LimitVerdict(5, 5), "fits with 0 bytes (0 B) to spare");
}

// A stage with host memory (host_placement.h) is held against the limit by its device part.
TEST(MemoryLimitText, AStageWithHostMemoryByItsDevicePart) {
  MemoryReport r;
  ModuleMemory m;
  m.module = "m";
  m.peak_bytes = 1 << 20;
  r.modules.push_back(m);
  StageMemory offloading;
  offloading.stage = "0";
  offloading.peak_bytes = 3 << 20;
  offloading.device_peak_bytes = 1 << 20;
  offloading.host_peak_bytes = 2 << 20;
  StageMemory other;
  other.stage = "1";
  other.peak_bytes = 1 << 20;
  r.stages = {offloading, other};
  EXPECT_EQ(DevicePeakBytes(offloading), 1 << 20);
  EXPECT_EQ(DevicePeakBytes(other), 1 << 20);  // no host part: the stage's peak
  const std::string text = MemoryLimitText(r, 2 << 20);
  EXPECT_NE(text.find("stage 0: device peak 1048576 (1.0 MiB): fits with 1048576 bytes"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("stage 1: peak 1048576 (1.0 MiB): fits"), std::string::npos) << text;
}

TEST(MemoryContextWarnings, UnscheduledUnfusedUnpartitioned) {
  auto raw = Parse(R"(
HloModule raw
ENTRY e {
  p = f32[64] parameter(0), sharding={devices=[4]0,1,2,3}
  ROOT n = f32[64] negate(p), sharding={devices=[4]0,1,2,3}
})");
  ASSERT_NE(raw, nullptr);
  const std::vector<std::string> w = MemoryContextWarnings(*raw);
  ASSERT_EQ(w.size(), 3u);
  EXPECT_NE(w[0].find("raw is not scheduled"), std::string::npos) << w[0];
  EXPECT_NE(w[1].find("raw is not fused"), std::string::npos) << w[1];
  EXPECT_NE(w[2].find("raw is not partitioned"), std::string::npos) << w[2];
}

TEST(MemoryContextWarnings, ScheduledFusedPartitionedModuleHasNone) {
  auto done = Parse(R"(
HloModule done, is_scheduled=true
f {
  x = f32[16] parameter(0)
  ROOT n = f32[16] negate(x)
}
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  p = f32[16] parameter(0), sharding={devices=[4]0,1,2,3}
  ar = f32[16] all-reduce(p), replica_groups={}, to_apply=sum
  ROOT fu = f32[16] fusion(ar), kind=kLoop, calls=f
})");
  ASSERT_NE(done, nullptr);
  EXPECT_TRUE(MemoryContextWarnings(*done).empty());
}

}  // namespace
}  // namespace hloscope
