// The harness on hand-written modules: a module every registered pass preserves, the broken
// pass caught (with a reduced module printed), and each way a module can be skipped or
// rejected as a baseline.
#include "tests/differential/harness.h"

#include <algorithm>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "fmt/format.h"
#include "gtest/gtest.h"
#include "passes/pass_pipeline.h"
#include "passes/pass_registry.h"
#include "tests/differential/broken_pass.h"
#include "tests/differential/test_modules.h"

namespace hloscope::differential {
namespace {

const std::string kMissingCopy = testing::LoopModule(false);
const std::string kNeededCopy = testing::LoopModule(true);

PassUnderTest BrokenPass() {
  return {"remove-all-copies", [] { return std::make_unique<RemoveAllCopies>(); }, false};
}

TEST(HarnessTest, RegisteredPassesAreAllTheRegistryHolds) {
  std::vector<PassUnderTest> passes = RegisteredPasses();
  size_t registered = 0;
  for (const PassUnderTest& p : passes) {
    if (p.bitcast_defines_value) {
      // A variant with the option set, named by the pass list that makes it.
      EXPECT_EQ(p.name, p.removes_subset_of + "{bitcast-defines-value=true}");
      absl::StatusOr<std::unique_ptr<Pass>> made = CreatePass(p.name, PassRegistry::Global());
      EXPECT_TRUE(made.ok()) << p.name;
      ASSERT_NE(p.make(), nullptr);
      EXPECT_TRUE(p.make()->pass_options().WasSet("bitcast-defines-value"));
      EXPECT_EQ(
          p.leaves_unsafe_modules_alone,
          PassRegistry::Global().Create(p.removes_subset_of).value()->LeavesUnsafeModulesAlone());
    } else {
      EXPECT_EQ(p.leaves_unsafe_modules_alone,
                PassRegistry::Global().Create(p.name).value()->LeavesUnsafeModulesAlone());
      EXPECT_TRUE(PassRegistry::Global().Contains(p.name)) << p.name;
      ++registered;
    }
  }
  EXPECT_EQ(registered, PassRegistry::Global().Entries().size());
  EXPECT_GE(registered, 4u);  // dce, flatten-call-graph, tuple-simplify, copy-elision
}

TEST(HarnessTest, RegisteredPassesPreserveAModuleWithANeededCopy) {
  ModuleResult r = CheckModule(kNeededCopy, RegisteredPasses(), {});
  EXPECT_EQ(r.verdict, Verdict::kPass)
      << r.reason << (r.failures.empty() ? "" : r.failures[0].message);
  // dce removes `unused`; copy-elision must keep the needed copy (or the result would differ).
  EXPECT_NE(std::find(r.changed_by.begin(), r.changed_by.end(), "dce"), r.changed_by.end());
}

TEST(HarnessTest, CatchesThePassThatRemovesEveryCopy) {
  PassUnderTest broken = BrokenPass();
  ModuleResult r = CheckModule(kNeededCopy, {&broken, 1}, {});
  ASSERT_EQ(r.verdict, Verdict::kFail);
  ASSERT_EQ(r.failures.size(), 1u);
  EXPECT_EQ(r.failures[0].pass, "remove-all-copies");
  EXPECT_NE(r.failures[0].message.find("seed 1: output {}: element ["), std::string::npos)
      << r.failures[0].message;
  EXPECT_TRUE(PassFailureOn(kNeededCopy, broken, {}).has_value());
}

// The copy protects entry parameter %p, which the loop would otherwise update in place. The
// interpreter keeps read-only values' bytes (as XLA's copy insertion would), so removing the
// copy leaves the results alone: the harness sees it through the read-only overwrites.
TEST(HarnessTest, CatchesARemovedCopyOfAReadOnlyParameter) {
  const std::string module = R"hlo(
HloModule m
cond {
  s = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  v = f32[4] get-tuple-element(s), index=1
  c1 = f32[] constant(1)
  u = f32[1] broadcast(c1), dimensions={}
  d = f32[4] dynamic-update-slice(v, u, i)
  one = s32[] constant(1)
  j = s32[] add(i, one)
  ROOT t = (s32[], f32[4]) tuple(j, d)
}
ENTRY e {
  p = f32[4] parameter(0)
  c = f32[4] copy(p)
  zero = s32[] constant(0)
  init = (s32[], f32[4]) tuple(zero, c)
  w = (s32[], f32[4]) while(init), condition=cond, body=body
  r = f32[4] get-tuple-element(w), index=1
  ROOT out = (f32[4], f32[4]) tuple(r, p)
})hlo";
  ModuleResult ok = CheckModule(module, RegisteredPasses(), {});
  EXPECT_EQ(ok.verdict, Verdict::kPass)
      << ok.reason << (ok.failures.empty() ? "" : ok.failures[0].message);
  PassUnderTest broken = BrokenPass();
  ModuleResult r = CheckModule(module, {&broken, 1}, {});
  ASSERT_EQ(r.verdict, Verdict::kFail) << r.reason;
  ASSERT_EQ(r.failures.size(), 1u);
  EXPECT_NE(r.failures[0].message.find("read-only %p now shares a buffer that the module writes"),
            std::string::npos)
      << r.failures[0].message;
}

TEST(HarnessTest, ReducesTheFailingModuleAndPrintsIt) {
  std::string report = ReduceAndDescribe(kNeededCopy, BrokenPass(), {});
  fmt::print("{}\n", report);
  // The smallest module that still fails may fail another check than the results: here the
  // parameter's buffer reaching the entry's result once its copy is gone.
  EXPECT_NE(report.find("pass 'remove-all-copies' changes the result: the buffer of entry "
                        "parameter 0{} is now at output {}"),
            std::string::npos);
  EXPECT_NE(report.find("copy("), std::string::npos);  // the needed copy stays
  EXPECT_EQ(report.find("tanh("), std::string::npos);  // dead code went
  EXPECT_EQ(report.find("multiply("), std::string::npos);
  EXPECT_NE(report.find("reduced from 23 to"), std::string::npos);
}

TEST(HarnessTest, AModuleMissingACopyIsNotABaseline) {
  ModuleResult r = CheckModule(kMissingCopy, RegisteredPasses(), {});
  EXPECT_EQ(r.verdict, Verdict::kNotBaseline);
  EXPECT_EQ(r.reason, "buffer mode differs from value mode");
  EXPECT_FALSE(PassFailureOn(kMissingCopy, BrokenPass(), {}).has_value());
}

TEST(HarnessTest, SkipsWhatItCannotJudge) {
  EXPECT_EQ(CheckModule("HloModule m\nENTRY e {", RegisteredPasses(), {}).reason, "does not parse");
  ModuleResult bad = CheckModule(
      "HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n  ROOT t = f32[3] get-tuple-element(p), "
      "index=0\n}\n",
      RegisteredPasses(), {});
  EXPECT_EQ(bad.verdict, Verdict::kSkipped);
  EXPECT_EQ(bad.reason, "does not verify");
  ModuleResult unsupported = CheckModule(
      "HloModule m\nENTRY e {\n  p = f32[4,4] parameter(0)\n  tok = token[] after-all()\n"
      "  in = (f32[4,4], token[]) infeed(tok)\n"
      "  ROOT r = f32[4,4] get-tuple-element(in), index=0\n}\n",
      RegisteredPasses(), {});
  EXPECT_EQ(unsupported.verdict, Verdict::kSkipped);
  EXPECT_EQ(unsupported.reason, "unsupported opcode 'infeed'");
  // One computation called from two sites, not flattened: as in XLA's alias analysis both
  // calls' results are the callee root's one buffer (XLA flattens the call graph before it
  // assigns buffers), so the second call overwrites the first: not buffer-safe as given.
  ModuleResult shared = CheckModule(R"(
HloModule m
callee {
  x = f32[2] parameter(0)
  ROOT y = f32[2] negate(x)
}
ENTRY e {
  p = f32[2] parameter(0)
  a = f32[2] call(p), to_apply=callee
  b = f32[2] call(a), to_apply=callee
  ROOT t = (f32[2], f32[2]) tuple(a, b)
}
)",
                                    RegisteredPasses(), {});
  EXPECT_EQ(shared.verdict, Verdict::kNotBaseline);
  EXPECT_EQ(shared.reason, "buffer mode differs from value mode");
  // A computation that is both a call's callee and a reducer: the alias analysis refuses it
  // (as XLA's dataflow does), so buffer mode cannot be judged.
  ModuleResult refused = CheckModule(R"(
HloModule m
callee {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT z = f32[] add(x, y)
}
ENTRY e {
  p = f32[2] parameter(0)
  s = f32[] parameter(1)
  a = f32[] reduce(p, s), dimensions={0}, to_apply=callee
  b = f32[] call(a, s), to_apply=callee
  ROOT t = (f32[], f32[]) tuple(a, b)
}
)",
                                     RegisteredPasses(), {});
  EXPECT_EQ(refused.verdict, Verdict::kSkipped);
  EXPECT_TRUE(refused.reason.starts_with("buffer mode: ")) << refused.reason;
  EXPECT_NE(refused.reason.find("alias analysis"), std::string::npos) << refused.reason;
  EXPECT_EQ(refused.reason.find("callee"), std::string::npos) << refused.reason;  // no names
  HarnessOptions tiny;
  tiny.max_bytes = 8;
  ModuleResult large = CheckModule(kNeededCopy, RegisteredPasses(), tiny);
  EXPECT_EQ(large.verdict, Verdict::kSkipped);
  EXPECT_EQ(large.reason, "too large");
}

// Passes that fail in the other ways the harness reports.
class FailingPass : public Pass {
 public:
  std::string_view name() const override { return "failing"; }
  std::string_view description() const override { return "Returns an error."; }
  absl::StatusOr<bool> RunOnModule(Module&, AnalysisCache&) override {
    return absl::InternalError("out of ideas");
  }
};

class RootBreakingPass : public Pass {
 public:
  std::string_view name() const override { return "root-breaking"; }
  std::string_view description() const override {
    return "Makes the entry root a parameter of the wrong shape.";
  }
  absl::StatusOr<bool> RunOnModule(Module& m, AnalysisCache&) override {
    // The loop body's root becomes its parameter's counter: a while shape mismatch.
    Computation* body = m.FindComputation("loop_body");
    body->set_root(body->instructions()[1]);
    return true;
  }
};

TEST(HarnessTest, ReportsPassErrorsAndInvalidResults) {
  std::vector<PassUnderTest> passes = {
      {"failing", [] { return std::make_unique<FailingPass>(); }, false},
      {"root-breaking", [] { return std::make_unique<RootBreakingPass>(); }, false}};
  ModuleResult r = CheckModule(kNeededCopy, passes, {});
  ASSERT_EQ(r.verdict, Verdict::kFail);
  ASSERT_EQ(r.failures.size(), 2u);
  EXPECT_EQ(r.failures[0].message, "the pass failed: out of ideas");
  EXPECT_TRUE(r.failures[1].message.starts_with("the transformed module does not verify: "))
      << r.failures[1].message;
}

TEST(HarnessTest, TallyCountsVerdictsAndReasons) {
  Tally t;
  t.Add({Verdict::kPass, "", {}, {"dce"}});
  t.Add({Verdict::kSkipped, "too large", {}, {}});
  t.Add({Verdict::kSkipped, "too large", {}, {}});
  t.Add({Verdict::kNotBaseline, "buffer mode differs from value mode", {}, {}});
  t.Add({Verdict::kFail, "", {{"p", "m"}}, {}});
  EXPECT_EQ(t.Summary(),
            "5 modules: 1 checked and passed, 1 failed, 1 not a valid baseline, 2 skipped\n"
            "     1 buffer mode differs from value mode\n"
            "     2 too large\n"
            "  modules changed, by pass: dce 1;");
  EXPECT_EQ(VerdictName(Verdict::kFail), "FAIL");
}

}  // namespace
}  // namespace hloscope::differential
