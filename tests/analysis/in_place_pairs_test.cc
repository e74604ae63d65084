// In-place input/output pairs and CanShareOperandBufferWithUser.
#include "analysis/in_place_pairs.h"

#include <fstream>
#include <sstream>
#include <vector>

#include "analysis_test_util.h"

namespace hloscope {
namespace {

using analysis_testing::Find;
using analysis_testing::Parse;

std::string Pairs(const Instruction* i, bool bitcast_is_alias = true) {
  DataflowOptions options;
  options.bitcast_defines_value = !bitcast_is_alias;
  std::string out;
  for (const InPlacePair& p : GetInPlaceInputOutputPairs(*i, options)) {
    if (!out.empty()) out += " ";
    out += std::to_string(p.input.operand_number) + ShapeIndexToString(p.input.operand_index) +
           "->" + ShapeIndexToString(p.output_index);
  }
  return out;
}

TEST(InPlacePairsTest, DynamicUpdateSliceUpdatesOperandZero) {
  auto m = Parse(R"(HloModule m
ENTRY e {
  buf = f32[8] parameter(0)
  upd = f32[2] parameter(1)
  i = s32[] parameter(2)
  ROOT dus = f32[8] dynamic-update-slice(buf, upd, i)
})");
  EXPECT_EQ(Pairs(Find(*m, "e", "dus")), "0{}->{}");
  EXPECT_EQ(Pairs(Find(*m, "e", "buf")), "");
}

TEST(InPlacePairsTest, ScatterUpdatesEachInput) {
  auto m = Parse(R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = f32[] parameter(2)
  d = f32[] parameter(3)
  s1 = f32[] add(a, c)
  s2 = f32[] add(b, d)
  ROOT t = (f32[], f32[]) tuple(s1, s2)
}
add1 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[8] parameter(0)
  y = f32[8] parameter(1)
  idx = s32[2,1] parameter(2)
  u = f32[2] parameter(3)
  v = f32[2] parameter(4)
  one = f32[8] scatter(x, idx, u), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add1
  ROOT two = (f32[8], f32[8]) scatter(x, y, idx, u, v), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
})");
  EXPECT_EQ(Pairs(Find(*m, "e", "one")), "0{}->{}");
  EXPECT_EQ(Pairs(Find(*m, "e", "two")), "0{}->{0} 1{}->{1}");
}

TEST(InPlacePairsTest, AllReduceStartUpdatesItsOperands) {
  auto m = Parse(R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[4] parameter(0)
  y = f32[2] parameter(1)
  one = f32[4] all-reduce-start(x), to_apply=add
  ROOT two = (f32[4], f32[2]) all-reduce-start(x, y), to_apply=add
})");
  EXPECT_EQ(Pairs(Find(*m, "e", "one")), "0{}->{}");
  EXPECT_EQ(Pairs(Find(*m, "e", "two")), "0{}->{0} 1{}->{1}");
}

TEST(InPlacePairsTest, InPlaceCollectivePermuteWritesIntoOperandOne) {
  auto m = Parse(R"(HloModule m
ENTRY e {
  x = f32[4] parameter(0)
  out = f32[4] parameter(1)
  i = (s32[]) parameter(2)
  o = (s32[]) parameter(3)
  cp = f32[4] collective-permute(x, out, i, o), source_target_pairs={{0,1}}, slice_sizes={{2}}
  plain = f32[4] collective-permute(x), source_target_pairs={{0,1}}
  ROOT cps = (f32[4], f32[4], u32[], u32[]) collective-permute-start(x, out, i, o), source_target_pairs={{0,1}}, slice_sizes={{2}}
})");
  EXPECT_EQ(Pairs(Find(*m, "e", "cp")), "1{}->{}");
  EXPECT_EQ(Pairs(Find(*m, "e", "plain")), "");
  EXPECT_EQ(Pairs(Find(*m, "e", "cps")), "1{}->{1}");
}

TEST(InPlacePairsTest, CustomCallOutputToOperandAliasing) {
  auto m = Parse(R"(HloModule m
ENTRY e {
  x = f32[4] parameter(0)
  y = (f32[2], f32[3]) parameter(1)
  ROOT cc = (f32[4], f32[3]) custom-call(x, y), custom_call_target="foo", output_to_operand_aliasing={{0}: (0, {}), {1}: (1, {1})}
})");
  EXPECT_EQ(Pairs(Find(*m, "e", "cc")), "0{}->{0} 1{1}->{1}");
}

// XLA's GetInPlaceInputOutputPairsTest.AsyncContextAliasing (alias_info_test.cc, added by
// 3c1e341809; at 183fa00cb5): an async-update's own output_to_operand_aliasing is its pairs,
// the start (no attribute) has none, and MayHaveInPlacePairs lets the update through.
TEST(InPlacePairsTest, AsyncUpdateContextAliasing) {
  auto m = Parse(R"(HloModule test
async_computation {
  p0 = f32[2,3] parameter(0)
  ROOT abs = f32[2,3] abs(p0)
}
ENTRY main {
  p0 = f32[2,3] parameter(0)
  start = ((), (), s32[]) call-start(), to_apply=async_computation
  update = ((f32[2,3]), f32[2,3], s32[]) async-update(start, p0), output_to_operand_aliasing={{2}: (0, {2})}
  plain = ((f32[2,3]), f32[2,3], s32[]) async-update(start, p0)
  ROOT done = f32[2,3] call-done(update)
})");
  EXPECT_EQ(Pairs(Find(*m, "main", "start")), "");
  EXPECT_EQ(Pairs(Find(*m, "main", "update")), "0{2}->{2}");
  EXPECT_EQ(Pairs(Find(*m, "main", "plain")), "");
  EXPECT_TRUE(MayHaveInPlacePairs(Opcode::kAsyncUpdate));
}

constexpr std::string_view kDusFusion = R"(HloModule m
fused {
  p0 = f32[8,2] parameter(0)
  PARAM_SIDE
  u = f32[1,2] parameter(1)
  i = s32[] parameter(2)
  z = s32[] constant(0)
  dus = f32[8,2] dynamic-update-slice(BUF, u, i, z)
  ROOT_SIDE
}
ENTRY e {
  a = f32[8,2] parameter(0)
  b = f32[1,2] parameter(1)
  c = s32[] parameter(2)
  ROOT f = FUSION_SHAPE fusion(a, b, c), kind=kLoop, calls=fused
})";

std::unique_ptr<Module> DusFusion(bool bitcast_param, bool bitcast_root) {
  std::string text(kDusFusion);
  auto replace = [&](std::string_view from, std::string_view to) {
    text.replace(text.find(from), from.size(), to);
  };
  replace("PARAM_SIDE", bitcast_param ? "pb = f32[8,2]{0,1} bitcast(p0)" : "");
  replace("BUF", bitcast_param ? "pb" : "p0");
  replace("ROOT_SIDE",
          bitcast_root ? "ROOT rb = f32[16] bitcast(dus)" : "ROOT t = (f32[8,2]) tuple(dus)");
  replace("FUSION_SHAPE", bitcast_root ? "f32[16]" : "(f32[8,2])");
  return Parse(text);
}

TEST(InPlacePairsTest, FusionWithDusRootThroughTuple) {
  auto m = DusFusion(false, false);
  EXPECT_EQ(Pairs(Find(*m, "e", "f")), "0{}->{0}");
}

TEST(InPlacePairsTest, FusionWithBitcastAtTheRoot) {
  auto m = DusFusion(false, true);
  EXPECT_EQ(Pairs(Find(*m, "e", "f")), "0{}->{}");
  EXPECT_EQ(Pairs(Find(*m, "e", "f"), /*bitcast_is_alias=*/false), "");
}

TEST(InPlacePairsTest, FusionWithBitcastAtTheParameter) {
  auto m = DusFusion(true, false);
  EXPECT_EQ(Pairs(Find(*m, "e", "f")), "0{}->{0}");
  EXPECT_EQ(Pairs(Find(*m, "e", "f"), false), "");
}

TEST(InPlacePairsTest, FusionWithBitcastsAtBothEnds) {
  auto m = DusFusion(true, true);
  EXPECT_EQ(Pairs(Find(*m, "e", "f")), "0{}->{}");
  EXPECT_EQ(Pairs(Find(*m, "e", "f"), false), "");
}

TEST(InPlacePairsTest, MultiOutputFusionWithSeveralDus) {
  auto m = Parse(R"(HloModule m
fused {
  p0 = f32[8] parameter(0)
  p1 = f32[8] parameter(1)
  u = f32[2] parameter(2)
  i = s32[] parameter(3)
  d0 = f32[8] dynamic-update-slice(p0, u, i)
  d1 = f32[8] dynamic-update-slice(p1, u, i)
  n = f32[2] negate(u)
  ROOT t = (f32[8], f32[2], f32[8]) tuple(d1, n, d0)
}
ENTRY e {
  a = f32[8] parameter(0)
  b = f32[8] parameter(1)
  c = f32[2] parameter(2)
  d = s32[] parameter(3)
  ROOT f = (f32[8], f32[2], f32[8]) fusion(a, b, c, d), kind=kLoop, calls=fused
})");
  EXPECT_EQ(Pairs(Find(*m, "e", "f")), "1{}->{0} 0{}->{2}");
}

TEST(InPlacePairsTest, NestedFusionPassesItsInPlaceOperandThrough) {
  auto m = Parse(R"(HloModule m
inner {
  ip = f32[8] parameter(0)
  iu = f32[2] parameter(1)
  ii = s32[] parameter(2)
  ROOT idus = f32[8] dynamic-update-slice(ip, iu, ii)
}
outer {
  op = f32[8] parameter(0)
  ou = f32[2] parameter(1)
  oi = s32[] parameter(2)
  ROOT nf = f32[8] fusion(op, ou, oi), kind=kLoop, calls=inner
}
ENTRY e {
  a = f32[8] parameter(0)
  b = f32[2] parameter(1)
  c = s32[] parameter(2)
  ROOT f = f32[8] fusion(a, b, c), kind=kLoop, calls=outer
})");
  EXPECT_EQ(Pairs(Find(*m, "outer", "nf")), "0{}->{}");
  EXPECT_EQ(Pairs(Find(*m, "e", "f")), "0{}->{}");
}

TEST(InPlacePairsTest, FusionAliasingAttributeIsAddedToDiscoveredPairs) {
  auto m = Parse(R"(HloModule m
fused {
  p0 = f32[4] parameter(0)
  ROOT n = f32[4] negate(p0)
}
ENTRY e {
  a = f32[4] parameter(0)
  ROOT f = f32[4] fusion(a), kind=kLoop, calls=fused, output_to_operand_aliasing={{}: (0, {})}
})");
  EXPECT_EQ(Pairs(Find(*m, "e", "f")), "0{}->{}");
}

TEST(InPlacePairsTest, CorpusDusBitcastFusionIsInPlaceOnOperandOne) {
  std::ifstream in(
      std::string(HLOSCOPE_CORPUS_DIR) +
      "/openxla_xla__xla_service_gpu_gpu_copy_insertion_test.cc__DUSBitcastNoCopy.hlo");
  ASSERT_TRUE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  auto m = Parse(text.str());
  ASSERT_NE(m, nullptr);
  const Instruction* fusion = Find(*m, "body", "fusion.549");
  EXPECT_EQ(Pairs(fusion, /*bitcast_is_alias=*/true), "1{}->{}");
  EXPECT_EQ(Pairs(fusion, /*bitcast_is_alias=*/false), "");
}

// Every opcode's instruction with four array operands: whenever it has pairs,
// MayHaveInPlacePairs must not have ruled it out.
TEST(InPlacePairsTest, MayHaveInPlacePairsCoversEveryOpcodeWithPairs) {
  auto m = Parse(R"(HloModule m
ENTRY e {
  a = f32[8] parameter(0)
  b = f32[8] parameter(1)
  c = f32[8] parameter(2)
  ROOT d = f32[8] parameter(3)
})");
  Computation* e = m->entry();
  const std::vector<Instruction*> operands(e->instructions().begin(), e->instructions().end());
  int with_pairs = 0;
  for (int k = 0; k < OpcodeCount(); ++k) {
    const auto opcode = static_cast<Opcode>(k);
    Instruction* i = m->CreateInstruction(opcode, operands[0]->shape_ptr(), "i", e);
    for (Instruction* o : operands) i->AppendOperand(o);
    if (GetInPlaceInputOutputPairs(*i).empty()) continue;
    ++with_pairs;
    EXPECT_TRUE(MayHaveInPlacePairs(opcode)) << OpcodeName(opcode);
  }
  // dynamic-update-slice, set-dimension-size, scatter, all-reduce-start, collective-permute,
  // ragged-all-to-all. (collective-permute-start is in place only with slice_sizes, as in XLA:
  // InPlaceCollectivePermuteWritesIntoOperandOne.)
  EXPECT_EQ(with_pairs, 6);
  EXPECT_FALSE(MayHaveInPlacePairs(Opcode::kAdd));
  EXPECT_TRUE(MayHaveInPlacePairs(Opcode::kFusion));
}

// GetInPlaceInputOutputPairs(fusion) in two halves, on every fusion above and in the curated
// corpus, with both bitcast options.
void CheckFusionHalves(const Module& m, int* fusions) {
  for (const Computation* c : m.computations()) {
    for (const Instruction* i : c->instructions()) {
      if (i->opcode() != Opcode::kFusion || i->fused_computation() == nullptr ||
          i->fused_computation()->root() == nullptr ||
          !SameTupleStructure(i->fused_computation()->root()->shape(), i->shape())) {
        continue;
      }
      ++*fusions;
      for (bool alias : {true, false}) {
        DataflowOptions options;
        options.bitcast_defines_value = !alias;
        EXPECT_EQ(
            FusionInPlacePairs(*i, FusedComputationInPlacePairs(*i->fused_computation(), options)),
            GetInPlaceInputOutputPairs(*i, options))
            << i->name();
      }
    }
  }
}

TEST(InPlacePairsTest, FusionPairsComeFromTheFusedComputationAndTheAttribute) {
  int fusions = 0;
  for (bool param : {false, true}) {
    for (bool root : {false, true}) CheckFusionHalves(*DusFusion(param, root), &fusions);
  }
  auto m = Parse(R"(HloModule m
fused {
  p0 = f32[8] parameter(0)
  p1 = f32[8] parameter(1)
  u = f32[2] parameter(2)
  i = s32[] parameter(3)
  d0 = f32[8] dynamic-update-slice(p0, u, i)
  ROOT t = (f32[8], f32[8]) tuple(d0, p1)
}
ENTRY e {
  a = f32[8] parameter(0)
  b = f32[8] parameter(1)
  c = f32[2] parameter(2)
  d = s32[] parameter(3)
  ROOT f = (f32[8], f32[8]) fusion(a, b, c, d), kind=kLoop, calls=fused,
    output_to_operand_aliasing={{1}: (1, {})}
})");
  const Instruction* f = Find(*m, "e", "f");
  EXPECT_EQ(FusedComputationInPlacePairs(*f->fused_computation()).size(), 1u);
  EXPECT_EQ(Pairs(f), "0{}->{0} 1{}->{1}");
  CheckFusionHalves(*m, &fusions);
  analysis_testing::ForEachCorpusModule(
      HLOSCOPE_CORPUS_DIR,
      [&](const std::string&, Module& corpus) { CheckFusionHalves(corpus, &fusions); });
  EXPECT_GE(fusions, 30);  // the 5 above and the corpus's 25
}

TEST(InPlacePairsTest, SameTupleStructureComparesOnlyTheTree) {
  auto m = Parse(R"(HloModule m
ENTRY e {
  a = f32[8]{0} parameter(0)
  b = s32[2,3] parameter(1)
  t1 = (f32[8], (s32[2,3], f32[8])) parameter(2)
  t2 = (s32[], (f32[8]{0}, pred[])) parameter(3)
  t3 = (s32[], f32[8]) parameter(4)
  ROOT t4 = (s32[], (f32[8], pred[]), f32[]) parameter(5)
})");
  auto shape = [&](std::string_view name) -> const Shape& { return Find(*m, "e", name)->shape(); };
  EXPECT_TRUE(SameTupleStructure(shape("a"), shape("b")));
  EXPECT_TRUE(SameTupleStructure(shape("t1"), shape("t2")));
  EXPECT_FALSE(SameTupleStructure(shape("a"), shape("t3")));
  EXPECT_FALSE(SameTupleStructure(shape("t1"), shape("t3")));
  EXPECT_FALSE(SameTupleStructure(shape("t2"), shape("t4")));
}

TEST(CanShareBufferTest, ElementwiseUserWithTheSameShape) {
  auto m = Parse(R"(HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  c = f32[4] constant({1,2,3,4})
  n = f32[4] negate(p)
  add = f32[4] add(n, c)
  wide = f32[4,4] broadcast(n), dimensions={0}
  ROOT t = (f32[4], f32[4,4]) tuple(add, wide)
})");
  const Instruction* n = Find(*m, "e", "n");
  EXPECT_TRUE(CanShareOperandBufferWithUser(*n, {}, *Find(*m, "e", "add"), {}));
  EXPECT_FALSE(CanShareOperandBufferWithUser(*n, {}, *Find(*m, "e", "wide"), {}));
  EXPECT_FALSE(CanShareOperandBufferWithUser(*Find(*m, "e", "c"), {}, *Find(*m, "e", "add"), {}));
}

// An array written without a layout has XLA's default one (its parser gives it {rank-1,...,0}):
// `f32[4]` and `f32[4]{0}` are one shape to share a buffer between, `f32[4,2]{0,1}` and
// `f32[4,2]` are not (BufferAssignmentTest.IntermediateValueWithMultiplePositionsCanBeReused,
// ROCm/xla 183fa00cb5, mixes the two spellings).
TEST(CanShareBufferTest, MissingLayoutIsTheDefaultLayout) {
  auto m = Parse(R"(HloModule m
ENTRY e {
  p = f32[4]{0} parameter(0)
  n = f32[4]{0} negate(p)
  a = f32[4] abs(n)
  q = f32[4,2]{0,1} parameter(1)
  nq = f32[4,2]{0,1} negate(q)
  aq = f32[4,2] abs(nq)
  rq = f32[4,2]{1,0} abs(nq)
  ROOT t = (f32[4], f32[4,2], f32[4,2]{1,0}) tuple(a, aq, rq)
})");
  EXPECT_TRUE(CanShareOperandBufferWithUser(*Find(*m, "e", "n"), {}, *Find(*m, "e", "a"), {}));
  EXPECT_FALSE(CanShareOperandBufferWithUser(*Find(*m, "e", "nq"), {}, *Find(*m, "e", "aq"), {}));
  EXPECT_FALSE(CanShareOperandBufferWithUser(*Find(*m, "e", "nq"), {}, *Find(*m, "e", "rq"), {}));
}

TEST(CanShareBufferTest, DynamicUpdateSliceOnlyOnItsBuffer) {
  auto m = Parse(R"(HloModule m
ENTRY e {
  buf = f32[8] parameter(0)
  upd = f32[8] parameter(1)
  i = s32[] parameter(2)
  ROOT dus = f32[8] dynamic-update-slice(buf, upd, i)
})");
  const Instruction* dus = Find(*m, "e", "dus");
  EXPECT_TRUE(CanShareOperandBufferWithUser(*Find(*m, "e", "buf"), {}, *dus, {}));
  EXPECT_FALSE(CanShareOperandBufferWithUser(*Find(*m, "e", "upd"), {}, *dus, {}));
}

TEST(CanShareBufferTest, WhileAndLoopFusion) {
  auto m = Parse(R"(HloModule m
fused {
  fp = f32[4] parameter(0)
  ROOT fe = f32[4] exponential(fp)
}
cond {
  cp = f32[4] parameter(0)
  ROOT f = pred[] constant(false)
}
body {
  ROOT bp = f32[4] parameter(0)
}
ENTRY e {
  x = f32[4] parameter(0)
  fu = f32[4] fusion(x), kind=kLoop, calls=fused
  ROOT w = f32[4] while(fu), condition=cond, body=body
})");
  EXPECT_TRUE(CanShareOperandBufferWithUser(*Find(*m, "e", "x"), {}, *Find(*m, "e", "fu"), {}));
  EXPECT_TRUE(CanShareOperandBufferWithUser(*Find(*m, "e", "fu"), {}, *Find(*m, "e", "w"), {}));
  // Not a user at all.
  EXPECT_FALSE(CanShareOperandBufferWithUser(*Find(*m, "e", "x"), {}, *Find(*m, "e", "w"), {}));
}

}  // namespace
}  // namespace hloscope
