// FusedComputationRunBy (hlo/async_chain.h): the fused body of a fusion and of an async fusion in
// both forms XLA prints it, and nullptr for what only looks like one.
#include "gtest/gtest.h"
#include "hlo/async_chain.h"
#include "test_util.h"

namespace hloscope {
namespace {

using testing::Find;
using testing::ParseOrDie;

constexpr char kBody[] = R"(
fused_dus {
  b = f32[8] parameter(0)
  u = f32[2] parameter(1)
  i = s32[] parameter(2)
  ROOT d = f32[8] dynamic-update-slice(b, u, i)
}
)";

TEST(AsyncFusion, ShortFormRunsTheFusedBody) {
  auto m = ParseOrDie(std::string("HloModule m\n") + kBody + R"(
ENTRY e {
  b = f32[8] parameter(0)
  u = f32[2] parameter(1)
  i = s32[] parameter(2)
  s = ((f32[8], f32[2], s32[]), f32[8], u32[]) fusion-start(b, u, i), kind=kLoop, calls=fused_dus
  ROOT d = f32[8] fusion-done(s)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(FusedComputationRunBy(*Find(*m, "e", "s")), m->FindComputation("fused_dus"));
  EXPECT_EQ(FusedComputationRunBy(*Find(*m, "e", "d")), nullptr);  // the done runs nothing
}

TEST(AsyncFusion, LongFormRunsTheWrappedFusionsBody) {
  auto m = ParseOrDie(std::string("HloModule m\n") + kBody + R"(
async_computation {
  p0 = f32[8] parameter(0)
  p1 = f32[2] parameter(1)
  p2 = s32[] parameter(2)
  ROOT f = f32[8] fusion(p0, p1, p2), kind=kLoop, calls=fused_dus
}

ENTRY e {
  b = f32[8] parameter(0)
  u = f32[2] parameter(1)
  i = s32[] parameter(2)
  s = ((f32[8], f32[2], s32[]), f32[8], u32[]) async-start(b, u, i), calls=async_computation
  ROOT d = f32[8] async-done(s)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(FusedComputationRunBy(*Find(*m, "e", "s")), m->FindComputation("fused_dus"));
  EXPECT_TRUE(IsAsyncFusionWrapper(*m->FindComputation("async_computation")));
  EXPECT_FALSE(IsAsyncFusionWrapper(*m->FindComputation("fused_dus")));
  // The fusion inside is a fusion too.
  EXPECT_EQ(FusedComputationRunBy(*Find(*m, "async_computation", "f")),
            m->FindComputation("fused_dus"));
}

// A wrapped computation that does more than pass its parameters to one fusion in order is not
// an async fusion: its operands are not the fused body's parameters one for one.
TEST(AsyncFusion, OtherWrappedComputationsAreNot) {
  auto m = ParseOrDie(std::string("HloModule m\n") + kBody + R"(
swapped {
  p0 = f32[8] parameter(0)
  p1 = f32[2] parameter(1)
  p2 = s32[] parameter(2)
  n = f32[2] negate(p1)
  ROOT f = f32[8] fusion(p0, n, p2), kind=kLoop, calls=fused_dus
}

ENTRY e {
  b = f32[8] parameter(0)
  u = f32[2] parameter(1)
  i = s32[] parameter(2)
  s = ((f32[8], f32[2], s32[]), f32[8], u32[]) async-start(b, u, i), calls=swapped
  ROOT d = f32[8] async-done(s)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(FusedComputationRunBy(*Find(*m, "e", "s")), nullptr);
  EXPECT_FALSE(IsAsyncFusionWrapper(*m->FindComputation("swapped")));
}

}  // namespace
}  // namespace hloscope
