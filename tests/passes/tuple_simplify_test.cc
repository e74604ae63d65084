#include "passes/tuple_simplify.h"

#include "gtest/gtest.h"
#include "hlo/printer.h"
#include "passes/dce.h"
#include "tests/passes/passes_test_util.h"

namespace hloscope {
namespace {

using passes_testing::Find;
using passes_testing::Names;
using passes_testing::Parse;
using passes_testing::Verify;

std::string RunTupleSimplify(Module& m) {
  absl::StatusOr<bool> changed = TupleSimplify().Run(m);
  EXPECT_TRUE(changed.ok()) << changed.status().message();
  EXPECT_EQ(Verify(m), "OK");
  return changed.ok() && *changed ? "changed" : "unchanged";
}

TEST(TupleSimplifyTest, ForwardsTupleOperand) {
  std::unique_ptr<Module> m = Parse(R"(
HloModule m
ENTRY main {
  a = f32[2] parameter(0)
  b = s32[] parameter(1)
  t = (f32[2], s32[]) tuple(a, b)
  g = s32[] get-tuple-element(t), index=1
  ROOT n = s32[] negate(g)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(RunTupleSimplify(*m), "changed");
  Instruction* n = Find(*m, "main", "n");
  EXPECT_EQ(n->operand(0)->name(), "b");
  // The get-tuple-element and the tuple are left for dce.
  EXPECT_EQ(Find(*m, "main", "g")->user_count(), 0);
  EXPECT_EQ(Names(*m->entry()), "a b t g n");
  ASSERT_TRUE(DeadCodeElimination().Run(*m).ok());
  EXPECT_EQ(Names(*m->entry()), "a b n");
  EXPECT_EQ(RunTupleSimplify(*m), "unchanged");
}

TEST(TupleSimplifyTest, FoldsNestedTuples) {
  std::unique_ptr<Module> m = Parse(R"(
HloModule m
ENTRY main {
  a = f32[2] parameter(0)
  b = s32[] parameter(1)
  inner = (f32[2], s32[]) tuple(a, b)
  outer = ((f32[2], s32[]), f32[2]) tuple(inner, a)
  g0 = (f32[2], s32[]) get-tuple-element(outer), index=0
  g1 = s32[] get-tuple-element(g0), index=1
  ROOT n = s32[] negate(g1)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(RunTupleSimplify(*m), "changed");
  EXPECT_EQ(Find(*m, "main", "n")->operand(0)->name(), "b");
}

TEST(TupleSimplifyTest, ReplacesRoot) {
  std::unique_ptr<Module> m = Parse(R"(
HloModule m
ENTRY main {
  a = f32[2] parameter(0)
  t = (f32[2]) tuple(a)
  ROOT g = f32[2] get-tuple-element(t), index=0
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(RunTupleSimplify(*m), "changed");
  EXPECT_EQ(m->entry()->root()->name(), "a");
  ASSERT_TRUE(DeadCodeElimination().Run(*m).ok());
  EXPECT_EQ(Names(*m->entry()), "a");
}

TEST(TupleSimplifyTest, ReplacesEveryUse) {
  std::unique_ptr<Module> m = Parse(R"(
HloModule m
ENTRY main {
  a = f32[2] parameter(0)
  t = (f32[2]) tuple(a)
  g = f32[2] get-tuple-element(t), index=0
  x = f32[2] add(g, g)
  ROOT y = f32[2] multiply(x, g)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(RunTupleSimplify(*m), "changed");
  Instruction* x = Find(*m, "main", "x");
  Instruction* y = Find(*m, "main", "y");
  EXPECT_EQ(x->operand(0)->name(), "a");
  EXPECT_EQ(x->operand(1)->name(), "a");
  EXPECT_EQ(y->operand(1)->name(), "a");
}

TEST(TupleSimplifyTest, LeavesOtherGetTupleElementsAlone) {
  std::unique_ptr<Module> m = Parse(R"(
HloModule m
cond {
  p = (f32[2]) parameter(0)
  ROOT t = pred[] constant(false)
}
body {
  ROOT p = (f32[2]) parameter(0)
}
ENTRY main {
  a = (f32[2]) parameter(0)
  g = f32[2] get-tuple-element(a), index=0
  w = (f32[2]) while(a), condition=cond, body=body
  h = f32[2] get-tuple-element(w), index=0
  ROOT s = f32[2] add(g, h)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(RunTupleSimplify(*m), "unchanged");
}

TEST(TupleSimplifyTest, IgnoresLayoutDifferences) {
  std::unique_ptr<Module> m = Parse(R"(
HloModule m
ENTRY main {
  a = f32[2,3]{0,1} parameter(0)
  t = (f32[2,3]{0,1}) tuple(a)
  g = f32[2,3]{1,0} get-tuple-element(t), index=0
  ROOT n = f32[2,3]{1,0} negate(g)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(RunTupleSimplify(*m), "changed");
  EXPECT_EQ(Find(*m, "main", "n")->operand(0)->name(), "a");
}

}  // namespace
}  // namespace hloscope
