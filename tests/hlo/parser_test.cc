#include "hlo/parser.h"

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "hlo/printer.h"
#include "support/status_text.h"
#include "test_util.h"

namespace hloscope {
namespace {

using testing::Find;
using testing::ParseOrDie;

std::string ParseError(std::string_view text) {
  auto m = ParseModule(text, {.filename = "bad.hlo"});
  EXPECT_FALSE(m.ok());
  return m.ok() ? "" : StatusText(m.status());
}

constexpr std::string_view kPipelineLoop =
    R"(HloModule pipeline, is_scheduled=true, input_output_alias={ {0}: (0, {}, may-alias) }

stash.fusion {
  p0 = bf16[4,8]{1,0} parameter(0)
  p1 = bf16[1,8]{1,0} parameter(1)
  i = s32[] parameter(2)
  z = s32[] constant(0)
  ROOT dus = bf16[4,8]{1,0} dynamic-update-slice(p0, p1, i, z)
}

body {
  param = (bf16[4,8]{1,0}, s32[]) parameter(0)
  buf = bf16[4,8]{1,0} get-tuple-element(param), index=0
  idx = s32[] get-tuple-element(param), index=1
  act = bf16[1,8]{1,0} slice(buf), slice={[0:1], [0:8:2]}
  f = bf16[4,8]{1,0} fusion(buf, act, idx), kind=kLoop, calls=stash.fusion, output_to_operand_aliasing={{}: (0, {})}, metadata={op_type="dus" op_name="jit(step)/while/body/dynamic_update_slice" source_file="model.py" source_line=42}
  c = bf16[4,8]{1,0} copy(f)
  one = s32[] constant(1)
  next = s32[] add(idx, one), control-predecessors={f}
  ROOT t = (bf16[4,8]{1,0}, s32[]) tuple(c, next)
}

cond {
  param = (bf16[4,8]{1,0}, s32[]) parameter(0)
  i = s32[] get-tuple-element(param), index=1
  n = s32[] constant(4)
  ROOT lt = pred[] compare(i, n), direction=LT
}

ENTRY main {
  buf = bf16[4,8]{1,0} parameter(0)
  zero = s32[] constant(0)
  init = tuple(buf, zero)
  ROOT w = (bf16[4,8]{1,0}, s32[]) while(init), condition=cond, body=body, backend_config="{\"known_trip_count\":{\"n\":\"4\"}}", frontend_attributes={_xla_stage="2",other="x,y"}
}
)";

TEST(Parser, DecodesTypedAttributes) {
  auto m = ParseOrDie(kPipelineLoop);
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(m->is_scheduled());
  EXPECT_EQ(m->entry()->name(), "main");
  EXPECT_EQ(m->computations().size(), 4u);
  EXPECT_EQ(Find(*m, "idx")->tuple_index(), 1);
  const Instruction* f = Find(*m, "f");
  EXPECT_EQ(f->fusion_kind(), FusionKind::kLoop);
  EXPECT_EQ(f->fused_computation()->name(), "stash.fusion");
  ASSERT_EQ(f->output_to_operand_aliasing().size(), 1u);
  EXPECT_EQ(f->output_to_operand_aliasing()[0].operand, 0);
  ASSERT_NE(f->metadata(), nullptr);
  EXPECT_EQ(f->metadata()->op_name, "jit(step)/while/body/dynamic_update_slice");
  EXPECT_EQ(f->metadata()->op_type, "dus");
  EXPECT_EQ(f->metadata()->source_file, "model.py");
  EXPECT_EQ(f->metadata()->source_line, 42);
  const Instruction* act = Find(*m, "act");
  ASSERT_EQ(act->slice().size(), 2u);
  EXPECT_EQ(act->slice()[1].stride, 2);
  EXPECT_EQ(Find(*m, "lt")->comparison_direction(), ComparisonDirection::kLt);
  const Instruction* w = Find(*m, "w");
  EXPECT_EQ(w->while_body()->name(), "body");
  EXPECT_EQ(w->while_condition()->name(), "cond");
  EXPECT_EQ(w->known_trip_count(), 4);
  EXPECT_EQ(w->FrontendAttribute("_xla_stage"), "2");
  EXPECT_EQ(w->FrontendAttribute("other"), "x,y");
  EXPECT_FALSE(w->FrontendAttribute("missing").has_value());
  const Instruction* next = Find(*m, "next");
  ASSERT_EQ(next->control_predecessors().size(), 1u);
  EXPECT_EQ(next->control_predecessors()[0], f);
  EXPECT_EQ(f->control_successors()[0], next);
  // The tuple written without a shape gets the inferred one.
  EXPECT_EQ(Find(*m, "init")->shape().ToString(), "(bf16[4,8]{1,0}, s32[])");
  EXPECT_EQ(m->FindAttribute("input_output_alias"), "{ {0}: (0, {}, may-alias) }");
}

TEST(Parser, UsersAndOperandsAreConsistent) {
  auto m = ParseOrDie(kPipelineLoop);
  ASSERT_NE(m, nullptr);
  const Instruction* buf = Find(*m, "buf");
  // `buf` in body: used by slice and by the fusion (once each, though the fusion lists it once).
  EXPECT_EQ(buf->user_count(), 2);
  const Instruction* idx = Find(*m, "idx");
  EXPECT_EQ(idx->user_count(), 2);  // fusion and add
  EXPECT_TRUE(Find(*m, "t")->IsRoot());
  EXPECT_EQ(m->entry()->root()->name(), "w");
}

TEST(Parser, PrintIsAFixedPoint) {
  auto m = ParseOrDie(kPipelineLoop);
  ASSERT_NE(m, nullptr);
  std::string once = PrintModule(*m);
  auto again = ParseOrDie(once);
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(PrintModule(*again), once);
  EXPECT_EQ(again->instruction_count(), m->instruction_count());
  // Legacy style parses back to the same graph and prints the same canonical text.
  std::string legacy = PrintModule(*m, {.style = PrintStyle::kLegacy});
  EXPECT_NE(legacy.find("%body (param: (bf16[4,8]{1,0}, s32[])) -> (bf16[4,8]{1,0}, s32[]) {"),
            std::string::npos)
      << legacy;
  EXPECT_NE(legacy.find("copy(bf16[4,8]{1,0} %f)"), std::string::npos);
  auto from_legacy = ParseOrDie(legacy);
  ASSERT_NE(from_legacy, nullptr);
  EXPECT_EQ(PrintModule(*from_legacy), once);
  std::string bare = PrintModule(*m, {.print_metadata = false});
  EXPECT_EQ(bare.find("metadata="), std::string::npos);
  EXPECT_NE(once.find("metadata="), std::string::npos);
}

TEST(Parser, CalleesAndOperandsMayBeDefinedLater) {
  auto m = ParseOrDie(R"(HloModule m
ENTRY e {
  a = f32[] parameter(0)
  ROOT r = f32[] call(b), to_apply=later
  b = f32[] negate(a)
}
later {
  ROOT p = f32[] parameter(0)
})");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->entry()->name(), "e");
  EXPECT_EQ(Find(*m, "r")->to_apply()->name(), "later");
  EXPECT_EQ(Find(*m, "r")->operand(0)->name(), "b");
  EXPECT_EQ(Find(*m, "b")->users()[0]->name(), "r");
}

TEST(Parser, LastComputationIsEntryWithoutEntryKeyword) {
  auto m = ParseOrDie(
      "HloModule m\nfirst {\n ROOT c = f32[] constant(1)\n}\nsecond {\n ROOT c = "
      "f32[] constant(2)\n}\n");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->entry()->name(), "second");
  EXPECT_EQ(Find(*m, "c")->literal(), "1");
}

TEST(Parser, AsyncSugarInlineComputationsAndNestedOperands) {
  auto m = ParseOrDie(R"(HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  s = ((f32[4]), f32[4], s32[]) custom-call-start(p), custom_call_target="Foo\"Bar"
  d = f32[4] custom-call-done(s)
  r = f32[] reduce(d, f32[] constant(0)), dimensions={0}, to_apply={
    x = f32[] parameter(0)
    y = f32[] parameter(1)
    ROOT z = f32[] add(x, y)
  }
  ROOT b = f32[4] broadcast(r), dimensions={}
})");
  ASSERT_NE(m, nullptr);
  const Instruction* s = Find(*m, "s");
  EXPECT_EQ(s->opcode(), Opcode::kAsyncStart);
  EXPECT_EQ(s->async_wrapped_opcode(), Opcode::kCustomCall);
  EXPECT_EQ(s->PrintedOpcode(), "custom-call-start");
  EXPECT_EQ(s->custom_call_target(), "Foo\"Bar");
  const Instruction* r = Find(*m, "r");
  ASSERT_NE(r->to_apply(), nullptr);
  EXPECT_EQ(r->to_apply()->root()->name(), "z");
  EXPECT_EQ(r->operand(1)->opcode(), Opcode::kConstant);
  // The nested constant is placed before its user.
  auto instrs = m->entry()->instructions();
  auto pos = [&](const Instruction* x) { return std::find(instrs.begin(), instrs.end(), x); };
  EXPECT_LT(pos(r->operand(1)), pos(r));
  std::string printed = PrintModule(*m);
  auto again = ParseOrDie(printed);
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(PrintModule(*again), printed);
}

TEST(Parser, StackFrameTablesAndExecutionThreadsRoundTrip) {
  constexpr std::string_view text = R"(HloModule m

FileNames
1 "a.py"

StackFrames
1 {file_location_id=1 parent_frame_id=1}

async_comp {
  ROOT p = f32[] parameter(0)
}, execution_thread="host"

ENTRY e {
  ROOT c = f32[] constant(1), metadata={op_name="c" stack_frame_id=1}
}
)";
  auto m = ParseOrDie(text);
  ASSERT_NE(m, nullptr);
  EXPECT_NE(m->stack_frame_tables().find("FileNames\n1 \"a.py\""), std::string::npos);
  EXPECT_EQ(m->FindComputation("async_comp")->execution_thread(), "host");
  EXPECT_EQ(PrintModule(*m), text);
}

TEST(Parser, SplitInputFileKeepsLineNumbers) {
  std::string text =
      "HloModule a\nENTRY e {\n ROOT c = f32[] constant(1)\n}\n// -----\n"
      "HloModule b\nENTRY e {\n ROOT c = f32[] bogus(1)\n}\n";
  auto chunks = SplitInputFile(text);
  ASSERT_EQ(chunks.size(), 2u);
  EXPECT_EQ(chunks[1].first_line, 6);
  auto bad = ParseModule(chunks[1].text, {.filename = "x.hlo", .first_line = chunks[1].first_line});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(
      bad.status().message(),
      "x.hlo:8:17: error: unknown opcode 'bogus'\n ROOT c = f32[] bogus(1)\n                ^");
}

// The line-by-line definition of a separator line, as SplitInputFile documented it before it
// searched for the marker directly: trailing spaces and CRs trimmed, leading spaces and tabs
// skipped, then exactly "// -----".
std::vector<InputChunk> SplitLineByLine(std::string_view text) {
  std::vector<InputChunk> chunks;
  size_t chunk_start = 0, pos = 0;
  int chunk_line = 1, line = 1;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    size_t line_end = nl == std::string_view::npos ? text.size() : nl;
    std::string_view l = text.substr(pos, line_end - pos);
    while (!l.empty() && (l.back() == ' ' || l.back() == '\r')) l.remove_suffix(1);
    size_t first = l.find_first_not_of(" \t");
    if (first != std::string_view::npos && l.substr(first) == "// -----") {
      chunks.push_back({text.substr(chunk_start, pos - chunk_start), chunk_line});
      chunk_start = std::min(line_end + 1, text.size());
      chunk_line = line + 1;
    }
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
    ++line;
  }
  chunks.push_back({text.substr(std::min(chunk_start, text.size())), chunk_line});
  return chunks;
}

TEST(Parser, SplitInputFileAgreesWithTheLineByLineDefinition) {
  const std::vector<std::string> pieces = {
      "// -----", "// ------", "/ -----", "// ----", " ", "\t", "\r", "\n", "\n", "x", "// -", "-"};
  std::mt19937 rng(17);
  for (int round = 0; round < 20000; ++round) {
    std::string text;
    const int n = static_cast<int>(rng() % 12);
    for (int i = 0; i < n; ++i) text += pieces[rng() % pieces.size()];
    std::vector<InputChunk> got = SplitInputFile(text);
    std::vector<InputChunk> want = SplitLineByLine(text);
    ASSERT_EQ(got.size(), want.size()) << "text: '" << text << "'";
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i].text.data(), want[i].text.data()) << "text: '" << text << "' chunk " << i;
      EXPECT_EQ(got[i].text.size(), want[i].text.size()) << "text: '" << text << "' chunk " << i;
      EXPECT_EQ(got[i].first_line, want[i].first_line) << "text: '" << text << "' chunk " << i;
    }
  }
}

TEST(Parser, ErrorsPointAtTheProblem) {
  EXPECT_EQ(ParseError("HloModule m\nENTRY e {\n  ROOT a = f32[2]{0,1} parameter(0)\n}\n"),
            "bad.hlo:3:18: error: layout has 2 dimensions but the shape has rank 1\n"
            "  ROOT a = f32[2]{0,1} parameter(0)\n                 ^");
  EXPECT_EQ(ParseError("HloModule m\nENTRY e {\n  ROOT a = f32[] add(x, x)\n}\n"),
            "bad.hlo:3:22: error: use of undefined instruction 'x' in computation 'e'\n"
            "  ROOT a = f32[] add(x, x)\n                     ^");
  EXPECT_EQ(ParseError("HloModule m\n/* never closed\nENTRY e {\n"),
            "bad.hlo:2:1: error: unterminated comment: '/*' has no closing '*/'\n"
            "/* never closed\n^");
  // Inside a braced value too, and a `"` in the comment does not open a string.
  EXPECT_EQ(ParseError("HloModule m\nENTRY e {\n  ROOT a = f32[] parameter(0), "
                       "metadata={op_name=\"a\" /* \" never closed\n}\n"),
            "bad.hlo:3:54: error: unterminated comment: '/*' has no closing '*/'\n"
            "  ROOT a = f32[] parameter(0), metadata={op_name=\"a\" /* \" never closed\n"
            "                                                     ^");
  EXPECT_EQ(
      ParseError("HloModule m\nENTRY e {\n  a = f32[] add(b, b)\n  ROOT b = f32[] add(a, a)\n}\n"),
      "bad.hlo:3:3: error: computation 'e' has a cycle through 'a'\n"
      "  a = f32[] add(b, b)\n  ^");
}

TEST(Parser, CommentsInsideBracedValuesAreComments) {
  // The parser and the stored value must agree on what is a comment: a quote in a comment
  // inside metadata={...} once opened a string while matching brackets, and the printed
  // module (without the comment) then failed to parse (found by the parser fuzzer).
  const char* text =
      "HloModule m\nENTRY e {\n  ROOT a = f32[] parameter(0), metadata={op_name=\"a\" // x\"}\n"
      "  source_line=2}, sharding={replicated /* } */}\n}\n";
  auto module = ParseModule(text, {.filename = "c.hlo"});
  ASSERT_TRUE(module.ok()) << module.status();
  const Instruction* a = (*module)->entry()->root();
  EXPECT_EQ(a->metadata()->op_name, "a");
  EXPECT_EQ(a->metadata()->source_line, 2);
  std::string printed = PrintModule(**module);
  EXPECT_NE(printed.find("metadata={op_name=\"a\" source_line=2}, sharding={replicated}"),
            std::string::npos)
      << printed;
  auto again = ParseModule(printed, {.filename = "printed.hlo"});
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(PrintModule(**again), printed);
}

TEST(Parser, RejectsDeepNestingWithoutCrashing) {
  std::string text = "HloModule m\nENTRY e {\n ROOT a = " + std::string(100000, '(') + "\n}";
  std::string message = ParseError(text);
  EXPECT_NE(message.find("error: "), std::string::npos);
}

}  // namespace
}  // namespace hloscope

namespace hloscope {
namespace {

using testing::Find;
using testing::ParseOrDie;

// Regressions found by the lit suite's authors.
TEST(ParserRegression, InlineComputationIsNotTheDefaultEntry) {
  auto m = ParseOrDie(R"(HloModule m
main {
  p = f32[4] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply={
    x = f32[] parameter(0)
    y = f32[] parameter(1)
    ROOT s = f32[] add(x, y)
  }
})");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->entry()->name(), "main");
}

TEST(ParserRegression, MissingValueDoesNotSwallowTheNextLine) {
  auto m =
      ParseModule("HloModule m, replica_count=\nENTRY main {\n  ROOT c = f32[] constant(1)\n}\n",
                  {.filename = "x.hlo"});
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().message(),
            "x.hlo:1:28: error: expected a value for attribute 'replica_count', found 'E'\n"
            "HloModule m, replica_count=\n                           ^");
  auto bare = ParseModule("HloModule\nENTRY main {\n  ROOT c = f32[] constant(1)\n}\n",
                          {.filename = "x.hlo"});
  ASSERT_FALSE(bare.ok());
  EXPECT_EQ(bare.status().message(),
            "x.hlo:1:10: error: expected a module name after 'HloModule'\nHloModule\n         ^");
  // A value that continues on the next line is still accepted.
  auto split = ParseOrDie(
      "HloModule m\nc {\n ROOT p = pred[] parameter(0)\n}\nENTRY e {\n"
      " a = pred[] parameter(0)\n ROOT w = pred[] while(a), condition=\n"
      "   c, body=c\n}\n");
  EXPECT_NE(split, nullptr);
}

TEST(ParserRegression, HugeParameterNumbersAreAnErrorNotAnAllocation) {
  auto m =
      ParseModule("HloModule m\nENTRY e {\n  ROOT p = f32[2] parameter(9223372036854775807)\n}\n",
                  {.filename = "x.hlo"});
  ASSERT_FALSE(m.ok());
  std::string message(m.status().message());
  EXPECT_EQ(message.substr(0, message.find('\n')),
            "x.hlo:2:7: error: computation 'e' has no parameter(0) but has a parameter with a "
            "higher number");
}

TEST(ParserRegression, LayoutAfterSpaceIsNotLostToTheShapeCache) {
  auto m = ParseOrDie(
      "HloModule m\nENTRY e {\n  a = f32[3,6] parameter(0)\n"
      "  ROOT b = f32[3,6] {1,0} parameter(1)\n}\n");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(Find(*m, "b")->shape().has_layout);
  EXPECT_FALSE(Find(*m, "a")->shape().has_layout);
}

TEST(ParserRegression, ValuesWithCommentsAndLineBreaksPrintOnOneLine) {
  auto m = ParseOrDie(
      "HloModule m\nENTRY e {\n  p = f32[2,3] parameter(0)\n"
      "  ROOT t = f32[3,2] transpose(p), dimensions={ 1, /* c */ 0 },\n"
      "    frontend_attributes={a=\"x\",\n b=\"/* kept */\"}\n}\n");
  ASSERT_NE(m, nullptr);
  std::string printed = PrintInstruction(*Find(*m, "t"));
  EXPECT_EQ(printed,
            "ROOT t = f32[3,2] transpose(p), dimensions={1, 0}, "
            "frontend_attributes={a=\"x\", b=\"/* kept */\"}");
  EXPECT_EQ(Find(*m, "t")->dimensions().size(), 2u);
}

TEST(ParserRegression, DoublyNestedOperandsComeBeforeTheirUsers) {
  auto m = ParseOrDie(
      "HloModule m\nENTRY e {\n  p = f32[] parameter(0)\n"
      "  ROOT t = (f32[]) tuple(add(p, negate(p)))\n}\n");
  ASSERT_NE(m, nullptr);
  auto instrs = m->entry()->instructions();
  ASSERT_EQ(instrs.size(), 4u);
  EXPECT_EQ(instrs[1]->opcode(), Opcode::kNegate);
  EXPECT_EQ(instrs[2]->opcode(), Opcode::kAdd);
  EXPECT_EQ(instrs[3]->name(), "t");
}

TEST(ParserRegression, InputNamesWinOverGeneratedNames) {
  auto m = ParseOrDie(
      "HloModule m\nENTRY e {\n  p = f32[4] parameter(0)\n"
      "  b = f32[4] broadcast(f32[] constant(0)), dimensions={}\n"
      "  ROOT b.operand.1 = f32[4] add(p, b)\n}\n");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(Find(*m, "b.operand.1")->opcode(), Opcode::kAdd);
  EXPECT_EQ(Find(*m, "b")->operand(0)->opcode(), Opcode::kConstant);
  EXPECT_NE(Find(*m, "b")->operand(0)->name(), "b.operand.1");
}

TEST(ParserRegression, ShapesTooLargeForSixtyFourBitsAreRejected) {
  auto m =
      ParseModule("HloModule m\nENTRY e {\n  ROOT p = f32[9223372036854775807,4] parameter(0)\n}\n",
                  {.filename = "x.hlo"});
  ASSERT_FALSE(m.ok());
  std::string message(m.status().message());
  EXPECT_EQ(message.substr(0, message.find('\n')),
            "x.hlo:3:12: error: shape is too large: its element count does not fit in 64 bits");
  // 2^60 f32 elements are 2^62 bytes: large, but representable.
  EXPECT_NE(ParseOrDie("HloModule m\nENTRY e {\n  ROOT p = f32[1048576,1048576,1024,1024] "
                       "parameter(0)\n}\n"),
            nullptr);
}

}  // namespace
}  // namespace hloscope

namespace hloscope {
namespace {

TEST(ParserRegression, DeeplyNestedOperandsAndComputationsAreRefused) {
  std::string operands = "HloModule m\nENTRY e {\n  p = f32[] parameter(0)\n  ROOT r = f32[] ";
  for (int i = 0; i < 100000; ++i) operands += "negate(";
  operands += "p";
  for (int i = 0; i < 100000; ++i) operands += ")";
  operands += "\n}\n";
  auto m = ParseModule(operands, {.filename = "deep.hlo"});
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("nested more than 200 deep"), std::string::npos);

  std::string comps = "HloModule m\nENTRY e {\n  p = f32[] parameter(0)\n";
  for (int i = 0; i < 100000; ++i)
    comps += " c = f32[] call(p), to_apply={ p = f32[] parameter(0)\n";
  auto c = ParseModule(comps, {.filename = "deep.hlo"});
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("nested more than 200 deep"), std::string::npos);
}

}  // namespace
}  // namespace hloscope

namespace hloscope {
namespace {

using testing::Find;
using testing::ParseOrDie;

TEST(ShapeInference, SortAndReduceWindow) {
  auto m = ParseOrDie(R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
less {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  ROOT lt = pred[] compare(a, b), direction=LT
}
ENTRY e {
  p = f32[10,7] parameter(0)
  i = s32[10,7] parameter(1)
  z = f32[] constant(0)
  w = reduce-window(p, z), window={size=3x2 stride=2x1 pad=1_1x0_0}, to_apply=add
  dilated = reduce-window(p, z), window={size=2x1 lhs_dilate=2x1 rhs_dilate=3x1}, to_apply=add
  ROOT sorted = sort(p, i), dimensions={1}, to_apply=less
})");
  ASSERT_NE(m, nullptr);
  // (10 + 1 + 1 - 3) / 2 + 1 = 5; (7 - 2) / 1 + 1 = 6.
  EXPECT_EQ(Find(*m, "w")->shape().ToString(), "f32[5,6]");
  // Base dilation 2: 19 elements; window dilation 3 spans 4: (19 - 4) / 1 + 1 = 16.
  EXPECT_EQ(Find(*m, "dilated")->shape().ToString(), "f32[16,7]");
  EXPECT_EQ(Find(*m, "sorted")->shape().ToString(), "(f32[10,7], s32[10,7])");
  auto bad = ParseModule(
      "HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n  z = f32[] constant(0)\n"
      "  ROOT w = reduce-window(p, z), window={size=5x1}, to_apply=e\n}\n",
      {.filename = "x.hlo"});
  ASSERT_FALSE(bad.ok());
  std::string message(bad.status().message());
  EXPECT_EQ(message.substr(0, message.find('\n')),
            "x.hlo:5:12: error: cannot infer the result shape of 'w' (reduce-window): the window "
            "has 2 dimensions but the input f32[2] has rank 1; write the shape before the opcode");
}

}  // namespace
}  // namespace hloscope
