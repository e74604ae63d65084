// ExecutionOrdering (analysis/ordering.h): sequential and dependency order, control
// predecessors, parameters, nesting through callers, and the large-computation search.
#include "analysis/ordering.h"

#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "analysis/ordering_report.h"
#include "gtest/gtest.h"
#include "hlo/computation.h"
#include "passes/copy_elision.h"
#include "support/status_text.h"
#include "tests/test_util.h"

namespace hloscope {
namespace {

using testing::Find;
using testing::Parse;

std::unique_ptr<ExecutionOrdering> Order(const Module& m) {
  absl::StatusOr<std::unique_ptr<ExecutionOrdering>> o = ExecutionOrdering::Run(m);
  EXPECT_TRUE(o.ok()) << StatusText(o.status());
  return o.ok() ? *std::move(o) : nullptr;
}

constexpr char kIndependent[] = R"(
HloModule m%s
ENTRY main {
  p = f32[4] parameter(0)
  a = f32[4] negate(p)
  b = f32[4] exponential(p)
  c = f32[4] add(a, b)
  ROOT d = f32[4] sqrt(c)
}
)";

std::string WithHeader(const char* text, const std::string& header) {
  // Concatenation, not std::string::replace: GCC 12 at -O3 reports a false -Wrestrict
  // inside libstdc++'s replace/operator+ here (GCC bug 105329).
  std::string_view view(text);
  size_t at = view.find("%s");
  std::string result(view.substr(0, at));
  result += header;
  result += view.substr(at + 2);
  return result;
}

TEST(OrderingTest, DependencyOrderLeavesIndependentInstructionsUnordered) {
  auto m = Parse(WithHeader(kIndependent, ""));
  ASSERT_NE(m, nullptr);
  auto o = Order(*m);
  ASSERT_NE(o, nullptr);
  EXPECT_FALSE(o->sequential());
  const Instruction& a = *Find(*m, "main", "a");
  const Instruction& b = *Find(*m, "main", "b");
  const Instruction& c = *Find(*m, "main", "c");
  const Instruction& d = *Find(*m, "main", "d");
  EXPECT_FALSE(o->ExecutesBefore(a, b));
  EXPECT_FALSE(o->ExecutesBefore(b, a));
  EXPECT_TRUE(o->ExecutesBefore(a, c));
  EXPECT_TRUE(o->ExecutesBefore(a, d));  // transitively
  EXPECT_FALSE(o->ExecutesBefore(d, a));
  EXPECT_FALSE(o->ExecutesBefore(a, a));
  // A parameter runs before everything else in its computation.
  EXPECT_TRUE(o->ExecutesBefore(*Find(*m, "main", "p"), d));
  EXPECT_FALSE(o->ExecutesBefore(d, *Find(*m, "main", "p")));
}

TEST(OrderingTest, ScheduledModuleUsesTextOrder) {
  auto m = Parse(WithHeader(kIndependent, ", is_scheduled=true"));
  ASSERT_NE(m, nullptr);
  auto o = Order(*m);
  ASSERT_NE(o, nullptr);
  EXPECT_TRUE(o->sequential());
  EXPECT_TRUE(o->ExecutesBefore(*Find(*m, "main", "a"), *Find(*m, "main", "b")));
  EXPECT_FALSE(o->ExecutesBefore(*Find(*m, "main", "b"), *Find(*m, "main", "a")));
}

TEST(OrderingTest, ControlPredecessorsOrder) {
  auto m = Parse(R"(
HloModule m
ENTRY main {
  p = f32[4] parameter(0)
  a = f32[4] negate(p)
  b = f32[4] exponential(p), control-predecessors={a}
  ROOT c = (f32[4], f32[4]) tuple(a, b)
}
)");
  ASSERT_NE(m, nullptr);
  auto o = Order(*m);
  ASSERT_NE(o, nullptr);
  EXPECT_TRUE(o->ExecutesBefore(*Find(*m, "main", "a"), *Find(*m, "main", "b")));
  EXPECT_FALSE(o->ExecutesBefore(*Find(*m, "main", "b"), *Find(*m, "main", "a")));
}

TEST(OrderingTest, NestedComputationsAreOrderedThroughTheirCaller) {
  auto m = Parse(R"(
HloModule m
cond {
  cp = (f32[4], s32[]) parameter(0)
  ci = s32[] get-tuple-element(cp), index=1
  n = s32[] constant(3)
  ROOT lt = pred[] compare(ci, n), direction=LT
}
body {
  bp = (f32[4], s32[]) parameter(0)
  x = f32[4] get-tuple-element(bp), index=0
  i = s32[] get-tuple-element(bp), index=1
  y = f32[4] negate(x)
  one = s32[] constant(1)
  j = s32[] add(i, one)
  ROOT r = (f32[4], s32[]) tuple(y, j)
}
ENTRY main {
  p = f32[4] parameter(0)
  before = f32[4] exponential(p)
  z = s32[] constant(0)
  init = (f32[4], s32[]) tuple(before, z)
  w = (f32[4], s32[]) while(init), condition=cond, body=body
  g = f32[4] get-tuple-element(w), index=0
  ROOT after = f32[4] sqrt(g)
}
)");
  ASSERT_NE(m, nullptr);
  auto o = Order(*m);
  ASSERT_NE(o, nullptr);
  const Instruction& y = *Find(*m, "body", "y");
  const Instruction& lt = *Find(*m, "cond", "lt");
  EXPECT_EQ(o->CallerOf(*m->FindComputation("body")), Find(*m, "main", "w"));
  EXPECT_EQ(o->CallerOf(*m->entry()), nullptr);
  EXPECT_TRUE(o->IsNestedIn(y, *m->entry()));
  EXPECT_FALSE(o->IsNestedIn(y, *m->FindComputation("cond")));
  EXPECT_TRUE(o->ExecutesBefore(*Find(*m, "main", "before"), y));
  EXPECT_TRUE(o->ExecutesBefore(y, *Find(*m, "main", "after")));
  EXPECT_FALSE(o->ExecutesBefore(*Find(*m, "main", "after"), y));
  // One iteration: the condition runs before the body.
  EXPECT_TRUE(o->ExecutesBefore(lt, y));
  EXPECT_FALSE(o->ExecutesBefore(y, lt));
}

// A chain longer than the bitset limit, plus a side branch: answered by the bounded search.
TEST(OrderingTest, LargeComputationsAreSearched) {
  std::string text =
      "HloModule big\nENTRY main {\n  p = f32[2] parameter(0)\n  n0 = f32[2] negate(p)\n";
  const int n = static_cast<int>(ExecutionOrdering::kBitsetLimit) + 100;
  for (int i = 1; i < n; ++i)
    text += "  n" + std::to_string(i) + " = f32[2] negate(n" + std::to_string(i - 1) + ")\n";
  text += "  side = f32[2] exponential(p)\n";
  text += "  ROOT r = f32[2] add(n" + std::to_string(n - 1) + ", side)\n}\n";
  auto m = Parse(text);
  ASSERT_NE(m, nullptr);
  auto o = Order(*m);
  ASSERT_NE(o, nullptr);
  const Instruction& first = *Find(*m, "main", "n0");
  const Instruction& last = *Find(*m, "main", absl::StrCat("n", n - 1));
  const Instruction& side = *Find(*m, "main", "side");
  EXPECT_TRUE(o->ExecutesBefore(first, last));
  EXPECT_FALSE(o->ExecutesBefore(last, first));
  EXPECT_FALSE(o->ExecutesBefore(side, last));
  EXPECT_FALSE(o->ExecutesBefore(first, side));
  EXPECT_TRUE(o->ExecutesBefore(side, *Find(*m, "main", "r")));
}

// `depth` while loops inside each other, each body running the next loop on its element; the
// innermost negates it. Names: cond<i>, body<i>; in body<i>: v (the element), w (the inner
// loop, absent in the innermost) and x (the body's new element).
std::string NestedLoops(int depth) {
  std::string text = "HloModule loops\n";
  for (int i = 0; i < depth; ++i) {
    absl::StrAppend(&text, "cond", i, " {\n  p = (s32[], f32[]) parameter(0)\n",
                    "  i = s32[] get-tuple-element(p), index=0\n  n = s32[] constant(1)\n",
                    "  ROOT lt = pred[] compare(i, n), direction=LT\n}\n");
    std::string inner =
        i + 1 < depth
            ? absl::StrCat("  z = s32[] constant(0)\n  t0 = (s32[], f32[]) tuple(z, v)\n",
                           "  w = (s32[], f32[]) while(t0), condition=cond", i + 1, ", body=body",
                           i + 1, "\n  x = f32[] get-tuple-element(w), index=1\n")
            : std::string("  x = f32[] negate(v)\n");
    absl::StrAppend(&text, "body", i, " {\n  p = (s32[], f32[]) parameter(0)\n",
                    "  i = s32[] get-tuple-element(p), index=0\n",
                    "  v = f32[] get-tuple-element(p), index=1\n", inner,
                    "  one = s32[] constant(1)\n  i1 = s32[] add(i, one)\n",
                    "  ROOT t = (s32[], f32[]) tuple(i1, x)\n}\n");
  }
  absl::StrAppend(&text, "ENTRY e {\n  v = f32[] parameter(0)\n  z = s32[] constant(0)\n",
                  "  t = (s32[], f32[]) tuple(z, v)\n",
                  "  w = (s32[], f32[]) while(t), condition=cond0, body=body0\n",
                  "  ROOT r = f32[] get-tuple-element(w), index=1\n}\n");
  return text;
}

// Far deeper than any bound a walk up the callers could have had (it stopped at 64 levels):
// nesting, order and the innermost common caller hold at every depth.
TEST(OrderingTest, NestingIsExactAtAnyDepth) {
  constexpr int kDepth = 150;
  auto m = Parse(NestedLoops(kDepth));
  ASSERT_NE(m, nullptr);
  auto o = Order(*m);
  ASSERT_NE(o, nullptr);
  const std::string last = absl::StrCat("body", kDepth - 1);
  const Instruction& innermost = *Find(*m, last, "x");
  const Instruction& entry_root = *Find(*m, "e", "r");
  const Instruction& entry_param = *Find(*m, "e", "v");
  const Instruction& outer_loop = *Find(*m, "e", "w");
  EXPECT_TRUE(o->IsNestedIn(innermost, *m->FindComputation("e")));
  EXPECT_TRUE(o->IsNestedIn(innermost, *m->FindComputation("body0")));
  EXPECT_TRUE(o->IsNestedIn(innermost, *m->FindComputation("body70")));
  EXPECT_TRUE(o->IsNestedIn(innermost, *m->FindComputation(last)));
  EXPECT_FALSE(o->IsNestedIn(innermost, *m->FindComputation("cond0")));
  EXPECT_FALSE(o->IsNestedIn(*Find(*m, "body3", "v"), *m->FindComputation("body4")));
  EXPECT_TRUE(o->ExecutesBefore(entry_param, innermost));
  EXPECT_TRUE(o->ExecutesBefore(innermost, entry_root));
  EXPECT_FALSE(o->ExecutesBefore(entry_root, innermost));
  // body100's v comes before the loop it feeds, whose innermost body runs before body100's x.
  EXPECT_TRUE(o->ExecutesBefore(*Find(*m, "body100", "v"), innermost));
  EXPECT_TRUE(o->ExecutesBefore(innermost, *Find(*m, "body100", "x")));
  // The innermost instruction calling into both the innermost body and body100's x is the
  // loop in body99 (its body is body100); for the entry's root there is none.
  ExecutionOrdering::CommonCaller c =
      o->InnermostCommonCaller(innermost, *Find(*m, "body100", "x"));
  EXPECT_EQ(c.caller, Find(*m, "body99", "w"));
  EXPECT_EQ(c.a_callee, m->FindComputation("body100"));
  EXPECT_EQ(o->InnermostCommonCaller(innermost, entry_root).caller, nullptr);
  c = o->InnermostCommonCaller(innermost, *Find(*m, "cond120", "lt"));
  EXPECT_EQ(c.caller, Find(*m, "body119", "w"));
  EXPECT_EQ(c.a_callee, m->FindComputation("body120"));
  EXPECT_EQ(o->InnermostCommonCaller(innermost, outer_loop).caller, nullptr);
}

TEST(OrderingTest, CycleIsAnError) {
  auto m = Parse(R"(
HloModule m
ENTRY main {
  p = f32[4] parameter(0)
  a = f32[4] negate(p)
  ROOT b = f32[4] exponential(a)
}
)");
  ASSERT_NE(m, nullptr);
  Find(*m, "main", "a")->AddControlPredecessor(Find(*m, "main", "b"));
  absl::StatusOr<std::unique_ptr<ExecutionOrdering>> o = ExecutionOrdering::Run(*m);
  ASSERT_FALSE(o.ok());
  EXPECT_NE(StatusText(o.status()).find("is on a cycle"), std::string::npos)
      << StatusText(o.status());
}

// Only one branch of a conditional runs: like XLA's HloOrdering (kRunExclusiveBefore), an
// earlier branch counts as before a later one, and nothing of one branch overlaps the other.
TEST(OrderingTest, BranchesOfAConditionalAreMutuallyExclusive) {
  auto m = Parse(R"(
HloModule m
inner {
  ip = f32[4] parameter(0)
  ROOT in = f32[4] sqrt(ip)
}
br0 {
  p0 = f32[4] parameter(0)
  ROOT n0 = f32[4] negate(p0)
}
br1 {
  p1 = f32[4] parameter(0)
  ROOT n1 = f32[4] call(p1), to_apply=inner
}
ENTRY main {
  i = s32[] parameter(0)
  a = f32[4] parameter(1)
  ROOT c = f32[4] conditional(i, a, a), branch_computations={br0, br1}
}
)");
  ASSERT_NE(m, nullptr);
  auto o = Order(*m);
  ASSERT_NE(o, nullptr);
  const Instruction& n0 = *Find(*m, "br0", "n0");
  const Instruction& n1 = *Find(*m, "br1", "n1");
  const Instruction& in = *Find(*m, "inner", "in");
  EXPECT_TRUE(o->MutuallyExclusive(n0, n1));
  EXPECT_TRUE(o->MutuallyExclusive(in, n0));  // nested in a branch
  EXPECT_TRUE(o->ExecutesBefore(n0, n1));
  EXPECT_FALSE(o->ExecutesBefore(n1, n0));
  EXPECT_TRUE(o->ExecutesBefore(n0, in));
  EXPECT_FALSE(o->ExecutesBefore(in, n0));
  EXPECT_FALSE(o->MutuallyExclusive(n1, in));  // the same branch
  EXPECT_FALSE(o->MutuallyExclusive(n0, *Find(*m, "main", "c")));
}

// A branch root's copy is removable: the branches never run together, so the copy keeps
// nothing apart (it was kept as "may be live at the same time" before issue 19).
TEST(OrderingTest, CopyAtABranchRootIsRemovedSinceBranchesNeverOverlap) {
  auto m = Parse(R"(
HloModule m
br0 {
  p0 = f32[4] parameter(0)
  n0 = f32[4] negate(p0)
  ROOT c0 = f32[4] copy(n0)
}
br1 {
  p1 = f32[4] parameter(0)
  ROOT n1 = f32[4] exponential(p1)
}
ENTRY main {
  i = s32[] parameter(0)
  a = f32[4] parameter(1)
  ROOT c = f32[4] conditional(i, a, a), branch_computations={br0, br1}
}
)");
  ASSERT_NE(m, nullptr);
  CopyElision pass;
  absl::StatusOr<bool> changed = pass.Run(*m);
  ASSERT_TRUE(changed.ok()) << StatusText(changed.status());
  EXPECT_TRUE(*changed);
  EXPECT_EQ(Find(*m, "br0", "c0"), nullptr);
  EXPECT_EQ(m->FindComputation("br0")->root()->name(), "n0");
}

// async-update and async-done name the computation their start runs without running it: the
// wrapped computation has one caller, the start, so what it does is ordered with the rest. The
// wrapped op itself (the computation's root) is the async op: as in XLA's GetExecutionConstraint
// (kIsSame, xla/hlo/analysis/hlo_ordering.cc at ROCm/xla 183fa00cb5) it is not before the done,
// which it was here before (the done's value then counted as defined after the op's own).
TEST(OrderingTest, AsyncWrappedComputationRunsAtItsStart) {
  auto m = Parse(R"(
HloModule m
wrapped {
  wp = f32[4] parameter(0)
  ROOT w = f32[4] negate(wp)
}
ENTRY main {
  p = f32[4] parameter(0)
  before = f32[4] exponential(p)
  s = ((f32[4]), f32[4], s32[]) async-start(before), calls=wrapped
  u = ((f32[4]), f32[4], s32[]) async-update(s), calls=wrapped
  d = f32[4] async-done(u), calls=wrapped
  ROOT after = f32[4] sqrt(d)
}
)");
  ASSERT_NE(m, nullptr);
  auto o = Order(*m);
  ASSERT_NE(o, nullptr);
  const Instruction& w = *Find(*m, "wrapped", "w");
  EXPECT_EQ(o->CallerOf(*m->FindComputation("wrapped")), Find(*m, "main", "s"));
  EXPECT_TRUE(o->ExecutesBefore(*Find(*m, "main", "before"), w));
  EXPECT_TRUE(o->ExecutesBefore(w, *Find(*m, "main", "after")));
  EXPECT_FALSE(o->ExecutesBefore(w, *Find(*m, "main", "d")));
  for (const char* op : {"s", "u", "d"}) {
    SCOPED_TRACE(op);
    const Instruction& async = *Find(*m, "main", op);
    EXPECT_EQ(ExecutionOrdering::AsyncWrappedInstruction(async), &w);
    EXPECT_EQ(o->Constraint(async, w), ExecutionConstraint::kIsSame);
    EXPECT_EQ(o->Constraint(w, async), ExecutionConstraint::kIsSame);
    EXPECT_FALSE(o->ExecutesBefore(w, async));
    EXPECT_FALSE(o->ExecutesBefore(async, w));
  }
  // The wrapped computation's parameter is not the wrapped op: it maps to the start.
  const Instruction& wp = *Find(*m, "wrapped", "wp");
  EXPECT_EQ(o->Constraint(wp, *Find(*m, "main", "d")), ExecutionConstraint::kRunBeforeStart);
  EXPECT_EQ(o->Constraint(*Find(*m, "main", "d"), wp), ExecutionConstraint::kRunAfter);
  EXPECT_EQ(o->Constraint(wp, *Find(*m, "main", "s")), ExecutionConstraint::kUnordered);
  EXPECT_EQ(ExecutionOrdering::AsyncWrappedInstruction(*Find(*m, "main", "after")), nullptr);
}

// A short form (`<op>-start`) wraps no instruction of its own: nothing is the same as it.
TEST(OrderingTest, LateBoundChainRunsItsComputationWhereItHasBoundEverything) {
  // The start binds nothing; the update binds the operand and the result; the done ends the
  // chain. XLA's live range (and its evaluator) runs the computation at the update, the first
  // op that has bound everything (analysis/async_chain_runs_at.h): `early`, which the update
  // binds, runs before anything in the computation; the start stays is-same with the root.
  auto m = Parse(R"(
HloModule m
wrapped {
  wp = f32[4] parameter(0)
  ROOT w = f32[4] negate(wp)
}
ENTRY main {
  p = f32[4] parameter(0)
  s = ((), (), s32[]) async-start(), calls=wrapped
  early = f32[4] exponential(p)
  u = ((f32[4]), f32[4], s32[]) async-update(s, early)
  d = f32[4] async-done(u)
  ROOT after = f32[4] sqrt(d)
}
)");
  ASSERT_NE(m, nullptr);
  auto o = Order(*m);
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(o->CallerOf(*m->FindComputation("wrapped")), Find(*m, "main", "u"));
  const Instruction& w = *Find(*m, "wrapped", "w");
  const Instruction& wp = *Find(*m, "wrapped", "wp");
  const Instruction& early = *Find(*m, "main", "early");
  EXPECT_EQ(o->Constraint(early, wp), ExecutionConstraint::kRunBeforeStart);
  EXPECT_TRUE(o->ExecutesBefore(early, w));
  EXPECT_TRUE(o->ExecutesBefore(wp, *Find(*m, "main", "d")));
  for (const char* op : {"s", "u", "d"}) {
    SCOPED_TRACE(op);
    EXPECT_EQ(o->Constraint(*Find(*m, "main", op), w), ExecutionConstraint::kIsSame);
  }
  // A chain that binds everything at its start keeps the start (the test above).
}

TEST(OrderingTest, ShortAsyncFormWrapsNoInstruction) {
  auto m = Parse(R"(
HloModule m
body {
  bp = f32[4] parameter(0)
  ROOT bn = f32[4] negate(bp)
}
ENTRY main {
  p = f32[4] parameter(0)
  s = ((f32[4]), f32[4], s32[]) fusion-start(p), kind=kLoop, calls=body
  ROOT d = f32[4] fusion-done(s)
}
)");
  ASSERT_NE(m, nullptr);
  auto o = Order(*m);
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(ExecutionOrdering::AsyncWrappedInstruction(*Find(*m, "main", "s")), nullptr);
  EXPECT_EQ(ExecutionOrdering::AsyncWrappedInstruction(*Find(*m, "main", "d")), nullptr);
  EXPECT_NE(o->Constraint(*Find(*m, "body", "bn"), *Find(*m, "main", "d")),
            ExecutionConstraint::kIsSame);
}

// XLA's constraints around a conditional: a branch ends before its conditional does
// (kRunBeforeEnd; ExecutesBefore stays false there, the one pinned difference, ordering.h), the
// conditional runs "after" what its branches hold, and branches are exclusive, the earlier slot
// first. A while's condition runs before its body ends (and so executes before it); the body
// and the while itself are unordered.
TEST(OrderingTest, ConstraintsOfConditionalsAndLoops) {
  auto m = Parse(R"(
HloModule m
br0 {
  p0 = f32[4] parameter(0)
  ROOT n0 = f32[4] negate(p0)
}
br1 {
  p1 = f32[4] parameter(0)
  ROOT n1 = f32[4] exponential(p1)
}
cond {
  cp = (s32[]) parameter(0)
  ci = s32[] get-tuple-element(cp), index=0
  k = s32[] constant(3)
  ROOT lt = pred[] compare(ci, k), direction=LT
}
body {
  bp = (s32[]) parameter(0)
  bi = s32[] get-tuple-element(bp), index=0
  one = s32[] constant(1)
  next = s32[] add(bi, one)
  ROOT bt = (s32[]) tuple(next)
}
ENTRY main {
  i = s32[] parameter(0)
  x = f32[4] parameter(1)
  c = f32[4] conditional(i, x, x), branch_computations={br0, br1}
  t = (s32[]) tuple(i)
  ROOT w = (s32[]) while(t), condition=cond, body=body
}
)");
  ASSERT_NE(m, nullptr);
  auto o = Order(*m);
  ASSERT_NE(o, nullptr);
  const Instruction& n0 = *Find(*m, "br0", "n0");
  const Instruction& n1 = *Find(*m, "br1", "n1");
  const Instruction& c = *Find(*m, "main", "c");
  EXPECT_EQ(o->Constraint(n0, c), ExecutionConstraint::kRunBeforeEnd);
  EXPECT_FALSE(o->ExecutesBefore(n0, c));
  EXPECT_EQ(o->Constraint(c, n1), ExecutionConstraint::kRunAfter);
  EXPECT_FALSE(o->ExecutesBefore(c, n1));
  EXPECT_EQ(o->Constraint(n0, n1), ExecutionConstraint::kRunExclusiveBefore);
  EXPECT_EQ(o->Constraint(n1, n0), ExecutionConstraint::kRunExclusiveAfter);
  EXPECT_TRUE(o->ExecutesBefore(n0, n1));
  EXPECT_FALSE(o->ExecutesBefore(n1, n0));
  const Instruction& lt = *Find(*m, "cond", "lt");
  const Instruction& next = *Find(*m, "body", "next");
  const Instruction& w = *Find(*m, "main", "w");
  EXPECT_EQ(o->Constraint(lt, next), ExecutionConstraint::kRunBeforeEnd);
  EXPECT_TRUE(o->ExecutesBefore(lt, next));
  EXPECT_EQ(o->Constraint(next, lt), ExecutionConstraint::kUnordered);
  EXPECT_EQ(o->Constraint(next, w), ExecutionConstraint::kUnordered);
  EXPECT_EQ(o->Constraint(*Find(*m, "main", "t"), next), ExecutionConstraint::kRunBeforeStart);
  EXPECT_EQ(o->Constraint(next, *Find(*m, "main", "t")), ExecutionConstraint::kRunAfter);
  EXPECT_EQ(o->Constraint(w, w), ExecutionConstraint::kIsSame);
  EXPECT_STREQ(ExecutionConstraintName(ExecutionConstraint::kRunExclusiveAfter),
               "run-exclusive-after");
}

// The printers name the instruction and the module the caller asked about, and no flag: a
// NotFound that hlo-opt turns into its --ordering-of error.
TEST(OrderingTest, PrintersRefuseANameTheModuleLacks) {
  std::unique_ptr<Module> m = Parse(
      "HloModule m\nENTRY main {\n  p = f32[4] parameter(0)\n  ROOT n = f32[4] negate(p)\n}\n");
  ASSERT_NE(m, nullptr);
  const OrderingPrintOptions options = {.instructions = {"n", "nope"}};
  for (const absl::StatusOr<std::string>& printed :
       {PrintOrdering(*m, options), PrintSharing(*m, options)}) {
    ASSERT_FALSE(printed.ok());
    EXPECT_EQ(printed.status().code(), absl::StatusCode::kNotFound);
    EXPECT_EQ(StatusText(printed.status()), "no instruction named 'nope' in module m");
  }
  EXPECT_TRUE(PrintOrdering(*m, {.instructions = {"n"}}).ok());
}

}  // namespace
}  // namespace hloscope
