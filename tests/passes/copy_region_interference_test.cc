// XLA's region-based interference test (passes/copy_region_interference.h), asked directly on
// modules as copy-elision{region-analysis=true} sees them when XLA's ordered value lists
// refuse a copy: the source buffer's values from the copied one, the destination's from the
// copy's. Each case is one of the rules read from xla/service/copy_removal.cc (openxla/xla
// 2c731115): exclusive branches, a parameter's use at a root, an interception in one
// computation, and the places this answers "interfere" where XLA would go on.
#include "passes/copy_region_interference.h"

#include <memory>
#include <string>

#include "analysis/dataflow.h"
#include "analysis/ordering.h"
#include "analysis/value_liveness.h"
#include "gtest/gtest.h"
#include "support/status_text.h"
#include "tests/test_util.h"

namespace hloscope {
namespace {

using testing::Find;
using testing::Parse;

struct Analyses {
  std::unique_ptr<DataflowAnalysis> flow;
  std::unique_ptr<ExecutionOrdering> ordering;
  std::unique_ptr<ValueLiveness> live;
  ValueId At(const Module& m, std::string_view comp, std::string_view name,
             const ShapeIndex& index = {}) const {
    const ValueId v = flow->ValueDefinedAt(*Find(m, comp, name), index);
    EXPECT_NE(v, kNoValue) << name;
    return v;
  }
};

Analyses Analyze(const Module& m) {
  Analyses a;
  auto flow = DataflowAnalysis::Run(m, DataflowAnalysis::Options{});
  EXPECT_TRUE(flow.ok()) << StatusText(flow.status());
  auto ordering = ExecutionOrdering::Run(m);
  EXPECT_TRUE(ordering.ok()) << StatusText(ordering.status());
  a.flow = *std::move(flow);
  a.ordering = *std::move(ordering);
  a.live = std::make_unique<ValueLiveness>(*a.flow, *a.ordering);
  return a;
}

// Branch 1's root copy of %a, defined in the entry; branch 0 writes %n into the result. The
// entry's root is %r or, with `root_conditional`, the conditional itself; the conditional
// reads %a, or entry parameter %x with `pass_parameter`.
std::string Module(bool root_conditional, bool pass_parameter) {
  return std::string(R"(
HloModule m
branch0 {
  p0 = (f32[4]) parameter(0)
  g0 = f32[4] get-tuple-element(p0), index=0
  n = f32[4] negate(g0)
  ROOT t0 = (f32[4]) tuple(n)
}
branch1 {
  p1 = (f32[4]) parameter(0)
  g1 = f32[4] get-tuple-element(p1), index=0
  cp = f32[4] copy(g1)
  ROOT t1 = (f32[4]) tuple(cp)
}
ENTRY main {
  sel = s32[] parameter(0)
  x = f32[4] parameter(1)
  y = f32[4] parameter(2)
  a = f32[4] add(y, y)
  ty = (f32[4]) tuple(y)
  ta = (f32[4]) tuple()") +
         (pass_parameter ? "x" : "a") + R"()
  )" + (root_conditional ? "ROOT " : "") +
         R"(c = (f32[4]) conditional(sel, ty, ta), branch_computations={branch0, branch1}
  g = f32[4] get-tuple-element(c), index=0
  )" + (root_conditional ? "" : "ROOT ") +
         R"(r = f32[4] multiply(g, g)
}
)";
}

TEST(CopyRegionInterferenceTest, ExclusiveBranchesDoNotInterfere) {
  auto m = Parse(Module(/*root_conditional=*/false, /*pass_parameter=*/false));
  ASSERT_NE(m, nullptr);
  Analyses an = Analyze(*m);
  const ValueId a = an.At(*m, "main", "a");
  const ValueId cp = an.At(*m, "branch1", "cp"), n = an.At(*m, "branch0", "n");
  const ValueId phi = an.At(*m, "main", "c", {0});
  // XLA's list for the result buffer: branch 0's value first (the earlier branch).
  const ValueId dest[] = {cp, phi, n};
  EXPECT_EQ(RegionInterference(*an.live, {a}, dest, RegionMerge::kLastSourceInDest), std::nullopt);
  // The conditional as the entry's root changes nothing: %a is no parameter.
  auto root = Parse(Module(/*root_conditional=*/true, /*pass_parameter=*/false));
  ASSERT_NE(root, nullptr);
  Analyses an2 = Analyze(*root);
  const ValueId dest2[] = {an2.At(*root, "branch1", "cp"), an2.At(*root, "main", "c", {0}),
                           an2.At(*root, "branch0", "n")};
  EXPECT_EQ(RegionInterference(*an2.live, {an2.At(*root, "main", "a")}, dest2,
                               RegionMerge::kLastSourceInDest),
            std::nullopt);
}

TEST(CopyRegionInterferenceTest, ParameterReturnedAtTheRootIsIntercepted) {
  auto m = Parse(Module(/*root_conditional=*/true, /*pass_parameter=*/true));
  ASSERT_NE(m, nullptr);
  Analyses an = Analyze(*m);
  const ValueId dest[] = {an.At(*m, "branch1", "cp"), an.At(*m, "main", "c", {0}),
                          an.At(*m, "branch0", "n")};
  const auto why =
      RegionInterference(*an.live, {an.At(*m, "main", "x")}, dest, RegionMerge::kLastSourceInDest);
  ASSERT_TRUE(why.has_value());
  EXPECT_EQ(*why, "a write in the destination's range intercepts the source's");
  // Not at the root, the parameter's use is the conditional's, inside which %n runs.
  auto inner = Parse(Module(/*root_conditional=*/false, /*pass_parameter=*/true));
  ASSERT_NE(inner, nullptr);
  Analyses an2 = Analyze(*inner);
  const ValueId dest2[] = {an2.At(*inner, "branch1", "cp"), an2.At(*inner, "main", "c", {0}),
                           an2.At(*inner, "branch0", "n")};
  EXPECT_EQ(RegionInterference(*an2.live, {an2.At(*inner, "main", "x")}, dest2,
                               RegionMerge::kLastSourceInDest),
            std::nullopt);
}

TEST(CopyRegionInterferenceTest, WriteBetweenDefinitionAndUseInterferes) {
  // %b is written after %a is defined and before %s reads %a: in one buffer, %b would
  // overwrite %a while it is still needed.
  auto m = Parse(R"(
HloModule m
ENTRY main {
  p = f32[4] parameter(0)
  a = f32[4] add(p, p)
  b = f32[4] negate(a)
  ROOT s = f32[4] add(a, b)
}
)");
  ASSERT_NE(m, nullptr);
  Analyses an = Analyze(*m);
  const auto why = RegionInterference(*an.live, {an.At(*m, "main", "a")}, {an.At(*m, "main", "b")},
                                      RegionMerge::kFirstDestInSource);
  // %b's definition sits inside %a's range (after %a, before %s) and may write: it
  // intercepts; %a's instructions all run before %b's range ends, so only one side overlaps.
  ASSERT_TRUE(why.has_value());
  EXPECT_EQ(*why, "a write in the destination's range intercepts the source's");
}

TEST(CopyRegionInterferenceTest, UnorderedInstructionsKeepTheCopy) {
  // %b and %a's definition have no order; XLA would add a control edge, this answers
  // "interfere" instead.
  auto m = Parse(R"(
HloModule m
ENTRY main {
  p = f32[4] parameter(0)
  a = f32[4] add(p, p)
  b = f32[4] negate(p)
  s = f32[4] add(a, a)
  ROOT t = (f32[4], f32[4]) tuple(s, b)
}
)");
  ASSERT_NE(m, nullptr);
  Analyses an = Analyze(*m);
  const auto why = RegionInterference(*an.live, {an.At(*m, "main", "a")}, {an.At(*m, "main", "b")},
                                      RegionMerge::kFirstDestInSource);
  ASSERT_TRUE(why.has_value());
  EXPECT_EQ(*why, "unordered instructions would need control edges");
}

TEST(CopyRegionInterferenceTest, AsyncOpIsTheSameAsItsWrappedInstruction) {
  // %a is read by the async-start and nothing after it; the wrapped dynamic-update-slice
  // writes the result. XLA's ordering makes an async op and the op it wraps one operation
  // (kIsSame; xla/hlo/analysis/hlo_ordering.cc at 183fa00cb5), so the start's read comes
  // before the write: the two live ranges do not interfere. Before the region analysis asked
  // the ordering's is-same rule, the start and the wrapped op were unordered, and it answered
  // "unordered instructions would need control edges".
  auto m = Parse(R"(
HloModule m
wrapped {
  q = f32[8] parameter(0)
  u = f32[2] parameter(1)
  k = s32[] parameter(2)
  ROOT dus = f32[8] dynamic-update-slice(q, u, k)
}
ENTRY main {
  x = f32[8] parameter(0)
  u = f32[2] parameter(1)
  k = s32[] parameter(2)
  a = f32[8] negate(x)
  start = ((f32[8], f32[2], s32[]), f32[8], u32[]) async-start(a, u, k), calls=wrapped
  done = f32[8] async-done(start)
  ROOT r = f32[8] add(done, done)
}
)");
  ASSERT_NE(m, nullptr);
  Analyses an = Analyze(*m);
  ASSERT_EQ(ExecutionOrdering::AsyncWrappedInstruction(*Find(*m, "main", "start")),
            Find(*m, "wrapped", "dus"));
  EXPECT_EQ(RegionInterference(*an.live, {an.At(*m, "main", "a")}, {an.At(*m, "wrapped", "dus")},
                               RegionMerge::kFirstDestInSource),
            std::nullopt);
}

TEST(CopyRegionInterferenceTest, LoopPhiIsOutsideTheModel) {
  auto m = Parse(R"(
HloModule m
cond {
  cp = (s32[], f32[4]) parameter(0)
  ci = s32[] get-tuple-element(cp), index=0
  k = s32[] constant(3)
  ROOT lt = pred[] compare(ci, k), direction=LT
}
body {
  bp = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(bp), index=0
  v = f32[4] get-tuple-element(bp), index=1
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  n = f32[4] negate(v)
  ROOT out = (s32[], f32[4]) tuple(i1, n)
}
ENTRY main {
  zero = s32[] constant(0)
  x = f32[4] parameter(0)
  a = f32[4] add(x, x)
  init = (s32[], f32[4]) tuple(zero, a)
  w = (s32[], f32[4]) while(init), condition=cond, body=body
  ROOT r = f32[4] get-tuple-element(w), index=1
}
)");
  ASSERT_NE(m, nullptr);
  Analyses an = Analyze(*m);
  const ValueId phi = an.At(*m, "main", "w", {1});
  ASSERT_TRUE(an.flow->value(phi).is_phi);
  const auto why =
      RegionInterference(*an.live, {an.At(*m, "main", "a")}, {phi}, RegionMerge::kLastSourceInDest);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("is a loop's phi"), std::string::npos) << *why;
}

}  // namespace
}  // namespace hloscope
