// RestoreScheduleOrder (passes/schedule_order.h): a computation comes out in an order where
// every operand and control predecessor is before its user, moving only what must move.
#include "passes/schedule_order.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "hlo/computation.h"
#include "hlo/module.h"
#include "hlo/verifier.h"
#include "tests/test_util.h"

namespace hloscope {
namespace {

using testing::Parse;

std::vector<std::string> Names(const Computation& c) {
  std::vector<std::string> names;
  for (const Instruction* i : c.instructions()) names.emplace_back(i->name());
  return names;
}

TEST(ScheduleOrderTest, ValidOrderIsLeftAlone) {
  auto m = Parse(R"(
HloModule m
ENTRY e {
  p = f32[2] parameter(0)
  b = f32[2] abs(p)
  a = f32[2] negate(p)
  ROOT r = f32[2] add(a, b)
})");
  EXPECT_FALSE(RestoreScheduleOrder(*m->entry()));
  EXPECT_EQ(Names(*m->entry()), (std::vector<std::string>{"p", "b", "a", "r"}));
}

// A late operand (with what it needs in turn) moves to just before its first user; everything
// else keeps its place.
TEST(ScheduleOrderTest, PullsLateOperandsBeforeTheirFirstUser) {
  auto m = Parse(R"(
HloModule m
ENTRY e {
  p = f32[2] parameter(0)
  x = f32[2] exponential(p)
  a = f32[2] add(x, c)
  y = f32[2] abs(p)
  b = f32[2] negate(p)
  c = f32[2] sine(b)
  ROOT r = f32[2] add(a, y)
})");
  EXPECT_TRUE(RestoreScheduleOrder(*m->entry()));
  EXPECT_EQ(Names(*m->entry()), (std::vector<std::string>{"p", "x", "b", "c", "a", "y", "r"}));
  EXPECT_FALSE(RestoreScheduleOrder(*m->entry()));  // already valid now
}

TEST(ScheduleOrderTest, ControlPredecessorsCount) {
  auto m = Parse(R"(
HloModule m
ENTRY e {
  p = f32[2] parameter(0)
  a = f32[2] negate(p), control-predecessors={b}
  b = f32[2] abs(p)
  ROOT r = (f32[2], f32[2]) tuple(a, b)
})");
  EXPECT_TRUE(RestoreScheduleOrder(*m->entry()));
  EXPECT_EQ(Names(*m->entry()), (std::vector<std::string>{"p", "b", "a", "r"}));
}

// The module-level form only touches scheduled modules, and leaves them verifiable.
TEST(ScheduleOrderTest, ModuleFormOnlyForScheduledModules) {
  const char* text = R"(
HloModule m
ENTRY e {
  p = f32[2] parameter(0)
  a = f32[2] add(p, b)
  b = f32[2] negate(p)
  ROOT r = f32[2] copy(a)
})";
  auto unscheduled = Parse(text);
  EXPECT_FALSE(RestoreScheduleOrder(*unscheduled));
  EXPECT_EQ(Names(*unscheduled->entry()), (std::vector<std::string>{"p", "a", "b", "r"}));

  auto scheduled = Parse(text);
  scheduled->set_is_scheduled(true);
  EXPECT_FALSE(VerifyModule(*scheduled).ok());
  EXPECT_TRUE(RestoreScheduleOrder(*scheduled));
  EXPECT_EQ(Names(*scheduled->entry()), (std::vector<std::string>{"p", "b", "a", "r"}));
  EXPECT_TRUE(VerifyModule(*scheduled).ok());
}

}  // namespace
}  // namespace hloscope
