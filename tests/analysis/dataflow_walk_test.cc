// The dataflow analysis's single walk over the module: the instruction visitor, sources laid
// out after their readers (callees after callers), parameters that receive their caller's
// values after the walk read them, HloValue's index view, and the errors the walk reports.
#include <gmock/gmock.h>

#include <deque>
#include <string>
#include <vector>

#include "analysis_test_util.h"
#include "hlo/computation.h"
#include "support/status_text.h"

namespace hloscope {
namespace {

using analysis_testing::Find;
using analysis_testing::Parse;
using analysis_testing::RunDataflow;
using analysis_testing::ValuesAt;

TEST(DataflowWalkTest, VisitorSeesEveryInstructionOnceInModuleOrder) {
  auto m = Parse(R"(HloModule m
fused {
  fp = f32[4] parameter(0)
  ROOT fn = f32[4] negate(fp)
}
ENTRY e {
  a = f32[4] parameter(0)
  f = f32[4] fusion(a), kind=kLoop, calls=fused
  ROOT t = (f32[4], f32[4]) tuple(a, f)
})");
  std::vector<std::string> seen;
  auto df = DataflowAnalysis::Run(
      *m, {}, [&](const Instruction& i) { seen.push_back(std::string(i.name())); });
  ASSERT_TRUE(df.ok()) << StatusText(df.status());
  EXPECT_THAT(seen, ::testing::ElementsAre("fp", "fn", "a", "f", "t"));
  EXPECT_EQ(ValuesAt(**df, "e", "t", {1}), "f{}");
}

// Computations after their callers: the call's result and the loop's phi inputs name roots
// the walk has not reached yet.
TEST(DataflowWalkTest, CalleesAfterTheirCallers) {
  auto m = Parse(R"(HloModule m
ENTRY e {
  a = f32[4] parameter(0)
  zero = s32[] constant(0)
  c = (f32[4], f32[4]) call(a), to_apply=callee
  g = f32[4] get-tuple-element(c), index=1
  init = (f32[4], s32[]) tuple(g, zero)
  ROOT w = (f32[4], s32[]) while(init), condition=cond, body=body
}
callee {
  x = f32[4] parameter(0)
  n = f32[4] negate(x)
  ROOT t = (f32[4], f32[4]) tuple(x, n)
}
body {
  bp = (f32[4], s32[]) parameter(0)
  data = f32[4] get-tuple-element(bp), index=0
  i = s32[] get-tuple-element(bp), index=1
  one = s32[] constant(1)
  next = s32[] add(i, one)
  ROOT bt = (f32[4], s32[]) tuple(data, next)
}
cond {
  cp = (f32[4], s32[]) parameter(0)
  ROOT f = pred[] constant(false)
})");
  auto df = RunDataflow(*m);
  EXPECT_EQ(ValuesAt(*df, "callee", "x"), "a{}");
  EXPECT_EQ(ValuesAt(*df, "e", "c", {0}), "a{}");
  EXPECT_EQ(ValuesAt(*df, "e", "g"), "n{}");
  EXPECT_EQ(ValuesAt(*df, "e", "w", {0}), "n{}");
  EXPECT_EQ(ValuesAt(*df, "body", "data"), "n{}");
  EXPECT_EQ(ValuesAt(*df, "body", "i"), "bp{1} (phi)");
  EXPECT_EQ(ValuesAt(*df, "cond", "cp", {1}), "cp{1} (phi)");
  // The callee's parameter does not define a value; ids stay dense and in module order.
  EXPECT_FALSE(df->DefinesValueAt(*Find(*m, "callee", "x")));
  for (size_t k = 0; k < df->values().size(); ++k) EXPECT_EQ(df->values()[k].id, k);
  EXPECT_EQ(df->values().front().ToString(), "a{}");
}

// A call inside a loop body: the callee's parameter receives the loop's phi after the walk
// already read it as a value of its own, so the forwarded sets are computed again.
TEST(DataflowWalkTest, CallInsideALoopBody) {
  auto m = Parse(R"(HloModule m
callee {
  x = (f32[4], s32[]) parameter(0)
  xd = f32[4] get-tuple-element(x), index=0
  xn = f32[4] negate(xd)
  xi = s32[] get-tuple-element(x), index=1
  ROOT xt = (f32[4], s32[]) tuple(xn, xi)
}
cond {
  cp = (f32[4], s32[]) parameter(0)
  ROOT f = pred[] constant(false)
}
body {
  bp = (f32[4], s32[]) parameter(0)
  ROOT bc = (f32[4], s32[]) call(bp), to_apply=callee
}
ENTRY e {
  a = f32[4] parameter(0)
  zero = s32[] constant(0)
  init = (f32[4], s32[]) tuple(a, zero)
  ROOT w = (f32[4], s32[]) while(init), condition=cond, body=body
})");
  auto df = RunDataflow(*m);
  EXPECT_EQ(ValuesAt(*df, "callee", "x"), "bp{} (phi)");
  EXPECT_EQ(ValuesAt(*df, "callee", "xd"), "bp{0} (phi)");
  EXPECT_EQ(ValuesAt(*df, "body", "bc", {0}), "xn{}");
  EXPECT_EQ(ValuesAt(*df, "e", "w", {0}), "w{0} (phi)");
  // The counter is passed through the call and the loop unchanged.
  EXPECT_EQ(ValuesAt(*df, "callee", "xi"), "zero{}");
  EXPECT_EQ(ValuesAt(*df, "e", "w", {1}), "zero{}");

  DataflowAnalysis::Options union_form;
  union_form.ssa_form = false;
  auto u = RunDataflow(*m, union_form);
  EXPECT_EQ(ValuesAt(*u, "callee", "xd"), "xn{}, a{}");  // by id: the callee comes first
  EXPECT_EQ(ValuesAt(*u, "e", "w", {1}), "zero{}");
}

TEST(DataflowWalkTest, ValueIndexReadsLikeAShapeIndex) {
  auto m = Parse(R"(HloModule m
ENTRY e {
  ROOT p = (f32[4], (s32[], f32[2])) parameter(0)
})");
  auto df = RunDataflow(*m);
  const Instruction* p = Find(*m, "e", "p");
  const HloValue& nested = df->value(df->ValueDefinedAt(*p, {1, 1}));
  EXPECT_EQ(nested.index.size(), 2u);
  EXPECT_EQ(nested.index[0], 1);
  EXPECT_EQ(nested.index[1], 1);
  EXPECT_TRUE(nested.index == (ShapeIndex{1, 1}));
  EXPECT_FALSE(nested.index == (ShapeIndex{1}));
  const ShapeIndex copy = nested.index;
  EXPECT_EQ(ShapeIndexToString(copy), "{1,1}");
  EXPECT_EQ(std::vector<int64_t>(nested.index.begin(), nested.index.end()),
            (std::vector<int64_t>{1, 1}));
  const HloValue& top = df->value(df->ValueDefinedAt(*p));
  EXPECT_TRUE(top.index.empty());
  EXPECT_EQ(top.ToString(), "p{}");
  EXPECT_EQ(nested.shape->ToString(), "f32[2]");
}

TEST(DataflowWalkTest, FirstCallAlsoEmbeddedInModuleOrderIsReported) {
  auto m = Parse(R"(HloModule m
c1 {
  x = f32[4] parameter(0)
  ROOT n = f32[4] negate(x)
}
c2 {
  y = f32[4] parameter(0)
  ROOT e = f32[4] exponential(y)
}
ENTRY e {
  a = f32[4] parameter(0)
  f2 = f32[4] fusion(a), kind=kLoop, calls=c2
  f1 = f32[4] fusion(a), kind=kLoop, calls=c1
  k2 = f32[4] call(a), to_apply=c2
  ROOT k1 = f32[4] call(a), to_apply=c1
})");
  auto df = DataflowAnalysis::Run(*m);
  ASSERT_FALSE(df.ok());
  EXPECT_EQ(StatusText(df.status()),
            "computation 'c2' is called both as control flow ('k2' in 'e') and embedded; its "
            "parameters cannot both receive their caller's values and define their own (XLA's "
            "dataflow rejects this too): run the flatten-call-graph pass first");
}

// A loop body whose parameter does not have the loop's shape fails at the parameter, which
// comes before the while instruction in module order.
TEST(DataflowWalkTest, RuleErrorsAreReportedInModuleOrder) {
  auto m = Parse(R"(HloModule m
cond {
  cp = (f32[2], f32[2]) parameter(0)
  ROOT f = pred[] constant(false)
}
body {
  bp = (f32[2], f32[2]) parameter(0)
  x = f32[2] get-tuple-element(bp), index=0
  ROOT r = (f32[2], f32[2], f32[2]) tuple(x, x, x)
}
ENTRY e {
  a = f32[2] parameter(0)
  init = (f32[2], f32[2]) tuple(a, a)
  ROOT w = (f32[2], f32[2], f32[2]) while(init), condition=cond, body=body
})");
  auto df = DataflowAnalysis::Run(*m);
  ASSERT_FALSE(df.ok());
  EXPECT_EQ(StatusText(df.status()),
            "computation 'cond': instruction 'cp': parameter output{} (f32[2], f32[2]) does not "
            "have the structure of 'r'{} (f32[2], f32[2], f32[2])");
}

// Built through the API: an operand from another module.
TEST(DataflowWalkTest, OperandFromAnotherModuleIsAnError) {
  auto m = Parse(R"(HloModule m
ENTRY e {
  ROOT p = (f32[4], f32[4]) parameter(0)
})");
  auto other = Parse(R"(HloModule other
ENTRY o {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  c = f32[4] parameter(2)
  ROOT t = (f32[4], f32[4]) tuple(a, b)
})");
  Computation* e = m->FindComputation("e");
  Instruction* foreign = Find(*other, "o", "t");
  Instruction* gte =
      m->CreateInstruction(Opcode::kGetTupleElement, Find(*other, "o", "a")->shape_ptr(), "g", e);
  InstructionBuilder(gte).set_number(0);
  gte->AppendOperand(foreign);
  e->AddInstruction(gte);
  auto df = DataflowAnalysis::Run(*m);
  ASSERT_FALSE(df.ok());
  EXPECT_EQ(StatusText(df.status()), "instruction 'g' reads 't', which is not in the module");
}

// Built through the API: a shape whose positions (1 + every nested subshape) number more
// than the analysis's position ids hold. Nested tuples share their elements, so the shape is
// small in memory (and kept here: interning it would hash every path through it); the
// analysis must refuse before allocating anything per position.
TEST(DataflowWalkTest, TooManyPositionsIsAnError) {
  auto m = Parse(R"(HloModule m
ENTRY e {
  ROOT p = f32[] parameter(0)
})");
  std::deque<Shape> shapes;
  const Shape* s = &m->entry()->root()->shape();
  const Shape* t28 = nullptr;
  for (int level = 0; level < 29; ++level) {  // 2^(level+2) - 1 positions
    Shape& pair = shapes.emplace_back();
    pair.element_type = PrimitiveType::kTuple;
    pair.tuple_elements = {s, s};
    s = &pair;
    if (level == 27) t28 = s;
  }
  Shape& top = shapes.emplace_back();
  top.element_type = PrimitiveType::kTuple;
  top.tuple_elements = {s, t28};  // 1 + (2^30 - 1) + (2^29 - 1) positions
  const Shape* interned = m->entry()->root()->shape_ptr();
  InstructionBuilder(m->entry()->root()).set_shape(&top);
  auto df = DataflowAnalysis::Run(*m);
  InstructionBuilder(m->entry()->root()).set_shape(interned);  // `shapes` goes first
  ASSERT_FALSE(df.ok());
  EXPECT_EQ(StatusText(df.status()),
            "module 'm' has more than 1073741824 positions (instruction, shape index)");
}

}  // namespace
}  // namespace hloscope
