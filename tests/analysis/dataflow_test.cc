// Dataflow semantics: definitions, forwarding, phis at while/conditional, call sites.
#include <gmock/gmock.h>

#include "analysis_test_util.h"
#include "support/status_text.h"

namespace hloscope {
namespace {

using analysis_testing::Parse;
using analysis_testing::RunDataflow;
using analysis_testing::ValuesAt;

TEST(DataflowTest, EveryIndexOfAnOrdinaryInstructionIsDefined) {
  auto m = Parse(R"(HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  c = f32[4] constant({1,2,3,4})
  ROOT add = f32[4] add(p, c)
})");
  auto df = RunDataflow(*m);
  EXPECT_EQ(df->values().size(), 3u);
  EXPECT_EQ(ValuesAt(*df, "e", "add"), "add{}");
  EXPECT_TRUE(df->DefinesValueAt(*analysis_testing::Find(*m, "e", "c")));
}

TEST(DataflowTest, TupleDefinesTopAndForwardsElements) {
  auto m = Parse(R"(HloModule m
ENTRY e {
  a = f32[4] parameter(0)
  b = s32[] parameter(1)
  inner = (f32[4], s32[]) tuple(a, b)
  ROOT t = (f32[4], (f32[4], s32[])) tuple(a, inner)
})");
  auto df = RunDataflow(*m);
  EXPECT_EQ(ValuesAt(*df, "e", "t"), "t{}");
  EXPECT_EQ(ValuesAt(*df, "e", "t", {0}), "a{}");
  EXPECT_EQ(ValuesAt(*df, "e", "t", {1}), "inner{}");
  EXPECT_EQ(ValuesAt(*df, "e", "t", {1, 1}), "b{}");
  EXPECT_FALSE(df->DefinesValueAt(*analysis_testing::Find(*m, "e", "t"), {1, 0}));
}

TEST(DataflowTest, GetTupleElementForwardsTheElementSubtree) {
  auto m = Parse(R"(HloModule m
ENTRY e {
  p = (f32[4], (s32[], f32[2])) parameter(0)
  ROOT g = (s32[], f32[2]) get-tuple-element(p), index=1
})");
  auto df = RunDataflow(*m);
  EXPECT_EQ(ValuesAt(*df, "e", "g"), "p{1}");
  EXPECT_EQ(ValuesAt(*df, "e", "g", {1}), "p{1,1}");
  EXPECT_EQ(df->values().size(), 5u);  // the parameter defines every index
}

TEST(DataflowTest, BitcastIsAnAliasByDefault) {
  auto m = Parse(R"(HloModule m
ENTRY e {
  p = f32[4,2] parameter(0)
  ROOT b = f32[8] bitcast(p)
})");
  auto df = RunDataflow(*m);
  EXPECT_EQ(ValuesAt(*df, "e", "b"), "p{}");
  EXPECT_FALSE(df->DefinesValueAt(*analysis_testing::Find(*m, "e", "b")));
}

TEST(DataflowTest, BitcastDefinesAValueWhenAsked) {
  auto m = Parse(R"(HloModule m
ENTRY e {
  p = f32[4,2] parameter(0)
  ROOT b = f32[8] bitcast(p)
})");
  DataflowAnalysis::Options options;
  options.bitcast_defines_value = true;
  auto df = RunDataflow(*m, options);
  EXPECT_EQ(ValuesAt(*df, "e", "b"), "b{}");
}

TEST(DataflowTest, CopyOfATupleIsShallow) {
  auto m = Parse(R"(HloModule m
ENTRY e {
  p = (f32[4], s32[]) parameter(0)
  ROOT c = (f32[4], s32[]) copy(p)
})");
  auto df = RunDataflow(*m);
  EXPECT_EQ(ValuesAt(*df, "e", "c"), "c{}");
  EXPECT_EQ(ValuesAt(*df, "e", "c", {0}), "p{0}");
  EXPECT_EQ(ValuesAt(*df, "e", "c", {1}), "p{1}");
}

TEST(DataflowTest, CopyOfAnArrayDefinesAValue) {
  auto m = Parse(R"(HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  ROOT c = f32[4] copy(p)
})");
  auto df = RunDataflow(*m);
  EXPECT_EQ(ValuesAt(*df, "e", "c"), "c{}");
}

TEST(DataflowTest, DomainOptBarrierAndAddDependencyForward) {
  auto m = Parse(R"(HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  q = s32[] parameter(1)
  d = f32[4] domain(p), domain={kind="sharding", entry={maximal device=0}, exit={maximal device=1}}
  t = (f32[4], s32[]) tuple(d, q)
  ob = (f32[4], s32[]) opt-barrier(t)
  tok = token[] after-all()
  ROOT ad = (f32[4], s32[]) add-dependency(ob, tok)
})");
  auto df = RunDataflow(*m);
  EXPECT_EQ(ValuesAt(*df, "e", "d"), "p{}");
  EXPECT_EQ(ValuesAt(*df, "e", "ob"), "t{}");
  EXPECT_EQ(ValuesAt(*df, "e", "ob", {1}), "q{}");
  EXPECT_EQ(ValuesAt(*df, "e", "ad"), "t{}");
  EXPECT_EQ(ValuesAt(*df, "e", "ad", {0}), "p{}");
}

TEST(DataflowTest, CallForwardsOperandsAndRoot) {
  auto m = Parse(R"(HloModule m
callee {
  x = f32[4] parameter(0)
  y = f32[4] parameter(1)
  n = f32[4] negate(y)
  ROOT t = (f32[4], f32[4]) tuple(x, n)
}
ENTRY e {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  ROOT c = (f32[4], f32[4]) call(a, b), to_apply=callee
})");
  auto df = RunDataflow(*m);
  EXPECT_EQ(ValuesAt(*df, "callee", "x"), "a{}");
  EXPECT_EQ(ValuesAt(*df, "callee", "y"), "b{}");
  EXPECT_EQ(ValuesAt(*df, "e", "c"), "t{}");
  EXPECT_EQ(ValuesAt(*df, "e", "c", {0}), "a{}");
  EXPECT_EQ(ValuesAt(*df, "e", "c", {1}), "n{}");
}

constexpr std::string_view kCounterLoop = R"(HloModule m
cond {
  cp = (f32[4], s32[]) parameter(0)
  ci = s32[] get-tuple-element(cp), index=1
  lim = s32[] constant(10)
  ROOT lt = pred[] compare(ci, lim), direction=LT
}
body {
  bp = (f32[4], s32[]) parameter(0)
  data = f32[4] get-tuple-element(bp), index=0
  i = s32[] get-tuple-element(bp), index=1
  one = s32[] constant(1)
  next = s32[] add(i, one)
  ROOT bt = (f32[4], s32[]) tuple(data, next)
}
ENTRY e {
  x = f32[4] parameter(0)
  zero = s32[] constant(0)
  init = (f32[4], s32[]) tuple(x, zero)
  ROOT w = (f32[4], s32[]) while(init), condition=cond, body=body
})";

TEST(DataflowTest, WhilePassThroughElementKeepsTheInitValue) {
  auto m = Parse(kCounterLoop);
  auto df = RunDataflow(*m);
  EXPECT_EQ(ValuesAt(*df, "e", "w", {0}), "x{}");
  EXPECT_EQ(ValuesAt(*df, "body", "bp", {0}), "x{}");
  EXPECT_EQ(ValuesAt(*df, "cond", "cp", {0}), "x{}");
  EXPECT_EQ(ValuesAt(*df, "body", "data"), "x{}");
}

TEST(DataflowTest, WhileUpdatedElementIsAPhi) {
  auto m = Parse(kCounterLoop);
  auto df = RunDataflow(*m);
  EXPECT_EQ(ValuesAt(*df, "e", "w", {1}), "w{1} (phi)");
  EXPECT_EQ(ValuesAt(*df, "body", "bp", {1}), "bp{1} (phi)");
  EXPECT_EQ(ValuesAt(*df, "cond", "cp", {1}), "cp{1} (phi)");
  EXPECT_EQ(ValuesAt(*df, "body", "i"), "bp{1} (phi)");
  EXPECT_EQ(ValuesAt(*df, "e", "w"), "w{} (phi)");
}

TEST(DataflowTest, WhileInUnionFormHoldsInitAndBodyValues) {
  auto m = Parse(kCounterLoop);
  DataflowAnalysis::Options options;
  options.ssa_form = false;
  auto df = RunDataflow(*m, options);
  EXPECT_EQ(ValuesAt(*df, "e", "w", {0}), "x{}");
  EXPECT_EQ(ValuesAt(*df, "e", "w", {1}), "next{}, zero{}");
  EXPECT_EQ(ValuesAt(*df, "body", "i"), "next{}, zero{}");
  EXPECT_EQ(ValuesAt(*df, "cond", "cp"), "bt{}, init{}");
  for (const HloValue& v : df->values()) EXPECT_FALSE(v.is_phi) << v.ToString();
}

constexpr std::string_view kNestedLoops = R"(HloModule m
icond {
  icp = (f32[4], s32[]) parameter(0)
  ROOT ilt = pred[] constant(false)
}
ibody {
  ibp = (f32[4], s32[]) parameter(0)
  id = f32[4] get-tuple-element(ibp), index=0
  ii = s32[] get-tuple-element(ibp), index=1
  UPDATE
  ROOT ibt = (f32[4], s32[]) tuple(NEWDATA, ii)
}
ocond {
  ocp = (f32[4], s32[]) parameter(0)
  ROOT olt = pred[] constant(false)
}
obody {
  obp = (f32[4], s32[]) parameter(0)
  ROOT iw = (f32[4], s32[]) while(obp), condition=icond, body=ibody
}
ENTRY e {
  x = f32[4] parameter(0)
  zero = s32[] constant(0)
  init = (f32[4], s32[]) tuple(x, zero)
  ROOT ow = (f32[4], s32[]) while(init), condition=ocond, body=obody
})";

std::string Replace(std::string text, std::string_view from, std::string_view to) {
  for (size_t pos; (pos = text.find(from)) != std::string::npos;) {
    // Built by appending: GCC 12 at -O3 flags std::string::replace here with a false -Wrestrict.
    std::string next(text, 0, pos);
    next += to;
    next.append(text, pos + from.size());
    text = std::move(next);
  }
  return text;
}

TEST(DataflowTest, NestedWhilesPassingThroughHaveNoPhis) {
  std::string text = Replace(Replace(std::string(kNestedLoops), "UPDATE", ""), "NEWDATA", "id");
  auto m = Parse(text);
  auto df = RunDataflow(*m);
  for (const char* name : {"ow"}) EXPECT_EQ(ValuesAt(*df, "e", name, {0}), "x{}");
  EXPECT_EQ(ValuesAt(*df, "obody", "iw", {0}), "x{}");
  EXPECT_EQ(ValuesAt(*df, "ibody", "id"), "x{}");
  EXPECT_EQ(ValuesAt(*df, "ibody", "ii"), "zero{}");
  EXPECT_EQ(ValuesAt(*df, "icond", "icp", {1}), "zero{}");
  // Only the tuple-level positions of the loops merge two different tuples.
  EXPECT_EQ(ValuesAt(*df, "e", "ow"), "ow{} (phi)");
  EXPECT_EQ(ValuesAt(*df, "obody", "iw"), "iw{} (phi)");
}

TEST(DataflowTest, NestedWhileUpdatedInTheInnerLoop) {
  std::string text = Replace(
      Replace(std::string(kNestedLoops), "UPDATE", "neg = f32[4] negate(id)"), "NEWDATA", "neg");
  auto m = Parse(text);
  auto df = RunDataflow(*m);
  EXPECT_EQ(ValuesAt(*df, "e", "ow", {0}), "ow{0} (phi)");
  EXPECT_EQ(ValuesAt(*df, "obody", "obp", {0}), "obp{0} (phi)");
  EXPECT_EQ(ValuesAt(*df, "obody", "iw", {0}), "iw{0} (phi)");
  EXPECT_EQ(ValuesAt(*df, "ibody", "id"), "ibp{0} (phi)");
  // The counter is passed through both loops.
  EXPECT_EQ(ValuesAt(*df, "ibody", "ii"), "zero{}");
  EXPECT_EQ(ValuesAt(*df, "e", "ow", {1}), "zero{}");
}

constexpr std::string_view kConditional = R"(HloModule m
on_true {
  tp = f32[4] parameter(0)
  ROOT tn = f32[4] negate(tp)
}
on_false {
  fp = f32[4] parameter(0)
  ROOT fe = f32[4] exponential(fp)
}
ENTRY e {
  pred = pred[] parameter(0)
  a = f32[4] parameter(1)
  b = f32[4] parameter(2)
  ROOT c = f32[4] conditional(pred, a, b), true_computation=on_true, false_computation=on_false
})";

TEST(DataflowTest, ConditionalWithDifferentValuesPerBranchIsAPhi) {
  auto m = Parse(kConditional);
  auto df = RunDataflow(*m);
  EXPECT_EQ(ValuesAt(*df, "e", "c"), "c{} (phi)");
  EXPECT_EQ(ValuesAt(*df, "on_true", "tp"), "a{}");
  EXPECT_EQ(ValuesAt(*df, "on_false", "fp"), "b{}");
}

TEST(DataflowTest, ConditionalInUnionFormHoldsEveryBranchValue) {
  auto m = Parse(kConditional);
  DataflowAnalysis::Options options;
  options.ssa_form = false;
  auto df = RunDataflow(*m, options);
  EXPECT_EQ(ValuesAt(*df, "e", "c"), "tn{}, fe{}");
}

TEST(DataflowTest, ConditionalWhoseBranchesForwardOneValueHasNoPhi) {
  auto m = Parse(R"(HloModule m
b0 {
  p0 = f32[4] parameter(0)
  ROOT r0 = f32[4] bitcast(p0)
}
b1 {
  p1 = f32[4] parameter(0)
  ROOT r1 = f32[4] copy(p1)
}
b2 {
  p2 = f32[4] parameter(0)
  ROOT r2 = f32[4] bitcast(p2)
}
ENTRY e {
  idx = s32[] parameter(0)
  a = f32[4] parameter(1)
  ROOT c = f32[4] conditional(idx, a, a), branch_computations={b0, b2}
})");
  auto df = RunDataflow(*m);
  EXPECT_EQ(ValuesAt(*df, "e", "c"), "a{}");
}

TEST(DataflowTest, FusionDefinesItsOutputAndItsParametersDefineTheirs) {
  auto m = Parse(R"(HloModule m
fused {
  fp = f32[4] parameter(0)
  ROOT fn = f32[4] negate(fp)
}
ENTRY e {
  a = f32[4] parameter(0)
  ROOT f = f32[4] fusion(a), kind=kLoop, calls=fused
})");
  auto df = RunDataflow(*m);
  EXPECT_EQ(ValuesAt(*df, "e", "f"), "f{}");
  EXPECT_EQ(ValuesAt(*df, "fused", "fp"), "fp{}");
}

TEST(DataflowTest, EmbeddedComputationSharedByManyCallersIsFine) {
  auto m = Parse(R"(HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  a = f32[4] parameter(0)
  z = f32[] constant(0)
  r1 = f32[] reduce(a, z), dimensions={0}, to_apply=add
  r2 = f32[] reduce(a, z), dimensions={0}, to_apply=add
  ROOT t = (f32[], f32[]) tuple(r1, r2)
})");
  auto df = RunDataflow(*m);
  EXPECT_EQ(ValuesAt(*df, "add", "x"), "x{}");
  EXPECT_EQ(ValuesAt(*df, "e", "t", {1}), "r2{}");
}

// XLA's UpdateParameterValueSet: a callee's parameter holds the union over its call sites (no
// phi between `call`s, even in SSA form); each call's result is the callee's root.
TEST(DataflowTest, ComputationCalledFromTwoSitesHoldsTheUnionOfItsOperands) {
  auto m = Parse(R"(HloModule m
callee {
  x = f32[4] parameter(0)
  ROOT n = f32[4] negate(x)
}
ENTRY e {
  a = f32[4] parameter(0)
  c1 = f32[4] call(a), to_apply=callee
  ROOT c2 = f32[4] call(c1), to_apply=callee
})");
  for (bool ssa : {true, false}) {
    DataflowAnalysis::Options options;
    options.ssa_form = ssa;
    absl::StatusOr<std::unique_ptr<DataflowAnalysis>> df = DataflowAnalysis::Run(*m, options);
    ASSERT_TRUE(df.ok()) << df.status();
    EXPECT_EQ(ValuesAt(**df, "callee", "x"), "n{}, a{}");  // by value id: callee first
    EXPECT_EQ(ValuesAt(**df, "e", "c1"), "n{}");
    EXPECT_EQ(ValuesAt(**df, "e", "c2"), "n{}");
    EXPECT_EQ((*df)->values().size(), 2u);
    EXPECT_EQ((*df)->call_graph().ControlFlowSites(m->FindComputation("callee")).size(), 2u);
  }
}

// Two loops sharing a body and condition: the body parameter merges both inits and the body's
// root in one phi; each loop's result merges its own init with that root.
TEST(DataflowTest, WhileBodySharedByTwoLoopsMergesBothInits) {
  auto m = Parse(R"(HloModule m
cond {
  cp = f32[4] parameter(0)
  ROOT f = pred[] constant(false)
}
body {
  bp = f32[4] parameter(0)
  ROOT n = f32[4] negate(bp)
}
ENTRY e {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  w1 = f32[4] while(a), condition=cond, body=body
  w2 = f32[4] while(b), condition=cond, body=body
  ROOT t = (f32[4], f32[4]) tuple(w1, w2)
})");
  auto df = RunDataflow(*m);
  EXPECT_EQ(ValuesAt(*df, "body", "bp"), "bp{} (phi)");
  EXPECT_EQ(ValuesAt(*df, "cond", "cp"), "cp{} (phi)");
  EXPECT_EQ(ValuesAt(*df, "e", "w1"), "w1{} (phi)");
  EXPECT_EQ(ValuesAt(*df, "e", "w2"), "w2{} (phi)");
  DataflowAnalysis::Options union_form;
  union_form.ssa_form = false;
  absl::StatusOr<std::unique_ptr<DataflowAnalysis>> u = DataflowAnalysis::Run(*m, union_form);
  ASSERT_TRUE(u.ok()) << u.status();
  EXPECT_EQ(ValuesAt(**u, "body", "bp"), "n{}, a{}, b{}");
  EXPECT_EQ(ValuesAt(**u, "e", "w1"), "n{}, a{}");
  EXPECT_EQ(ValuesAt(**u, "e", "w2"), "n{}, b{}");
}

// A branch computation shared by two conditionals: its parameter merges the operands of both
// (a phi in SSA form, as XLA's need_phi for conditional call sites).
TEST(DataflowTest, BranchSharedByTwoConditionalsIsAPhiOfBothOperands) {
  auto m = Parse(R"(HloModule m
br0 {
  p0 = f32[4] parameter(0)
  ROOT n0 = f32[4] negate(p0)
}
br1 {
  p1 = f32[4] parameter(0)
  ROOT n1 = f32[4] abs(p1)
}
ENTRY e {
  i = s32[] parameter(0)
  a = f32[4] parameter(1)
  b = f32[4] parameter(2)
  c1 = f32[4] conditional(i, a, b), branch_computations={br0, br1}
  c2 = f32[4] conditional(i, b, a), branch_computations={br0, br1}
  ROOT t = (f32[4], f32[4]) tuple(c1, c2)
})");
  auto df = RunDataflow(*m);
  EXPECT_EQ(ValuesAt(*df, "br0", "p0"), "p0{} (phi)");
  EXPECT_EQ(ValuesAt(*df, "br1", "p1"), "p1{} (phi)");
  EXPECT_EQ(ValuesAt(*df, "e", "c1"), "c1{} (phi)");
}

// A computation that is both a call's callee and a reducer: XLA's dataflow rejects it too.
TEST(DataflowTest, ComputationCalledAsControlFlowAndEmbeddedIsAnError) {
  auto m = Parse(R"(HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  a = f32[4] parameter(0)
  z = f32[] constant(0)
  r = f32[] reduce(a, z), dimensions={0}, to_apply=add
  ROOT c = f32[] call(r, z), to_apply=add
})");
  absl::StatusOr<std::unique_ptr<DataflowAnalysis>> df = DataflowAnalysis::Run(*m);
  ASSERT_FALSE(df.ok());
  EXPECT_EQ(StatusText(df.status()),
            "computation 'add' is called both as control flow ('c' in 'e') and embedded; its "
            "parameters cannot both receive their caller's values and define their own (XLA's "
            "dataflow rejects this too): run the flatten-call-graph pass first");
}

TEST(DataflowTest, ValuesAtAnIndexThatDoesNotExistIsEmpty) {
  auto m = Parse(R"(HloModule m
ENTRY e {
  ROOT p = f32[4] parameter(0)
})");
  auto df = RunDataflow(*m);
  const Instruction* p = analysis_testing::Find(*m, "e", "p");
  EXPECT_TRUE(df->ValuesAt(*p, {3}).empty());
  EXPECT_EQ(df->ValueDefinedAt(*p, {0}), kNoValue);
  EXPECT_EQ(df->PositionCount(*p), 1);
}

TEST(DataflowTest, WideTupleLoopStaysOnePassPerElement) {
  // A loop over 3,000 elements: every element is passed through, so there are no phis
  // except the tuple-level ones, and every element holds its own init value.
  constexpr int kN = 3000;
  std::string shape = "(";
  std::string params, elems;
  for (int i = 0; i < kN; ++i) {
    shape += (i ? ", " : "") + std::string("f32[2]");
  }
  shape += ")";
  std::string text =
      "HloModule m\ncond {\n  cp = " + shape +
      " parameter(0)\n  ROOT f = pred[] constant(false)\n}\nbody {\n  bp = " + shape +
      " parameter(0)\n";
  std::string tuple_args;
  for (int i = 0; i < kN; ++i) {
    text += "  g" + std::to_string(i) +
            " = f32[2] get-tuple-element(bp), index=" + std::to_string(i) + "\n";
    tuple_args += (i ? ", g" : "g") + std::to_string(i);
  }
  text += "  ROOT bt = " + shape + " tuple(" + tuple_args + ")\n}\nENTRY e {\n";
  std::string init_args;
  for (int i = 0; i < kN; ++i) {
    text += "  x" + std::to_string(i) + " = f32[2] parameter(" + std::to_string(i) + ")\n";
    init_args += (i ? ", x" : "x") + std::to_string(i);
  }
  text += "  init = " + shape + " tuple(" + init_args + ")\n  ROOT w = " + shape +
          " while(init), condition=cond, body=body\n}\n";
  auto m = Parse(text);
  ASSERT_NE(m, nullptr);
  auto df = RunDataflow(*m);
  EXPECT_EQ(ValuesAt(*df, "e", "w", {kN - 1}), "x2999{}");
  EXPECT_EQ(ValuesAt(*df, "body", "g17"), "x17{}");
  int phis = 0;
  for (const HloValue& v : df->values()) phis += v.is_phi ? 1 : 0;
  EXPECT_EQ(phis, 3);  // w{}, bp{}, cp{}
}

}  // namespace
}  // namespace hloscope
