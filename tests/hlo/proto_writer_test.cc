// hlo/proto_writer: each attribute's text lands in the HloInstructionProto field XLA keeps it
// in, and what has no field is an error that names the instruction and attribute.
#include "hlo/proto_writer.h"

#include <cmath>
#include <cstdint>
#include <memory>
#include <set>
#include <string>

#include "gtest/gtest.h"
#include "hlo/parser.h"
#include "hlo/proto_reader.h"
#include "hlo/proto_writer_internal.h"
#include "support/status_text.h"

namespace hloscope {
namespace {

namespace xp = ::hloscope::xla;

std::unique_ptr<Module> Parse(std::string_view text) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(text);
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? std::move(*m) : nullptr;
}

xp::HloModuleProto Write(std::string_view text) {
  std::unique_ptr<Module> m = Parse(text);
  if (m == nullptr) return {};
  absl::StatusOr<xp::HloModuleProto> p = ModuleToProto(*m);
  EXPECT_TRUE(p.ok()) << p.status();
  return p.ok() ? *p : xp::HloModuleProto();
}

std::string WriteError(std::string_view text) {
  std::unique_ptr<Module> m = Parse(text);
  if (m == nullptr) return "<parse failed>";
  absl::StatusOr<xp::HloModuleProto> p = ModuleToProto(*m);
  EXPECT_FALSE(p.ok());
  return p.ok() ? "" : StatusText(p.status());
}

const xp::HloInstructionProto* Find(const xp::HloModuleProto& p, std::string_view name) {
  for (const auto& c : p.computations()) {
    for (const auto& i : c.instructions()) {
      if (i.name() == name) return &i;
    }
  }
  ADD_FAILURE() << "no instruction " << name;
  static const xp::HloInstructionProto kEmpty;
  return &kEmpty;
}

const xp::HloComputationProto* FindComputation(const xp::HloModuleProto& p, std::string_view name) {
  for (const auto& c : p.computations()) {
    if (c.name() == name) return &c;
  }
  ADD_FAILURE() << "no computation " << name;
  static const xp::HloComputationProto kEmpty;
  return &kEmpty;
}

TEST(ProtoWriter, IdsOperandsCalledComputationsAndCalleesFirst) {
  // The entry is written first and calls computations written after it: the proto lists
  // callees before callers, and the while's called computations are body then condition.
  xp::HloModuleProto p = Write(R"(HloModule m
ENTRY main {
  p = s32[] parameter(0)
  t = (s32[]) tuple(p)
  ROOT w = (s32[]) while(t), condition=cond, body=body
}
body {
  a = (s32[]) parameter(0)
  g = s32[] get-tuple-element(a), index=0
  ROOT r = (s32[]) tuple(g)
}
cond {
  a = (s32[]) parameter(0)
  ROOT c = pred[] constant(false)
}
)");
  ASSERT_EQ(p.computations_size(), 3);
  EXPECT_EQ(p.computations(0).name(), "body");
  EXPECT_EQ(p.computations(1).name(), "cond");
  EXPECT_EQ(p.computations(2).name(), "main");
  EXPECT_EQ(p.entry_computation_name(), "main");
  EXPECT_EQ(p.entry_computation_id(), p.computations(2).id());
  const xp::HloInstructionProto* w = Find(p, "w");
  EXPECT_EQ(w->opcode(), "while");
  ASSERT_EQ(w->called_computation_ids_size(), 2);
  EXPECT_EQ(w->called_computation_ids(0), FindComputation(p, "body")->id());
  EXPECT_EQ(w->called_computation_ids(1), FindComputation(p, "cond")->id());
  ASSERT_EQ(w->operand_ids_size(), 1);
  EXPECT_EQ(w->operand_ids(0), Find(p, "t")->id());
  EXPECT_EQ(p.computations(2).root_id(), w->id());
  EXPECT_EQ(Find(p, "g")->tuple_index(), 0);
  EXPECT_EQ(Find(p, "p")->parameter_number(), 0);
  const xp::ProgramShapeProto& ps = p.computations(2).program_shape();
  ASSERT_EQ(ps.parameters_size(), 1);
  EXPECT_EQ(ps.parameters(0).element_type(), xp::S32);
  EXPECT_EQ(ps.parameter_names(0), "p");
  EXPECT_EQ(ps.result().element_type(), xp::TUPLE);
  // Ids are unique across instructions and computations.
  std::set<int64_t> ids;
  int n = 0;
  for (const auto& c : p.computations()) {
    ids.insert(c.id());
    ++n;
    for (const auto& i : c.instructions()) {
      ids.insert(i.id());
      ++n;
    }
  }
  EXPECT_EQ(static_cast<int>(ids.size()), n);
}

TEST(ProtoWriter, ControlPredecessorsFusionAndSchedule) {
  xp::HloModuleProto p = Write(R"(HloModule m, is_scheduled=true
fused {
  a = f32[4] parameter(0)
  ROOT n = f32[4] negate(a)
}
ENTRY main {
  p = f32[4] parameter(0)
  c = f32[4] copy(p)
  ROOT f = f32[4] fusion(p), kind=kLoop, calls=fused, control-predecessors={c}
}
)");
  const xp::HloInstructionProto* f = Find(p, "f");
  EXPECT_EQ(f->fusion_kind(), "kLoop");
  ASSERT_EQ(f->control_predecessor_ids_size(), 1);
  EXPECT_EQ(f->control_predecessor_ids(0), Find(p, "c")->id());
  EXPECT_TRUE(FindComputation(p, "fused")->is_fusion_computation());
  EXPECT_FALSE(FindComputation(p, "main")->is_fusion_computation());
  // The schedule: every computation but fusion bodies, in text order.
  const auto& seqs = p.schedule().sequences();
  ASSERT_EQ(seqs.size(), 1u);
  const auto& seq = seqs.at(FindComputation(p, "main")->id());
  ASSERT_EQ(seq.instruction_ids_size(), 3);
  EXPECT_EQ(seq.instruction_ids(0), Find(p, "p")->id());
  EXPECT_EQ(seq.instruction_ids(2), f->id());
}

TEST(ProtoWriter, ShapesWithLayoutsTilesMemorySpaceAndDynamicDims) {
  xp::HloModuleProto p = Write(R"(HloModule m
ENTRY main {
  p = bf16[16,256]{1,0:T(8,128)(2,1)S(1)} parameter(0)
  q = f32[<=4,?]{1,0} parameter(1)
  ROOT t = (bf16[16,256]{1,0:T(8,128)(2,1)S(1)}, f32[<=4,?]{1,0}) tuple(p, q)
}
)");
  const xp::ShapeProto& s = Find(p, "p")->shape();
  EXPECT_EQ(s.element_type(), xp::BF16);
  ASSERT_EQ(s.dimensions_size(), 2);
  EXPECT_EQ(s.dimensions(1), 256);
  ASSERT_EQ(s.layout().minor_to_major_size(), 2);
  EXPECT_EQ(s.layout().minor_to_major(0), 1);
  ASSERT_EQ(s.layout().tiles_size(), 2);
  EXPECT_EQ(s.layout().tiles(0).dimensions(0), 8);
  EXPECT_EQ(s.layout().tiles(0).dimensions(1), 128);
  EXPECT_EQ(s.layout().tiles(1).dimensions(0), 2);
  EXPECT_EQ(s.layout().memory_space(), 1);
  const xp::ShapeProto& d = Find(p, "q")->shape();
  ASSERT_EQ(d.is_dynamic_dimension_size(), 2);
  EXPECT_TRUE(d.is_dynamic_dimension(0));
  EXPECT_TRUE(d.is_dynamic_dimension(1));
  EXPECT_EQ(d.dimensions(0), 4);
  EXPECT_EQ(d.dimensions(1), INT64_MIN);  // `?`: unbounded, XLA's kUnboundedSize
  EXPECT_EQ(Find(p, "t")->shape().tuple_shapes_size(), 2);
}

TEST(ProtoWriter, LiteralsInXlasTypedFields) {
  xp::HloModuleProto p = Write(R"(HloModule m
ENTRY main {
  a = bf16[2] constant({1, -2.5})
  b = f16[1] constant({0.5})
  c = f8e4m3fn[2] constant({1, -448})
  d = s32[2,2]{0,1} constant({ { 1, 2 }, { 3, 4 } })
  e = pred[2] constant({true, false})
  f = c64[] constant((1.5, -2))
  g = (s32[], f32[]) constant((7, nan))
  h = u4[3] constant({0, 7, 15})
  i = s8[2] constant({-1, 127})
  j = u64[] constant(18446744073709551615)
  k = s32[2,2] constant(7)
  ROOT t = (bf16[2]) tuple(a)
}
)");
  EXPECT_EQ(Find(p, "a")->literal().bf16s(), std::string("\x80\x3f\x20\xc0", 4));
  EXPECT_EQ(Find(p, "b")->literal().f16s(), std::string("\x00\x38", 2));
  EXPECT_EQ(Find(p, "c")->literal().f8e4m3fns(), std::string("\x38\xfe", 2));
  // {0,1} is column-major: XLA's literal holds the elements in layout order.
  const xp::LiteralProto& d = Find(p, "d")->literal();
  ASSERT_EQ(d.s32s_size(), 4);
  EXPECT_EQ(d.s32s(0), 1);
  EXPECT_EQ(d.s32s(1), 3);
  EXPECT_EQ(d.s32s(2), 2);
  EXPECT_EQ(d.s32s(3), 4);
  EXPECT_EQ(d.shape().layout().minor_to_major(0), 0);
  const xp::LiteralProto& e = Find(p, "e")->literal();
  ASSERT_EQ(e.preds_size(), 2);
  EXPECT_TRUE(e.preds(0));
  EXPECT_FALSE(e.preds(1));
  const xp::LiteralProto& f = Find(p, "f")->literal();
  ASSERT_EQ(f.c64s_size(), 2);
  EXPECT_EQ(f.c64s(0), 1.5f);
  EXPECT_EQ(f.c64s(1), -2.0f);
  const xp::LiteralProto& g = Find(p, "g")->literal();
  ASSERT_EQ(g.tuple_literals_size(), 2);
  EXPECT_EQ(g.tuple_literals(0).s32s(0), 7);
  EXPECT_TRUE(std::isnan(g.tuple_literals(1).f32s(0)));
  EXPECT_EQ(Find(p, "h")->literal().u4s(), std::string("\x00\x07\x0f", 3));
  EXPECT_EQ(Find(p, "i")->literal().s8s(), std::string("\xff\x7f", 2));
  EXPECT_EQ(Find(p, "j")->literal().u64s(0), UINT64_MAX);
  // One value for a whole array: every element has it.
  const xp::LiteralProto& k = Find(p, "k")->literal();
  ASSERT_EQ(k.s32s_size(), 4);
  EXPECT_EQ(k.s32s(3), 7);
}

TEST(ProtoWriter, ShardingMetadataFrontendAttributesBackendConfig) {
  xp::HloModuleProto p = Write(R"(HloModule m
ENTRY main {
  a = f32[8,8] parameter(0), sharding={devices=[2,1,4]<=[4,2]T(1,0) last_tile_dim_replicate}
  b = f32[8,8] parameter(1), sharding={devices=[2,2]0,2,1,3}
  c = f32[8,8] add(a, b), metadata={op_type="add" op_name="jit(f)/add" source_file="/x/y.py" source_line=42}, frontend_attributes={_xla_stream="1",k="v"}
  d = f32[8,8] custom-call(c), custom_call_target="foo", backend_config="a\"b", sharding={maximal device=3}
  e = f32[8,8] custom-call(d), custom_call_target="bar", backend_config={"x":1}, literal=s32[2]{0} {1, 2}
  ROOT t = (f32[8,8], f32[8,8]) tuple(d, e), sharding={{replicated}, {manual}}
}
)");
  const xp::OpSharding& a = Find(p, "a")->sharding();
  EXPECT_EQ(a.type(), xp::OpSharding::OTHER);
  ASSERT_EQ(a.tile_assignment_dimensions_size(), 3);
  EXPECT_EQ(a.tile_assignment_dimensions(2), 4);
  ASSERT_EQ(a.iota_reshape_dims_size(), 2);
  EXPECT_EQ(a.iota_reshape_dims(0), 4);
  ASSERT_EQ(a.iota_transpose_perm_size(), 2);
  EXPECT_EQ(a.iota_transpose_perm(0), 1);
  EXPECT_TRUE(a.replicate_on_last_tile_dim());
  const xp::OpSharding& b = Find(p, "b")->sharding();
  ASSERT_EQ(b.tile_assignment_devices_size(), 4);
  EXPECT_EQ(b.tile_assignment_devices(1), 2);
  EXPECT_EQ(b.iota_reshape_dims_size(), 0);
  const xp::HloInstructionProto* c = Find(p, "c");
  EXPECT_EQ(c->metadata().op_type(), "add");
  EXPECT_EQ(c->metadata().op_name(), "jit(f)/add");
  EXPECT_EQ(c->metadata().source_file(), "/x/y.py");
  EXPECT_EQ(c->metadata().source_line(), 42);
  EXPECT_EQ(c->frontend_attributes().map().at("_xla_stream"), "1");
  EXPECT_EQ(c->frontend_attributes().map().at("k"), "v");
  const xp::HloInstructionProto* d = Find(p, "d");
  EXPECT_EQ(d->custom_call_target(), "foo");
  EXPECT_EQ(d->backend_config(), "a\"b");
  EXPECT_EQ(d->sharding().type(), xp::OpSharding::MAXIMAL);
  EXPECT_EQ(d->sharding().tile_assignment_devices(0), 3);
  EXPECT_EQ(Find(p, "e")->backend_config(), "{\"x\":1}");
  ASSERT_EQ(Find(p, "e")->literal().s32s_size(), 2);
  EXPECT_EQ(Find(p, "e")->literal().s32s(1), 2);
  const xp::OpSharding& t = Find(p, "t")->sharding();
  EXPECT_EQ(t.type(), xp::OpSharding::TUPLE);
  ASSERT_EQ(t.tuple_shardings_size(), 2);
  EXPECT_EQ(t.tuple_shardings(1).type(), xp::OpSharding::MANUAL);
}

TEST(ProtoWriter, DimensionNumbersWindowsAndCollectives) {
  xp::HloModuleProto p = Write(R"(HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY main {
  a = f32[2,3,4] parameter(0)
  b = f32[2,4,5] parameter(1)
  dot = f32[2,3,5] dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}, operand_precision={highest,default}
  img = f32[1,8,8,3] parameter(2)
  k = f32[3,3,3,16] parameter(3)
  conv = f32[1,4,4,16] convolution(img, k), window={size=3x3 stride=2x2 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
  ar = f32[2,3,5] all-reduce(dot), replica_groups=[2,4]<=[8], channel_id=3, use_global_device_ids=true, to_apply=add
  ag = f32[2,3,5] all-reduce(ar), replica_groups={{0,1},{2,3}}, to_apply=add
  cp = f32[2,3,5] collective-permute(ag), source_target_pairs={{0,1},{1,0}}
  sl = f32[1,3,2] slice(cp), slice={[0:1], [0:3], [1:5:2]}
  ROOT t = (f32[1,3,2], f32[1,4,4,16]) tuple(sl, conv)
}
)");
  const xp::DotDimensionNumbers& dn = Find(p, "dot")->dot_dimension_numbers();
  ASSERT_EQ(dn.lhs_batch_dimensions_size(), 1);
  EXPECT_EQ(dn.lhs_contracting_dimensions(0), 2);
  EXPECT_EQ(dn.rhs_contracting_dimensions(0), 1);
  ASSERT_EQ(Find(p, "dot")->precision_config().operand_precision_size(), 2);
  EXPECT_EQ(Find(p, "dot")->precision_config().operand_precision(0), xp::PrecisionConfig::HIGHEST);
  const xp::HloInstructionProto* conv = Find(p, "conv");
  ASSERT_EQ(conv->window().dimensions_size(), 2);
  EXPECT_EQ(conv->window().dimensions(0).size(), 3);
  EXPECT_EQ(conv->window().dimensions(0).stride(), 2);
  EXPECT_EQ(conv->window().dimensions(1).padding_high(), 1);
  EXPECT_EQ(conv->window().dimensions(1).base_dilation(), 1);
  const xp::ConvolutionDimensionNumbers& cd = conv->convolution_dimension_numbers();
  EXPECT_EQ(cd.input_batch_dimension(), 0);
  EXPECT_EQ(cd.input_feature_dimension(), 3);
  EXPECT_EQ(cd.kernel_input_feature_dimension(), 2);
  EXPECT_EQ(cd.kernel_output_feature_dimension(), 3);
  ASSERT_EQ(cd.output_spatial_dimensions_size(), 2);
  const xp::HloInstructionProto* ar = Find(p, "ar");
  EXPECT_EQ(ar->channel_id(), 3);
  EXPECT_TRUE(ar->use_global_device_ids());
  const auto& iota = ar->collective_device_list().iota_replica_group_list();
  EXPECT_EQ(iota.num_replica_groups(), 2);
  EXPECT_EQ(iota.num_devices_per_group(), 4);
  ASSERT_EQ(iota.iota_reshape_dims_size(), 1);
  EXPECT_EQ(iota.iota_reshape_dims(0), 8);
  ASSERT_EQ(ar->called_computation_ids_size(), 1);
  EXPECT_EQ(ar->called_computation_ids(0), FindComputation(p, "add")->id());
  const xp::HloInstructionProto* ag = Find(p, "ag");
  ASSERT_EQ(ag->replica_groups_size(), 2);
  EXPECT_EQ(ag->replica_groups(1).replica_ids(0), 2);
  const xp::HloInstructionProto* cp = Find(p, "cp");
  ASSERT_EQ(cp->source_target_pairs_size(), 2);
  EXPECT_EQ(cp->source_target_pairs(0).target(), 1);
  const xp::HloInstructionProto* sl = Find(p, "sl");
  ASSERT_EQ(sl->slice_dimensions_size(), 3);
  EXPECT_EQ(sl->slice_dimensions(2).start(), 1);
  EXPECT_EQ(sl->slice_dimensions(2).limit(), 5);
  EXPECT_EQ(sl->slice_dimensions(2).stride(), 2);
}

TEST(ProtoWriter, ModuleHeader) {
  xp::HloModuleProto p = Write(
      R"(HloModule m, input_output_alias={ {0}: (0, {}, may-alias), {1}: (1, {1}, must-alias) }, buffer_donor={ (2, {}) }, entry_computation_layout={(f32[4]{0}, (f32[4]{0}, s32[]), f32[2]{0})->(f32[4]{0}, s32[])}
ENTRY main {
  a = f32[4] parameter(0)
  b = (f32[4], s32[]) parameter(1)
  c = f32[2] parameter(2)
  g = s32[] get-tuple-element(b), index=1
  ROOT t = (f32[4], s32[]) tuple(a, g)
}
)");
  ASSERT_EQ(p.input_output_alias().entries_size(), 2);
  const auto& e0 = p.input_output_alias().entries(0);
  EXPECT_EQ(e0.output_shape_index(0), 0);
  EXPECT_EQ(e0.parameter_number(), 0);
  EXPECT_EQ(e0.parameter_shape_index_size(), 0);
  EXPECT_EQ(e0.kind(), xp::MAY_ALIAS);
  const auto& e1 = p.input_output_alias().entries(1);
  EXPECT_EQ(e1.parameter_shape_index(0), 1);
  EXPECT_EQ(e1.kind(), xp::MUST_ALIAS);
  ASSERT_EQ(p.buffer_donor().entries_size(), 1);
  EXPECT_EQ(p.buffer_donor().entries(0).parameter_number(), 2);
  const xp::ProgramShapeProto& hps = p.host_program_shape();
  ASSERT_EQ(hps.parameters_size(), 3);
  EXPECT_EQ(hps.parameters(1).tuple_shapes_size(), 2);
  EXPECT_EQ(hps.result().tuple_shapes(1).element_type(), xp::S32);
  EXPECT_FALSE(p.has_schedule());
}

// The header attributes XLA keeps in HloModuleConfig go to HloModuleProtoWithConfig's config,
// and the module beside it is the same as without them.
TEST(ProtoWriter, ConfigHeaderAttributesGoToTheConfig) {
  std::unique_ptr<Module> m = Parse(
      R"(HloModule m, allow_spmd_sharding_propagation_to_parameters={true,false}, allow_spmd_sharding_propagation_to_output=true, replica_count=2, num_partitions=4
ENTRY main {
  a = f32[4] parameter(0)
  ROOT b = f32[4] parameter(1)
}
)");
  ASSERT_NE(m, nullptr);
  absl::StatusOr<xp::HloModuleProtoWithConfig> p = ModuleToProtoWithConfig(*m);
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_TRUE(p->has_config());
  const xp::HloModuleConfigProto& c = p->config();
  EXPECT_EQ(c.replica_count(), 2);
  EXPECT_EQ(c.num_partitions(), 4);
  ASSERT_EQ(c.allow_spmd_sharding_propagation_to_parameters_size(), 2);
  EXPECT_TRUE(c.allow_spmd_sharding_propagation_to_parameters(0));
  EXPECT_FALSE(c.allow_spmd_sharding_propagation_to_parameters(1));
  ASSERT_EQ(c.allow_spmd_sharding_propagation_to_output_size(), 1);
  EXPECT_TRUE(c.allow_spmd_sharding_propagation_to_output(0));
  EXPECT_EQ(p->hlo_module().name(), "m");
  // Without config attributes there is no config.
  std::unique_ptr<Module> plain =
      Parse("HloModule m\nENTRY main {\n  ROOT a = f32[4] parameter(0)\n}\n");
  ASSERT_NE(plain, nullptr);
  absl::StatusOr<xp::HloModuleProtoWithConfig> q = ModuleToProtoWithConfig(*plain);
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_FALSE(q->has_config());
}

TEST(ProtoWriter, WhatHasNoFieldIsAnErrorNamingInstructionAndAttribute) {
  EXPECT_EQ(WriteError(R"(HloModule m
ENTRY main {
  a = f32[4] parameter(0)
  ROOT n = f32[4] negate(a), my_attribute=7
}
)"),
            "computation 'main', instruction 'n': attribute 'my_attribute': HloInstructionProto "
            "has no field this writer maps 'my_attribute' of negate to");
  EXPECT_EQ(WriteError(R"(HloModule m, my_config=4
ENTRY main {
  ROOT a = f32[4] parameter(0)
}
)"),
            "module header attribute 'my_config': neither HloModuleProto nor the config beside "
            "it (replica_count, num_partitions, allow_spmd_sharding_propagation_to_parameters / "
            "_to_output) has a field for it");
  EXPECT_EQ(WriteError(R"(HloModule m, num_partitions=0
ENTRY main {
  ROOT a = f32[4] parameter(0)
}
)"),
            "module header attribute 'num_partitions': expected a positive integer, found '0'");
  EXPECT_EQ(WriteError(R"(HloModule m, allow_spmd_sharding_propagation_to_output={true,maybe}
ENTRY main {
  ROOT a = f32[4] parameter(0)
}
)"),
            "module header attribute 'allow_spmd_sharding_propagation_to_output': expected true "
            "or false, found 'maybe'");
  EXPECT_EQ(WriteError(R"(HloModule m
ENTRY main {
  ROOT c = f32[4] constant({...})
}
)"),
            "computation 'main', instruction 'c': literal: the literal is elided ('...'): its "
            "values are not in the text (at offset 1)");
  EXPECT_EQ(WriteError(R"(HloModule m
ENTRY main {
  ROOT c = f32[100000,100000] constant(0)
}
)"),
            "computation 'main', instruction 'c': literal: one value for an array of "
            "10000000000 elements: a LiteralProto holds every element, and more than 67108864 "
            "are not written (at offset 0)");
  EXPECT_EQ(WriteError(R"(HloModule m
ENTRY main {
  ROOT c = f32[4] parameter(0), sharding={devices=[2]0,1 bogus}
}
)"),
            "computation 'main', instruction 'c': attribute 'sharding': unknown sharding part "
            "'bogus'");
  EXPECT_EQ(WriteError(R"(HloModule m
ENTRY main {
  ROOT c = f32[4] parameter(0), metadata={op_name="x" flavour="y"}
}
)"),
            "computation 'main', instruction 'c': attribute 'metadata': metadata 'flavour': "
            "OpMetadata has no field for it");
}

TEST(ProtoWriter, DefaultsXlasParserGivesAndItsProtosSpellOut) {
  xp::HloModuleProto p =
      Write(R"(HloModule m, entry_computation_layout={(f32[2,2]{1,0}, s32[])->pred[]}
ENTRY main {
  a = f32[2,2] parameter(0)
  i = s32[] parameter(1)
  d = f32[2,2] dot(a, a), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  cc = f32[2,2] custom-call(d), custom_call_target="x"
  c1 = pred[] compare(i, i), direction=LT
  ROOT c2 = pred[] compare(i, i), direction=LT, type=UNSIGNED
}
)");
  const xp::HloInstructionProto* d = Find(p, "d");
  ASSERT_EQ(d->precision_config().operand_precision_size(), 2);
  EXPECT_EQ(d->precision_config().operand_precision(1), xp::PrecisionConfig::DEFAULT);
  const xp::HloInstructionProto* cc = Find(p, "cc");
  EXPECT_EQ(cc->custom_call_api_version(), xp::API_VERSION_ORIGINAL);
  EXPECT_EQ(cc->feature_group_count(), 1);
  EXPECT_EQ(cc->batch_group_count(), 1);
  EXPECT_EQ(Find(p, "c1")->comparison_type(), "SIGNED");
  EXPECT_EQ(Find(p, "c2")->comparison_type(), "UNSIGNED");
  // A scalar has XLA's empty layout; the host program's parameters are named p0, p1, ...
  EXPECT_TRUE(Find(p, "i")->shape().has_layout());
  EXPECT_EQ(Find(p, "i")->shape().layout().minor_to_major_size(), 0);
  ASSERT_EQ(p.host_program_shape().parameter_names_size(), 2);
  EXPECT_EQ(p.host_program_shape().parameter_names(1), "p1");
}

TEST(ProtoWriter, AsyncShortFormGetsItsComputation) {
  // `reduce-scatter-start(...)` is XLA's async-start calling a computation of one parameter per
  // operand and the reduce-scatter on them; the start keeps its own attributes.
  xp::HloModuleProto p = Write(R"(HloModule m, is_scheduled=true
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY main {
  a = f32[8] parameter(0)
  rs = ((f32[8]), f32[4]) reduce-scatter-start(a), channel_id=3, replica_groups={{0,1}}, dimensions={0}, to_apply=add, backend_config={"x":1}, metadata={op_name="rs"}
  ROOT d = f32[4] reduce-scatter-done(rs)
}
)");
  ASSERT_EQ(p.computations_size(), 3);
  EXPECT_EQ(p.computations(0).name(), "add");
  const xp::HloComputationProto& wrapped = p.computations(1);
  EXPECT_EQ(wrapped.name(), "async_computation");
  ASSERT_EQ(wrapped.instructions_size(), 2);
  const xp::HloInstructionProto& param = wrapped.instructions(0);
  EXPECT_EQ(param.opcode(), "parameter");
  EXPECT_EQ(param.shape().dimensions(0), 8);
  const xp::HloInstructionProto& root = wrapped.instructions(1);
  EXPECT_EQ(wrapped.root_id(), root.id());
  EXPECT_EQ(root.opcode(), "reduce-scatter");
  EXPECT_EQ(root.shape().dimensions(0), 4);
  ASSERT_EQ(root.operand_ids_size(), 1);
  EXPECT_EQ(root.operand_ids(0), param.id());
  EXPECT_EQ(root.channel_id(), 3);
  ASSERT_EQ(root.dimensions_size(), 1);
  ASSERT_EQ(root.replica_groups_size(), 1);
  ASSERT_EQ(root.called_computation_ids_size(), 1);
  EXPECT_EQ(root.called_computation_ids(0), p.computations(0).id());
  EXPECT_FALSE(root.has_metadata());
  const xp::HloInstructionProto* rs = Find(p, "rs");
  EXPECT_EQ(rs->opcode(), "async-start");
  ASSERT_EQ(rs->called_computation_ids_size(), 1);
  EXPECT_EQ(rs->called_computation_ids(0), wrapped.id());
  EXPECT_EQ(rs->backend_config(), "{\"x\":1}");
  EXPECT_EQ(rs->metadata().op_name(), "rs");
  EXPECT_EQ(rs->channel_id(), 0);
  const xp::HloInstructionProto* d = Find(p, "d");
  EXPECT_EQ(d->opcode(), "async-done");
  EXPECT_EQ(d->called_computation_ids_size(), 0);
  // The schedule covers the made computation too.
  EXPECT_EQ(p.schedule().sequences().at(wrapped.id()).instruction_ids_size(), 2);
}

TEST(ProtoWriter, ExecutionThreads) {
  xp::HloModuleProto p = Write(R"(HloModule m
side {
  x = f32[4] parameter(0)
  ROOT n = f32[4] negate(x)
}, execution_thread="parallel"
ENTRY main {
  a = f32[4] parameter(0)
  s = ((f32[4]), f32[4], s32[]) async-start(a), async_execution_thread="parallel", calls=side
  ROOT d = f32[4] async-done(s)
}
)");
  EXPECT_EQ(FindComputation(p, "side")->execution_thread(), "parallel");
  EXPECT_EQ(FindComputation(p, "main")->execution_thread(), "");
  const xp::HloInstructionProto* s = Find(p, "s");
  EXPECT_EQ(s->async_execution_thread(), "parallel");
  ASSERT_EQ(s->called_computation_ids_size(), 1);
  EXPECT_EQ(s->called_computation_ids(0), FindComputation(p, "side")->id());
}

TEST(ProtoWriter, OperandsBeforeUsersWhenTheTextUsesANameFirst) {
  // `n` uses `b` before the text defines it; XLA's loader wants operands first.
  xp::HloModuleProto p = Write(R"(HloModule m
ENTRY main {
  a = f32[4] parameter(0)
  ROOT n = f32[4] add(a, b)
  b = f32[4] negate(a)
}
)");
  const auto& instrs = p.computations(0).instructions();
  ASSERT_EQ(instrs.size(), 3);
  EXPECT_EQ(instrs[0].name(), "a");
  EXPECT_EQ(instrs[1].name(), "b");
  EXPECT_EQ(instrs[2].name(), "n");
}

TEST(ProtoWriter, DomainShardings) {
  xp::HloModuleProto p = Write(R"(HloModule m
ENTRY main {
  a = f32[4] parameter(0), sharding={maximal device=0}
  ROOT d = f32[4] domain(a), domain={kind="sharding", entry={}, exit={maximal device=1}}
}
)");
  const xp::HloInstructionProto* d = Find(p, "d");
  EXPECT_FALSE(d->has_domain_entry_sharding());
  EXPECT_EQ(d->domain_exit_sharding().tile_assignment_devices(0), 1);
}

TEST(ProtoWriter, OriginalValueStatisticsAndResultAccuracy) {
  xp::HloModuleProto p = Write(R"(HloModule m
ENTRY main {
  a = f32[4] parameter(0), origin={{"x"}}, statistics={visualizing_index=1,stat-0=55.5,stat-1=44.4}
  e = f32[4] exponential(a), result_accuracy={tolerance={atol=0.5,rtol=0,ulps=2}}
  n = f32[4] negate(e), result_accuracy={mode=highest}
  ROOT t = ((f32[4], f32[4]), f32[4]) tuple(a, n, e), origin={(({"t0" {1}}, {}), {"v3"})}
}
)");
  const xp::StatisticsViz& viz = Find(p, "a")->statistics_viz();
  EXPECT_EQ(viz.stat_index_to_visualize(), 1);
  ASSERT_EQ(viz.statistics_size(), 2);
  EXPECT_EQ(viz.statistics(1).stat_name(), "stat-1");
  EXPECT_EQ(viz.statistics(1).stat_val(), 44.4);
  const xp::OriginalValueProto& a = Find(p, "a")->original_value();
  ASSERT_EQ(a.elements_size(), 1);
  EXPECT_EQ(a.elements(0).shape_index_size(), 0);
  EXPECT_EQ(a.elements(0).original_array().instruction_name(), "x");
  const xp::OriginalValueProto& t = Find(p, "t")->original_value();
  ASSERT_EQ(t.elements_size(), 2);  // the empty leaf {} has no original array
  ASSERT_EQ(t.elements(0).shape_index_size(), 2);
  EXPECT_EQ(t.elements(0).shape_index(1), 0);
  EXPECT_EQ(t.elements(0).original_array().instruction_name(), "t0");
  ASSERT_EQ(t.elements(0).original_array().shape_index_size(), 1);
  EXPECT_EQ(t.elements(0).original_array().shape_index(0), 1);
  EXPECT_EQ(t.elements(1).shape_index(0), 1);
  EXPECT_EQ(t.elements(1).original_array().instruction_name(), "v3");
  const xp::ResultAccuracy& e = Find(p, "e")->result_accuracy();
  EXPECT_EQ(e.tolerance().atol(), 0.5);
  EXPECT_EQ(e.tolerance().ulps(), 2);
  EXPECT_EQ(Find(p, "n")->result_accuracy().mode(), xp::ResultAccuracy::HIGHEST);
  EXPECT_EQ(WriteError(R"(HloModule m
ENTRY main {
  ROOT a = f32[4] parameter(0), result_accuracy={mode=sloppy}
}
)"),
            "computation 'main', instruction 'a': attribute 'result_accuracy': unknown value "
            "'sloppy'");
  const std::string deep = std::string(100, '(') + "{\"x\"}" + std::string(100, ')');
  EXPECT_EQ(WriteError("HloModule m\nENTRY main {\n  ROOT a = f32[4] parameter(0), origin={" +
                       deep + "}\n}\n"),
            "computation 'main', instruction 'a': attribute 'origin': origin nested more than 64 "
            "tuples deep");
}

TEST(ProtoWriter, StackFrameTables) {
  xp::HloModuleProto p = Write(R"(HloModule m

FileNames
1 "a.py"
2 "b.py"

FunctionNames
1 "f"

FileLocations
1 {file_name_id=2 function_name_id=1 line=7 column=3}

StackFrames
1 {file_location_id=1 parent_frame_id=0}

ENTRY main {
  ROOT a = f32[4] parameter(0), metadata={op_name="x" stack_frame_id=1}
}
)");
  const xp::StackFrameIndexProto& s = p.stack_frame_index();
  ASSERT_EQ(s.file_names_size(), 2);
  EXPECT_EQ(s.file_names(1), "b.py");
  ASSERT_EQ(s.function_names_size(), 1);
  ASSERT_EQ(s.file_locations_size(), 1);
  EXPECT_EQ(s.file_locations(0).file_name_id(), 2);
  EXPECT_EQ(s.file_locations(0).line(), 7);
  EXPECT_EQ(s.file_locations(0).column(), 3);
  ASSERT_EQ(s.stack_frames_size(), 1);
  EXPECT_EQ(s.stack_frames(0).file_location_id(), 1);
  EXPECT_EQ(Find(p, "a")->metadata().stack_frame_id(), 1);
  // The parser refuses a key the proto has no field for; tables set by other means still get
  // the writer's error.
  std::unique_ptr<Module> m = Parse(R"(HloModule m
ENTRY main {
  ROOT a = f32[4] parameter(0)
}
)");
  ASSERT_NE(m, nullptr);
  m->set_stack_frame_tables(
      "FileNames\n1 \"a.py\"\n\nFileLocations\n1 {file_name_id=1 function_name_id=1 line=7 "
      "end_row=9}");
  absl::StatusOr<xp::HloModuleProto> bad = ModuleToProto(*m);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(StatusText(bad.status()),
            "line 5 of the stack frame tables: StackFrameIndexProto has no field for 'end_row': "
            "'1 {file_name_id=1 function_name_id=1 line=7 end_row=9}'");
}

TEST(ProtoWriter, StackFrameTablesAsCurrentXlaPrintsThem) {
  // end_line and end_column are fields 5 and 6; parent_frame_id in the text is the proto's
  // value plus one (XLA's printer adds it: a root frame reads parent_frame_id=1).
  xp::HloModuleProto p = Write(R"(HloModule m

FileNames
1 "a.py"

FunctionNames
1 "f"

FileLocations
1 {file_name_id=1 function_name_id=1 line=7 end_line=9 column=3 end_column=12}

StackFrames
1 {file_location_id=1 parent_frame_id=1}
2 {file_location_id=1 parent_frame_id=2}

ENTRY main {
  ROOT a = f32[4] parameter(0), metadata={op_name="x" stack_frame_id=2}
}
)");
  const xp::StackFrameIndexProto& s = p.stack_frame_index();
  ASSERT_EQ(s.file_locations_size(), 1);
  EXPECT_EQ(s.file_locations(0).end_line(), 9);
  EXPECT_EQ(s.file_locations(0).end_column(), 12);
  ASSERT_EQ(s.stack_frames_size(), 2);
  EXPECT_EQ(s.stack_frames(0).parent_frame_id(), 0);
  EXPECT_EQ(s.stack_frames(1).parent_frame_id(), 1);
}

TEST(ProtoWriter, BinaryAndTextFormatsParseBack) {
  std::unique_ptr<Module> m = Parse(R"(HloModule m
ENTRY main {
  ROOT a = f32[4] parameter(0)
}
)");
  ASSERT_NE(m, nullptr);
  absl::StatusOr<std::string> bin = WriteModuleProto(*m, ProtoFormat::kBinary);
  ASSERT_TRUE(bin.ok()) << bin.status();
  xp::HloModuleProto back;
  ASSERT_TRUE(back.ParseFromString(*bin));
  EXPECT_EQ(back.name(), "m");
  absl::StatusOr<std::string> text = WriteModuleProto(*m, ProtoFormat::kText);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_NE(text->find("name: \"m\""), std::string::npos) << *text;
}

// Text -> proto -> text through the reader: the attributes the corpus round trip found the
// reader dropping (tests/corpus/proto_roundtrip_expectations.tsv) come back as XLA prints them.
std::string ReadBack(std::string_view text) {
  xp::HloModuleProto p = Write(text);
  std::string bytes;
  EXPECT_TRUE(p.SerializeToString(&bytes));
  absl::StatusOr<std::string> back = ProtoToHloText(bytes, InputFormat::kBinaryProto, "m.pb");
  EXPECT_TRUE(back.ok()) << back.status();
  return back.ok() ? *back : "";
}

TEST(ProtoReader, KeepsWhatTheRoundTripLost) {
  const std::string back = ReadBack(R"(HloModule m
ENTRY main {
  p0 = f32[10,20] parameter(0), origin={{"p0"}}
  n = s32[] parameter(1)
  t = (f32[10,20], s32[]) tuple(p0, n), origin={({"a"}, {"b" {1}})}
  s = f32[10,<=20] set-dimension-size(p0, n), dimensions={1}
  g = s32[] get-dimension-size(p0), dimensions={0}
  cc = f32[10,20] custom-call(p0), custom_call_target="x", api_version=API_VERSION_UNSPECIFIED
  dom = f32[10,20] domain(p0), domain={kind="sharding", entry={maximal device=0}, exit={maximal device=1}}
  h = f16[] constant(0.2)
  b = bf16[] constant(1e-12)
  tok = token[] after-all()
  r = (f32[2], u32[], token[]) recv(tok), channel_id=0
  ROOT out = (f32[10,20], s32[], f32[10,20]) tuple(p0, g, dom)
}
)");
  EXPECT_NE(back.find("p0 = f32[10,20] parameter(0), origin={{\"p0\"}}"), std::string::npos)
      << back;
  EXPECT_NE(back.find("tuple(p0, n), origin={({\"a\"}, {\"b\" {1}})}"), std::string::npos) << back;
  EXPECT_NE(back.find("set-dimension-size(p0, n), dimensions={1}"), std::string::npos) << back;
  EXPECT_NE(back.find("get-dimension-size(p0), dimensions={0}"), std::string::npos) << back;
  EXPECT_NE(back.find("api_version=API_VERSION_UNSPECIFIED"), std::string::npos) << back;
  EXPECT_NE(back.find("domain(p0), domain={kind=\"sharding\", entry={maximal device=0}, "
                      "exit={maximal device=1}}"),
            std::string::npos)
      << back;
  // XLA prints 16-bit floats with the type's max_digits10 significant digits (f16 5, bf16 4).
  EXPECT_NE(back.find("h = f16[] constant(0.19995)"), std::string::npos) << back;
  EXPECT_NE(back.find("b = bf16[] constant(1.002e-12)"), std::string::npos) << back;
  EXPECT_NE(back.find("recv(tok), channel_id=0"), std::string::npos) << back;
}

TEST(ProtoReader, KeepsScaledDotPermuteSliceSizesAndAsyncAliasing) {
  const std::string back = ReadBack(R"(HloModule m
async_computation {
  ap = f32[8] parameter(0)
  ROOT neg = f32[8] negate(ap)
}

ENTRY main {
  a = f32[4,8] parameter(0)
  b = f32[8,2] parameter(1)
  as = f32[4,1] parameter(2)
  bs = f32[1,2] parameter(3)
  sd = f32[4,2] scaled-dot(a, b, as, bs), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  p0 = f32[128,32] parameter(4)
  p1 = f32[128,128] parameter(5)
  p2 = (s32[], s32[]) parameter(6)
  p3 = (s32[], s32[]) parameter(7)
  cp = f32[128,128] collective-permute(p0, p1, p2, p3), source_target_pairs={{0,1}}, slice_sizes={{128,32}}
  x = f32[8] parameter(8)
  start = ((f32[8]), f32[8], u32[]) async-start(x), output_to_operand_aliasing={{1}: (0, {})}, calls=async_computation
  done = f32[8] async-done(start)
  ROOT out = (f32[4,2], f32[128,128], f32[8]) tuple(sd, cp, done)
}
)");
  EXPECT_NE(back.find("scaled-dot(a, b, as, bs), lhs_contracting_dims={1}, "
                      "rhs_contracting_dims={0}"),
            std::string::npos)
      << back;
  EXPECT_NE(back.find("source_target_pairs={{0,1}}, slice_sizes={{128,32}}"), std::string::npos)
      << back;
  EXPECT_NE(back.find("output_to_operand_aliasing={{1}: (0, {})}"), std::string::npos) << back;
}

}  // namespace
}  // namespace hloscope
