// ComputeValueUses and IsUse (analysis/value_uses.h): which operand reads are uses of a value
// under the two liveness notions, and where they differ on purpose. The expectations follow
// XLA's HloValue uses (xla/service/hlo_value.cc, MayUseOperandValue) where the notions agree
// with it, and the named differences where they do not.
#include "analysis/value_uses.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "support/status_text.h"
#include "tests/test_util.h"

namespace hloscope {
namespace {

using testing::Find;
using testing::Parse;

constexpr char kModule[] = R"(
HloModule m
ENTRY main {
  p = f32[4] parameter(0)
  q = f32[4] parameter(1)
  t = (f32[4], f32[4]) tuple(p, q)
  g = f32[4] get-tuple-element(t), index=0
  c = (f32[4], f32[4]) copy(t)
  b = f32[4] bitcast(p)
  d = f32[4] domain(q), domain={kind="sharding", entry={maximal device=0}, exit={maximal device=1}}
  o = f32[4] opt-barrier(b)
  tok = token[] after-all()
  a = f32[4] add-dependency(g, tok)
  n = f32[4] negate(a)
  ROOT r = (f32[4], (f32[4], f32[4]), f32[4], f32[4], f32[4]) tuple(n, c, d, o, b)
}
)";

// "user:operand_number:index" for each use of the value defined at `name`'s {} index.
std::vector<std::string> UsesOf(const DataflowAnalysis& flow,
                                const std::vector<std::vector<ValueUse>>& uses, const Module& m,
                                std::string_view name) {
  absl::Span<const ValueId> v = flow.ValuesAt(*Find(m, "main", name), {});
  EXPECT_EQ(v.size(), 1u) << name;
  std::vector<std::string> out;
  if (v.empty()) return out;
  for (const ValueUse& u : uses[v[0]]) {
    out.push_back(std::string(u.instruction->name()) + ":" + std::to_string(u.operand_number) +
                  ":" + ShapeIndexToString(u.operand_index));
  }
  return out;
}

struct Computed {
  std::unique_ptr<DataflowAnalysis> flow;
  std::vector<std::vector<ValueUse>> reads, touches;
};

Computed Compute(const Module& m, bool bitcast_defines_value) {
  DataflowAnalysis::Options options;
  options.bitcast_defines_value = bitcast_defines_value;
  auto flow = DataflowAnalysis::Run(m, options);
  EXPECT_TRUE(flow.ok()) << StatusText(flow.status());
  Computed c;
  c.flow = *std::move(flow);
  c.reads = ComputeValueUses(*c.flow, UseNotion::kValueRead);
  c.touches = ComputeValueUses(*c.flow, UseNotion::kBufferTouch);
  return c;
}

using Uses = std::vector<std::string>;

TEST(ValueUsesTest, ValueReadsSkipEveryInstructionThatPassesTheValueOn) {
  auto m = Parse(kModule);
  ASSERT_NE(m, nullptr);
  Computed c = Compute(*m, /*bitcast_defines_value=*/false);
  // p sits in t{0}, c{0} (a copy shares nested elements), g, b, o and r: only its readers
  // through them count. The copy reads t at {} only: the nested elements are not read.
  EXPECT_EQ(UsesOf(*c.flow, c.reads, *m, "p"), (Uses{"n:0:{}"}));
  // q: in t{1}, c{1}, the domain d and r: nothing reads it.
  EXPECT_EQ(UsesOf(*c.flow, c.reads, *m, "q"), Uses{});
  // t's own tuple: the copy reads it; get-tuple-element does not (unlike XLA).
  EXPECT_EQ(UsesOf(*c.flow, c.reads, *m, "t"), (Uses{"c:0:{}"}));
  // add-dependency reads its token (operand 1) for ordering.
  EXPECT_EQ(UsesOf(*c.flow, c.reads, *m, "tok"), (Uses{"a:1:{}"}));
}

TEST(ValueUsesTest, BufferTouchesCountEveryPositionButATuplesElements) {
  auto m = Parse(kModule);
  ASSERT_NE(m, nullptr);
  Computed c = Compute(*m, /*bitcast_defines_value=*/false);
  // The profiler keeps p's buffer live through every instruction that reads a position
  // holding it: the copy's nested read, the bitcast, opt-barrier, add-dependency, negate, and
  // the tuples t and r, which read only their operands' top level (r's operand 1, the copy,
  // holds p at {0}: not read).
  EXPECT_EQ(UsesOf(*c.flow, c.touches, *m, "p"), (Uses{"t:0:{}", "b:0:{}", "c:0:{0}", "a:0:{}",
                                                       "o:0:{}", "r:4:{}", "r:3:{}", "n:0:{}"}));
  // q: the tuple t, the domain, the copy's nested read, the root tuple through the domain.
  EXPECT_EQ(UsesOf(*c.flow, c.touches, *m, "q"), (Uses{"t:1:{}", "d:0:{}", "c:0:{1}", "r:2:{}"}));
  EXPECT_EQ(UsesOf(*c.flow, c.touches, *m, "t"), (Uses{"g:0:{}", "c:0:{}"}));
}

TEST(ValueUsesTest, ABitcastThatDefinesAValueReadsItsOperand) {
  auto m = Parse(kModule);
  ASSERT_NE(m, nullptr);
  Computed c = Compute(*m, /*bitcast_defines_value=*/true);
  // The bitcast reads p; negate still reads p through get-tuple-element and add-dependency.
  EXPECT_EQ(UsesOf(*c.flow, c.reads, *m, "p"), (Uses{"b:0:{}", "n:0:{}"}));
  // b's own value: opt-barrier and the root tuple pass it on (read by nobody), but both
  // touch its buffer.
  EXPECT_EQ(UsesOf(*c.flow, c.reads, *m, "b"), Uses{});
  EXPECT_EQ(UsesOf(*c.flow, c.touches, *m, "b"), (Uses{"o:0:{}", "r:4:{}", "r:3:{}"}));
}

TEST(ValueUsesTest, TheRuleByOperandAndIndex) {
  auto m = Parse(kModule);
  ASSERT_NE(m, nullptr);
  const Instruction& copy = *Find(*m, "main", "c");
  const Instruction& dep = *Find(*m, "main", "a");
  const Instruction& bitcast = *Find(*m, "main", "b");
  const Instruction& tuple = *Find(*m, "main", "t");
  EXPECT_TRUE(IsUse(UseNotion::kValueRead, copy, 0, {}, false));
  EXPECT_FALSE(IsUse(UseNotion::kValueRead, copy, 0, {0}, false));
  EXPECT_TRUE(IsUse(UseNotion::kBufferTouch, copy, 0, {0}, false));
  EXPECT_FALSE(IsUse(UseNotion::kValueRead, dep, 0, {}, false));
  EXPECT_TRUE(IsUse(UseNotion::kValueRead, dep, 1, {}, false));
  EXPECT_TRUE(IsUse(UseNotion::kBufferTouch, dep, 0, {}, false));
  EXPECT_FALSE(IsUse(UseNotion::kValueRead, bitcast, 0, {}, false));
  EXPECT_TRUE(IsUse(UseNotion::kValueRead, bitcast, 0, {}, true));
  EXPECT_FALSE(IsUse(UseNotion::kValueRead, tuple, 0, {}, false));
  EXPECT_TRUE(IsUse(UseNotion::kBufferTouch, tuple, 0, {}, false));
  EXPECT_FALSE(IsUse(UseNotion::kBufferTouch, tuple, 0, {1}, false));
  EXPECT_EQ(PositionsUsedBy(UseNotion::kValueRead, Opcode::kOptBarrier), UsedPositions::kNone);
  EXPECT_EQ(PositionsUsedBy(UseNotion::kBufferTouch, Opcode::kOptBarrier), UsedPositions::kAny);
  EXPECT_EQ(PositionsUsedBy(UseNotion::kBufferTouch, Opcode::kGetTupleElement),
            UsedPositions::kTopLevel);
}

}  // namespace
}  // namespace hloscope
