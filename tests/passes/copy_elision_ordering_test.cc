// copy-elision's order_unordered_readers (issue 30): a copy kept only because a reader of a
// donated entry parameter and the writer of its buffer's next value are unordered goes when a
// control edge orders them, as XLA's copy removal does in its
// AddControlDependencyForInputOutputAlias test. Every test verifies the module after the pass.
#include <string>

#include "gtest/gtest.h"
#include "hlo/printer.h"
#include "passes/control_edges.h"
#include "passes/copy_elision.h"
#include "tests/passes/passes_test_util.h"

namespace hloscope {
namespace {

using passes_testing::Find;
using passes_testing::Parse;
using passes_testing::Verify;

// XLA's test module after copy-insertion: both parameters donated, both read by the add and
// the multiply, each output copied into its parameter's buffer.
constexpr char kIoAlias[] = R"(
HloModule test, input_output_alias={ {0}: (0, {}, may-alias), {1}: (1, {}, may-alias) }
ENTRY test {
  x = f32[3] parameter(0)
  copy = f32[3] copy(x)
  y = f32[3] parameter(1)
  copy.1 = f32[3] copy(y)
  add = f32[3] add(copy, copy.1)
  mul = f32[3] multiply(copy, copy.1)
  copy.2 = f32[3] copy(add), control-predecessors={copy}
  copy.3 = f32[3] copy(mul), control-predecessors={copy.1}
  ROOT tuple = (f32[3], f32[3]) tuple(copy.2, copy.3)
}
)";

TEST(CopyElisionOrderingTest, InputOutputAliasKeepsOneCopyWithTwoEdges) {
  auto m = Parse(kIoAlias);
  CopyElision pass;
  ASSERT_TRUE(pass.Run(*m).ok());
  EXPECT_EQ(Verify(*m), "OK");  // acyclic, and a valid module
  const CopyElisionReport& r = pass.report();
  EXPECT_EQ(r.removed, 3);
  EXPECT_EQ(r.kept, 1);
  ASSERT_EQ(r.added_edge_names.size(), 2u);
  EXPECT_EQ(r.added_edge_names[0].predecessor, "mul");
  EXPECT_EQ(r.added_edge_names[0].successor, "add");
  EXPECT_EQ(r.added_edge_names[1].predecessor, "add");
  EXPECT_EQ(r.added_edge_names[1].successor, "copy.3");
  ASSERT_EQ(r.added_edges.size(), 2u);
  EXPECT_EQ(r.added_edges[0],
            "%mul -> %add in test: reads %x before %add overwrites its buffer (XLA's copy "
            "removal orders unordered instructions), instead of %copy.2");
  // XLA's answer: the add after the multiply, the one copy after the add.
  EXPECT_EQ(Find(*m, "copy"), nullptr);
  EXPECT_EQ(Find(*m, "copy.2"), nullptr);
  ASSERT_NE(Find(*m, "copy.3"), nullptr);
  EXPECT_TRUE(HasControlEdge(*Find(*m, "mul"), *Find(*m, "add")));
  EXPECT_TRUE(HasControlEdge(*Find(*m, "add"), *Find(*m, "copy.3")));
  EXPECT_EQ(Find(*m, "copy.3")->operand(0), Find(*m, "mul"));
  // The text follows the edges: the multiply is listed before the add.
  const std::string text = PrintModule(*m);
  EXPECT_LT(text.find("mul = "), text.find("add = ")) << text;
}

TEST(CopyElisionOrderingTest, OffKeepsBothParameterCopies) {
  auto m = Parse(kIoAlias);
  CopyElisionOptions off;
  off.order_unordered_readers = false;
  CopyElision pass(off);
  ASSERT_TRUE(pass.Run(*m).ok());
  EXPECT_EQ(Verify(*m), "OK");
  EXPECT_EQ(pass.report().removed, 2);
  EXPECT_TRUE(pass.report().added_edges.empty());
  EXPECT_NE(Find(*m, "copy"), nullptr);
  EXPECT_NE(Find(*m, "copy.1"), nullptr);
}

TEST(CopyElisionOrderingTest, PassOptionTurnsItOff) {
  auto m = Parse(kIoAlias);
  CopyElision pass;
  ASSERT_TRUE(
      pass.mutable_pass_options().Set("copy-elision", "order-unordered-readers", "false").ok());
  ASSERT_TRUE(pass.Run(*m).ok());
  EXPECT_TRUE(pass.report().added_edges.empty());
  EXPECT_EQ(pass.report().removed, 2);
}

TEST(CopyElisionOrderingTest, ScheduledModuleGetsNoEdges) {
  // The schedule orders everything: the multiply already runs after the add, so only the
  // removals the schedule allows happen, and no edge is added.
  std::string text = kIoAlias;
  text.replace(text.find("HloModule test,"), 15, "HloModule test, is_scheduled=true,");
  auto m = Parse(text);
  CopyElision pass;
  ASSERT_TRUE(pass.Run(*m).ok());
  EXPECT_EQ(Verify(*m), "OK");
  EXPECT_TRUE(pass.report().added_edges.empty());
}

TEST(CopyElisionOrderingTest, NonDonatedBufferGetsNoEdges) {
  // A read of a broadcast merely unordered with the scatter updating it in place: XLA's tests
  // of that case (its default copy insertion) keep the copy, and so does copy-elision.
  auto m = Parse(R"(
HloModule unordered_read
add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  z = f32[] constant(0)
  b = f32[8] broadcast(z), dimensions={}
  n = f32[8] negate(b)
  c = f32[8] copy(b)
  idx = s32[2,1] parameter(0)
  upd = f32[2] parameter(1)
  s = f32[8] scatter(c, idx, upd), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add_f32
  ROOT t = (f32[8], f32[8]) tuple(s, n)
}
)");
  CopyElision pass;
  ASSERT_TRUE(pass.Run(*m).ok());
  EXPECT_EQ(Verify(*m), "OK");
  EXPECT_EQ(pass.report().removed, 0);
  EXPECT_TRUE(pass.report().added_edges.empty());
}

TEST(CopyElisionOrderingTest, SameAnswerEveryRun) {
  std::string first;
  for (int run = 0; run < 3; ++run) {
    auto m = Parse(kIoAlias);
    CopyElision pass;
    ASSERT_TRUE(pass.Run(*m).ok());
    const std::string text = PrintModule(*m);
    if (run == 0) first = text;
    EXPECT_EQ(text, first);
  }
}

}  // namespace
}  // namespace hloscope
