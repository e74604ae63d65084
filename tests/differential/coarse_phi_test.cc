// Phi minimization stops at a work budget (analysis/dataflow.h): past it, phis that a further
// round would have resolved to one value stay phis of their own. These tests check that the
// budget is reached only where it should be, that it does change the answer there (so the
// tests below exercise the coarse path), and that the passes stay correct with the coarse
// answer everywhere: copy-elision, judged by the interpreter, with no refinement at all.
#include <string>
#include <vector>

#include "analysis/dataflow.h"
#include "fmt/format.h"
#include "fmt/ranges.h"
#include "gtest/gtest.h"
#include "hlo/parser.h"
#include "tests/differential/harness.h"
#include "tests/differential/random_module.h"

namespace hloscope::differential {
namespace {

// Sets the budget for one test and restores the default after it.
class BudgetScope {
 public:
  explicit BudgetScope(size_t budget) { SetPhiRefinementBudgetForTesting(budget); }
  ~BudgetScope() { SetPhiRefinementBudgetForTesting(std::nullopt); }
};

// An outer loop whose element is either kept (through an inner loop that carries it
// unchanged) or negated, chosen by a conditional. The outer parameter's phi, the conditional's
// phi and the inner loop's phi form one cycle that two values enter (the initial value and
// the negation), so the first two are real phis; the inner loop's phi is reached only from
// the outer one and is that phi, which only a second round finds.
constexpr char kModule[] = R"(HloModule m

inner_cond {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(2)
  ROOT lt = pred[] compare(i, n), direction=LT
}

inner_body {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  v = f32[4] get-tuple-element(p), index=1
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  ROOT t = (s32[], f32[4]) tuple(i1, v)
}

keep {
  v = f32[4] parameter(0)
  z = s32[] constant(0)
  t = (s32[], f32[4]) tuple(z, v)
  w = (s32[], f32[4]) while(t), condition=inner_cond, body=inner_body
  ROOT r = f32[4] get-tuple-element(w), index=1
}

change {
  v = f32[4] parameter(0)
  ROOT n = f32[4] negate(v)
}

outer_cond {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}

outer_body {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  v = f32[4] get-tuple-element(p), index=1
  one = s32[] constant(1)
  odd = s32[] and(i, one)
  b = pred[] compare(odd, one), direction=EQ
  c = f32[4] conditional(b, v, v), true_computation=keep, false_computation=change
  i1 = s32[] add(i, one)
  ROOT t = (s32[], f32[4]) tuple(i1, c)
}

ENTRY e {
  a = f32[4] parameter(0)
  z = s32[] constant(0)
  t = (s32[], f32[4]) tuple(z, a)
  w = (s32[], f32[4]) while(t), condition=outer_cond, body=outer_body
  ROOT r = f32[4] get-tuple-element(w), index=1
}
)";

// The values the inner loop's result (index 1) may hold, as text.
std::string InnerResultValues(const Module& module) {
  DataflowAnalysis::Options options;
  absl::StatusOr<std::unique_ptr<DataflowAnalysis>> df = DataflowAnalysis::Run(module, options);
  EXPECT_TRUE(df.ok()) << df.status();
  if (!df.ok()) return "";
  const Instruction* w = nullptr;
  for (const Instruction* instr : module.FindComputation("keep")->instructions())
    if (instr->name() == "w") w = instr;
  EXPECT_NE(w, nullptr);
  if (w == nullptr) return "";
  std::vector<std::string> names;
  for (ValueId v : (*df)->ValuesAt(*w, {1})) names.push_back((*df)->value(v).ToString());
  return fmt::format("{}", fmt::join(names, ", "));
}

TEST(CoarsePhiTest, SecondRoundResolvesTheInnerPhiAndTheBudgetStopsIt) {
  absl::StatusOr<std::unique_ptr<Module>> module = ParseModule(kModule);
  ASSERT_TRUE(module.ok()) << module.status();
  // Default budget: the inner loop's result is the outer loop's phi.
  EXPECT_EQ(InnerResultValues(**module), "p{1} (phi)");
  // No second round: it stays a phi of its own.
  BudgetScope none(0);
  EXPECT_EQ(InnerResultValues(**module), "w{1} (phi)");
}

TEST(CoarsePhiTest, CopyElisionStaysCorrectWithoutRefinement) {
  BudgetScope none(0);
  std::vector<PassUnderTest> passes;
  for (PassUnderTest& p : RegisteredPasses())
    if (p.name.starts_with("copy-elision")) passes.push_back(std::move(p));
  ASSERT_FALSE(passes.empty());
  Tally tally;
  std::vector<std::string> texts = {kModule};
  for (uint64_t seed = 0; seed < 250; ++seed) texts.push_back(RandomModuleText(seed, {}));
  for (size_t k = 0; k < texts.size(); ++k) {
    ModuleResult r = CheckModule(texts[k], passes, {});
    tally.Add(r);
    for (const PassFailure& f : r.failures)
      ADD_FAILURE() << (k == 0 ? std::string("the nested-loop module")
                               : fmt::format("random module seed {}", k - 1))
                    << ": " << f.pass << ": " << f.message;
  }
  fmt::print("without phi refinement: {}\n", tally.Summary());
  EXPECT_EQ(tally.failed, 0);
  EXPECT_GE(tally.passed, 200);
  EXPECT_GE(tally.changed_by["copy-elision"], 50);  // the pass had copies to judge
}

}  // namespace
}  // namespace hloscope::differential
