// The pipeline shares one AnalysisCache (analysis/analysis_cache.h) between its passes and the
// reports after it: a pass that changed nothing leaves the analyses to the next one, a pass
// that changed the module (or failed) drops them.
#include <memory>
#include <string_view>

#include "analysis/analysis_cache.h"
#include "analysis/dataflow_report.h"
#include "gtest/gtest.h"
#include "passes/pass_pipeline.h"
#include "passes/pass_registry.h"
#include "support/status_text.h"
#include "tests/passes/passes_test_util.h"

namespace hloscope {
namespace {

using passes_testing::Parse;

// copy-elision keeps the copy (a parameter must not become an output buffer) and dce has
// nothing to remove: no pass changes the module.
constexpr std::string_view kNothingChanges = R"(
HloModule m
ENTRY main {
  p = f32[4] parameter(0)
  ROOT c = f32[4] copy(p)
}
)";

// The same with a dead instruction, which dce removes.
constexpr std::string_view kDceRemoves = R"(
HloModule m
ENTRY main {
  p = f32[4] parameter(0)
  dead = f32[4] negate(p)
  ROOT c = f32[4] copy(p)
}
)";

// copy-elision removes the copy (its source and its user can share a buffer).
constexpr std::string_view kElisionRemoves = R"(
HloModule m
ENTRY main {
  p = f32[4] parameter(0)
  n = f32[4] negate(p)
  c = f32[4] copy(n)
  ROOT r = f32[4] abs(c)
}
)";

std::unique_ptr<PassPipeline> Pipeline(std::string_view passes) {
  // verify_each: the verifier still runs after every pass with a shared cache.
  PipelineOptions options;
  options.verify_each = true;
  absl::StatusOr<std::unique_ptr<PassPipeline>> p =
      BuildPipeline(passes, PassRegistry::Global(), options);
  EXPECT_TRUE(p.ok()) << StatusText(p.status());
  return p.ok() ? *std::move(p) : nullptr;
}

// The alias analyses `passes` build on `text`, counting one more asked for after the pipeline
// (the report of --print-buffers).
int64_t AliasBuilds(std::string_view text, std::string_view passes, bool* changed) {
  std::unique_ptr<Module> m = Parse(text);
  std::unique_ptr<PassPipeline> pipeline = Pipeline(passes);
  if (m == nullptr || pipeline == nullptr) return -1;
  AnalysisCache analyses(*m);
  absl::StatusOr<bool> ran = pipeline->Run(*m, analyses);
  EXPECT_TRUE(ran.ok()) << StatusText(ran.status());
  *changed = ran.ok() && *ran;
  absl::StatusOr<const AliasAnalysis*> report = analyses.Alias(DataflowOptions{});
  EXPECT_TRUE(report.ok());
  return analyses.builds().alias;
}

TEST(AnalysisCachePipelineTest, NothingChangedBuildsOnceForEveryPassAndTheReport) {
  bool changed = true;
  EXPECT_EQ(AliasBuilds(kNothingChanges, "dce,copy-elision", &changed), 1);
  EXPECT_FALSE(changed);
  EXPECT_EQ(AliasBuilds(kNothingChanges, "copy-elision,dce,copy-elision", &changed), 1);
  EXPECT_FALSE(changed);
}

TEST(AnalysisCachePipelineTest, APassThatChangesTheModuleDropsTheAnalyses) {
  bool changed = false;
  // dce removes `dead` between the two copy-elisions: the second builds again.
  EXPECT_EQ(AliasBuilds(kDceRemoves, "copy-elision,dce,copy-elision", &changed), 2);
  EXPECT_TRUE(changed);
  // dce first: the cache was empty when it changed the module, so one build is enough.
  EXPECT_EQ(AliasBuilds(kDceRemoves, "dce,copy-elision", &changed), 1);
  EXPECT_TRUE(changed);
  // copy-elision removes the copy: the report after it reads a new analysis of the new module.
  EXPECT_EQ(AliasBuilds(kElisionRemoves, "dce,copy-elision", &changed), 2);
  EXPECT_TRUE(changed);
}

TEST(AnalysisCachePipelineTest, TheReportAfterAChangeSeesTheChangedModule) {
  std::unique_ptr<Module> m = Parse(kElisionRemoves);
  std::unique_ptr<PassPipeline> pipeline = Pipeline("copy-elision");
  ASSERT_NE(pipeline, nullptr);
  AnalysisCache analyses(*m);
  absl::StatusOr<const DataflowAnalysis*> before = analyses.Dataflow(DataflowOptions{});
  ASSERT_TRUE(before.ok());
  const size_t values_before = (*before)->values().size();
  absl::StatusOr<bool> ran = pipeline->Run(*m, analyses);
  ASSERT_TRUE(ran.ok()) << StatusText(ran.status());
  ASSERT_TRUE(*ran);
  absl::StatusOr<const DataflowAnalysis*> after = analyses.Dataflow(DataflowOptions{});
  ASSERT_TRUE(after.ok());
  EXPECT_EQ((*after)->values().size(), values_before - 1);  // the copy's value is gone
}

// After passes that edit the module (copy-insertion adds copies between its own steps, then
// runs tuple-simplify and dce), the cache answers as an analysis of the final module does.
TEST(AnalysisCachePipelineTest, CachedAnalysesAfterEditingPassesMatchFreshOnes) {
  constexpr std::string_view kInPlace = R"(
HloModule m
ENTRY main {
  p = f32[8] parameter(0)
  u = f32[2] parameter(1)
  i = s32[] constant(0)
  d = f32[8] dynamic-update-slice(p, u, i)
  ROOT t = (f32[8], f32[8]) tuple(d, p)
}
)";
  for (std::string_view passes :
       {"copy-insertion", "copy-insertion,copy-elision", "copy-insertion,copy-elision,dce"}) {
    SCOPED_TRACE(passes);
    std::unique_ptr<Module> m = Parse(kInPlace);
    std::unique_ptr<PassPipeline> pipeline = Pipeline(passes);
    ASSERT_NE(pipeline, nullptr);
    AnalysisCache analyses(*m);
    ASSERT_TRUE(analyses.Alias(DataflowOptions{}).ok());  // of the input: must not survive
    absl::StatusOr<bool> ran = pipeline->Run(*m, analyses);
    ASSERT_TRUE(ran.ok()) << StatusText(ran.status());
    ASSERT_TRUE(*ran);  // copy-insertion copies the read-only parameter the update writes into
    absl::StatusOr<const AliasAnalysis*> cached = analyses.Alias(DataflowOptions{});
    ASSERT_TRUE(cached.ok());
    absl::StatusOr<std::string> from_cache = PrintBuffers(**cached, {});
    absl::StatusOr<std::string> fresh = PrintBuffers(*m, {});
    ASSERT_TRUE(from_cache.ok());
    ASSERT_TRUE(fresh.ok());
    EXPECT_EQ(*from_cache, *fresh);
  }
}

TEST(AnalysisCachePipelineTest, TheAnalysesOfAnotherModuleAreRefused) {
  std::unique_ptr<Module> m = Parse(kNothingChanges);
  std::unique_ptr<Module> other = Parse(kNothingChanges);
  std::unique_ptr<PassPipeline> pipeline = Pipeline("copy-elision");
  ASSERT_NE(pipeline, nullptr);
  AnalysisCache analyses(*other);
  absl::StatusOr<bool> ran = pipeline->Run(*m, analyses);
  ASSERT_FALSE(ran.ok());
  EXPECT_EQ(ran.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(StatusText(ran.status()).find("analyses of another module"), std::string::npos);
}

// Fails after editing the module: the analyses taken before must not survive.
class EditThenFailPass : public Pass {
 public:
  std::string_view name() const override { return "edit-then-fail"; }
  std::string_view description() const override { return "Removes a copy, then fails."; }
  absl::StatusOr<bool> RunOnModule(Module& module, AnalysisCache& analyses) override {
    if (!analyses.Alias(DataflowOptions{}).ok()) return absl::InternalError("no analysis");
    Instruction* c = passes_testing::Find(module, "main", "c");
    c->ReplaceAllUsesWith(c->operand(0));
    if (!module.entry()->RemoveInstruction(c)) return absl::InternalError("not removed");
    module.entry()->CompactInstructions();
    return absl::InternalError("failed halfway");
  }
};

TEST(AnalysisCachePipelineTest, AFailingPassDropsTheAnalyses) {
  std::unique_ptr<Module> m = Parse(kElisionRemoves);
  AnalysisCache analyses(*m);
  EditThenFailPass pass;
  absl::StatusOr<bool> ran = pass.Run(*m, analyses);
  ASSERT_FALSE(ran.ok());
  ASSERT_TRUE(analyses.Alias(DataflowOptions{}).ok());
  EXPECT_EQ(analyses.builds().alias, 2);
}

}  // namespace
}  // namespace hloscope
