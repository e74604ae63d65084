// Buffers: while and conditional joins, in-place pairs, input_output_alias, live-out, bytes,
// and the analyses over every curated corpus file.
#include <fstream>
#include <sstream>

#include "analysis_test_util.h"
#include "hlo/input_output_alias.h"
#include "passes/flatten_call_graph.h"
#include "support/status_text.h"

namespace hloscope {
namespace {

using analysis_testing::BufferAt;
using analysis_testing::Find;
using analysis_testing::Parse;
using analysis_testing::RunAlias;

constexpr std::string_view kLoop = R"(HloModule m
cond {
  cp = (f32[4], s32[]) parameter(0)
  ROOT f = pred[] constant(false)
}
body {
  bp = (f32[4], s32[]) parameter(0)
  data = f32[4] get-tuple-element(bp), index=0
  i = s32[] get-tuple-element(bp), index=1
  one = s32[] constant(1)
  next = s32[] add(i, one)
  neg = f32[4] negate(data)
  ROOT bt = (f32[4], s32[]) tuple(neg, next)
}
ENTRY e {
  x = f32[4] parameter(0)
  zero = s32[] constant(0)
  init = (f32[4], s32[]) tuple(x, zero)
  ROOT w = (f32[4], s32[]) while(init), condition=cond, body=body
})";

TEST(AliasTest, WhileJoinsInitBodyConditionAndResultAtEachIndex) {
  auto m = Parse(kLoop);
  auto aa = RunAlias(*m);
  const std::string element0 = "cp{0} (phi), bp{0} (phi), neg{}, x{}, w{0} (phi)";
  EXPECT_EQ(BufferAt(*aa, "e", "w", {0}), element0);
  EXPECT_EQ(BufferAt(*aa, "e", "x"), element0);
  EXPECT_EQ(BufferAt(*aa, "body", "neg"), element0);
  EXPECT_EQ(BufferAt(*aa, "e", "w", {1}), "cp{1} (phi), bp{1} (phi), next{}, zero{}, w{1} (phi)");
  EXPECT_EQ(BufferAt(*aa, "e", "w"), "cp{} (phi), bp{} (phi), bt{}, init{}, w{} (phi)");
  EXPECT_EQ(BufferAt(*aa, "body", "one"), "one{}");
}

TEST(AliasTest, ConditionalJoinsBranchRootsWithItsResult) {
  auto m = Parse(R"(HloModule m
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
  ROOT c = f32[4] conditional(pred, a, a), true_computation=on_true, false_computation=on_false
})");
  auto aa = RunAlias(*m);
  EXPECT_EQ(BufferAt(*aa, "e", "c"), "tn{}, fe{}, c{} (phi)");
  EXPECT_EQ(BufferAt(*aa, "on_true", "tp"), "a{}");
}

TEST(AliasTest, InPlaceDynamicUpdateSliceSharesItsOperandsBuffer) {
  auto m = Parse(R"(HloModule m
ENTRY e {
  buf = f32[8] parameter(0)
  upd = f32[2] parameter(1)
  i = s32[] parameter(2)
  ROOT dus = f32[8] dynamic-update-slice(buf, upd, i)
})");
  auto aa = RunAlias(*m);
  EXPECT_EQ(BufferAt(*aa, "e", "dus"), "buf{}, dus{}");
  EXPECT_EQ(aa->buffers().size(), 3u);
  EXPECT_TRUE(aa->MayShareBuffer(*Find(*m, "e", "buf"), {}, *Find(*m, "e", "dus"), {}));
}

// A DUS fusion in several layouts of the module. Its fused computation before it: the pairs
// are noted when the walk leaves the computation. After it, or with a fusion whose leaves are
// not its root's, or naming its computation other than by calls=: the pairs are asked for at
// the fusion, with the same answer as GetInPlaceInputOutputPairs.
TEST(AliasTest, InPlaceFusionWhereverItsComputationIs) {
  constexpr std::string_view kFused = R"(
fused {
  p0 = f32[8]{0} parameter(0)
  u = f32[2] parameter(1)
  i = s32[] parameter(2)
  ROOT d = f32[8]{0} dynamic-update-slice(p0, u, i)
}
)";
  constexpr std::string_view kEntry = R"(
ENTRY e {
  a = f32[8]{0} parameter(0)
  b = f32[2] parameter(1)
  c = s32[] parameter(2)
  ROOT f = SHAPE fusion(a, b, c), kind=kLoop, CALLS=fused
}
)";
  auto entry = [&](std::string_view shape, std::string_view calls) {
    std::string text(kEntry);
    text.replace(text.find("SHAPE"), 5, shape);
    text.replace(text.find("CALLS"), 5, calls);
    return text;
  };
  const std::string fused(kFused);
  const std::pair<std::string, std::string_view> cases[] = {
      {fused + entry("f32[8]{0}", "calls"), "a{}, f{}"},
      {entry("f32[8]{0}", "calls") + fused, "a{}, f{}"},
      {fused + entry("f32[8]", "calls"), "a{}, f{}"},   // another layout, the same leaves
      {fused + entry("(f32[8]{0})", "calls"), "f{}"},   // leaf {0}: no DUS there
      {fused + entry("f32[8]{0}", "to_apply"), "f{}"},  // no fused computation
  };
  for (const auto& [body, expected] : cases) {
    const std::string text = "HloModule m\n" + body;
    auto m = Parse(text);
    ASSERT_NE(m, nullptr);
    auto aa = RunAlias(*m);
    ASSERT_NE(aa, nullptr);
    EXPECT_EQ(BufferAt(*aa, "e", "f"), expected) << text;
    EXPECT_EQ(BufferAt(*aa, "fused", "d"), "p0{}, d{}") << text;
  }
}

TEST(AliasTest, InputOutputAliasJoinsParameterAndOutput) {
  auto m = Parse(R"(HloModule m, input_output_alias={ {1}: (0, {}, may-alias) }
ENTRY e {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  n = f32[4] negate(a)
  ROOT t = (f32[4], f32[4]) tuple(b, n)
})");
  auto aa = RunAlias(*m);
  EXPECT_EQ(BufferAt(*aa, "e", "a"), "a{}, n{}");
  EXPECT_EQ(BufferAt(*aa, "e", "b"), "b{}");
}

TEST(AliasTest, InputOutputAliasNamingAMissingParameterIsAnError) {
  auto m = Parse(R"(HloModule m, input_output_alias={ {0}: (3, {}) }
ENTRY e {
  ROOT a = f32[4] parameter(0)
})");
  absl::StatusOr<std::unique_ptr<AliasAnalysis>> aa = AliasAnalysis::Run(*m);
  ASSERT_FALSE(aa.ok());
  EXPECT_EQ(StatusText(aa.status()),
            "module 'm': input_output_alias names output {0} and parameter 3 index {}, which the "
            "entry does not have");
}

TEST(AliasTest, ParseInputOutputAlias) {
  absl::StatusOr<std::vector<InputOutputAlias>> a =
      ParseInputOutputAlias("{ {0}: (3, {}, must-alias), {1, 2}: (1, {0}) }");
  ASSERT_TRUE(a.ok()) << StatusText(a.status());
  ASSERT_EQ(a->size(), 2u);
  EXPECT_EQ((*a)[0].parameter, 3);
  EXPECT_TRUE((*a)[0].must_alias);
  EXPECT_EQ(ShapeIndexToString((*a)[1].output_index), "{1,2}");
  EXPECT_EQ(ShapeIndexToString((*a)[1].parameter_index), "{0}");
  EXPECT_FALSE((*a)[1].must_alias);
  EXPECT_TRUE(ParseInputOutputAlias("{}")->empty());
  EXPECT_FALSE(ParseInputOutputAlias("{ {0}: (x, {}) }").ok());
  EXPECT_FALSE(ParseInputOutputAlias("{ {0}: (1, {}, sometimes) }").ok());
}

TEST(AliasTest, LiveOutBuffersAndBytes) {
  auto m = Parse(R"(HloModule m
ENTRY e {
  a = f32[4] parameter(0)
  b = bf16[3,2] parameter(1)
  n = f32[4] negate(a)
  ROOT t = (f32[4], bf16[3,2]) tuple(n, b)
})");
  auto aa = RunAlias(*m);
  std::string live;
  for (BufferId b : aa->LiveOutBuffers()) {
    live += analysis_testing::Join(aa->dataflow(), aa->buffers()[b].values) + "=" +
            std::to_string(aa->buffers()[b].bytes) + " ";
  }
  EXPECT_EQ(live, "b{}=12 n{}=16 t{}=16 ");
}

TEST(AliasTest, AsyncCopyAndCustomCallAliasing) {
  auto m = Parse(R"(HloModule m
ENTRY e {
  x = f32[4] parameter(0)
  cs = (f32[4], f32[4], u32[]) copy-start(x)
  cd = f32[4] copy-done(cs)
  ROOT cc = f32[4] custom-call(cd), custom_call_target="foo", output_to_operand_aliasing={{}: (0, {})}
})");
  auto aa = RunAlias(*m);
  EXPECT_EQ(BufferAt(*aa, "e", "cc"), "cs{0}, cc{}");
  EXPECT_EQ(BufferAt(*aa, "e", "x"), "x{}");
}

std::unique_ptr<Module> ReadCorpus(const std::string& name) {
  std::ifstream in(std::string(HLOSCOPE_CORPUS_DIR) + "/" + name);
  EXPECT_TRUE(in.good()) << name;
  std::stringstream text;
  text << in.rdbuf();
  return Parse(text.str());
}

constexpr char kDusBitcast[] =
    "openxla_xla__xla_service_gpu_gpu_copy_insertion_test.cc__DUSBitcastNoCopy.hlo";

TEST(AliasTest, CorpusLoopStateAtIndexOneHoldsTheFusionInPlace) {
  auto m = ReadCorpus(kDusBitcast);
  ASSERT_NE(m, nullptr);
  auto aa = RunAlias(*m);
  const Instruction* fusion = Find(*m, "body", "fusion.549");
  const Instruction* loop = Find(*m, "main", "while");
  EXPECT_TRUE(aa->MayShareBuffer(*loop, {1}, *fusion, {}));
  // The fusion's parameter 1 buffer is the loop state element 1.
  EXPECT_TRUE(aa->MayShareBuffer(*Find(*m, "body", "param_1"), {}, *fusion, {}));
}

TEST(AliasTest, CorpusLoopStateWithBitcastsDefiningValuesIsNotInPlace) {
  auto m = ReadCorpus(kDusBitcast);
  ASSERT_NE(m, nullptr);
  DataflowAnalysis::Options options;
  options.bitcast_defines_value = true;
  auto aa = RunAlias(*m, options);
  const Instruction* fusion = Find(*m, "body", "fusion.549");
  const Instruction* loop = Find(*m, "main", "while");
  EXPECT_FALSE(aa->MayShareBuffer(*loop, {1}, *fusion, {}));
  EXPECT_TRUE(aa->MayShareBuffer(*loop, {1}, *Find(*m, "body", "bitcast"), {}));
}

// Runs both analyses (after flattening) with both bitcast options and checks the SSA
// invariant: every position holds exactly one value.
void CheckAnalyses(const std::string& path, Module& m) {
  // Shared control-flow callees are legal HLO; the analyses ask for them to be cloned.
  FlattenCallGraph flatten;
  ASSERT_TRUE(flatten.Run(m).ok()) << path;
  for (bool bitcast_defines : {false, true}) {
    DataflowAnalysis::Options options;
    options.bitcast_defines_value = bitcast_defines;
    absl::StatusOr<std::unique_ptr<AliasAnalysis>> aa = AliasAnalysis::Run(m, options);
    EXPECT_TRUE(aa.ok()) << path << ": " << StatusText(aa.status());
    if (!aa.ok()) continue;
    const DataflowAnalysis& df = (*aa)->dataflow();
    for (const Computation* c : m.computations()) {
      for (const Instruction* i : c->instructions()) {
        for (int32_t p = 0; p < df.PositionCount(*i); ++p) {
          EXPECT_EQ(df.ValuesAtPosition(*i, p).size(), 1u)
              << path << ": " << i->name() << ShapeIndexToString(df.IndexAt(*i, p));
        }
      }
    }
  }
}

TEST(AliasTest, AnalysesRunOnEveryCuratedCorpusFile) {
  const int files = analysis_testing::ForEachCorpusModule(HLOSCOPE_CORPUS_DIR, CheckAnalyses);
  EXPECT_GT(files, 10);
}

}  // namespace
}  // namespace hloscope
