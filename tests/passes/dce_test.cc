#include "passes/dce.h"

#include "gtest/gtest.h"
#include "tests/passes/passes_test_util.h"

namespace hloscope {
namespace {

using passes_testing::Names;
using passes_testing::Parse;
using passes_testing::Verify;

// Runs dce; returns "changed" or "unchanged", and fails the test on an error or an invalid
// result.
std::string RunDce(Module& m) {
  absl::StatusOr<bool> changed = DeadCodeElimination().Run(m);
  EXPECT_TRUE(changed.ok()) << changed.status().message();
  EXPECT_EQ(Verify(m), "OK");
  return changed.ok() && *changed ? "changed" : "unchanged";
}

TEST(DceTest, RemovesDeadChain) {
  std::unique_ptr<Module> m = Parse(R"(
HloModule m
ENTRY main {
  p = f32[2] parameter(0)
  a = f32[2] negate(p)
  b = f32[2] exponential(a)
  c = f32[2] add(b, a)
  ROOT r = f32[2] sqrt(p)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(RunDce(*m), "changed");
  EXPECT_EQ(Names(*m->entry()), "p r");
  EXPECT_EQ(m->entry()->parameter(0)->user_count(), 1);
  EXPECT_EQ(RunDce(*m), "unchanged");
}

TEST(DceTest, KeepsParametersAndRoot) {
  std::unique_ptr<Module> m = Parse(R"(
HloModule m
f {
  x = f32[2] parameter(0)
  unused = f32[2] parameter(1)
  ROOT n = f32[2] negate(x)
}
ENTRY main {
  p = f32[2] parameter(0)
  q = s32[] parameter(1)
  ROOT c = f32[2] call(p, p), to_apply=f
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(RunDce(*m), "unchanged");
  EXPECT_EQ(Names(*m->entry()), "p q c");
  EXPECT_EQ(Names(*m->FindComputation("f")), "x unused n");
}

TEST(DceTest, KeepsSideEffects) {
  std::unique_ptr<Module> m = Parse(R"(
HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY main {
  p = f32[2] parameter(0)
  tok = token[] after-all()
  out = token[] outfeed(p, tok), outfeed_shape=f32[2]
  effect = f32[2] custom-call(p), custom_call_target="log", custom_call_has_side_effect=true
  pure = f32[2] custom-call(p), custom_call_target="pure"
  sum = f32[2] all-reduce(p), replica_groups={}, to_apply=add
  lo = f32[] constant(0)
  rnd = f32[2] rng(lo, lo), distribution=rng_uniform
  start = (f32[2], f32[4]) all-gather-start(p), replica_groups={}, dimensions={0}
  done = f32[4] all-gather-done(start)
  dead = f32[2] negate(p)
  ROOT r = f32[2] copy(p)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(RunDce(*m), "changed");
  EXPECT_EQ(Names(*m->entry()), "p tok out effect sum lo rnd start done r");
}

TEST(DceTest, RemovesUnreachableComputations) {
  std::unique_ptr<Module> m = Parse(R"(
HloModule m
never_called {
  x = f32[2] parameter(0)
  ROOT n = f32[2] negate(x)
}
called_by_dead_call {
  y = f32[2] parameter(0)
  ROOT e = f32[2] exponential(y)
}
ENTRY main {
  p = f32[2] parameter(0)
  dead = f32[2] call(p), to_apply=called_by_dead_call
  ROOT r = f32[2] copy(p)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(RunDce(*m), "changed");
  EXPECT_EQ(m->computations().size(), 1u);
  EXPECT_EQ(m->FindComputation("never_called"), nullptr);
  EXPECT_EQ(m->FindComputation("called_by_dead_call"), nullptr);
  EXPECT_EQ(Names(*m->entry()), "p r");
}

TEST(DceTest, RemovesDeadWhileButKeepsOneWithSideEffects) {
  std::unique_ptr<Module> m = Parse(R"(
HloModule m
cond {
  p = f32[2] parameter(0)
  ROOT t = pred[] constant(false)
}
pure_body {
  p = f32[2] parameter(0)
  ROOT n = f32[2] negate(p)
}
printing_body {
  p = f32[2] parameter(0)
  tok = token[] after-all()
  out = token[] outfeed(p, tok), outfeed_shape=f32[2]
  ROOT n = f32[2] negate(p)
}
ENTRY main {
  a = f32[2] parameter(0)
  w1 = f32[2] while(a), condition=cond, body=pure_body
  w2 = f32[2] while(a), condition=cond, body=printing_body
  ROOT r = f32[2] copy(a)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(RunDce(*m), "changed");
  EXPECT_EQ(Names(*m->entry()), "a w2 r");
  EXPECT_EQ(m->FindComputation("pure_body"), nullptr);
  ASSERT_NE(m->FindComputation("printing_body"), nullptr);
  // Inside the kept body the outfeed stays although nothing uses its token.
  EXPECT_EQ(Names(*m->FindComputation("printing_body")), "p tok out n");
  EXPECT_NE(m->FindComputation("cond"), nullptr);
}

TEST(DceTest, RemovesDeadCodeInsideCalledComputations) {
  std::unique_ptr<Module> m = Parse(R"(
HloModule m
fused {
  x = f32[2] parameter(0)
  junk = f32[2] exponential(x)
  ROOT n = f32[2] negate(x)
}
ENTRY main {
  p = f32[2] parameter(0)
  ROOT f = f32[2] fusion(p), kind=kLoop, calls=fused
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(RunDce(*m), "changed");
  EXPECT_EQ(Names(*m->FindComputation("fused")), "x n");
}

TEST(DceTest, KeepsControlPredecessorsOfLiveInstructions) {
  std::unique_ptr<Module> m = Parse(R"(
HloModule m
ENTRY main {
  p = f32[2] parameter(0)
  ordered = f32[2] negate(p)
  ROOT r = f32[2] copy(p), control-predecessors={ordered}
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(RunDce(*m), "unchanged");
  EXPECT_EQ(Names(*m->entry()), "p ordered r");
}

TEST(DceTest, ControlPredecessorOfDeadInstructionGoesWithIt) {
  std::unique_ptr<Module> m = Parse(R"(
HloModule m
ENTRY main {
  p = f32[2] parameter(0)
  first = f32[2] negate(p)
  second = f32[2] exponential(p), control-predecessors={first}
  ROOT r = f32[2] copy(p)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(RunDce(*m), "changed");
  EXPECT_EQ(Names(*m->entry()), "p r");
}

TEST(DceTest, NameAndDescription) {
  DeadCodeElimination dce;
  EXPECT_EQ(dce.name(), "dce");
  EXPECT_FALSE(dce.description().empty());
}

}  // namespace
}  // namespace hloscope
