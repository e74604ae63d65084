// `%t#i` operands (XLA's printer folds get-tuple-element into its users): the instructions the
// parser makes for them, where they go and what they are called.
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "gtest/gtest.h"
#include "hlo/printer.h"
#include "test_util.h"

namespace hloscope {
namespace {

using testing::Find;
using testing::ParseOrDie;
using testing::Verify;

std::vector<std::string> Names(const Computation& c) {
  std::vector<std::string> out;
  for (const Instruction* i : c.instructions()) out.emplace_back(i->name());
  return out;
}

TEST(TupleElementOperand, OneGetTupleElementPerElementBeforeItsFirstUser) {
  auto m = ParseOrDie(R"(HloModule m, is_scheduled=true
ENTRY e {
  p = (f32[2], s32[]) parameter(0)
  c = f32[2] constant({1, 2})
  a = f32[2] add(p#0, c)
  b = f32[2] multiply(a, p#0)
  ROOT t = (s32[], f32[2]) tuple(p#1, b)
}
)");
  const Computation& e = *m->entry();
  ASSERT_EQ(Names(e), (std::vector<std::string>{"p", "c", "get-tuple-element", "a", "b",
                                                "get-tuple-element.1", "t"}));
  const Instruction* g0 = e.instructions()[2];
  EXPECT_EQ(g0->opcode(), Opcode::kGetTupleElement);
  EXPECT_EQ(g0->operand(0), Find(*m, "e", "p"));
  EXPECT_EQ(g0->tuple_index(), 0);
  EXPECT_EQ(g0->shape().ToString(), "f32[2]");
  // Both uses of p#0 read the same instruction.
  EXPECT_EQ(Find(*m, "e", "a")->operand(0), g0);
  EXPECT_EQ(Find(*m, "e", "b")->operand(1), g0);
  const Instruction* g1 = e.instructions()[5];
  EXPECT_EQ(g1->tuple_index(), 1);
  EXPECT_EQ(g1->shape().ToString(), "s32[]");
  EXPECT_EQ(Find(*m, "e", "t")->operand(0), g1);
  EXPECT_EQ(Verify(*m), "OK");
}

TEST(TupleElementOperand, ChainsReadTheInnerElement) {
  auto m = ParseOrDie(R"(HloModule m
ENTRY e {
  p = ((f32[], s32[]), f32[]) parameter(0)
  ROOT n = s32[] negate(p#0#1)
}
)");
  const Instruction* n = Find(*m, "e", "n");
  const Instruction* outer = n->operand(0);
  ASSERT_EQ(outer->opcode(), Opcode::kGetTupleElement);
  EXPECT_EQ(outer->tuple_index(), 1);
  EXPECT_EQ(outer->shape().ToString(), "s32[]");
  const Instruction* inner = outer->operand(0);
  ASSERT_EQ(inner->opcode(), Opcode::kGetTupleElement);
  EXPECT_EQ(inner->tuple_index(), 0);
  EXPECT_EQ(inner->operand(0), Find(*m, "e", "p"));
  EXPECT_EQ(inner->shape().ToString(), "(f32[], s32[])");
}

TEST(TupleElementOperand, TupleDefinedLaterIsLinkedAndShapedAtTheClosingBrace) {
  auto m = ParseOrDie(R"(HloModule m
ENTRY e {
  ROOT n = f32[3] negate(q#1)
  q = (s32[], f32[3]) parameter(0)
}
)");
  const Instruction* g = Find(*m, "e", "n")->operand(0);
  EXPECT_EQ(g->operand(0), Find(*m, "e", "q"));
  EXPECT_EQ(g->shape().ToString(), "f32[3]");
}

TEST(TupleElementOperand, NamesTakeNoNameOfTheModuleEvenOneDefinedLater) {
  // The input itself uses get-tuple-element and .1 in the entry after the `#` use, and .2 in a
  // computation written after it: the generated names avoid all of them.
  auto m = ParseOrDie(R"(HloModule m
ENTRY e {
  p = (f32[], f32[]) parameter(0)
  a = f32[] add(p#0, p#1)
  get-tuple-element = f32[] negate(a)
  get-tuple-element.1 = f32[] negate(get-tuple-element)
  ROOT c = f32[] call(get-tuple-element.1), to_apply=later
}
later {
  x = f32[] parameter(0)
  ROOT get-tuple-element.2 = f32[] negate(x)
}
)");
  absl::flat_hash_set<std::string> names;
  for (const Computation* c : m->computations()) {
    for (const Instruction* i : c->instructions()) {
      EXPECT_TRUE(names.insert(std::string(i->name())).second) << "twice: " << i->name();
    }
  }
  const Instruction* a = Find(*m, "e", "a");
  EXPECT_EQ(a->operand(0)->name(), "get-tuple-element.3");
  EXPECT_EQ(a->operand(1)->name(), "get-tuple-element.4");
  VerifierOptions options;
  options.check_module_unique_names = true;
  EXPECT_EQ(Verify(*m, options), "OK");
}

TEST(TupleElementOperand, PrintsExplicitGetTupleElementAsAFixedPoint) {
  auto m = ParseOrDie(R"(HloModule m
ENTRY e {
  p = (f32[], s32[]) parameter(0)
  ROOT t = (s32[], f32[]) tuple(p#1, p#0)
}
)");
  const std::string printed = PrintModule(*m);
  EXPECT_EQ(printed.find('#'), std::string::npos) << printed;
  EXPECT_NE(printed.find("get-tuple-element(p), index=1"), std::string::npos) << printed;
  EXPECT_EQ(PrintModule(*ParseOrDie(printed)), printed);
}

}  // namespace
}  // namespace hloscope
