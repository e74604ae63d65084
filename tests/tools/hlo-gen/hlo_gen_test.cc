#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fmt/core.h"
#include "gtest/gtest.h"
#include "hlo/module.h"
#include "hlo/parser.h"
#include "hlo/printer.h"
#include "hlo/verifier.h"
#include "support/status_text.h"
#include "tools/hlo-gen/model.h"
#include "tools/hlo-gen/options.h"
#include "tools/hlo-gen/text_emitter.h"

namespace hloscope::gen {
namespace {

// Small sizes: the structure is what is tested, and the grid stays fast.
Options Small() {
  Options o;
  o.layers = 4;
  o.hidden = 64;
  o.heads = 4;
  o.seq = 16;
  o.microbatch = 1;
  o.microbatches = 3;
  o.stages = 2;
  return o;
}

std::string Generate(const Options& o, int stage = 0) {
  std::string out;
  Sink sink(&out);
  GenerateModule(o, stage, sink);
  return out;
}

// The first line where two texts differ (whole modules are too long for a failure message).
std::string FirstDifference(std::string_view a, std::string_view b) {
  size_t line = 1, start = 0;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    if (a[i] != b[i]) {
      return fmt::format("line {}:\n  printed:   {}\n  generated: {}", line,
                         a.substr(start, a.find('\n', start) - start),
                         b.substr(start, b.find('\n', start) - start));
    }
    if (a[i] == '\n') {
      ++line;
      start = i + 1;
    }
  }
  return fmt::format("lengths {} and {}", a.size(), b.size());
}

// Parses, verifies (module-wide unique names, as XLA builds them) and checks that printing is
// a fixed point: parse → print → parse → print gives the same text.
std::unique_ptr<Module> ParseAndCheck(const std::string& text) {
  auto parsed = ParseModule(text);
  EXPECT_TRUE(parsed.ok()) << StatusText(parsed.status());
  if (!parsed.ok()) return nullptr;
  VerifierOptions vo;
  vo.check_module_unique_names = true;
  absl::Status verified = VerifyModule(**parsed, vo);
  EXPECT_TRUE(verified.ok()) << StatusText(verified);
  const std::string printed = PrintModule(**parsed);
  auto reparsed = ParseModule(printed);
  EXPECT_TRUE(reparsed.ok()) << StatusText(reparsed.status());
  if (reparsed.ok()) {
    EXPECT_EQ(printed, PrintModule(**reparsed));
  }
  // The generator already writes canonical text, so printing gives it back unchanged.
  EXPECT_TRUE(printed == text) << FirstDifference(printed, text);
  return std::move(parsed).value();
}

Computation* FindComputation(const Module& m, std::string_view prefix) {
  for (Computation* c : m.computations()) {
    if (c->name().starts_with(prefix)) return c;
  }
  return nullptr;
}

TEST(HloGen, GridParsesVerifiesAndRoundTrips) {
  for (Layout layout : {Layout::kSpmdCircular, Layout::kMpmd}) {
    for (Remat remat : {Remat::kNone, Remat::kOutProj, Remat::kFull}) {
      for (bool copies : {true, false}) {
        for (bool scheduled : {false, true}) {
          for (const char* dtype : {"bf16", "f32"}) {
            Options o = Small();
            o.layout = layout;
            o.remat = remat;
            o.xla_copies = copies;
            o.scheduled = scheduled;
            o.dtype = dtype;
            o.seed = static_cast<uint64_t>(remat) * 7 + (copies ? 1 : 0);
            const int stages = layout == Layout::kMpmd ? static_cast<int>(o.stages) : 1;
            for (int stage = 0; stage < stages; ++stage) {
              SCOPED_TRACE(
                  fmt::format("layout={} remat={} copies={} scheduled={} dtype={} stage={}",
                              static_cast<int>(layout), static_cast<int>(remat), copies, scheduled,
                              dtype, stage));
              std::unique_ptr<Module> m = ParseAndCheck(Generate(o, stage));
              ASSERT_NE(m, nullptr);
              EXPECT_EQ(m->is_scheduled(), scheduled);
            }
          }
        }
      }
    }
  }
}

TEST(HloGen, UnrolledModulesAreValidAndHaveNoLoops) {
  for (Layout layout : {Layout::kSpmdCircular, Layout::kMpmd}) {
    for (Remat remat : {Remat::kOutProj, Remat::kFull}) {
      Options o = Small();
      o.layout = layout;
      o.remat = remat;
      o.unroll = true;
      o.seed = 3;
      SCOPED_TRACE(
          fmt::format("layout={} remat={}", static_cast<int>(layout), static_cast<int>(remat)));
      std::unique_ptr<Module> m = ParseAndCheck(Generate(o, 1));
      ASSERT_NE(m, nullptr);
      for (Computation* c : m->computations()) {
        for (Instruction* i : c->instructions()) EXPECT_NE(i->opcode(), Opcode::kWhile);
      }
      Options looped = o;
      looped.unroll = false;
      EXPECT_GT(m->instruction_count(),
                ParseModule(Generate(looped, 1)).value()->instruction_count());
    }
  }
}

TEST(HloGen, SameFlagsAndSeedGiveTheSameBytes) {
  Options o = Small();
  o.seed = 42;
  EXPECT_EQ(Generate(o), Generate(o));
  o.layout = Layout::kMpmd;
  EXPECT_EQ(Generate(o, 1), Generate(o, 1));
}

// The seed changes names and source lines only: same instruction count and opcode sequence.
TEST(HloGen, SeedChangesNamesAndLinesNotTheGraph) {
  Options a = Small();
  Options b = Small();
  b.seed = 12345;
  const std::string ta = Generate(a), tb = Generate(b);
  EXPECT_NE(ta, tb);
  auto ma = ParseModule(ta).value();
  auto mb = ParseModule(tb).value();
  ASSERT_EQ(ma->computations().size(), mb->computations().size());
  bool some_name_differs = false, some_line_differs = false;
  for (size_t c = 0; c < ma->computations().size(); ++c) {
    auto ia = ma->computations()[c]->instructions();
    auto ib = mb->computations()[c]->instructions();
    ASSERT_EQ(ia.size(), ib.size());
    for (size_t i = 0; i < ia.size(); ++i) {
      EXPECT_EQ(ia[i]->opcode(), ib[i]->opcode());
      EXPECT_EQ(ia[i]->shape().ToString(), ib[i]->shape().ToString());
      some_name_differs |= ia[i]->name() != ib[i]->name();
      if (ia[i]->metadata() != nullptr && ib[i]->metadata() != nullptr) {
        some_line_differs |= ia[i]->metadata()->source_line != ib[i]->metadata()->source_line;
      }
    }
  }
  EXPECT_TRUE(some_name_differs);
  EXPECT_TRUE(some_line_differs);
}

// google/paxml issue 17: in the forward body, a multi-output loop fusion whose outputs are each
// bitcast(dynamic-update-slice(bitcast(parameter), bitcast(parameter), ...)), and with
// --xla-copies=on a get-tuple-element + copy of each output feeding the body's ROOT tuple.
void CheckStashPattern(bool copies, Remat remat, int64_t expected_stashes_per_fusion) {
  Options o;
  o.layers = 4;
  o.microbatches = 15;
  o.stages = 4;
  o.hidden = 256;
  o.heads = 4;
  o.seq = 64;
  o.remat = remat;
  o.xla_copies = copies;
  std::unique_ptr<Module> m = ParseAndCheck(Generate(o));
  ASSERT_NE(m, nullptr);
  Computation* body = FindComputation(*m, "fwd_body");
  ASSERT_NE(body, nullptr);
  int stash_fusions = 0;
  for (Instruction* f : body->instructions()) {
    if (f->opcode() != Opcode::kFusion) continue;
    Computation* fc = f->fused_computation();
    ASSERT_NE(fc, nullptr);
    std::vector<Instruction*> outs;
    Instruction* root = fc->root();
    if (root->opcode() == Opcode::kTuple) {
      outs.assign(root->operands().begin(), root->operands().end());
    } else {
      outs.push_back(root);
    }
    bool is_stash = outs[0]->opcode() == Opcode::kBitcast &&
                    outs[0]->operand(0)->opcode() == Opcode::kDynamicUpdateSlice;
    if (!is_stash) continue;
    ++stash_fusions;
    EXPECT_EQ(f->fusion_kind(), FusionKind::kLoop);
    EXPECT_EQ(static_cast<int64_t>(outs.size()), expected_stashes_per_fusion);
    for (Instruction* out : outs) {
      ASSERT_EQ(out->opcode(), Opcode::kBitcast);
      Instruction* dus = out->operand(0);
      ASSERT_EQ(dus->opcode(), Opcode::kDynamicUpdateSlice);
      for (int k : {0, 1}) {
        ASSERT_EQ(dus->operand(k)->opcode(), Opcode::kBitcast);
        EXPECT_EQ(dus->operand(k)->operand(0)->opcode(), Opcode::kParameter);
      }
      // [M+P-1, 1, B, S, A, H/A] with the layout of the paxml dump.
      EXPECT_EQ(out->shape().ToString(), "bf16[18,1,2,64,4,64]{3,5,4,2,1,0}");
    }
    // Outside the fusion: each output (via get-tuple-element when there are several) is
    // copied, and the copy goes to the ROOT tuple.
    int copies_seen = 0;
    for (Instruction* user : f->users()) {
      Instruction* value = user;
      if (outs.size() > 1) {
        ASSERT_EQ(user->opcode(), Opcode::kGetTupleElement);
        ASSERT_EQ(user->user_count(), 1);
        value = user->users()[0];
      }
      if (copies) {
        ASSERT_EQ(value->opcode(), Opcode::kCopy);
        ++copies_seen;
        ASSERT_EQ(value->user_count(), 1);
        EXPECT_EQ(value->users()[0], body->root());
      } else {
        EXPECT_EQ(value, body->root());
      }
    }
    EXPECT_EQ(copies_seen, copies ? static_cast<int>(outs.size()) : 0);
  }
  EXPECT_EQ(stash_fusions, 1);  // one layer per stage: 4 layers over 4 stages
}

TEST(HloGen, PaxmlStashPatternWithCopies) { CheckStashPattern(true, Remat::kOutProj, 5); }
TEST(HloGen, PaxmlStashPatternWithoutCopies) { CheckStashPattern(false, Remat::kOutProj, 5); }
TEST(HloGen, FullRematStashesOnlyTheLayerInput) { CheckStashPattern(true, Remat::kFull, 1); }

TEST(HloGen, BackwardReadsStashesWithDynamicSlice) {
  std::unique_ptr<Module> m = ParseAndCheck(Generate(Small()));
  ASSERT_NE(m, nullptr);
  Computation* body = FindComputation(*m, "bwd_body");
  ASSERT_NE(body, nullptr);
  int stash_reads = 0;
  for (Instruction* i : body->instructions()) {
    if (i->opcode() == Opcode::kDynamicSlice && i->shape().rank() == 6) ++stash_reads;
  }
  EXPECT_EQ(stash_reads, 2 * 5);  // 2 layers per stage x 5 stashes (out-proj)
}

// Forward ops are attributed to jvp(model), backward ones to transpose(jvp(model)); layer
// names say which layer.
TEST(HloGen, MetadataAttributesForwardAndBackward) {
  std::unique_ptr<Module> m = ParseAndCheck(Generate(Small()));
  ASSERT_NE(m, nullptr);
  for (std::string_view prefix : {"fwd_body", "bwd_body"}) {
    Computation* body = FindComputation(*m, prefix);
    ASSERT_NE(body, nullptr);
    const bool backward = prefix == "bwd_body";
    int dots = 0;
    for (Instruction* i : body->instructions()) {
      if (i->opcode() != Opcode::kDot) continue;
      ++dots;
      ASSERT_NE(i->metadata(), nullptr) << i->name();
      std::string_view op_name = i->metadata()->op_name;
      EXPECT_TRUE(op_name.starts_with("jit(train_step)/")) << op_name;
      EXPECT_EQ(op_name.find("transpose(jvp(") != std::string_view::npos, backward) << op_name;
      EXPECT_NE(op_name.find("/pipeline/while/body/layer_"), std::string_view::npos) << op_name;
      EXPECT_FALSE(i->metadata()->source_file.empty());
      EXPECT_GT(i->metadata()->source_line, 0);
    }
    EXPECT_GT(dots, 0);
  }
}

bool HasOpNameContaining(const Module& m, std::string_view part) {
  for (Computation* c : m.computations()) {
    for (Instruction* i : c->instructions()) {
      if (i->metadata() != nullptr && i->metadata()->op_name.find(part) != std::string_view::npos) {
        return true;
      }
    }
  }
  return false;
}

int64_t CountOpcode(const Module& m, Opcode op) {
  int64_t n = 0;
  for (Computation* c : m.computations()) {
    for (Instruction* i : c->instructions()) n += i->opcode() == op;
  }
  return n;
}

TEST(HloGen, MpmdEmbeddingOnFirstStageHeadOnLast) {
  Options o = Small();
  o.layout = Layout::kMpmd;
  o.stages = 4;
  for (int stage = 0; stage < 4; ++stage) {
    SCOPED_TRACE(stage);
    std::unique_ptr<Module> m = ParseAndCheck(Generate(o, stage));
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(CountOpcode(*m, Opcode::kGather) > 0, stage == 0);
    EXPECT_EQ(HasOpNameContaining(*m, "/embed/"), stage == 0);
    EXPECT_EQ(HasOpNameContaining(*m, "/head/"), stage == 3);
    EXPECT_EQ(HasOpNameContaining(*m, "/loss/"), stage == 3);
    // This stage's layers only, numbered globally.
    EXPECT_TRUE(HasOpNameContaining(*m, fmt::format("/layer_{}/", stage)));
    EXPECT_FALSE(HasOpNameContaining(*m, fmt::format("/layer_{}/", (stage + 1) % 4)));
    EXPECT_EQ(CountOpcode(*m, Opcode::kCollectivePermute), 0);
    EXPECT_EQ(m->name(), fmt::format("jit_train_step_stage_{}", stage));
  }
}

TEST(HloGen, SpmdLoopsRunMicrobatchesPlusStagesMinusOne) {
  std::unique_ptr<Module> m = ParseAndCheck(Generate(Small()));
  ASSERT_NE(m, nullptr);
  int loops = 0;
  for (Instruction* i : m->entry()->instructions()) {
    if (i->opcode() != Opcode::kWhile) continue;
    ++loops;
    EXPECT_EQ(i->known_trip_count(), std::optional<int64_t>(3 + 2 - 1));
  }
  EXPECT_EQ(loops, 2);
}

TEST(HloGen, OptionsRejectBadUsage) {
  auto parse = [](std::vector<std::string> args) {
    std::vector<char*> argv;
    static std::string prog = "hlo-gen";
    argv.push_back(prog.data());
    for (std::string& a : args) argv.push_back(a.data());
    Options o;
    return ParseOptions(static_cast<int>(argv.size()), argv.data(), &o);
  };
  EXPECT_EQ(parse({"--layers=4", "--stages=2"}), "");
  EXPECT_EQ(parse({"--frobnicate"}), "unknown option '--frobnicate'");
  EXPECT_EQ(parse({"--layers=5", "--stages=2"}), "--layers=5 is not a multiple of --stages=2");
  EXPECT_EQ(parse({"--hidden=100", "--heads=3"}), "--heads=3 does not divide --hidden=100");
  EXPECT_EQ(parse({"--stage=1"}), "option '--stage' needs --layout=mpmd");
  EXPECT_EQ(parse({"--layout=mpmd", "--stage=4"}), "--stage=4 is out of range for --stages=4");
  EXPECT_EQ(parse({"--remat=some"}),
            "unknown remat 'some' (expected 'none', 'out-proj' or 'full')");
  EXPECT_EQ(parse({"--layers=0"}), "option '--layers' needs a positive integer, got '0'");
}

// Sizes whose products do not fit (issue 22): these used to exit 0 and write shapes such as
// bf16[...,-4]; every array's bytes and the module's size are checked before generating.
TEST(HloGen, OptionsRejectSizesWhoseProductsOverflow) {
  auto parse = [](std::vector<std::string> args) {
    std::vector<char*> argv;
    static std::string prog = "hlo-gen";
    argv.push_back(prog.data());
    for (std::string& a : args) argv.push_back(a.data());
    Options o;
    return ParseOptions(static_cast<int>(argv.size()), argv.data(), &o);
  };
  EXPECT_EQ(parse({"--hidden=9223372036854775807", "--heads=1"}),
            "the sizes do not fit: the MLP weights [H,4H] would need more than 2^63 bytes "
            "(--microbatch=2 --seq=2048 --hidden=9223372036854775807 --heads=1 "
            "--microbatches=8 --stages=4)");
  EXPECT_TRUE(parse({"--hidden=1099511627776"}).starts_with("the sizes do not fit: the MLP"));
  EXPECT_TRUE(parse({"--seq=4611686018427387904"})
                  .starts_with("the sizes do not fit: the attention scores [B,A,S,S]"));
  // B*S*vocab*4*M: 2^40 * 2048 * 32000 overflows although each factor is modest.
  EXPECT_TRUE(parse({"--microbatch=1099511627776"}).starts_with("the sizes do not fit"));
  EXPECT_TRUE(parse({"--microbatches=9223372036854775807"}).starts_with("the sizes do not fit"));
  EXPECT_EQ(parse({"--layers=1000000000"}),
            "--layers=1000000000 would generate about 1000000000000 instructions, more than "
            "the 200000000 hlo-gen writes");
  EXPECT_EQ(parse({"--layers=100000", "--unroll"}),
            "--layers=100000 with --unroll would generate about 1100000000 instructions, more "
            "than the 200000000 hlo-gen writes");
  EXPECT_EQ(parse({"--layers=9223372036854775807", "--stages=1"}),
            "--layers=9223372036854775807 would generate about overflow (2^63 or more) "
            "instructions, more "
            "than the 200000000 hlo-gen writes");
  // Large but representable sizes are fine: hlo-gen only writes text.
  EXPECT_EQ(parse({"--hidden=65536", "--seq=65536"}), "");
}

// Exit codes as hlo-opt has them: 0 success, 2 bad usage (lit's `not` cannot tell 1 from 2).
int RunTool(const std::string& args) {
  const int status = std::system(fmt::format("{} {} >/dev/null 2>&1", HLO_GEN_PATH, args).c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(HloGenTool, ExitCodes) {
  EXPECT_EQ(RunTool("--help"), 0);
  EXPECT_EQ(RunTool("--layers=2 --stages=2 --hidden=64 --heads=4 --seq=16"), 0);
  EXPECT_EQ(RunTool("--frobnicate"), 2);
  EXPECT_EQ(RunTool("--layers=3 --stages=2"), 2);
  EXPECT_EQ(RunTool("--layout=mpmd --stage=9"), 2);
  EXPECT_EQ(RunTool("--help=yes"), 2);
  EXPECT_EQ(RunTool("-o /nonexistent-dir/x.hlo --layers=2 --stages=2"), 2);
  EXPECT_EQ(RunTool("--hidden=9223372036854775807 --heads=1"), 2);
  EXPECT_EQ(RunTool("--layers=1000000000"), 2);
}

}  // namespace
}  // namespace hloscope::gen
