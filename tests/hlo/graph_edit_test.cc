#include "gtest/gtest.h"
#include "hlo/printer.h"
#include "test_util.h"

namespace hloscope {
namespace {

using testing::Find;
using testing::ParseOrDie;

constexpr std::string_view kModule = R"(HloModule m
unused {
  ROOT p = f32[] parameter(0)
}
callee {
  ROOT p = f32[] parameter(0)
}
ENTRY e {
  a = f32[] parameter(0)
  b = f32[] negate(a)
  c = f32[] call(b), to_apply=callee
  ROOT d = f32[] add(b, c)
})";

TEST(GraphEdit, ReplaceAllUsesWithUpdatesUsersAndRoot) {
  auto m = ParseOrDie(kModule);
  ASSERT_NE(m, nullptr);
  Instruction* a = Find(*m, "a");
  Instruction* b = Find(*m, "b");
  Instruction* d = Find(*m, "d");
  b->ReplaceAllUsesWith(a);
  EXPECT_EQ(b->user_count(), 0);
  EXPECT_EQ(d->operand(0), a);
  EXPECT_EQ(a->user_count(), 3);  // b, c, d
  d->ReplaceAllUsesWith(a);
  EXPECT_EQ(m->entry()->root(), a);
}

TEST(GraphEdit, RemoveInstructionThenCompact) {
  auto m = ParseOrDie(kModule);
  ASSERT_NE(m, nullptr);
  Instruction* a = Find(*m, "a");
  Instruction* d = Find(*m, "d");
  Instruction* c = Find(*m, "c");
  d->ReplaceOperand(1, a);
  EXPECT_EQ(c->user_count(), 0);
  EXPECT_FALSE(m->entry()->RemoveInstruction(a));  // still used
  EXPECT_TRUE(m->entry()->RemoveInstruction(c));
  m->entry()->CompactInstructions();
  EXPECT_EQ(m->entry()->instruction_count(), 3);
  EXPECT_EQ(Find(*m, "b")->user_count(), 1);
  EXPECT_EQ(m->RemoveUnreachableComputations(), 2);
  EXPECT_EQ(m->computations().size(), 1u);
  EXPECT_EQ(m->FindComputation("callee"), nullptr);
  std::string printed = PrintModule(*m);
  EXPECT_EQ(printed,
            "HloModule m\n\nENTRY e {\n  a = f32[] parameter(0)\n  b = f32[] negate(a)\n"
            "  ROOT d = f32[] add(b, a)\n}\n");
}

// MoveAllBefore places appended instructions in one pass: before their anchor in the order
// given, before another moved one (which then goes before its own anchor), or left at the end.
TEST(GraphEdit, MoveAllBeforePlacesAppendedInstructions) {
  auto m = ParseOrDie(kModule);
  ASSERT_NE(m, nullptr);
  Computation* e = m->entry();
  Instruction* a = Find(*m, "a");
  Instruction* b = Find(*m, "b");
  Instruction* d = Find(*m, "d");
  auto append = [&](std::string_view name, Instruction* operand) {
    Instruction* i = m->CreateInstruction(Opcode::kNegate, a->shape_ptr(), name, e);
    i->AppendOperand(operand);
    e->AddInstruction(i);
    return i;
  };
  Instruction* x = append("x", a);
  Instruction* y = append("y", x);
  Instruction* z = append("z", a);
  Instruction* w = append("w", d);
  e->MoveAllBefore({{x, b}, {y, b}, {z, x}, {w, nullptr}});
  std::string order;
  for (const Instruction* i : e->instructions()) order += std::string(i->name()) + " ";
  EXPECT_EQ(order, "a z x y b c d w ");
  e->MoveAllBefore({});
  EXPECT_EQ(e->instruction_count(), 8);
}

TEST(GraphEdit, UniqueNamesAvoidExistingOnes) {
  auto m = ParseOrDie(kModule);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->UniqueInstructionName("x"), "x");
  std::string_view b1 = m->UniqueInstructionName("b");
  EXPECT_NE(b1, "b");
  EXPECT_NE(m->UniqueInstructionName("b"), b1);
}

TEST(GraphEdit, MemoryStatsCountInstructions) {
  auto m = ParseOrDie(kModule);
  ASSERT_NE(m, nullptr);
  Module::MemoryStats s = m->ComputeMemoryStats();
  EXPECT_EQ(s.instructions, 6);
  EXPECT_GE(s.instruction_bytes, 6 * static_cast<int64_t>(sizeof(Instruction)));
  EXPECT_GT(s.string_bytes, 0);
}

}  // namespace
}  // namespace hloscope
