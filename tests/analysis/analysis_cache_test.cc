// AnalysisCache (analysis/analysis_cache.h): an analysis is built once per options and module
// state, the same object is handed out until Invalidate(), and failures are not kept.
#include "analysis/analysis_cache.h"

#include "gtest/gtest.h"
#include "support/status_text.h"
#include "tests/analysis/analysis_test_util.h"

namespace hloscope {
namespace {

using analysis_testing::Parse;

constexpr std::string_view kModule = R"(
HloModule m
ENTRY main {
  p = f32[4] parameter(0)
  b = f32[2,2] bitcast(p)
  c = f32[2,2] copy(b)
  ROOT t = (f32[2,2], f32[4]) tuple(c, p)
}
)";

TEST(AnalysisCacheTest, SameOptionsGiveTheSameObjectBuiltOnce) {
  std::unique_ptr<Module> m = Parse(kModule);
  AnalysisCache cache(*m);
  absl::StatusOr<const AliasAnalysis*> a1 = cache.Alias(DataflowOptions{});
  absl::StatusOr<const AliasAnalysis*> a2 = cache.Alias(DataflowOptions{});
  ASSERT_TRUE(a1.ok()) << StatusText(a1.status());
  ASSERT_TRUE(a2.ok());
  EXPECT_EQ(*a1, *a2);
  EXPECT_EQ(cache.builds().alias, 1);
  // The alias analysis ignores ssa_form: the union form asks for the same one.
  absl::StatusOr<const AliasAnalysis*> union_form = cache.Alias(DataflowOptions{.ssa_form = false});
  ASSERT_TRUE(union_form.ok());
  EXPECT_EQ(*union_form, *a1);
  EXPECT_EQ(cache.builds().alias, 1);

  absl::StatusOr<const ExecutionOrdering*> o1 = cache.Ordering();
  absl::StatusOr<const ExecutionOrdering*> o2 = cache.Ordering();
  ASSERT_TRUE(o1.ok());
  ASSERT_TRUE(o2.ok());
  EXPECT_EQ(*o1, *o2);
  EXPECT_EQ(cache.builds().ordering, 1);
}

TEST(AnalysisCacheTest, DifferentOptionsGiveDifferentObjects) {
  std::unique_ptr<Module> m = Parse(kModule);
  AnalysisCache cache(*m);
  absl::StatusOr<const AliasAnalysis*> alias = cache.Alias(DataflowOptions{});
  absl::StatusOr<const AliasAnalysis*> bitcast_alias =
      cache.Alias(DataflowOptions{.bitcast_defines_value = true});
  ASSERT_TRUE(alias.ok());
  ASSERT_TRUE(bitcast_alias.ok());
  EXPECT_NE(*alias, *bitcast_alias);
  EXPECT_EQ(cache.builds().alias, 2);
  EXPECT_FALSE((*alias)->dataflow().options().bitcast_defines_value);
  EXPECT_TRUE((*bitcast_alias)->dataflow().options().bitcast_defines_value);

  absl::StatusOr<const DataflowAnalysis*> ssa = cache.Dataflow(DataflowOptions{});
  absl::StatusOr<const DataflowAnalysis*> union_form =
      cache.Dataflow(DataflowOptions{.ssa_form = false});
  ASSERT_TRUE(ssa.ok());
  ASSERT_TRUE(union_form.ok());
  EXPECT_NE(*ssa, *union_form);
  EXPECT_FALSE((*union_form)->options().ssa_form);
  EXPECT_TRUE((*ssa)->options().ssa_form);
}

TEST(AnalysisCacheTest, DataflowInSsaFormIsTheAliasAnalysisOwn) {
  std::unique_ptr<Module> m = Parse(kModule);
  AnalysisCache cache(*m);
  absl::StatusOr<const AliasAnalysis*> alias =
      cache.Alias(DataflowOptions{.bitcast_defines_value = true});
  ASSERT_TRUE(alias.ok());
  absl::StatusOr<const DataflowAnalysis*> flow =
      cache.Dataflow(DataflowOptions{.bitcast_defines_value = true});
  ASSERT_TRUE(flow.ok());
  EXPECT_EQ(*flow, &(*alias)->dataflow());
  EXPECT_EQ(cache.builds().dataflow, 0);
  // Another bitcast option is another dataflow, built on its own.
  absl::StatusOr<const DataflowAnalysis*> other = cache.Dataflow(DataflowOptions{});
  ASSERT_TRUE(other.ok());
  EXPECT_NE(*other, *flow);
  EXPECT_EQ(cache.builds().dataflow, 1);
  absl::StatusOr<const DataflowAnalysis*> again = cache.Dataflow(DataflowOptions{});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *other);
  EXPECT_EQ(cache.builds().dataflow, 1);
}

TEST(AnalysisCacheTest, InvalidateRebuildsForTheChangedModule) {
  std::unique_ptr<Module> m = Parse(kModule);
  AnalysisCache cache(*m);
  absl::StatusOr<const DataflowAnalysis*> before = cache.Dataflow(DataflowOptions{});
  ASSERT_TRUE(before.ok());
  const size_t values_before = (*before)->values().size();
  ASSERT_TRUE(cache.Alias(DataflowOptions{}).ok());
  ASSERT_TRUE(cache.Ordering().ok());

  // The module changes (the copy goes), then whoever changed it invalidates.
  Instruction* c = analysis_testing::Find(*m, "main", "c");
  c->ReplaceAllUsesWith(c->operand(0));
  ASSERT_TRUE(m->entry()->RemoveInstruction(c));
  m->entry()->CompactInstructions();
  cache.Invalidate();

  absl::StatusOr<const DataflowAnalysis*> after = cache.Dataflow(DataflowOptions{});
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(cache.builds().dataflow, 2);
  EXPECT_EQ((*after)->values().size(), values_before - 1);  // the copy's value is gone
  ASSERT_TRUE(cache.Alias(DataflowOptions{}).ok());
  EXPECT_EQ(cache.builds().alias, 2);
  ASSERT_TRUE(cache.Ordering().ok());
  EXPECT_EQ(cache.builds().ordering, 2);
}

TEST(AnalysisCacheTest, AFailureIsReturnedAndNotKept) {
  // A control-edge cycle: the ordering fails, each time it is asked for.
  std::unique_ptr<Module> m = Parse(R"(
HloModule m
ENTRY main {
  p = f32[2] parameter(0)
  a = f32[2] negate(p)
  ROOT b = f32[2] abs(p)
}
)");
  Instruction* a = analysis_testing::Find(*m, "main", "a");
  Instruction* b = analysis_testing::Find(*m, "main", "b");
  a->AddControlPredecessor(b);
  b->AddControlPredecessor(a);
  AnalysisCache cache(*m);
  absl::StatusOr<const ExecutionOrdering*> first = cache.Ordering();
  EXPECT_FALSE(first.ok());
  absl::StatusOr<const ExecutionOrdering*> second = cache.Ordering();
  EXPECT_FALSE(second.ok());
  EXPECT_EQ(first.status(), second.status());
  EXPECT_EQ(cache.builds().ordering, 0);
}

}  // namespace
}  // namespace hloscope
