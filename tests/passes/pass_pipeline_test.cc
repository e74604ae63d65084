// The pass registry and the pipeline: lookup, errors that list the known passes, and
// verify_each naming the pass that broke a module.
#include "passes/pass_pipeline.h"

#include <algorithm>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "passes/pass_registry.h"
#include "support/status_text.h"
#include "tests/passes/passes_test_util.h"

namespace hloscope {
namespace {

// The names of the registered passes, read from the registry itself so that registering a
// new pass needs no edit here.
std::vector<std::string> NamesOf(const PassRegistry& registry) {
  std::vector<std::string> names;
  for (const PassRegistry::Entry* e : registry.Entries()) names.push_back(e->name);
  return names;
}

// "a, b, c": how the registry lists names in its messages (sorted).
std::string SortedList(std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

using passes_testing::Find;
using passes_testing::Parse;

constexpr std::string_view kModule = R"(
HloModule m
ENTRY main {
  a = f32[2] parameter(0)
  t = (f32[2]) tuple(a)
  g = f32[2] get-tuple-element(t), index=0
  ROOT n = f32[2] negate(g)
}
)";

// A deliberately broken pass: gives the tuple a shape that no longer matches its operand.
class BreakTuplePass : public Pass {
 public:
  std::string_view name() const override { return "break-tuple"; }
  std::string_view description() const override { return "Corrupts the tuple's shape."; }
  absl::StatusOr<bool> RunOnModule(Module& module, AnalysisCache&) override {
    Instruction* t = Find(module, "main", "t");
    Shape wrong;
    wrong.element_type = PrimitiveType::kF32;
    wrong.dims = {3};
    wrong.dynamic = {false};
    Shape tuple;
    tuple.element_type = PrimitiveType::kTuple;
    tuple.tuple_elements = {module.InternShape(wrong)};
    InstructionBuilder(t).set_shape(module.InternShape(tuple));
    return true;
  }
};

class FailingPass : public Pass {
 public:
  std::string_view name() const override { return "fail"; }
  std::string_view description() const override { return "Always fails."; }
  absl::StatusOr<bool> RunOnModule(Module&, AnalysisCache&) override {
    return absl::FailedPreconditionError("cannot run on this module");
  }
};

class NoOpPass : public Pass {
 public:
  std::string_view name() const override { return "no-op"; }
  std::string_view description() const override { return "Does nothing."; }
  absl::StatusOr<bool> RunOnModule(Module&, AnalysisCache&) override { return false; }
};

TEST(PassRegistryTest, GlobalHasBuiltins) {
  const PassRegistry& registry = PassRegistry::Global();
  EXPECT_TRUE(registry.Contains("dce"));
  EXPECT_TRUE(registry.Contains("tuple-simplify"));
  EXPECT_TRUE(registry.Contains("flatten-call-graph"));
  EXPECT_TRUE(registry.Contains("copy-elision"));
  EXPECT_TRUE(registry.Contains("copy-insertion"));
  // Sorted, and nothing else spelled out: a new pass needs no edit here.
  EXPECT_EQ(registry.KnownNames(), SortedList(NamesOf(registry)));
  for (const PassRegistry::Entry* e : registry.Entries()) {
    EXPECT_FALSE(e->description.empty()) << e->name;
    absl::StatusOr<std::unique_ptr<Pass>> pass = registry.Create(e->name);
    ASSERT_TRUE(pass.ok());
    EXPECT_EQ((*pass)->name(), e->name);
    EXPECT_EQ((*pass)->description(), e->description);
  }
}

TEST(PassRegistryTest, UnknownPassListsKnownOnes) {
  absl::StatusOr<std::unique_ptr<Pass>> pass = PassRegistry::Global().Create("cse");
  ASSERT_FALSE(pass.ok());
  EXPECT_EQ(pass.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(StatusText(pass.status()), "unknown pass 'cse' (known passes: " +
                                           SortedList(NamesOf(PassRegistry::Global())) + ")");
}

TEST(PassRegistryTest, RegisterAndReject) {
  PassRegistry registry;
  EXPECT_EQ(registry.KnownNames(), "none");
  ASSERT_TRUE(RegisterBuiltinPasses(registry).ok());
  ASSERT_TRUE(registry.Register<NoOpPass>().ok());
  std::vector<std::string> expected = NamesOf(PassRegistry::Global());
  expected.push_back("no-op");
  EXPECT_EQ(registry.KnownNames(), SortedList(expected));
  absl::Status again = registry.Register<NoOpPass>();
  EXPECT_EQ(again.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(StatusText(again), "pass 'no-op' is already registered");
  EXPECT_EQ(registry.Register("", "nameless", nullptr).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(StatusText(RegisterBuiltinPasses(registry)), "pass 'dce' is already registered");
}

TEST(PassPipelineTest, BuildsFromList) {
  absl::StatusOr<std::unique_ptr<PassPipeline>> p =
      BuildPipeline(" dce , tuple-simplify,dce", PassRegistry::Global());
  ASSERT_TRUE(p.ok()) << StatusText(p.status());
  EXPECT_EQ((*p)->size(), 3u);
  absl::StatusOr<std::unique_ptr<PassPipeline>> empty = BuildPipeline("", PassRegistry::Global());
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ((*empty)->size(), 0u);
}

TEST(PassPipelineTest, BuildErrors) {
  absl::StatusOr<std::unique_ptr<PassPipeline>> unknown =
      BuildPipeline("dce,nope", PassRegistry::Global());
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(StatusText(unknown.status()), "unknown pass 'nope' (known passes: " +
                                              SortedList(NamesOf(PassRegistry::Global())) + ")");
  absl::StatusOr<std::unique_ptr<PassPipeline>> hole =
      BuildPipeline("dce,,tuple-simplify", PassRegistry::Global());
  ASSERT_FALSE(hole.ok());
  EXPECT_EQ(StatusText(hole.status()), "empty pass name in pass list 'dce,,tuple-simplify'");
}

TEST(PassPipelineTest, RunsPassesInOrder) {
  std::unique_ptr<Module> m = Parse(kModule);
  ASSERT_NE(m, nullptr);
  PipelineOptions options;
  options.verify_each = true;
  absl::StatusOr<std::unique_ptr<PassPipeline>> p =
      BuildPipeline("tuple-simplify,dce", PassRegistry::Global(), options);
  ASSERT_TRUE(p.ok());
  absl::StatusOr<bool> changed = (*p)->Run(*m);
  ASSERT_TRUE(changed.ok()) << StatusText(changed.status());
  EXPECT_TRUE(*changed);
  EXPECT_EQ(passes_testing::Names(*m->entry()), "a n");
  ASSERT_EQ((*p)->records().size(), 2u);
  EXPECT_EQ((*p)->records()[0].name, "tuple-simplify");
  EXPECT_TRUE((*p)->records()[0].changed);
  EXPECT_EQ((*p)->records()[1].name, "dce");
  // A second run finds nothing left to do.
  changed = (*p)->Run(*m);
  ASSERT_TRUE(changed.ok());
  EXPECT_FALSE(*changed);
}

TEST(PassPipelineTest, VerifyEachNamesTheBreakingPass) {
  std::unique_ptr<Module> m = Parse(kModule);
  ASSERT_NE(m, nullptr);
  PipelineOptions options;
  options.verify_each = true;
  PassPipeline pipeline(options);
  pipeline.AddPass(std::make_unique<NoOpPass>());
  pipeline.AddPass(std::make_unique<BreakTuplePass>());
  pipeline.AddPass(std::make_unique<NoOpPass>());
  absl::StatusOr<bool> result = pipeline.Run(*m);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInternal);
  EXPECT_EQ(StatusText(result.status()),
            "pass 'break-tuple' left an invalid module: computation 'main': instruction 't': "
            "tuple element 0 shape f32[3] does not match operand 0 'a' shape f32[2]");
  // The pipeline stopped at the broken pass.
  EXPECT_EQ(pipeline.records().size(), 2u);
}

TEST(PassPipelineTest, WithoutVerifyEachTheBreakGoesUnnoticed) {
  std::unique_ptr<Module> m = Parse(kModule);
  ASSERT_NE(m, nullptr);
  PassPipeline pipeline;
  pipeline.AddPass(std::make_unique<BreakTuplePass>());
  absl::StatusOr<bool> result = pipeline.Run(*m);
  ASSERT_TRUE(result.ok());
  EXPECT_TRUE(*result);
  EXPECT_FALSE(VerifyModule(*m).ok());
}

TEST(PassPipelineTest, FailingPassStopsThePipeline) {
  std::unique_ptr<Module> m = Parse(kModule);
  ASSERT_NE(m, nullptr);
  PassPipeline pipeline;
  pipeline.AddPass(std::make_unique<FailingPass>());
  pipeline.AddPass(std::make_unique<NoOpPass>());
  absl::StatusOr<bool> result = pipeline.Run(*m);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(StatusText(result.status()), "pass 'fail' failed: cannot run on this module");
  EXPECT_EQ(pipeline.records().size(), 1u);
}

}  // namespace
}  // namespace hloscope
