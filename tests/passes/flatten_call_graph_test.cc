// The flatten-call-graph pass, and the dataflow analysis on its result.
#include "passes/flatten_call_graph.h"

#include "tests/analysis/analysis_test_util.h"
#include "hlo/verifier.h"

namespace hloscope {
namespace {

using analysis_testing::Find;
using analysis_testing::Parse;
using analysis_testing::RunDataflow;
using analysis_testing::ValuesAt;

constexpr std::string_view kTwoCalls = R"(HloModule m
leaf {
  l = f32[4] parameter(0)
  ROOT ln = f32[4] negate(l)
}
callee {
  x = f32[4] parameter(0)
  ROOT c = f32[4] call(x), to_apply=leaf
}
ENTRY e {
  a = f32[4] parameter(0)
  c1 = f32[4] call(a), to_apply=callee
  ROOT c2 = f32[4] call(c1), to_apply=callee
})";

TEST(FlattenCallGraphTest, CallFromTwoSitesGetsAClonePerSite) {
  auto m = Parse(kTwoCalls);
  FlattenCallGraph pass;
  absl::StatusOr<bool> changed = pass.Run(*m);
  ASSERT_TRUE(changed.ok());
  EXPECT_TRUE(*changed);
  EXPECT_EQ(VerifyModule(*m), absl::OkStatus());
  EXPECT_EQ(Find(*m, "e", "c2")->to_apply()->name(), "callee.clone");
  // The clone's own callee was cloned as well.
  EXPECT_EQ(Find(*m, "callee.clone", "c")->to_apply()->name(), "leaf.clone");
  EXPECT_EQ(Find(*m, "callee", "c")->to_apply()->name(), "leaf");

  auto df = RunDataflow(*m);
  EXPECT_EQ(ValuesAt(*df, "callee", "x"), "a{}");
  EXPECT_EQ(ValuesAt(*df, "callee.clone", "x"), "ln{}");
  EXPECT_EQ(ValuesAt(*df, "e", "c2"),
            df->value(df->ValuesAt(*Find(*m, "leaf.clone", "ln"))[0]).ToString());
}

TEST(FlattenCallGraphTest, NothingToDoLeavesTheModuleAlone) {
  auto m = Parse(R"(HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  a = f32[4] parameter(0)
  z = f32[] constant(0)
  r1 = f32[] reduce(a, z), dimensions={0}, to_apply=add
  ROOT r2 = f32[] reduce(a, z), dimensions={0}, to_apply=add
})");
  FlattenCallGraph pass;
  absl::StatusOr<bool> changed = pass.Run(*m);
  ASSERT_TRUE(changed.ok());
  EXPECT_FALSE(*changed);
  EXPECT_EQ(m->computations().size(), 2u);
}

TEST(FlattenCallGraphTest, WhileBodiesSharedByTwoLoops) {
  auto m = Parse(R"(HloModule m
cond {
  cp = f32[4] parameter(0)
  ROOT f = pred[] constant(false)
}
body {
  bp = f32[4] parameter(0)
  ROOT n = f32[4] negate(bp)
}
ENTRY e {
  a = f32[4] parameter(0)
  w1 = f32[4] while(a), condition=cond, body=body
  ROOT w2 = f32[4] while(w1), condition=cond, body=body
})");
  // Shared, the body parameter merges both loops' states in one phi; flattened, each body has
  // its own.
  {
    auto shared = RunDataflow(*m);
    EXPECT_EQ(ValuesAt(*shared, "body", "bp"), "bp{} (phi)");
    EXPECT_EQ(ValuesAt(*shared, "e", "w2"), "w2{} (phi)");
  }
  FlattenCallGraph pass;
  ASSERT_TRUE(pass.Run(*m).ok());
  EXPECT_EQ(VerifyModule(*m), absl::OkStatus());
  auto df = RunDataflow(*m);
  EXPECT_EQ(ValuesAt(*df, "e", "w2"), "w2{} (phi)");
  EXPECT_EQ(ValuesAt(*df, "body.clone", "bp"), "bp{} (phi)");
}

}  // namespace
}  // namespace hloscope
