// The proto reader (hlo/proto_reader.h): the real XLA dumps of the corpus load, verify and
// print with what their protos hold; hand-made protos cover every attribute form and every
// error path with its exact message.
#include "hlo/proto_reader.h"

#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "google/protobuf/text_format.h"
#include "hlo/computation.h"
#include "hlo/instruction.h"
#include "hlo/module.h"
#include "hlo/printer.h"
#include "hlo/verifier.h"
#include "hlo/xla_hlo.pb.h"
#include "support/status_text.h"

namespace hloscope {
namespace {

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

const char* const kDumps[] = {
    "NVIDIA_JAX-Toolbox__maxtext_fsdp4__module_0003.jit__unnamed_wrapped_function_.sm_9.0_gpu_"
    "after_optimizations.hlo.pb",
    "NVIDIA_JAX-Toolbox__maxtext_fsdp4__module_0016.jit_train_step.sm_9.0_gpu_after_"
    "optimizations.hlo.pb",
    "NVIDIA_JAX-Toolbox__pax_fsdp4_proc0__module_0040.pjit__wrapped_step_fn.sm_8.0_gpu_after_"
    "optimizations.hlo.pb",
};

std::string DumpPath(const char* name) {
  return std::string(HLOSCOPE_CORPUS_DIR) + "/xla_dumps/" + name;
}

const Instruction* FindInstruction(const Module& module, std::string_view name) {
  for (const Computation* c : module.computations()) {
    for (const Instruction* i : c->instructions()) {
      if (i->name() == name) return i;
    }
  }
  return nullptr;
}

std::string_view ModuleAttr(const Module& module, std::string_view key) {
  for (const ModuleAttribute& a : module.attributes()) {
    if (a.key == key) return a.value;
  }
  return {};
}

class CorpusDumpTest : public ::testing::TestWithParam<const char*> {};

TEST_P(CorpusDumpTest, LoadsVerifiesAndKeepsWhatTheProtoHolds) {
  const std::string path = DumpPath(GetParam());
  const std::string bytes = ReadBytes(path);
  ASSERT_FALSE(bytes.empty()) << path;
  EXPECT_EQ(DetectInputFormat(path, bytes), InputFormat::kBinaryProto);
  // What the proto says, read with the generated classes alone.
  xla::HloProto proto;
  ASSERT_TRUE(proto.ParseFromString(bytes));
  const xla::HloModuleProto& mp = proto.hlo_module();
  int64_t proto_instructions = 0;
  for (const auto& c : mp.computations()) proto_instructions += c.instructions_size();

  absl::StatusOr<std::unique_ptr<Module>> module =
      ParseModuleProto(bytes, InputFormat::kBinaryProto, path);
  ASSERT_TRUE(module.ok()) << module.status();
  const Module& m = **module;
  ASSERT_TRUE(VerifyModule(m).ok()) << VerifyModule(m);
  EXPECT_EQ(m.name(), mp.name());
  EXPECT_EQ(m.entry()->name(), mp.entry_computation_name());
  const std::string printed = PrintModule(m);
  // Async computations that wrap one op are printed as XLA prints them by default: the async
  // ops as `X-start` / `X-done` with X's attributes, the computation left out. Every other
  // computation and instruction is in the module.
  absl::flat_hash_set<std::string_view> in_module;
  for (const Computation* c : m.computations()) in_module.insert(c->name());
  int64_t wrapped_instructions = 0;
  int wrapped_computations = 0;
  for (const auto& c : mp.computations()) {
    if (in_module.contains(c.name())) continue;
    ++wrapped_computations;
    wrapped_instructions += c.instructions_size();
    int non_parameters = 0;
    std::string root_opcode;
    for (const auto& i : c.instructions()) {
      if (i.opcode() != "parameter") ++non_parameters;
      if (i.id() == c.root_id()) root_opcode = i.opcode();
    }
    EXPECT_EQ(non_parameters, 1) << c.name();
    EXPECT_NE(printed.find(" " + root_opcode + "-start("), std::string::npos) << c.name();
  }
  EXPECT_EQ(m.instruction_count(), proto_instructions - wrapped_instructions);
  EXPECT_EQ(static_cast<int>(m.computations().size()),
            mp.computations_size() - wrapped_computations);

  // The schedule: scheduled, and the entry's instructions in the schedule's order.
  ASSERT_TRUE(mp.has_schedule());
  EXPECT_TRUE(m.is_scheduled());
  int64_t entry_id = mp.entry_computation_id();
  absl::flat_hash_map<int64_t, std::string> names;
  for (const auto& c : mp.computations()) {
    for (const auto& i : c.instructions()) names[i.id()] = i.name();
  }
  const auto& sequence = mp.schedule().sequences().at(entry_id).instruction_ids();
  ASSERT_EQ(static_cast<int>(m.entry()->instructions().size()), sequence.size());
  for (int k = 0; k < sequence.size(); ++k) {
    ASSERT_EQ(m.entry()->instructions()[static_cast<size_t>(k)]->name(), names[sequence[k]])
        << "position " << k;
  }

  // Metadata: the first instruction with a source line keeps file, line and op name.
  bool checked_metadata = false;
  // Layouts: every array instruction's layout is the proto's minor_to_major.
  int64_t layouts_checked = 0;
  absl::flat_hash_map<std::string_view, const Instruction*> by_name;
  for (const Computation* c : m.computations()) {
    for (const Instruction* i : c->instructions()) by_name[i->name()] = i;
  }
  for (const auto& c : mp.computations()) {
    if (!in_module.contains(c.name())) continue;
    for (const auto& i : c.instructions()) {
      if (!checked_metadata && i.metadata().source_line() != 0) {
        const Instruction* instr = by_name[i.name()];
        ASSERT_NE(instr, nullptr) << i.name();
        ASSERT_NE(instr->metadata(), nullptr) << i.name();
        EXPECT_EQ(instr->metadata()->source_line, i.metadata().source_line());
        EXPECT_EQ(instr->metadata()->source_file, i.metadata().source_file());
        EXPECT_EQ(instr->metadata()->op_name, i.metadata().op_name());
        checked_metadata = true;
      }
      const auto& s = i.shape();
      if (s.element_type() == xla::TUPLE || s.dimensions_size() == 0) continue;
      const Instruction* instr = by_name[i.name()];
      ASSERT_NE(instr, nullptr) << i.name();
      ASSERT_TRUE(instr->shape().has_layout) << i.name();
      const auto& mtm = instr->shape().layout.minor_to_major;
      ASSERT_EQ(static_cast<int>(mtm.size()), s.layout().minor_to_major_size()) << i.name();
      for (int k = 0; k < s.layout().minor_to_major_size(); ++k) {
        ASSERT_EQ(mtm[static_cast<size_t>(k)], s.layout().minor_to_major(k)) << i.name();
      }
      ++layouts_checked;
    }
  }
  EXPECT_TRUE(checked_metadata);
  EXPECT_GT(layouts_checked, 1000);

  // input_output_alias: one `{out}: (param, {index}, kind)` per proto entry.
  const std::string_view alias = ModuleAttr(m, "input_output_alias");
  int entries = 0;
  for (size_t p = alias.find("-alias)"); p != std::string_view::npos;
       p = alias.find("-alias)", p + 1)) {
    ++entries;
  }
  EXPECT_EQ(entries, mp.input_output_alias().entries_size());
  if (mp.input_output_alias().entries_size() > 0) {
    const auto& e = mp.input_output_alias().entries(0);
    EXPECT_NE(alias.find("{" + std::to_string(e.output_shape_index(0)) + "}: (" +
                         std::to_string(e.parameter_number()) + ", {}, "),
              std::string_view::npos)
        << alias.substr(0, 200);
  }
  // Printing works and starts as the module does.
  EXPECT_TRUE(printed.starts_with("HloModule " + mp.name() + ", is_scheduled=true"))
      << printed.substr(0, 200);
}

INSTANTIATE_TEST_SUITE_P(XlaDumps, CorpusDumpTest, ::testing::ValuesIn(kDumps));

TEST(CorpusDumpTest, PaxInputOutputAliasAndCounts) {
  // Figures of this file, read once with protoc --decode: 37026 instructions in 2533
  // computations, 128 of them in the 4 async computations around a reduce-scatter, which
  // print as reduce-scatter-start / -done (the test above checks that).
  const std::string path = DumpPath(kDumps[2]);
  absl::StatusOr<std::unique_ptr<Module>> m =
      ParseModuleProto(ReadBytes(path), InputFormat::kBinaryProto, path);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ((*m)->instruction_count(), 37026 - 128);
  EXPECT_EQ((*m)->computations().size(), 2533u - 4);
}

// ---------------------------------------------------------------------------------------------
// Hand-made protos.

xla::ShapeProto Array(xla::PrimitiveType type, std::vector<int64_t> dims,
                      std::vector<int64_t> minor_to_major = {}) {
  xla::ShapeProto s;
  s.set_element_type(type);
  for (int64_t d : dims) s.add_dimensions(d);
  if (minor_to_major.empty()) {
    for (int64_t i = static_cast<int64_t>(dims.size()) - 1; i >= 0; --i)
      minor_to_major.push_back(i);
  }
  for (int64_t d : minor_to_major) s.mutable_layout()->add_minor_to_major(d);
  return s;
}

struct Builder {
  xla::HloModuleProto module;
  xla::HloComputationProto* comp = nullptr;
  int64_t next_id = 1;

  Builder() {
    module.set_name("m");
    comp = module.add_computations();
    comp->set_name("main");
    comp->set_id(1000);
    module.set_entry_computation_name("main");
    module.set_entry_computation_id(1000);
  }

  xla::HloInstructionProto* Add(std::string name, std::string opcode, xla::ShapeProto shape,
                                std::vector<int64_t> operands = {}) {
    xla::HloInstructionProto* i = comp->add_instructions();
    i->set_name(std::move(name));
    i->set_opcode(std::move(opcode));
    *i->mutable_shape() = std::move(shape);
    i->set_id(next_id++);
    for (int64_t o : operands) i->add_operand_ids(o);
    comp->set_root_id(i->id());
    return i;
  }

  std::string Bytes() const { return module.SerializeAsString(); }
};

absl::StatusOr<std::string> TextOf(const std::string& bytes) {
  return ProtoToHloText(bytes, InputFormat::kBinaryProto, "in.pb");
}

TEST(ProtoReaderTest, ShapesLayoutsAndLiterals) {
  Builder b;
  xla::ShapeProto tiled = Array(xla::F32, {256, 512});
  xla::TileProto* tile = tiled.mutable_layout()->add_tiles();
  tile->add_dimensions(8);
  tile->add_dimensions(128);
  tiled.mutable_layout()->set_memory_space(1);
  tiled.mutable_layout()->set_tail_padding_alignment_in_elements(1);
  b.Add("p0", "parameter", tiled)->set_parameter_number(0);
  xla::ShapeProto dynamic = Array(xla::S32, {4, 6}, {0, 1});
  dynamic.add_is_dynamic_dimension(false);
  dynamic.add_is_dynamic_dimension(true);
  b.Add("p1", "parameter", dynamic)->set_parameter_number(1);
  // bf16 stored as little-endian bytes: 1.0 = 0x3f80, -2.5 = 0xc020.
  xla::HloInstructionProto* c1 = b.Add("c_bf16", "constant", Array(xla::BF16, {2}));
  *c1->mutable_literal()->mutable_shape() = c1->shape();
  c1->mutable_literal()->set_bf16s(std::string("\x80\x3f\x20\xc0", 4));
  // f8e4m3fn: 0x38 = 1.0, 0x7f = NaN.
  xla::HloInstructionProto* c2 = b.Add("c_f8", "constant", Array(xla::F8E4M3FN, {2}));
  c2->mutable_literal()->set_f8e4m3fns(std::string("\x38\x7f", 2));
  xla::HloInstructionProto* c3 = b.Add("c_pred", "constant", Array(xla::PRED, {2, 2}));
  for (bool v : {true, false, false, true}) c3->mutable_literal()->add_preds(v);
  xla::HloInstructionProto* c4 = b.Add("c_c64", "constant", Array(xla::C64, {}));
  c4->mutable_literal()->add_c64s(1.5f);
  c4->mutable_literal()->add_c64s(-2.0f);
  // Column-major storage: the literal's own layout {0,1} holds [[1,2,3],[4,5,6]] as 1,4,2,5,3,6.
  xla::HloInstructionProto* c5 = b.Add("c_s32", "constant", Array(xla::S32, {2, 3}));
  *c5->mutable_literal()->mutable_shape() = Array(xla::S32, {2, 3}, {0, 1});
  for (int v : {1, 4, 2, 5, 3, 6}) c5->mutable_literal()->add_s32s(v);
  xla::ShapeProto tuple;
  tuple.set_element_type(xla::TUPLE);
  *tuple.add_tuple_shapes() = Array(xla::S8, {});
  *tuple.add_tuple_shapes() = Array(xla::U16, {2});
  xla::HloInstructionProto* c6 = b.Add("c_tuple", "constant", tuple);
  xla::LiteralProto* e0 = c6->mutable_literal()->add_tuple_literals();
  e0->set_s8s(std::string("\xff", 1));
  xla::LiteralProto* e1 = c6->mutable_literal()->add_tuple_literals();
  e1->set_u16s(std::string("\x01\x00\xff\xff", 4));
  xla::ShapeProto root_shape;
  root_shape.set_element_type(xla::TUPLE);
  std::vector<int64_t> all;
  for (const auto& i : b.comp->instructions()) {
    *root_shape.add_tuple_shapes() = i.shape();
    all.push_back(i.id());
  }
  b.Add("t", "tuple", root_shape, all);

  absl::StatusOr<std::string> text = TextOf(b.Bytes());
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_NE(text->find("p0 = f32[256,512]{1,0:T(8,128)S(1)} parameter(0)"), std::string::npos)
      << *text;
  EXPECT_NE(text->find("p1 = s32[4,<=6]{0,1} parameter(1)"), std::string::npos) << *text;
  EXPECT_NE(text->find("c_bf16 = bf16[2]{0} constant({1, -2.5})"), std::string::npos) << *text;
  EXPECT_NE(text->find("c_f8 = f8e4m3fn[2]{0} constant({1, nan})"), std::string::npos) << *text;
  EXPECT_NE(text->find("c_pred = pred[2,2]{1,0} constant({ { true, false }, { false, true } })"),
            std::string::npos)
      << *text;
  EXPECT_NE(text->find("c_c64 = c64[] constant((1.5, -2))"), std::string::npos) << *text;
  EXPECT_NE(text->find("c_s32 = s32[2,3]{1,0} constant({ { 1, 2, 3 }, { 4, 5, 6 } })"),
            std::string::npos)
      << *text;
  EXPECT_NE(text->find("c_tuple = (s8[], u16[2]{0}) constant((-1, {1, 65535}))"), std::string::npos)
      << *text;
  absl::StatusOr<std::unique_ptr<Module>> m =
      ParseModuleProto(b.Bytes(), InputFormat::kBinaryProto, "in.pb");
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_TRUE(VerifyModule(**m).ok()) << VerifyModule(**m);
  const Instruction* p0 = FindInstruction(**m, "p0");
  ASSERT_NE(p0, nullptr);
  EXPECT_EQ(p0->shape().layout.memory_space, 1);
  ASSERT_EQ(p0->shape().layout.tiles.size(), 1u);
}

TEST(ProtoReaderTest, InstructionAttributes) {
  Builder b;
  b.Add("a", "parameter", Array(xla::F32, {8, 16}))->set_parameter_number(0);
  b.Add("w", "parameter", Array(xla::F32, {16, 4}))->set_parameter_number(1);
  xla::HloInstructionProto* dot = b.Add("d", "dot", Array(xla::F32, {8, 4}), {1, 2});
  dot->mutable_dot_dimension_numbers()->add_lhs_contracting_dimensions(1);
  dot->mutable_dot_dimension_numbers()->add_rhs_contracting_dimensions(0);
  dot->mutable_precision_config()->add_operand_precision(xla::PrecisionConfig::HIGHEST);
  dot->mutable_precision_config()->add_operand_precision(xla::PrecisionConfig::DEFAULT);
  xla::OpSharding* sh = dot->mutable_sharding();
  sh->set_type(xla::OpSharding::OTHER);
  for (int64_t d : {2, 1, 2}) sh->add_tile_assignment_dimensions(d);
  sh->add_iota_reshape_dims(2);
  sh->add_iota_reshape_dims(2);
  sh->add_iota_transpose_perm(1);
  sh->add_iota_transpose_perm(0);
  sh->set_replicate_on_last_tile_dim(true);
  (*dot->mutable_frontend_attributes()->mutable_map())["z"] = "1";
  (*dot->mutable_frontend_attributes()->mutable_map())["a"] = "x\"y";
  xla::OpMetadata* md = dot->mutable_metadata();
  md->set_op_type("dot_general");
  md->set_op_name("jit(f)/dot");
  md->set_source_file("model.py");
  md->set_source_line(42);
  xla::HloInstructionProto* sl = b.Add("s", "slice", Array(xla::F32, {4, 2}), {3});
  for (auto [start, limit, stride] : {std::tuple{0, 8, 2}, std::tuple{1, 3, 1}}) {
    auto* d = sl->add_slice_dimensions();
    d->set_start(start);
    d->set_limit(limit);
    d->set_stride(stride);
  }
  xla::HloInstructionProto* cc = b.Add("cc", "custom-call", Array(xla::F32, {4, 2}), {4});
  cc->set_custom_call_target("my_target");
  cc->set_backend_config("opaque\x01");
  cc->set_custom_call_api_version(xla::API_VERSION_STATUS_RETURNING);
  auto* alias = cc->add_output_operand_aliasing();
  alias->set_operand_index(0);
  cc->add_control_predecessor_ids(3);
  xla::HloInstructionProto* ar = b.Add("ar", "all-gather", Array(xla::F32, {8, 2}), {5});
  ar->add_dimensions(0);
  ar->set_channel_id(3);
  ar->set_use_global_device_ids(true);
  auto* iota = ar->mutable_collective_device_list()->mutable_iota_replica_group_list();
  iota->set_num_replica_groups(1);
  iota->set_num_devices_per_group(2);
  iota->add_iota_reshape_dims(2);

  absl::StatusOr<std::string> text = TextOf(b.Bytes());
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_NE(
      text->find("d = f32[8,4]{1,0} dot(a, w), lhs_contracting_dims={1}, "
                 "rhs_contracting_dims={0}, operand_precision={highest,default}, "
                 "sharding={devices=[2,1,2]<=[2,2]T(1,0) last_tile_dim_replicate}, "
                 "frontend_attributes={a=\"x\\\"y\",z=\"1\"}, metadata={op_type=\"dot_general\" "
                 "op_name=\"jit(f)/dot\" source_file=\"model.py\" source_line=42}"),
      std::string::npos)
      << *text;
  EXPECT_NE(text->find("s = f32[4,2]{1,0} slice(d), slice={[0:8:2], [1:3]}"), std::string::npos)
      << *text;
  EXPECT_NE(text->find("cc = f32[4,2]{1,0} custom-call(s), custom_call_target=\"my_target\", "
                       "output_to_operand_aliasing={{}: (0, {})}, "
                       "api_version=API_VERSION_STATUS_RETURNING, control-predecessors={d}, "
                       "backend_config=\"opaque\\001\""),
            std::string::npos)
      << *text;
  EXPECT_NE(text->find("ROOT ar = f32[8,2]{1,0} all-gather(cc), channel_id=3, "
                       "replica_groups=[1,2]<=[2], dimensions={0}, use_global_device_ids=true"),
            std::string::npos)
      << *text;
  absl::StatusOr<std::unique_ptr<Module>> m =
      ParseModuleProto(b.Bytes(), InputFormat::kBinaryProto, "in.pb");
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_TRUE(VerifyModule(**m).ok()) << VerifyModule(**m);
  const Instruction* d = FindInstruction(**m, "d");
  ASSERT_NE(d, nullptr);
  // Frontend attribute values are kept as written (escaped).
  EXPECT_EQ(d->FrontendAttribute("a"), "x\\\"y");
  ASSERT_NE(d->metadata(), nullptr);
  EXPECT_EQ(d->metadata()->source_line, 42);
}

TEST(ProtoReaderTest, ModuleHeaderScheduleAndCallees) {
  Builder b;
  // A callee first, as XLA orders them.
  xla::HloComputationProto* add = b.module.add_computations();
  add->set_name("add");
  add->set_id(2000);
  for (int k = 0; k < 2; ++k) {
    auto* p = add->add_instructions();
    p->set_name(k == 0 ? "x" : "y");
    p->set_opcode("parameter");
    *p->mutable_shape() = Array(xla::F32, {});
    p->set_parameter_number(k);
    p->set_id(100 + k);
  }
  auto* sum = add->add_instructions();
  sum->set_name("sum");
  sum->set_opcode("add");
  *sum->mutable_shape() = Array(xla::F32, {});
  sum->add_operand_ids(100);
  sum->add_operand_ids(101);
  sum->set_id(102);
  add->set_root_id(102);
  b.module.mutable_computations()->SwapElements(0, 1);
  b.comp = b.module.mutable_computations(1);
  b.Add("p", "parameter", Array(xla::F32, {4}))->set_parameter_number(0);
  b.Add("z", "constant", Array(xla::F32, {}))->mutable_literal()->add_f32s(0);
  xla::HloInstructionProto* r = b.Add("r", "reduce", Array(xla::F32, {}), {1, 2});
  r->add_dimensions(0);
  r->add_called_computation_ids(2000);
  // The schedule puts the constant first.
  auto& seq = (*b.module.mutable_schedule()->mutable_sequences())[1000];
  for (int64_t id : {2, 1, 3}) seq.add_instruction_ids(id);
  auto* alias = b.module.mutable_input_output_alias()->add_entries();
  alias->set_parameter_number(0);
  alias->set_kind(xla::MUST_ALIAS);
  auto* donor = b.module.mutable_buffer_donor()->add_entries();
  donor->set_parameter_number(0);
  auto* program = b.module.mutable_host_program_shape();
  *program->add_parameters() = Array(xla::F32, {4});
  *program->mutable_result() = Array(xla::F32, {});

  absl::StatusOr<std::string> text = TextOf(b.Bytes());
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(*text,
            "HloModule m, is_scheduled=true, input_output_alias={ {}: (0, {}, must-alias) }, "
            "buffer_donor={ (0, {}) }, entry_computation_layout={(f32[4]{0})->f32[]}\n"
            "\n"
            "add {\n"
            "  x = f32[] parameter(0)\n"
            "  y = f32[] parameter(1)\n"
            "  ROOT sum = f32[] add(x, y)\n"
            "}\n"
            "\n"
            "ENTRY main {\n"
            "  z = f32[] constant(0)\n"
            "  p = f32[4]{0} parameter(0)\n"
            "  ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply=add\n"
            "}\n");
  absl::StatusOr<std::unique_ptr<Module>> m =
      ParseModuleProto(b.Bytes(), InputFormat::kBinaryProto, "in.pb");
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_TRUE(VerifyModule(**m).ok()) << VerifyModule(**m);

  // The same module as an HloProto, and in text format, reads the same.
  xla::HloProto hlo_proto;
  *hlo_proto.mutable_hlo_module() = b.module;
  absl::StatusOr<std::string> from_hlo_proto = TextOf(hlo_proto.SerializeAsString());
  ASSERT_TRUE(from_hlo_proto.ok()) << from_hlo_proto.status();
  EXPECT_EQ(*from_hlo_proto, *text);
  // And inside an HloSnapshot (XLA's replay files), arguments and all.
  xla::HloSnapshot snapshot;
  *snapshot.mutable_hlo() = hlo_proto;
  std::string snapshot_bytes = snapshot.SerializeAsString();
  xla::LiteralProto argument;
  *argument.mutable_shape() = Array(xla::F32, {4});
  for (float v : {1.0f, 2.0f, 3.0f, 4.0f}) argument.add_f32s(v);
  // Field 2, arguments: tag 0x12, then the length and the literal.
  const std::string arg_bytes = argument.SerializeAsString();
  snapshot_bytes += '\x12';
  snapshot_bytes += static_cast<char>(arg_bytes.size());
  snapshot_bytes += arg_bytes;
  absl::StatusOr<std::string> from_snapshot = TextOf(snapshot_bytes);
  ASSERT_TRUE(from_snapshot.ok()) << from_snapshot.status();
  EXPECT_EQ(*from_snapshot, *text);
  for (const google::protobuf::Message* msg :
       {static_cast<const google::protobuf::Message*>(&b.module),
        static_cast<const google::protobuf::Message*>(&hlo_proto)}) {
    std::string pbtxt;
    ASSERT_TRUE(google::protobuf::TextFormat::PrintToString(*msg, &pbtxt));
    EXPECT_EQ(DetectInputFormat("-", pbtxt), InputFormat::kTextProto);
    absl::StatusOr<std::string> from_text =
        ProtoToHloText(pbtxt, InputFormat::kTextProto, "in.pbtxt");
    ASSERT_TRUE(from_text.ok()) << from_text.status();
    EXPECT_EQ(*from_text, *text);
  }
}

TEST(ProtoReaderTest, AsyncOpsAroundOneOpPrintAsXlaDoes) {
  Builder b;
  // wrapped: parameter and one all-gather on it; wrapped2: two ops, so not one op.
  auto add_comp = [&](const std::string& name, int64_t id, bool two_ops) {
    xla::HloComputationProto* c = b.module.add_computations();
    c->set_name(name);
    c->set_id(id);
    auto* p = c->add_instructions();
    p->set_name(name + "_p");
    p->set_opcode("parameter");
    *p->mutable_shape() = Array(xla::F32, {2});
    p->set_id(id + 1);
    int64_t last = id + 1;
    if (two_ops) {
      auto* n = c->add_instructions();
      n->set_name(name + "_neg");
      n->set_opcode("negate");
      *n->mutable_shape() = Array(xla::F32, {2});
      n->add_operand_ids(last);
      n->set_id(id + 2);
      last = id + 2;
    }
    auto* g = c->add_instructions();
    g->set_name(name + "_ag");
    g->set_opcode("all-gather");
    *g->mutable_shape() = Array(xla::F32, {8});
    g->add_operand_ids(last);
    g->add_dimensions(0);
    g->set_channel_id(7);
    g->set_id(id + 3);
    c->set_root_id(id + 3);
  };
  add_comp("wrapped", 2000, false);
  add_comp("wrapped2", 3000, true);
  // The entry last, as XLA orders computations.
  b.module.mutable_computations()->SwapElements(0, 2);
  b.module.mutable_computations()->SwapElements(0, 1);
  b.comp = b.module.mutable_computations(2);
  ASSERT_EQ(b.comp->name(), "main");
  b.Add("x", "parameter", Array(xla::F32, {2}))->set_parameter_number(0);
  xla::ShapeProto start_shape;
  start_shape.set_element_type(xla::TUPLE);
  xla::ShapeProto* operands_shape = start_shape.add_tuple_shapes();
  operands_shape->set_element_type(xla::TUPLE);
  *operands_shape->add_tuple_shapes() = Array(xla::F32, {2});
  *start_shape.add_tuple_shapes() = Array(xla::F32, {8});
  xla::HloInstructionProto* s1 = b.Add("ag-start", "async-start", start_shape, {1});
  s1->add_called_computation_ids(2000);
  b.Add("ag-done", "async-done", Array(xla::F32, {8}), {2});  // names its start only
  xla::HloInstructionProto* s2 = b.Add("other-start", "async-start", start_shape, {1});
  s2->add_called_computation_ids(3000);
  b.Add("other-done", "async-done", Array(xla::F32, {8}), {4})->add_called_computation_ids(3000);
  xla::ShapeProto out;
  out.set_element_type(xla::TUPLE);
  *out.add_tuple_shapes() = Array(xla::F32, {8});
  *out.add_tuple_shapes() = Array(xla::F32, {8});
  b.Add("t", "tuple", out, {3, 5});

  absl::StatusOr<std::string> text = TextOf(b.Bytes());
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(text->find("wrapped {"), std::string::npos) << *text;
  EXPECT_NE(text->find("wrapped2 {"), std::string::npos) << *text;
  EXPECT_NE(text->find("  ag-start = ((f32[2]{0}), f32[8]{0}) all-gather-start(x), channel_id=7, "
                       "replica_groups={}, dimensions={0}\n"),
            std::string::npos)
      << *text;
  EXPECT_NE(text->find("  ag-done = f32[8]{0} all-gather-done(ag-start)\n"), std::string::npos)
      << *text;
  EXPECT_NE(text->find("  other-start = ((f32[2]{0}), f32[8]{0}) async-start(x), calls=wrapped2\n"),
            std::string::npos)
      << *text;
  EXPECT_NE(text->find("  other-done = f32[8]{0} async-done(other-start), calls=wrapped2\n"),
            std::string::npos)
      << *text;
  absl::StatusOr<std::unique_ptr<Module>> m =
      ParseModuleProto(b.Bytes(), InputFormat::kBinaryProto, "in.pb");
  ASSERT_TRUE(m.ok()) << m.status();
  // wrapped2 holds two instructions and runs on the main thread, which XLA's verifier rejects
  // (VerifyAsyncComputation; hlo/verifier_async_pair_rules.cc): the reader still reads it, and
  // the verifier names the rule.
  const absl::Status verified = VerifyModule(**m);
  EXPECT_FALSE(verified.ok());
  EXPECT_NE(verified.message().find("computation 'wrapped2', wrapped by async-start "
                                    "'other-start' on the main thread, may hold only parameters"),
            std::string_view::npos)
      << verified;
}

TEST(ProtoReaderTest, DetectInputFormat) {
  EXPECT_EQ(DetectInputFormat("x.pb", "HloModule m\n"), InputFormat::kHloText);
  EXPECT_EQ(DetectInputFormat("x.txt", "\n  ENTRY e {"), InputFormat::kHloText);
  EXPECT_EQ(DetectInputFormat("x.pb", "// RUN: hlo-opt %s\n# note\nHloModule m\n"),
            InputFormat::kHloText);
  EXPECT_EQ(DetectInputFormat("x.hlo", std::string("\x0a\x05hello\x1a\x02", 9)),
            InputFormat::kBinaryProto);
  EXPECT_EQ(DetectInputFormat("-", "# comment\nhlo_module {\n name: \"m\"\n}\n"),
            InputFormat::kTextProto);
  EXPECT_EQ(DetectInputFormat("-", "name: \"m\"\ncomputations {\n}\n"), InputFormat::kTextProto);
  EXPECT_EQ(DetectInputFormat("model.hlo.pb", "anything"), InputFormat::kBinaryProto);
  EXPECT_EQ(DetectInputFormat("m.pbtxt", "anything"), InputFormat::kTextProto);
  EXPECT_EQ(DetectInputFormat("m.textproto", "anything"), InputFormat::kTextProto);
  EXPECT_EQ(DetectInputFormat("m.hlo", "main {\n}"), InputFormat::kHloText);
  EXPECT_EQ(ParseInputFormatName("pb"), InputFormat::kBinaryProto);
  EXPECT_EQ(ParseInputFormatName("pbtxt"), InputFormat::kTextProto);
  EXPECT_EQ(ParseInputFormatName("hlo"), InputFormat::kHloText);
  EXPECT_EQ(ParseInputFormatName("json"), std::nullopt);
}

// ---------------------------------------------------------------------------------------------
// Errors.

Builder SmallModule() {
  Builder b;
  b.Add("p", "parameter", Array(xla::F32, {4}))->set_parameter_number(0);
  b.Add("n", "negate", Array(xla::F32, {4}), {1});
  return b;
}

std::string ErrorOf(const std::string& bytes, InputFormat format = InputFormat::kBinaryProto) {
  absl::StatusOr<std::string> text = ProtoToHloText(bytes, format, "in.pb");
  if (text.ok()) return "no error";
  return StatusText(text.status());
}

TEST(ProtoReaderErrorTest, TruncatedNamesTheByteOffset) {
  xla::HloProto proto;
  *proto.mutable_hlo_module() = SmallModule().module;
  const std::string bytes = proto.SerializeAsString();
  // Cut inside an instruction's opcode: every enclosing length runs past the end, and the
  // error names the innermost field, the opcode string (tag and length 2 bytes before it).
  const size_t opcode = bytes.find("negate");
  ASSERT_NE(opcode, std::string::npos);
  const std::string truncated = bytes.substr(0, opcode + 3);
  EXPECT_EQ(ErrorOf(truncated),
            "in.pb: corrupt or truncated binary proto (" + std::to_string(opcode + 3) +
                " bytes): at byte " + std::to_string(opcode - 2) +
                ": field 2 (opcode): length 6 but only 3 bytes left in its message");
}

TEST(ProtoReaderErrorTest, TruncatedExactMessage) {
  // name "m" then a computations field that claims 100 bytes and has 2.
  const std::string bytes("\x0a\x01m\x1a\x64\x0a\x01", 7);
  EXPECT_EQ(ErrorOf(bytes),
            "in.pb: corrupt or truncated binary proto (7 bytes): at byte 5: field 1 (name): "
            "length 1 but only 0 bytes left in its message");
}

TEST(ProtoReaderErrorTest, InvalidUtf8NamesTheString) {
  Builder b = SmallModule();
  std::string bytes = b.Bytes();
  const size_t name = bytes.find("negate");
  ASSERT_NE(name, std::string::npos);
  bytes[name] = '\xff';
  EXPECT_EQ(ErrorOf(bytes), "in.pb: corrupt or truncated binary proto (" +
                                std::to_string(bytes.size()) + " bytes): at byte " +
                                std::to_string(name) +
                                ": field 2 (opcode): a string that is not UTF-8");
}

TEST(ProtoReaderErrorTest, BadWireType) {
  EXPECT_EQ(ErrorOf(std::string("\x0a\x01m\x1f", 4)),
            "in.pb: corrupt or truncated binary proto (4 bytes): at byte 3: field 3 "
            "(computations): "
            "wire type 7 does not exist");
}

TEST(ProtoReaderErrorTest, WrongMessage) {
  // A LiteralProto decodes as an HloModuleProto (its fields are unknown or empty there) but
  // holds no computations.
  xla::LiteralProto literal;
  literal.add_s64s(7);
  literal.add_f32s(1.5f);
  EXPECT_EQ(ErrorOf(literal.SerializeAsString()),
            "in.pb: not an HloModuleProto or HloProto: it decodes, but holds no "
            "computations (top-level fields: 5, 8)");
  EXPECT_EQ(ErrorOf(""), "in.pb: not an HloModuleProto or HloProto: the file is empty");
  EXPECT_EQ(ErrorOf("name: \"x\"\n", InputFormat::kTextProto),
            "in.pb: not an HloModuleProto or HloProto: the text proto holds no "
            "computations");
}

TEST(ProtoReaderErrorTest, TextFormatErrorHasLineAndColumn) {
  EXPECT_EQ(ErrorOf("name: \"m\"\ncomputations {\n  id: x\n}\n", InputFormat::kTextProto),
            "in.pb:3:7: error: Expected integer, got: x");
}

TEST(ProtoReaderErrorTest, DanglingIdsNameTheInstruction) {
  {
    Builder b = SmallModule();
    b.comp->mutable_instructions(1)->set_operand_ids(0, 77);
    EXPECT_EQ(ErrorOf(b.Bytes()),
              "in.pb: computation 'main': instruction 'n': operand 0 is id 77, which is "
              "no instruction of the computation");
  }
  {
    Builder b = SmallModule();
    b.comp->mutable_instructions(1)->add_control_predecessor_ids(55);
    EXPECT_EQ(ErrorOf(b.Bytes()),
              "in.pb: computation 'main': instruction 'n': control predecessor 0 is id "
              "55, which is no instruction of the computation");
  }
  {
    Builder b = SmallModule();
    b.comp->mutable_instructions(1)->add_called_computation_ids(9);
    EXPECT_EQ(ErrorOf(b.Bytes()),
              "in.pb: computation 'main': instruction 'n': called computation id 9 is no "
              "computation of the module");
  }
  {
    Builder b = SmallModule();
    auto& seq = (*b.module.mutable_schedule()->mutable_sequences())[1000];
    seq.add_instruction_ids(1);
    seq.add_instruction_ids(12);
    EXPECT_EQ(ErrorOf(b.Bytes()),
              "in.pb: schedule of computation 'main': id 12 is no instruction of the "
              "computation");
  }
  {
    Builder b = SmallModule();
    (*b.module.mutable_schedule()->mutable_sequences())[1000].add_instruction_ids(1);
    EXPECT_EQ(ErrorOf(b.Bytes()),
              "in.pb: schedule of computation 'main' lists 1 of its 2 instructions");
  }
  {
    Builder b = SmallModule();
    b.comp->set_root_id(31);
    EXPECT_EQ(ErrorOf(b.Bytes()), "in.pb: computation 'main': root id 31 is no instruction of it");
  }
  {
    Builder b = SmallModule();
    b.module.set_entry_computation_id(0);
    b.module.set_entry_computation_name("nope");
    EXPECT_EQ(ErrorOf(b.Bytes()),
              "in.pb: the entry computation 'nope' is no computation of the module");
  }
}

TEST(ProtoReaderErrorTest, InstructionsThatMakeNoText) {
  {
    Builder b = SmallModule();
    b.comp->mutable_instructions(1)->set_opcode("frobnicate");
    EXPECT_EQ(ErrorOf(b.Bytes()),
              "in.pb: computation 'main': instruction 'n': unknown opcode 'frobnicate'");
  }
  {
    Builder b = SmallModule();
    b.comp->mutable_instructions(1)->set_name("a b");
    EXPECT_EQ(ErrorOf(b.Bytes()),
              "in.pb: computation 'main': instruction #1 (id 2) has a name that is no "
              "HLO identifier: 'a b'");
  }
  {
    Builder b = SmallModule();
    b.comp->mutable_instructions(0)->set_id(2);
    EXPECT_EQ(ErrorOf(b.Bytes()),
              "in.pb: computation 'main': instruction 'n': id 2 is also instruction "
              "'p''s");
  }
  {
    Builder b = SmallModule();
    xla::HloInstructionProto* c = b.Add("c", "constant", Array(xla::F32, {3}));
    c->mutable_literal()->add_f32s(1);
    EXPECT_EQ(ErrorOf(b.Bytes()),
              "in.pb: computation 'main': instruction 'c': literal has 1 f32 values, its "
              "shape needs 3");
  }
  {
    Builder b = SmallModule();
    b.comp->mutable_instructions(1)->mutable_shape()->clear_element_type();
    EXPECT_EQ(ErrorOf(b.Bytes()),
              "in.pb: computation 'main': instruction 'n': shape has no element type");
  }
  {
    Builder b = SmallModule();
    b.comp->mutable_instructions(1)->mutable_shape()->set_dimensions(0, -4);
    EXPECT_EQ(ErrorOf(b.Bytes()),
              "in.pb: computation 'main': instruction 'n': shape has dimension size -4");
  }
  {
    Builder b = SmallModule();
    b.Add("c", "constant", Array(xla::F32, {3}));
    EXPECT_EQ(ErrorOf(b.Bytes()),
              "in.pb: computation 'main': instruction 'c': constant has no literal");
  }
}

// Damaged protos end in a module or an error, never a crash: every byte of small modules with
// many attribute forms, and random bytes of a real dump, overwritten; and every prefix of a
// small module. (The ASan build of scripts/test runs this too.)
TEST(ProtoReaderRobustnessTest, MutatedProtosGiveAModuleOrAnError) {
  Builder b = SmallModule();
  xla::HloInstructionProto* c = b.Add("c", "constant", Array(xla::S32, {2, 3}));
  *c->mutable_literal()->mutable_shape() = Array(xla::S32, {2, 3}, {0, 1});
  for (int v : {1, 4, 2, 5, 3, 6}) c->mutable_literal()->add_s32s(v);
  xla::HloInstructionProto* h = b.Add("h", "constant", Array(xla::BF16, {2}));
  h->mutable_literal()->set_bf16s(std::string("\x80\x3f\x20\xc0", 4));
  xla::HloInstructionProto* sl = b.Add("s", "slice", Array(xla::F32, {2}), {2});
  auto* d = sl->add_slice_dimensions();
  d->set_limit(2);
  d->set_stride(1);
  sl->mutable_sharding()->set_type(xla::OpSharding::OTHER);
  sl->mutable_sharding()->add_tile_assignment_dimensions(2);
  sl->mutable_sharding()->add_tile_assignment_devices(0);
  sl->mutable_sharding()->add_tile_assignment_devices(1);
  (*sl->mutable_frontend_attributes()->mutable_map())["k"] = "v";
  auto& seq = (*b.module.mutable_schedule()->mutable_sequences())[1000];
  for (const auto& i : b.comp->instructions()) seq.add_instruction_ids(i.id());
  const std::string bytes = b.Bytes();
  int modules = 0;
  int errors = 0;
  auto read = [&](const std::string& input) {
    absl::StatusOr<std::unique_ptr<Module>> m =
        ParseModuleProto(input, InputFormat::kBinaryProto, "in.pb");
    if (m.ok()) {
      ++modules;
      (void)VerifyModule(**m);
    } else {
      ++errors;
      EXPECT_TRUE(StatusText(m.status()).starts_with("in.pb")) << m.status();
    }
  };
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (unsigned char v : {0x00, 0x01, 0x7f, 0x80, 0xff}) {
      std::string mutated = bytes;
      mutated[i] = static_cast<char>(v);
      read(mutated);
    }
  }
  for (size_t n = 0; n < bytes.size(); ++n) read(bytes.substr(0, n));
  std::mt19937 rng(28);
  const std::string dump = ReadBytes(DumpPath(kDumps[0]));
  ASSERT_FALSE(dump.empty());
  for (int k = 0; k < 40; ++k) {
    std::string mutated = dump;
    for (int j = 0; j < 4; ++j) {
      mutated[rng() % mutated.size()] = static_cast<char>(rng() & 0xff);
    }
    read(mutated);
  }
  EXPECT_GT(modules, 0);
  EXPECT_GT(errors, 0);
}

}  // namespace
}  // namespace hloscope
