// copy-insertion (issue 19): each rule adds its copies where XLA's copy insertion does, names
// itself in the report, and leaves a module that verifies and computes the same with buffer
// sharing as without. The copy counts of XLA's own tests are the lit tests in
// testdata/xla/copy_insertion/.
#include "passes/copy_insertion.h"

#include <memory>
#include <string>
#include <vector>

#include "eval/evaluator.h"
#include "eval/literal.h"
#include "gtest/gtest.h"
#include "hlo/parser.h"
#include "support/status_text.h"
#include "tests/passes/passes_test_util.h"

namespace hloscope {
namespace {

using passes_testing::Parse;
using passes_testing::Verify;

// "rule rule ..." of the report, in order.
std::string Rules(const CopyInsertionReport& r) {
  std::string out;
  for (const InsertedCopy& c : r.copies) {
    if (!out.empty()) out += ' ';
    out += CopyRuleName(c.rule);
  }
  return out;
}

int CountCopies(const Module& m) {
  int n = 0;
  for (const Computation* c : m.computations()) {
    for (const Instruction* i : c->instructions()) n += i->opcode() == Opcode::kCopy;
  }
  return n;
}

// Runs the module as written (value mode) and as stored (buffer mode) on a few seeds; empty
// when they agree.
std::string BufferModeDifference(const Module& m) {
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    std::vector<eval::Literal> args = eval::RandomArguments(m, seed);
    absl::StatusOr<eval::Literal> value = eval::Evaluate(m, args, {});
    eval::EvalOptions buffered;
    buffered.mode = eval::EvalMode::kBuffer;
    absl::StatusOr<eval::Literal> buffer = eval::Evaluate(m, args, buffered);
    if (!value.ok()) return "value mode: " + StatusText(value.status());
    if (!buffer.ok()) return "buffer mode: " + StatusText(buffer.status());
    if (auto d = eval::FirstDifference(*value, *buffer)) return *d;
  }
  return "";
}

struct Result {
  std::unique_ptr<Module> module;
  CopyInsertionReport report;
  bool changed = false;
};

Result Insert(std::string_view text, CopyInsertionOptions options = {}) {
  Result r{Parse(text), {}};
  if (r.module == nullptr) return r;
  CopyInsertion pass(std::move(options));
  absl::StatusOr<bool> changed = pass.Run(*r.module);
  EXPECT_TRUE(changed.ok()) << StatusText(changed.status());
  r.changed = changed.ok() && *changed;
  EXPECT_EQ(Verify(*r.module), "OK");
  r.report = pass.report();
  return r;
}

constexpr char kUpdatesParameter[] = R"(HloModule m
ENTRY e {
  p = f32[8] parameter(0)
  u = f32[2] parameter(1)
  i = s32[] parameter(2)
  dus = f32[8] dynamic-update-slice(p, u, i)
  ROOT out = (f32[8], f32[8]) tuple(dus, p)
})";

TEST(CopyInsertionTest, InPlaceOperandIsCopiedAndEntryParameterOutputToo) {
  Result r = Insert(kUpdatesParameter);
  ASSERT_NE(r.module, nullptr);
  EXPECT_EQ(Rules(r.report), "in-place-operand entry-root-read-only");
  EXPECT_EQ(r.report.copies[0].detail, "operand 0 of %dus, which updates it in place");
  EXPECT_EQ(r.report.copies[0].bytes, 32);
  const Instruction* dus = passes_testing::Find(*r.module, "e", "dus");
  ASSERT_NE(dus, nullptr);
  EXPECT_EQ(dus->operand(0)->opcode(), Opcode::kCopy);
  EXPECT_EQ(BufferModeDifference(*r.module), "");
}

TEST(CopyInsertionTest, SkippingTheInPlaceRuleLeavesALiveValueOverwritten) {
  // The broken variant: without the in-place copy the update overwrites n, which the output
  // still reads; buffer mode must see it. (Output {1} then shares dus's buffer and is copied,
  // but only after the update.)
  constexpr char kUpdatesLiveValue[] = R"(HloModule m
ENTRY e {
  p = f32[8] parameter(0)
  n = f32[8] negate(p)
  u = f32[2] parameter(1)
  i = s32[] parameter(2)
  dus = f32[8] dynamic-update-slice(n, u, i)
  ROOT out = (f32[8], f32[8]) tuple(dus, n)
})";
  Result safe = Insert(kUpdatesLiveValue);
  ASSERT_NE(safe.module, nullptr);
  EXPECT_EQ(Rules(safe.report), "in-place-operand");
  EXPECT_EQ(BufferModeDifference(*safe.module), "");
  Result broken = Insert(kUpdatesLiveValue, {.skip_rules = {CopyRule::kInPlaceOperand}});
  ASSERT_NE(broken.module, nullptr);
  EXPECT_EQ(Rules(broken.report), "entry-root-duplicated");
  EXPECT_NE(BufferModeDifference(*broken.module), "");
}

constexpr char kSwap[] = R"(HloModule m
body {
  p = (f32[4], f32[4]) parameter(0)
  a = f32[4] get-tuple-element(p), index=0
  b = f32[4] get-tuple-element(p), index=1
  ROOT t = (f32[4], f32[4]) tuple(b, a)
}
cond {
  p = (f32[4], f32[4]) parameter(0)
  ROOT f = pred[] constant(false)
}
ENTRY e {
  x = f32[4] parameter(0)
  y = f32[4] parameter(1)
  init = (f32[4], f32[4]) tuple(x, y)
  ROOT w = (f32[4], f32[4]) while(init), condition=cond, body=body
})";

TEST(CopyInsertionTest, WhileStateIsCopiedAtInitParameterAndRootWithControlEdges) {
  Result r = Insert(kSwap);
  ASSERT_NE(r.module, nullptr);
  EXPECT_EQ(Rules(r.report),
            "while-init while-init while-body-parameter while-body-parameter while-body-root "
            "while-body-root");
  EXPECT_EQ(r.report.copies[4].detail, "loop state {0} of %w as the body writes it");
  // Each root copy runs after the parameter copy of its own element.
  const Computation* body = r.module->FindComputation("body");
  ASSERT_NE(body, nullptr);
  int edges = 0;
  for (const Instruction* i : body->instructions()) {
    for (const Instruction* pred : i->control_predecessors()) {
      EXPECT_EQ(pred->opcode(), Opcode::kCopy);
      EXPECT_EQ(i->opcode(), Opcode::kCopy);
      ++edges;
    }
  }
  EXPECT_EQ(edges, 2);
  EXPECT_EQ(BufferModeDifference(*r.module), "");
  // The printed module keeps the edges.
  EXPECT_NE(PrintModule(*r.module).find("control-predecessors={"), std::string::npos);
}

TEST(CopyInsertionTest, PassThroughLoopStateIsNotCopied) {
  Result r = Insert(R"(HloModule m
body {
  p = (f32[4], f32[4]) parameter(0)
  a = f32[4] get-tuple-element(p), index=0
  b = f32[4] get-tuple-element(p), index=1
  n = f32[4] negate(b)
  ROOT t = (f32[4], f32[4]) tuple(a, n)
}
cond {
  p = (f32[4], f32[4]) parameter(0)
  ROOT f = pred[] constant(false)
}
ENTRY e {
  x = f32[4] parameter(0)
  y = f32[4] parameter(1)
  init = (f32[4], f32[4]) tuple(x, y)
  w = (f32[4], f32[4]) while(init), condition=cond, body=body
  ROOT g = f32[4] get-tuple-element(w), index=1
})");
  ASSERT_NE(r.module, nullptr);
  EXPECT_EQ(Rules(r.report), "while-init while-body-parameter while-body-root");
  for (const InsertedCopy& c : r.report.copies) EXPECT_NE(c.detail.find("{1}"), std::string::npos);
}

TEST(CopyInsertionTest, ConditionalMergesAreCopiedInEveryBranch) {
  Result r = Insert(R"(HloModule m
b0 {
  ROOT p = f32[4] parameter(0)
}
b1 {
  p = f32[4] parameter(0)
  ROOT n = f32[4] negate(p)
}
ENTRY e {
  i = s32[] parameter(0)
  x = f32[4] parameter(1)
  ROOT c = f32[4] conditional(i, x, x), branch_computations={b0, b1}
})");
  ASSERT_NE(r.module, nullptr);
  EXPECT_EQ(Rules(r.report), "conditional-branch-root conditional-branch-root");
  EXPECT_EQ(r.report.copies[0].computation, "b0");
  EXPECT_EQ(r.report.copies[1].computation, "b1");
  EXPECT_EQ(r.module->FindComputation("b0")->root()->opcode(), Opcode::kCopy);
}

TEST(CopyInsertionTest, DonatedParameterAndItsOutputAreCopiedAndOrdered) {
  Result r = Insert(R"(HloModule m, input_output_alias={ {0}: (0, {}, may-alias) }
ENTRY e {
  p = f32[4] parameter(0)
  n = f32[4] negate(p)
  ROOT t = (f32[4], f32[4]) tuple(n, p)
})");
  ASSERT_NE(r.module, nullptr);
  // Output {1} holds the donated parameter (its copy, which copy-elision may remove), whose
  // buffer output {0} takes: it is copied too, as XLA does after its removal phase.
  EXPECT_EQ(Rules(r.report), "input-output-alias input-output-alias entry-root-duplicated");
  EXPECT_EQ(r.report.copies[2].detail,
            "output {1} holds donated entry parameter 0, whose buffer output {0} takes");
  EXPECT_EQ(BufferModeDifference(*r.module), "");
  EXPECT_EQ(r.report.copies[0].detail, "entry parameter 0 {} is donated to output {0}");
  EXPECT_EQ(r.report.copies[1].detail, "output {0} takes the buffer of entry parameter 0 {}");
  const Instruction* out_copy = r.module->entry()->root()->operand(0);
  ASSERT_EQ(out_copy->opcode(), Opcode::kCopy);
  ASSERT_EQ(out_copy->control_predecessors().size(), 1u);
  EXPECT_EQ(out_copy->control_predecessors()[0]->operand(0)->name(), "p");
}

TEST(CopyInsertionTest, DuplicatedAndReadOnlyOutputs) {
  Result r = Insert(R"(HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  c = f32[4] constant({1, 2, 3, 4})
  n = f32[4] negate(p)
  ROOT t = (f32[4], f32[4], f32[4]) tuple(n, n, c)
})");
  ASSERT_NE(r.module, nullptr);
  EXPECT_EQ(Rules(r.report), "entry-root-duplicated entry-root-read-only");
  EXPECT_EQ(r.report.copies[0].detail, "output {1} shares its buffer with output {0}");
  EXPECT_EQ(r.report.copies[1].detail, "output {2} may hold read-only constant %c");
}

TEST(CopyInsertionTest, DonatedOutputKeepsItsBufferAndTheEarlierOutputIsCopied) {
  // Outputs {0} and {1} both hold p; {1} is where p is donated, so {0} is the one copied
  // (after the input_output_alias copies, which make them distinct already).
  Result r = Insert(R"(HloModule m, input_output_alias={ {1}: (0, {}, may-alias) }
ENTRY e {
  p = f32[4] parameter(0)
  n = f32[4] negate(p)
  ROOT t = (f32[4], f32[4]) tuple(n, n)
})");
  ASSERT_NE(r.module, nullptr);
  EXPECT_EQ(Rules(r.report), "input-output-alias input-output-alias");
  EXPECT_EQ(BufferModeDifference(*r.module), "");
}

TEST(CopyInsertionTest, TokensAreNeverCopied) {
  Result r = Insert(R"(HloModule m
body {
  p = (s32[], token[]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  one = s32[] constant(1)
  next = s32[] add(i, one)
  t = token[] get-tuple-element(p), index=1
  a = token[] after-all(t)
  ROOT r = (s32[], token[]) tuple(next, a)
}
cond {
  p = (s32[], token[]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  ten = s32[] constant(10)
  ROOT lt = pred[] compare(i, ten), direction=LT
}
ENTRY e {
  zero = s32[] constant(0)
  tok = token[] after-all()
  init = (s32[], token[]) tuple(zero, tok)
  w = (s32[], token[]) while(init), condition=cond, body=body
  ROOT g = s32[] get-tuple-element(w), index=0
})");
  ASSERT_NE(r.module, nullptr);
  for (const InsertedCopy& c : r.report.copies) EXPECT_EQ(c.detail.find("{1}"), std::string::npos);
  EXPECT_EQ(CountCopies(*r.module), 3);  // the counter's init, body parameter and body root
}

TEST(CopyInsertionTest, AsyncWrappedComputationsGetNoCopies) {
  Result r = Insert(R"(HloModule m
wrapped {
  p = f32[4] parameter(0)
  u = f32[1] parameter(1)
  i = s32[] parameter(2)
  ROOT d = f32[4] dynamic-update-slice(p, u, i)
}
ENTRY e {
  x = f32[4] parameter(0)
  u = f32[1] parameter(1)
  i = s32[] parameter(2)
  n = f32[4] negate(x)
  s = ((f32[4], f32[1], s32[]), f32[4], u32[]) async-start(n, u, i), calls=wrapped
  ROOT d = f32[4] async-done(s), calls=wrapped
})");
  ASSERT_NE(r.module, nullptr);
  for (const InsertedCopy& c : r.report.copies) EXPECT_NE(c.computation, "wrapped");
}

TEST(CopyInsertionTest, SharedCalleesAreFlattenedFirst) {
  Result r = Insert(R"(HloModule m
f {
  ROOT p = f32[2] parameter(0)
}
ENTRY e {
  x = f32[2] parameter(0)
  a = f32[2] call(x), to_apply=f
  b = f32[2] call(x), to_apply=f
  ROOT t = (f32[2], f32[2]) tuple(a, b)
})");
  ASSERT_NE(r.module, nullptr);
  EXPECT_NE(r.module->FindComputation("f.clone"), nullptr);
  EXPECT_TRUE(r.changed);  // by the flattening, though no copy was needed
  EXPECT_EQ(BufferModeDifference(*r.module), "");
}

TEST(CopyInsertionTest, CopiesKeepTheLayoutTheirUsersRead) {
  // The state's tuple shape has no layouts while its get-tuple-elements spell out the default
  // one: the copies (and what tuple-simplify folds into their users) take the users' shapes,
  // so no copy looks like a layout change.
  Result r = Insert(R"(HloModule m
body {
  p = (s32[], f32[2,3]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  v = f32[2,3]{1,0} get-tuple-element(p), index=1
  n = f32[2,3]{1,0} negate(v)
  ROOT t = (s32[], f32[2,3]) tuple(i, n)
}
cond {
  p = (s32[], f32[2,3]) parameter(0)
  ROOT f = pred[] constant(false)
}
ENTRY e {
  i = s32[] parameter(0)
  x = f32[2,3]{1,0} parameter(1)
  init = (s32[], f32[2,3]) tuple(i, x)
  w = (s32[], f32[2,3]) while(init), condition=cond, body=body
  ROOT g = f32[2,3]{1,0} get-tuple-element(w), index=1
})");
  ASSERT_NE(r.module, nullptr);
  ASSERT_EQ(CountCopies(*r.module), 3);
  for (const Computation* c : r.module->computations()) {
    for (const Instruction* i : c->instructions()) {
      if (i->opcode() != Opcode::kCopy) continue;
      EXPECT_TRUE(i->shape() == i->operand(0)->shape()) << i->name();
      for (const Instruction* user : i->users()) {
        if (user->opcode() == Opcode::kTuple) continue;
        EXPECT_EQ(user->shape().ToString(), "f32[2,3]{1,0}") << user->name();
      }
    }
  }
}

// A malformed input_output_alias is the parser's error now (decoded once, at parse time); one
// that names what the entry does not have, set on a module nobody verified, is still refused by
// the pass rather than followed out of range.
TEST(CopyInsertionTest, BadInputOutputAliasIsAnError) {
  EXPECT_FALSE(ParseModule(R"(HloModule m, input_output_alias={ {0}: (zero, {}) }
ENTRY e {
  ROOT p = f32[4] parameter(0)
})")
                   .ok());
  std::unique_ptr<Module> m = Parse(R"(HloModule m
ENTRY e {
  ROOT p = f32[4] parameter(0)
})");
  ASSERT_NE(m, nullptr);
  InputOutputAlias missing;
  missing.parameter = 3;
  m->set_input_output_aliases({missing});
  CopyInsertion pass;
  absl::StatusOr<bool> changed = pass.Run(*m);
  EXPECT_FALSE(changed.ok());
}

TEST(CopyInsertionTest, AliasingAMissingOperandIsAnError) {
  // The verifier lets this through (XLA's rejects it); the pass must say so, not crash.
  std::unique_ptr<Module> m = Parse(R"(HloModule m
wrapped {
  p0 = f32[32] parameter(0)
  ROOT c = (f32[32]) custom-call(p0), custom_call_target="foo"
}
ENTRY e {
  p = f32[32] parameter(0)
  s = ((f32[32]), (f32[32]), s32[]) async-start(p), calls=wrapped, output_to_operand_aliasing={{0, 0}: (5, {})}
  ROOT d = (f32[32]) async-done(s)
})");
  ASSERT_NE(m, nullptr);
  CopyInsertion pass;
  absl::StatusOr<bool> changed = pass.Run(*m);
  ASSERT_FALSE(changed.ok());
  EXPECT_EQ(StatusText(changed.status()),
            "copy-insertion: %s aliases its output with operand 5, but it has 1 operands");
}

TEST(CopyInsertionTest, EveryRuleHasAName) {
  for (int k = 0; k < kCopyRuleCount; ++k) {
    EXPECT_NE(CopyRuleName(static_cast<CopyRule>(k)), "unknown") << k;
  }
}

}  // namespace
}  // namespace hloscope
