// In-place pairs along async chains (analysis/async_chain_pairs.h): XLA's
// GetInPlaceInputOutputPairs for async-start / -update / -done, the operands copy-insertion
// copies, and the entries the alias analysis reports (XLA CHECK-fails on them; our verifier
// rejects them, so the modules here are parsed without it).
#include "analysis/async_chain_pairs.h"

#include <string>
#include <vector>

#include "analysis_test_util.h"
#include "hlo/async_chain_start.h"

namespace hloscope {
namespace {

using analysis_testing::Find;
using analysis_testing::Parse;
using analysis_testing::RunAlias;

std::string ChainPairs(const Instruction* i) {
  std::vector<InPlacePair> pairs;
  absl::Status s = AppendAsyncChainPairs(*i, pairs);
  std::string out = s.ok() ? "" : "error ";
  for (const InPlacePair& p : pairs) {
    if (!out.empty() && out.back() != ' ') out += " ";
    out += std::to_string(p.input.operand_number) + ShapeIndexToString(p.input.operand_index) +
           "->" + ShapeIndexToString(p.output_index);
  }
  return out;
}

// Three parameters bound one by one (start, update-0, update-1), the result by update-1; the
// start aliases the result's two elements with parameters 2 and 0.
constexpr std::string_view kChain = R"(HloModule m
wrapped {
  p0 = f32[4] parameter(0)
  p1 = f32[4] parameter(1)
  p2 = f32[4] parameter(2)
  a = f32[4] add(p0, p1)
  b = f32[4] add(a, p2)
  ROOT t = (f32[4], f32[4]) tuple(a, b)
}
ENTRY e {
  x = f32[4] parameter(0)
  y = f32[4] parameter(1)
  z = f32[4] parameter(2)
  start = ((f32[4]), (), s32[]) async-start(x), calls=wrapped, output_to_operand_aliasing={{1, 0}: (2, {}), {1, 1}: (0, {})}
  u0 = ((f32[4], f32[4]), ()) async-update(start, y)
  u1 = ((f32[4], f32[4], f32[4]), (f32[4], f32[4])) async-update(u0, z)
  ROOT done = (f32[4], f32[4]) async-done(u1)
})";

TEST(AsyncChainPairsTest, EachStepTakesTheEntriesItBindsAndTheDoneTheResultOnes) {
  auto m = Parse(kChain);
  ASSERT_NE(m, nullptr);
  // The start binds x (parameter 0) but writes `()` for the result: no pair.
  EXPECT_EQ(ChainPairs(Find(*m, "e", "start")), "");
  // u0 binds y (parameter 1), which no entry names.
  EXPECT_EQ(ChainPairs(Find(*m, "e", "u0")), "");
  // u1 binds z (parameter 2, its operand 1) and holds the result: {1,0} with it. Parameter 0
  // was bound before it.
  EXPECT_EQ(ChainPairs(Find(*m, "e", "u1")), "1{}->{1,0}");
  // The done pairs each result element with the chain's slot of its parameter.
  EXPECT_EQ(ChainPairs(Find(*m, "e", "done")), "0{0,2}->{0} 0{0,0}->{1}");
  EXPECT_EQ(ChainPairs(Find(*m, "e", "x")), "");
}

TEST(AsyncChainPairsTest, CopyInsertionCopiesEachAliasedOperandWhereItIsBound) {
  auto m = Parse(kChain);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(AsyncChainAliasedOperands(*Find(*m, "e", "start")), (std::vector<int64_t>{0}));
  EXPECT_TRUE(AsyncChainAliasedOperands(*Find(*m, "e", "u0")).empty());
  EXPECT_EQ(AsyncChainAliasedOperands(*Find(*m, "e", "u1")), (std::vector<int64_t>{1}));
  EXPECT_TRUE(AsyncChainAliasedOperands(*Find(*m, "e", "done")).empty());
}

TEST(AsyncChainPairsTest, TheDonesResultSharesTheAliasedOperandsBuffer) {
  auto m = Parse(kChain);
  ASSERT_NE(m, nullptr);
  auto aa = RunAlias(*m);
  ASSERT_NE(aa, nullptr);
  EXPECT_TRUE(aa->MayShareBuffer(*Find(*m, "e", "done"), {0}, *Find(*m, "e", "z"), {}));
  EXPECT_TRUE(aa->MayShareBuffer(*Find(*m, "e", "done"), {1}, *Find(*m, "e", "x"), {}));
  EXPECT_FALSE(aa->MayShareBuffer(*Find(*m, "e", "done"), {0}, *Find(*m, "e", "x"), {}));
  EXPECT_FALSE(aa->MayShareBuffer(*Find(*m, "e", "y"), {}, *Find(*m, "e", "x"), {}));
}

TEST(AsyncChainPairsTest, ShortFormsCarryTheWrappedOpsAliasingNotTheChains) {
  auto m = Parse(R"(HloModule m
ENTRY e {
  x = f32[4] parameter(0)
  start = ((f32[4]), f32[4], s32[]) custom-call-start(x), custom_call_target="foo", output_to_operand_aliasing={{}: (0, {})}
  ROOT done = f32[4] custom-call-done(start)
})");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(ChainPairs(Find(*m, "e", "start")), "");
  EXPECT_EQ(ChainPairs(Find(*m, "e", "done")), "");
}

TEST(AsyncChainPairsTest, AnEntryForTheWholeChainIsAnError) {
  auto m = Parse(R"(HloModule m
wrapped {
  p0 = f32[4] parameter(0)
  ROOT n = f32[4] negate(p0)
}
ENTRY e {
  x = f32[4] parameter(0)
  start = ((f32[4]), f32[4], s32[]) async-start(x), calls=wrapped, output_to_operand_aliasing={{}: (0, {}), {1}: (0, {})}
  ROOT done = f32[4] async-done(start)
})");
  ASSERT_NE(m, nullptr);
  // The valid entry is kept; the error names the other.
  EXPECT_EQ(ChainPairs(Find(*m, "e", "start")), "error 0{}->{1}");
  absl::StatusOr<std::unique_ptr<AliasAnalysis>> aa = AliasAnalysis::Run(*m);
  ASSERT_FALSE(aa.ok());
  EXPECT_EQ(StatusText(aa.status()),
            "alias analysis: %start's output_to_operand_aliasing entry {}: (0, {}) aliases the "
            "whole async chain, not an element of it");
}

TEST(AsyncChainPairsTest, AnOperandIndexTheBoundOperandLacksIsAnError) {
  auto m = Parse(R"(HloModule m
wrapped {
  p0 = f32[4] parameter(0)
  p1 = f32[4] parameter(1)
  ROOT a = f32[4] add(p0, p1)
}
ENTRY e {
  x = f32[4] parameter(0)
  y = f32[4] parameter(1)
  start = ((f32[4]), f32[4], s32[]) async-start(x), calls=wrapped, output_to_operand_aliasing={{1}: (1, {3})}
  u = ((f32[4], f32[4]), f32[4], s32[]) async-update(start, y)
  ROOT done = f32[4] async-done(u)
})");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(ChainPairs(Find(*m, "e", "start")), "");  // parameter 1 is bound later
  EXPECT_EQ(ChainPairs(Find(*m, "e", "u")), "error ");
  absl::StatusOr<std::unique_ptr<AliasAnalysis>> aa = AliasAnalysis::Run(*m);
  ASSERT_FALSE(aa.ok());
  EXPECT_EQ(StatusText(aa.status()),
            "alias analysis: %start's output_to_operand_aliasing entry {1}: (1, {3}) names index "
            "{3} of parameter 1, which %u binds with %y of shape f32[4]");
}

TEST(AsyncChainPairsTest, AnEntryNamingNoParameterIsKeptForItsUsersToReport) {
  auto m = Parse(R"(HloModule m
wrapped {
  p0 = f32[4] parameter(0)
  ROOT n = f32[4] negate(p0)
}
ENTRY e {
  x = f32[4] parameter(0)
  start = ((f32[4]), f32[4], s32[]) async-start(x), calls=wrapped, output_to_operand_aliasing={{1}: (5, {})}
  ROOT done = f32[4] async-done(start)
})");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(ChainPairs(Find(*m, "e", "start")), "5{}->{1}");
}

// XLA's LoopCrossingAsync2 (hlo_verifier_test.cc at 183fa00cb5) with the start's aliasing: the
// chain enters the loop as state element 1 and leaves it through a get-tuple-element. The done
// finds the start through the loop (hlo/async_chain_start.h), as XLA's async_chain_start().
constexpr std::string_view kLoopCrossing = R"(HloModule m
wrapped {
  p = f32[4] parameter(0)
  ROOT n = f32[4] negate(p)
}
cond {
  s = (s32[], ((f32[4]), f32[4], s32[])) parameter(0)
  c = s32[] get-tuple-element(s), index=0
  k = s32[] constant(3)
  ROOT lt = pred[] compare(c, k), direction=LT
}
body {
  s = (s32[], ((f32[4]), f32[4], s32[])) parameter(0)
  c = s32[] get-tuple-element(s), index=0
  one = s32[] constant(1)
  c1 = s32[] add(c, one)
  chain = ((f32[4]), f32[4], s32[]) get-tuple-element(s), index=1
  u = ((f32[4]), f32[4], s32[]) async-update(chain)
  ROOT r = (s32[], ((f32[4]), f32[4], s32[])) tuple(c1, u)
}
ENTRY e {
  x = f32[4] parameter(0)
  start = ((f32[4]), f32[4], s32[]) async-start(x), calls=wrapped, output_to_operand_aliasing={{1}: (0, {})}
  zero = s32[] constant(0)
  init = (s32[], ((f32[4]), f32[4], s32[])) tuple(zero, start)
  w = (s32[], ((f32[4]), f32[4], s32[])) while(init), condition=cond, body=body
  after = ((f32[4]), f32[4], s32[]) get-tuple-element(w), index=1
  ROOT done = f32[4] async-done(after)
})";

TEST(AsyncChainPairsTest, ADoneFindsItsStartThroughTheLoopTheChainCrosses) {
  auto m = Parse(kLoopCrossing);
  ASSERT_NE(m, nullptr);
  const Instruction* start = Find(*m, "e", "start");
  EXPECT_EQ(FindAsyncChainStartAcrossLoops(*Find(*m, "e", "done")), start);
  EXPECT_TRUE(AsyncChainCrossesLoop(*Find(*m, "e", "done")));
  // The update in the body reaches the start through the body's parameter and the while's
  // operand.
  EXPECT_EQ(FindAsyncChainStartAcrossLoops(*Find(*m, "body", "u")), start);
  EXPECT_FALSE(AsyncChainCrossesLoop(*start));
  EXPECT_EQ(ChainPairs(start), "0{}->{1}");
  // The done pairs the carried operand {0,0} with its result; the update binds nothing.
  EXPECT_EQ(ChainPairs(Find(*m, "e", "done")), "0{0,0}->{}");
  EXPECT_EQ(ChainPairs(Find(*m, "body", "u")), "");
}

TEST(AsyncChainPairsTest, AValueThatLeadsToNoAsyncOpHasNoStart) {
  // A done whose operand 0 is a parameter of a computation no while calls: no start.
  auto m = Parse(R"(HloModule m
wrapped {
  p = f32[4] parameter(0)
  ROOT n = f32[4] negate(p)
}
ENTRY e {
  x = f32[4] parameter(0)
  start = ((f32[4]), f32[4], s32[]) async-start(x), calls=wrapped
  ROOT done = f32[4] async-done(start)
})");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(FindAsyncChainStartAcrossLoops(*Find(*m, "e", "done")), Find(*m, "e", "start"));
  EXPECT_FALSE(AsyncChainCrossesLoop(*Find(*m, "e", "done")));
  EXPECT_EQ(FindAsyncChainStartAcrossLoops(*Find(*m, "e", "x")), nullptr);
  EXPECT_EQ(FindAsyncChainStartAcrossLoops(*Find(*m, "wrapped", "n")), nullptr);
}

// A chain op reached through copies (XLA steps over them too); the search gives up past its
// step budget (hlo/async_chain_start.cc) instead of recursing without bound.
std::string CopiedChain(int copies) {
  std::string text = R"(HloModule m
wrapped {
  p = f32[4] parameter(0)
  ROOT n = f32[4] negate(p)
}
ENTRY e {
  x = f32[4] parameter(0)
  c0 = ((f32[4]), f32[4], s32[]) async-start(x), calls=wrapped, output_to_operand_aliasing={{1}: (0, {})}
)";
  for (int k = 1; k <= copies; ++k) {
    text += "  c" + std::to_string(k) + " = ((f32[4]), f32[4], s32[]) copy(c" +
            std::to_string(k - 1) + ")\n";
  }
  return text + "  ROOT done = f32[4] async-done(c" + std::to_string(copies) + ")\n}\n";
}

TEST(AsyncChainPairsTest, TheSearchThroughCopiesHasABudget) {
  auto near = Parse(CopiedChain(100));
  ASSERT_NE(near, nullptr);
  EXPECT_EQ(FindAsyncChainStartAcrossLoops(*Find(*near, "e", "done")), Find(*near, "e", "c0"));
  EXPECT_EQ(ChainPairs(Find(*near, "e", "done")), "0{0,0}->{}");
  auto far = Parse(CopiedChain(5000));
  ASSERT_NE(far, nullptr);
  EXPECT_EQ(FindAsyncChainStartAcrossLoops(*Find(*far, "e", "done")), nullptr);
  EXPECT_EQ(ChainPairs(Find(*far, "e", "done")), "");
}

}  // namespace
}  // namespace hloscope
