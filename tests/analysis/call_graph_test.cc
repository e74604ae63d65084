// The call graph (analysis/call_graph.h): the context of each opcode family's call sites,
// async-start's wrapped computation as XLA classifies it, callees-first order, kBoth,
// unreachable computations, and the one graph an AnalysisCache shares with its analyses.
#include "analysis/call_graph.h"

#include <algorithm>
#include <string>
#include <vector>

#include "analysis/analysis_cache.h"
#include "analysis/memory/memory_profile.h"
#include "gtest/gtest.h"
#include "passes/flatten_call_graph.h"
#include "tests/analysis/analysis_test_util.h"

namespace hloscope {
namespace {

using analysis_testing::Parse;

// "caller:callee/context[/async]" for each call site `c` makes, in order.
std::vector<std::string> SitesIn(const CallGraph& graph, const Module& m, std::string_view c) {
  std::vector<std::string> out;
  for (const CallSite& site : graph.CallsIn(*m.FindComputation(c))) {
    out.push_back(std::string(site.caller->name()) + ":" + std::string(site.callee->name()) + "/" +
                  CallContextName(site.context) + (site.async ? "/async" : ""));
  }
  return out;
}

std::vector<std::string> Names(const std::vector<const Computation*>& computations) {
  std::vector<std::string> out;
  for (const Computation* c : computations) out.emplace_back(c->name());
  return out;
}

TEST(CallGraphTest, WhileConditionalAndCallAreSynchronousControlFlow) {
  auto m = Parse(R"(HloModule m
cond {
  cp = f32[4] parameter(0)
  ROOT f = pred[] constant(false)
}
body {
  bp = f32[4] parameter(0)
  ROOT n = f32[4] negate(bp)
}
on_true {
  tp = f32[4] parameter(0)
  ROOT tn = f32[4] negate(tp)
}
on_false {
  fp = f32[4] parameter(0)
  ROOT fe = f32[4] exponential(fp)
}
callee {
  x = f32[4] parameter(0)
  ROOT y = f32[4] abs(x)
}
ENTRY e {
  a = f32[4] parameter(0)
  pred = pred[] parameter(1)
  w = f32[4] while(a), condition=cond, body=body
  c = f32[4] conditional(pred, w, w), true_computation=on_true, false_computation=on_false
  ROOT k = f32[4] call(c), to_apply=callee
})");
  const std::unique_ptr<CallGraph> graph = CallGraph::Build(*m);
  EXPECT_EQ(SitesIn(*graph, *m, "e"),
            (std::vector<std::string>{"w:cond/control flow", "w:body/control flow",
                                      "c:on_true/control flow", "c:on_false/control flow",
                                      "k:callee/control flow"}));
  for (std::string_view c : {"cond", "body", "on_true", "on_false", "callee"}) {
    const Computation& callee = *m->FindComputation(c);
    EXPECT_EQ(graph->Context(callee), CallContext::kControlFlow) << c;
    EXPECT_EQ(graph->SiteContext(callee), CallContext::kControlFlow) << c;
    ASSERT_EQ(graph->ControlFlowSites(&callee).size(), 1u) << c;
    EXPECT_EQ(graph->EmbeddedSiteCount(&callee), 0) << c;
    EXPECT_TRUE(graph->ReachableFromEntry(callee)) << c;
  }
  EXPECT_TRUE(graph->IsFlattened());
  EXPECT_TRUE(graph->CheckNoMixedContext().ok());
  // The entry: nothing calls it, so it is control flow (XLA's root context).
  EXPECT_EQ(graph->Context(*m->entry()), CallContext::kControlFlow);
  EXPECT_EQ(graph->SiteContext(*m->entry()), CallContext::kNone);
}

TEST(CallGraphTest, EveryOtherInstructionThatNamesAComputationEmbedsIt) {
  auto m = Parse(R"(HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
less {
  l = f32[] parameter(0)
  r = f32[] parameter(1)
  ROOT lt = pred[] compare(l, r), direction=LT
}
fused {
  fp = f32[4] parameter(0)
  ROOT fe = f32[4] exponential(fp)
}
ENTRY e {
  a = f32[4] parameter(0)
  z = f32[] constant(0)
  f = f32[4] fusion(a), kind=kLoop, calls=fused
  r = f32[] reduce(f, z), dimensions={0}, to_apply=add
  mp = f32[4] map(a, a), dimensions={0}, to_apply=add
  so = f32[4] sort(a), dimensions={0}, to_apply=less
  ar = f32[4] all-reduce(a), replica_groups={}, to_apply=add
  rw = f32[2] reduce-window(a, z), window={size=2 stride=2}, to_apply=add
  cc = f32[4] custom-call(a), custom_call_target="foo", called_computations={fused}
  ROOT t = (f32[], f32[4], f32[4], f32[4], f32[2], f32[4]) tuple(r, mp, so, ar, rw, cc)
})");
  const std::unique_ptr<CallGraph> graph = CallGraph::Build(*m);
  EXPECT_EQ(SitesIn(*graph, *m, "e"),
            (std::vector<std::string>{"f:fused/embedded", "r:add/embedded", "mp:add/embedded",
                                      "so:less/embedded", "ar:add/embedded", "rw:add/embedded",
                                      "cc:fused/embedded"}));
  EXPECT_EQ(graph->EmbeddedSiteCount(m->FindComputation("add")), 4);
  EXPECT_TRUE(graph->ControlFlowSites(m->FindComputation("add")).empty());
  EXPECT_EQ(graph->Context(*m->FindComputation("add")), CallContext::kEmbedded);
  EXPECT_EQ(graph->Context(*m->FindComputation("fused")), CallContext::kEmbedded);
  EXPECT_FALSE(graph->HasControlFlowSites());
  // Embedded computations may be shared: that is flat.
  EXPECT_TRUE(graph->IsFlattened());
}

// XLA's GetInstructionCallContext: async-start's wrapped computation is a control-flow call
// site. It runs beside its caller (async), and async-update/-done name it again without being
// call sites. Every user agrees: the dataflow passes each start's operand to its parameter,
// flatten-call-graph gives each start its own copy, and the memory profiler needs that copy as
// for any control-flow callee (its own call graph once left async-start out, and profiled the
// shared computation's result as one buffer for both starts: 20 bytes where 28 are live).
TEST(CallGraphTest, AsyncStartsWrappedComputationIsAsynchronousControlFlow) {
  constexpr std::string_view kShared = R"(HloModule m
wrapped {
  x = f32[2] parameter(0)
  ROOT cc = f32[2] custom-call(x), custom_call_target="foo"
}
ENTRY e {
  p = f32[2] parameter(0)
  s = ((f32[2]), f32[2], s32[]) async-start(p), calls=wrapped
  u = ((f32[2]), f32[2], s32[]) async-update(s)
  d = f32[2] async-done(u)
  s2 = ((f32[2]), f32[2], s32[]) async-start(d), calls=wrapped
  d2 = f32[2] async-done(s2)
  ROOT t = (f32[2], f32[2]) tuple(d, d2)
})";
  auto m = Parse(kShared);
  const std::unique_ptr<CallGraph> graph = CallGraph::Build(*m);
  EXPECT_EQ(SitesIn(*graph, *m, "e"), (std::vector<std::string>{"s:wrapped/control flow/async",
                                                                "s2:wrapped/control flow/async"}));
  const Computation& wrapped = *m->FindComputation("wrapped");
  EXPECT_EQ(graph->Context(wrapped), CallContext::kControlFlow);
  EXPECT_EQ(graph->ControlFlowSites(&wrapped).size(), 2u);
  EXPECT_FALSE(graph->IsFlattened());
  EXPECT_EQ(Names(graph->CalleesFirst(*m->entry(), CallGraph::kControlFlow)),
            (std::vector<std::string>{"wrapped", "e"}));
  EXPECT_EQ(Names(graph->CalleesFirst(*m->entry(), CallGraph::kSynchronous)),
            (std::vector<std::string>{"e"}));

  // The dataflow: the wrapped computation's parameter holds both starts' operands.
  auto flow = analysis_testing::RunDataflow(*m);
  ASSERT_NE(flow, nullptr);
  EXPECT_EQ(flow->call_graph().ControlFlowSites(&wrapped).size(), 2u);
  EXPECT_FALSE(flow->DefinesValueAt(*m->FindComputation("wrapped")->parameters()[0]));

  // flatten-call-graph: one computation per start, and the graph is flat after.
  FlattenCallGraph flatten;
  absl::StatusOr<bool> changed = flatten.Run(*m);
  ASSERT_TRUE(changed.ok()) << StatusText(changed.status());
  EXPECT_TRUE(*changed);
  const std::unique_ptr<CallGraph> flat = CallGraph::Build(*m);
  EXPECT_TRUE(flat->IsFlattened());
  EXPECT_EQ(SitesIn(*flat, *m, "e"),
            (std::vector<std::string>{"s:wrapped/control flow/async",
                                      "s2:wrapped.clone/control flow/async"}));

  // The memory profiler: refused while shared; flat, the two starts' results are two buffers
  // (the peak the shared module would have reported was 20).
  auto shared = Parse(kShared);
  absl::StatusOr<MemoryReport> before = ProfileModule(*shared, MemoryOptions{});
  EXPECT_EQ(StatusText(before.status()),
            "module 'm': computation 'wrapped' has more than one call site; the memory profiler "
            "needs one per control-flow callee: run the flatten-call-graph pass first");
  absl::StatusOr<MemoryReport> after = ProfileModule(*m, MemoryOptions{});
  ASSERT_TRUE(after.ok()) << StatusText(after.status());
  EXPECT_EQ(after->peak_bytes, 28);
}

// The short `<op>-start` forms have no wrapped computation: what they name is the wrapped op's,
// in its context.
TEST(CallGraphTest, ShortAsyncFormsTakeTheWrappedOpsContext) {
  auto m = Parse(R"(HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
fused {
  fp = f32[8] parameter(0)
  ROOT fe = f32[8] exponential(fp)
}
callee {
  a = f32[4] parameter(0)
  ROOT n = f32[4] negate(a)
}
ENTRY e {
  x = f32[8] parameter(0)
  st = ((f32[8]), f32[4]) reduce-scatter-start(x), replica_groups={{0,1}}, dimensions={0}, to_apply=add
  dn = f32[4] reduce-scatter-done(st), to_apply=add
  fs = ((f32[8]), f32[8], s32[]) fusion-start(x), kind=kLoop, calls=fused
  fd = f32[8] fusion-done(fs)
  cs = ((f32[4]), f32[4], u32[]) call-start(dn), to_apply=callee
  cd = f32[4] call-done(cs), to_apply=callee
  ROOT t = (f32[8], f32[4]) tuple(fd, cd)
})");
  const std::unique_ptr<CallGraph> graph = CallGraph::Build(*m);
  EXPECT_EQ(SitesIn(*graph, *m, "e"),
            (std::vector<std::string>{"st:add/embedded", "fs:fused/embedded",
                                      "cs:callee/control flow/async"}));
  EXPECT_EQ(graph->Context(*m->FindComputation("add")), CallContext::kEmbedded);
  EXPECT_EQ(graph->Context(*m->FindComputation("callee")), CallContext::kControlFlow);
  // flatten-call-graph leaves the embedded reducer alone.
  EXPECT_TRUE(graph->IsFlattened());
}

TEST(CallGraphTest, CalleesFirstPutsEveryCalleeBeforeItsCallers) {
  auto m = Parse(R"(HloModule m
leaf {
  lp = f32[4] parameter(0)
  ROOT ln = f32[4] negate(lp)
}
cond {
  cp = f32[4] parameter(0)
  ROOT f = pred[] constant(false)
}
body {
  bp = f32[4] parameter(0)
  ROOT bc = f32[4] call(bp), to_apply=leaf
}
mid {
  mp = f32[4] parameter(0)
  ROOT w = f32[4] while(mp), condition=cond, body=body
}
ENTRY e {
  a = f32[4] parameter(0)
  c1 = f32[4] call(a), to_apply=mid
  ROOT c2 = f32[4] call(c1), to_apply=leaf
})");
  const std::unique_ptr<CallGraph> graph = CallGraph::Build(*m);
  const std::vector<std::string> order =
      Names(graph->CalleesFirst(*m->entry(), CallGraph::kSynchronous));
  // Depth first in call order: mid's loop (condition, then body with its leaf), mid, entry.
  EXPECT_EQ(order, (std::vector<std::string>{"cond", "leaf", "body", "mid", "e"}));
  // Through every call the same here; PostOrder covers the whole module.
  EXPECT_EQ(Names(graph->CalleesFirst(*m->entry(), CallGraph::kAllCalls)), order);
  EXPECT_EQ(Names(graph->PostOrder()), order);
  // leaf is called twice (once from the entry, once from the body): two sites, not flat.
  EXPECT_EQ(graph->ControlFlowSites(m->FindComputation("leaf")).size(), 2u);
  EXPECT_FALSE(graph->IsFlattened());
  EXPECT_EQ(graph->CallersOf(*m->FindComputation("leaf")).size(), 2u);
}

TEST(CallGraphTest, AComputationCalledAsControlFlowAndEmbeddedIsBoth) {
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
  ROOT k = f32[] call(r, z), to_apply=add
})");
  const std::unique_ptr<CallGraph> graph = CallGraph::Build(*m);
  const Computation& add = *m->FindComputation("add");
  EXPECT_EQ(graph->SiteContext(add), CallContext::kBoth);
  EXPECT_EQ(graph->Context(add), CallContext::kBoth);
  EXPECT_FALSE(graph->IsFlattened());
  // Control-flow sites first, then embedded ones.
  ASSERT_EQ(graph->CallersOf(add).size(), 2u);
  EXPECT_EQ(graph->CallersOf(add)[0].caller->name(), "k");
  EXPECT_EQ(graph->CallersOf(add)[1].caller->name(), "r");
  const absl::Status mixed = graph->CheckNoMixedContext();
  EXPECT_EQ(StatusText(mixed),
            "computation 'add' is called both as control flow ('k' in 'e') and embedded; its "
            "parameters cannot both receive their caller's values and define their own (XLA's "
            "dataflow rejects this too): run the flatten-call-graph pass first");
  // The dataflow reports the same.
  absl::StatusOr<std::unique_ptr<DataflowAnalysis>> flow = DataflowAnalysis::Run(*m);
  ASSERT_FALSE(flow.ok());
  EXPECT_EQ(StatusText(flow.status()), StatusText(mixed));
}

// XLA's propagated context: a control-flow callee of an embedded computation runs embedded, so
// a computation `call`ed both from the entry and from inside a fusion is kBoth, though each of
// its own sites is control flow (which the dataflow accepts).
TEST(CallGraphTest, ContextsPropagateThroughControlFlowCallees) {
  auto m = Parse(R"(HloModule m
shared {
  x = f32[4] parameter(0)
  ROOT n = f32[4] negate(x)
}
fused {
  fp = f32[4] parameter(0)
  ROOT fc = f32[4] call(fp), to_apply=shared
}
ENTRY e {
  a = f32[4] parameter(0)
  f = f32[4] fusion(a), kind=kLoop, calls=fused
  ROOT k = f32[4] call(f), to_apply=shared
})");
  const std::unique_ptr<CallGraph> graph = CallGraph::Build(*m);
  const Computation& shared = *m->FindComputation("shared");
  EXPECT_EQ(graph->SiteContext(shared), CallContext::kControlFlow);
  EXPECT_EQ(graph->Context(shared), CallContext::kBoth);
  EXPECT_EQ(graph->Context(*m->FindComputation("fused")), CallContext::kEmbedded);
  EXPECT_TRUE(graph->CheckNoMixedContext().ok());
}

TEST(CallGraphTest, UnreachableComputationsAreRootsOutsideTheEntrysWalk) {
  auto m = Parse(R"(HloModule m
helper {
  hp = f32[4] parameter(0)
  ROOT hn = f32[4] negate(hp)
}
orphan {
  op = f32[4] parameter(0)
  ROOT oc = f32[4] call(op), to_apply=helper
}
used {
  up = f32[4] parameter(0)
  ROOT ua = f32[4] abs(up)
}
ENTRY e {
  a = f32[4] parameter(0)
  ROOT k = f32[4] call(a), to_apply=used
})");
  const std::unique_ptr<CallGraph> graph = CallGraph::Build(*m);
  const Computation& orphan = *m->FindComputation("orphan");
  const Computation& helper = *m->FindComputation("helper");
  EXPECT_FALSE(graph->ReachableFromEntry(orphan));
  EXPECT_FALSE(graph->ReachableFromEntry(helper));
  EXPECT_TRUE(graph->ReachableFromEntry(*m->FindComputation("used")));
  // Nothing calls the orphan: a root, control flow as XLA has it; its callee inherits that.
  EXPECT_EQ(graph->Context(orphan), CallContext::kControlFlow);
  EXPECT_EQ(graph->Context(helper), CallContext::kControlFlow);
  EXPECT_EQ(Names(graph->CalleesFirst(*m->entry(), CallGraph::kAllCalls)),
            (std::vector<std::string>{"used", "e"}));
  // The whole module, roots in module order: the orphan's subtree first.
  EXPECT_EQ(Names(graph->PostOrder()), (std::vector<std::string>{"helper", "orphan", "used", "e"}));
}

TEST(CallGraphTest, AnAnalysisCacheBuildsOneCallGraphForAllItsAnalyses) {
  auto m = Parse(R"(HloModule m
body {
  bp = f32[4] parameter(0)
  ROOT n = f32[4] negate(bp)
}
cond {
  cp = f32[4] parameter(0)
  ROOT f = pred[] constant(false)
}
ENTRY e {
  a = f32[4] parameter(0)
  ROOT w = f32[4] while(a), condition=cond, body=body
})");
  {
    // Asked for first: built on its own, then handed to the analyses.
    AnalysisCache cache(*m);
    const CallGraph& calls = cache.Calls();
    EXPECT_EQ(cache.builds().call_graph, 1);
    absl::StatusOr<const AliasAnalysis*> alias = cache.Alias(DataflowOptions{});
    ASSERT_TRUE(alias.ok()) << StatusText(alias.status());
    EXPECT_EQ(&(*alias)->dataflow().call_graph(), &calls);
    absl::StatusOr<const DataflowAnalysis*> flow =
        cache.Dataflow(DataflowOptions{.ssa_form = false});
    ASSERT_TRUE(flow.ok()) << StatusText(flow.status());
    EXPECT_EQ(&(*flow)->call_graph(), &calls);
    EXPECT_EQ(&cache.Calls(), &calls);
    EXPECT_EQ(cache.builds().call_graph, 1);
  }
  {
    // An analysis first: its walk built the graph, which the cache keeps.
    AnalysisCache cache(*m);
    absl::StatusOr<const DataflowAnalysis*> flow = cache.Dataflow(DataflowOptions{});
    ASSERT_TRUE(flow.ok()) << StatusText(flow.status());
    EXPECT_EQ(&cache.Calls(), &(*flow)->call_graph());
    EXPECT_EQ(cache.builds().call_graph, 0);
    absl::StatusOr<const AliasAnalysis*> alias = cache.Alias(DataflowOptions{});
    ASSERT_TRUE(alias.ok());
    EXPECT_EQ(&(*alias)->dataflow().call_graph(), &(*flow)->call_graph());
    // After a change, a new one.
    cache.Invalidate();
    const CallGraph& rebuilt = cache.Calls();
    EXPECT_EQ(cache.builds().call_graph, 1);
    EXPECT_EQ(rebuilt.ControlFlowSites(m->FindComputation("body")).size(), 1u);
  }
}

}  // namespace
}  // namespace hloscope
