// Dataflow through asynchronous pairs: async-start/done, copy-start/done, send/recv,
// all-reduce-start/done, all-gather-start/done, collective-permute-start/done.
#include "analysis_test_util.h"
#include "support/status_text.h"

namespace hloscope {
namespace {

using analysis_testing::Parse;
using analysis_testing::RunDataflow;
using analysis_testing::ValuesAt;

TEST(DataflowAsyncTest, AsyncStartForwardsOperandsAndTheWrappedRoot) {
  auto m = Parse(R"(HloModule m
wrapped {
  p = f32[4] parameter(0)
  ROOT cc = f32[4] custom-call(p), custom_call_target="foo"
}
ENTRY e {
  x = f32[4] parameter(0)
  s = ((f32[4]), f32[4], s32[]) async-start(x), calls=wrapped
  u = ((f32[4]), f32[4], s32[]) async-update(s)
  ROOT d = f32[4] async-done(u)
})");
  auto df = RunDataflow(*m);
  EXPECT_EQ(ValuesAt(*df, "e", "s"), "s{}");
  EXPECT_EQ(ValuesAt(*df, "e", "s", {0}), "s{0}");
  EXPECT_EQ(ValuesAt(*df, "e", "s", {0, 0}), "x{}");
  EXPECT_EQ(ValuesAt(*df, "e", "s", {1}), "cc{}");
  EXPECT_EQ(ValuesAt(*df, "e", "s", {2}), "s{2}");
  EXPECT_EQ(ValuesAt(*df, "wrapped", "p"), "x{}");
  EXPECT_EQ(ValuesAt(*df, "e", "u", {1}), "cc{}");
  EXPECT_EQ(ValuesAt(*df, "e", "d"), "cc{}");
}

TEST(DataflowAsyncTest, CopyStartDefinesTheDestinationThatCopyDoneReturns) {
  auto m = Parse(R"(HloModule m
ENTRY e {
  x = f32[4] parameter(0)
  cs = (f32[4], f32[4], u32[]) copy-start(x)
  ROOT cd = f32[4] copy-done(cs)
})");
  auto df = RunDataflow(*m);
  EXPECT_EQ(ValuesAt(*df, "e", "cs", {0}), "cs{0}");
  EXPECT_EQ(ValuesAt(*df, "e", "cs", {1}), "x{}");
  EXPECT_EQ(ValuesAt(*df, "e", "cs", {2}), "cs{2}");
  EXPECT_EQ(ValuesAt(*df, "e", "cd"), "cs{0}");
}

TEST(DataflowAsyncTest, SendForwardsItsDataAndRecvDoneItsBuffer) {
  auto m = Parse(R"(HloModule m
ENTRY e {
  x = f32[4] parameter(0)
  tok = token[] after-all()
  s = (f32[4], u32[], token[]) send(x, tok), channel_id=1
  sd = token[] send-done(s), channel_id=1
  r = (f32[4], u32[], token[]) recv(tok), channel_id=2
  rd = (f32[4], token[]) recv-done(r), channel_id=2
  ROOT t = (token[], (f32[4], token[])) tuple(sd, rd)
})");
  auto df = RunDataflow(*m);
  EXPECT_EQ(ValuesAt(*df, "e", "s", {0}), "x{}");
  EXPECT_EQ(ValuesAt(*df, "e", "s", {1}), "s{1}");
  EXPECT_EQ(ValuesAt(*df, "e", "sd"), "sd{}");
  EXPECT_EQ(ValuesAt(*df, "e", "rd", {0}), "r{0}");
  EXPECT_EQ(ValuesAt(*df, "e", "rd", {1}), "rd{1}");
}

TEST(DataflowAsyncTest, AllReduceDoneReturnsTheStartsBuffer) {
  auto m = Parse(R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[4] parameter(0)
  ars = f32[4] all-reduce-start(x), to_apply=add
  ROOT ard = f32[4] all-reduce-done(ars)
})");
  auto df = RunDataflow(*m);
  EXPECT_EQ(ValuesAt(*df, "e", "ars"), "ars{}");
  EXPECT_EQ(ValuesAt(*df, "e", "ard"), "ars{}");
}

TEST(DataflowAsyncTest, AllGatherStartForwardsItsOperandAndDoneReturnsTheResult) {
  auto m = Parse(R"(HloModule m
ENTRY e {
  x = f32[4] parameter(0)
  ags = (f32[4], f32[8]) all-gather-start(x), dimensions={0}
  ROOT agd = f32[8] all-gather-done(ags)
})");
  auto df = RunDataflow(*m);
  EXPECT_EQ(ValuesAt(*df, "e", "ags", {0}), "x{}");
  EXPECT_EQ(ValuesAt(*df, "e", "ags", {1}), "ags{1}");
  EXPECT_EQ(ValuesAt(*df, "e", "agd"), "ags{1}");
}

TEST(DataflowAsyncTest, CollectivePermuteStartForwardsItsOperand) {
  auto m = Parse(R"(HloModule m
ENTRY e {
  x = f32[4] parameter(0)
  cps = (f32[4], f32[4], u32[], u32[]) collective-permute-start(x), source_target_pairs={{0,1}}
  ROOT cpd = f32[4] collective-permute-done(cps)
})");
  auto df = RunDataflow(*m);
  EXPECT_EQ(ValuesAt(*df, "e", "cps", {0}), "x{}");
  EXPECT_EQ(ValuesAt(*df, "e", "cpd"), "cps{1}");
}

TEST(DataflowAsyncTest, MalformedAsyncShapeIsAnErrorNotACrash) {
  auto m = Parse(R"(HloModule m
ENTRY e {
  x = f32[4] parameter(0)
  ROOT cd = f32[4] copy-done(x)
})");
  absl::StatusOr<std::unique_ptr<DataflowAnalysis>> df = DataflowAnalysis::Run(*m);
  ASSERT_FALSE(df.ok());
  EXPECT_NE(StatusText(df.status()).find("instruction 'cd'"), std::string::npos)
      << StatusText(df.status());
}

// The short form `<op>-start` (XLA's hlo_dataflow_analysis_test AsyncOps): the wrapped op
// defines the result {1}; update and done pass it on.
TEST(DataflowAsyncTest, ShortFormStartDefinesTheWrappedResult) {
  auto m = Parse(R"(HloModule m
ENTRY e {
  p0 = f32[2,3] parameter(0)
  s = ((f32[2,3]), f32[2,3], u32[]) custom-call-start(p0), custom_call_target="foo"
  u = ((f32[2,3]), f32[2,3], u32[]) custom-call-update(s), custom_call_target="foo"
  ROOT d = f32[2,3] custom-call-done(u), custom_call_target="foo"
})");
  auto df = RunDataflow(*m);
  EXPECT_EQ(ValuesAt(*df, "e", "s", {0, 0}), "p0{}");
  EXPECT_EQ(ValuesAt(*df, "e", "s", {1}), "s{1}");
  EXPECT_EQ(ValuesAt(*df, "e", "u", {0, 0}), "p0{}");
  EXPECT_EQ(ValuesAt(*df, "e", "u", {1}), "s{1}");
  EXPECT_EQ(ValuesAt(*df, "e", "d"), "s{1}");
}

// reduce-scatter-start names its reducer, which another reduce-scatter shares: the reducer is
// the wrapped op's embedded computation, not a control-flow callee of the start.
TEST(DataflowAsyncTest, ShortFormReducerSharedWithASynchronousCollectiveIsEmbedded) {
  auto m = Parse(R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[8] parameter(0)
  rs = f32[4] reduce-scatter(x), replica_groups={{0,1}}, dimensions={0}, to_apply=add
  st = ((f32[8]), f32[4]) reduce-scatter-start(x), replica_groups={{0,1}}, dimensions={0}, to_apply=add
  dn = f32[4] reduce-scatter-done(st), to_apply=add
  ROOT t = (f32[4], f32[4]) tuple(rs, dn)
})");
  auto df = RunDataflow(*m);
  EXPECT_EQ(ValuesAt(*df, "add", "a"), "a{}");
  EXPECT_EQ(ValuesAt(*df, "e", "st", {0, 0}), "x{}");
  EXPECT_EQ(ValuesAt(*df, "e", "dn"), "st{1}");
  EXPECT_EQ(df->call_graph().ControlFlowSites(m->FindComputation("add")).size(), 0u);
}

// call-start runs its callee as control flow (XLA's AsyncCall): the callee's parameters hold
// the start's operands and the done returns the callee's root.
TEST(DataflowAsyncTest, ShortFormCallStartForwardsOperandsToItsCallee) {
  auto m = Parse(R"(HloModule m
callee {
  p0 = f32[16] parameter(0)
  p1 = f32[16] parameter(1)
  ROOT r = f32[16] add(p0, p1)
}
ENTRY e {
  a = f32[16] parameter(0)
  b = f32[16] parameter(1)
  s = ((f32[16], f32[16]), f32[16], u32[]) call-start(a, b), to_apply=callee
  u = ((f32[16], f32[16]), f32[16], u32[]) call-update(s), to_apply=callee
  ROOT d = f32[16] call-done(u), to_apply=callee
})");
  auto df = RunDataflow(*m);
  EXPECT_EQ(ValuesAt(*df, "callee", "p0"), "a{}");
  EXPECT_EQ(ValuesAt(*df, "callee", "p1"), "b{}");
  EXPECT_EQ(ValuesAt(*df, "e", "s", {1}), "r{}");
  EXPECT_EQ(ValuesAt(*df, "e", "d"), "r{}");
}

// XLA's CombinedCollectivePermuteStartAndDone: each operand sits at {0, i}; the tuple-shaped
// done defines its own tuple and returns the start's results {1, i}.
TEST(DataflowAsyncTest, CombinedCollectivePermuteForwardsEachOperand) {
  auto m = Parse(R"(HloModule m
ENTRY e {
  p0 = f32[2] parameter(0)
  p1 = f32[2] parameter(1)
  start = ((f32[2], f32[2]), (f32[2], f32[2])) collective-permute-start(p0, p1), source_target_pairs={{0,1},{1,0}}
  ROOT done = (f32[2], f32[2]) collective-permute-done(start)
})");
  auto df = RunDataflow(*m);
  EXPECT_EQ(ValuesAt(*df, "e", "start", {0}), "start{0}");
  EXPECT_EQ(ValuesAt(*df, "e", "start", {0, 0}), "p0{}");
  EXPECT_EQ(ValuesAt(*df, "e", "start", {0, 1}), "p1{}");
  EXPECT_EQ(ValuesAt(*df, "e", "start", {1, 0}), "start{1,0}");
  EXPECT_EQ(ValuesAt(*df, "e", "done"), "done{}");
  EXPECT_EQ(ValuesAt(*df, "e", "done", {0}), "start{1,0}");
  EXPECT_EQ(ValuesAt(*df, "e", "done", {1}), "start{1,1}");
}

// XLA's AllGatherStartAndDoneWithTuple: the tuple-shaped done defines its tuple.
TEST(DataflowAsyncTest, AllGatherDoneWithATupleDefinesItsTuple) {
  auto m = Parse(R"(HloModule m
ENTRY e {
  p0 = f32[2] parameter(0)
  p1 = bf16[2] parameter(1)
  start = ((f32[2], bf16[2]), (f32[4], bf16[4])) all-gather-start(p0, p1), dimensions={0}
  ROOT done = (f32[4], bf16[4]) all-gather-done(start)
})");
  auto df = RunDataflow(*m);
  EXPECT_EQ(ValuesAt(*df, "e", "start", {0, 0}), "p0{}");
  EXPECT_EQ(ValuesAt(*df, "e", "start", {0, 1}), "p1{}");
  EXPECT_EQ(ValuesAt(*df, "e", "done"), "done{}");
  EXPECT_EQ(ValuesAt(*df, "e", "done", {0}), "start{1,0}");
  EXPECT_EQ(ValuesAt(*df, "e", "done", {1}), "start{1,1}");
}

}  // namespace
}  // namespace hloscope
