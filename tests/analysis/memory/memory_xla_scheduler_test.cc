// The memory schedulers (analysis/memory/memory_schedulers.h) against XLA's
// xla/service/hlo_memory_scheduler_test.cc at openxla/xla commit
// 16569562fc04a1d1eadcd6a79f2269c1ccf4c421. XLA's tests run its list scheduler (or the default,
// which keeps the best of list, DFS and post-order) and check the order of two instructions; each
// test below is named after the XLA test and checks that order with our list scheduler.
#include <algorithm>
#include <memory>
#include <string_view>
#include <vector>

#include "analysis/memory/memory_profile.h"
#include "analysis/memory/memory_schedulers.h"
#include "gtest/gtest.h"
#include "hlo/computation.h"
#include "support/status_text.h"
#include "tests/test_util.h"

namespace hloscope {
namespace {

using testing::Parse;

// Position of the instruction named `name` in `order`, or -1.
int64_t PositionOf(const std::vector<const Instruction*>& order, std::string_view name) {
  for (size_t i = 0; i < order.size(); ++i) {
    if (order[i]->name() == name) return static_cast<int64_t>(i);
  }
  return -1;
}

std::vector<const Instruction*> ListOrder(const Module& m) {
  return ScheduleWith(*m.entry(), ScheduleKind::kList);
}

// add is the last use of ab: scheduling it before negate frees ab's buffer first. XLA's test
// runs its default scheduler, which keeps the best of list, DFS and post-order (our
// --schedule=min, resolved by the profiler): the order is the profile's timeline.
TEST(XlaHloMemoryScheduler, LastUseScheduledFirst) {
  auto m = Parse(R"(
HloModule LastUseScheduledFirst
ENTRY e {
  param = f32[42] parameter(0)
  ab = f32[42] abs(param)
  exp = f32[42] exponential(param)
  add = f32[42] add(ab, exp)
  negate = f32[42] negate(exp)
  ROOT sub = f32[42] subtract(add, negate)
})");
  ASSERT_NE(m, nullptr);
  MemoryOptions options;
  options.schedule = ScheduleKind::kMin;
  absl::StatusOr<MemoryReport> r = ProfileModule(*m, options);
  ASSERT_TRUE(r.ok()) << StatusText(r.status());
  std::vector<const Instruction*> order;
  for (const TimelinePoint& p : r->modules.at(0).timeline) order.push_back(p.instruction);
  ASSERT_EQ(order.size(), 6u);
  EXPECT_EQ(order.front()->name(), "param");
  EXPECT_EQ(order.back()->name(), "sub");
  EXPECT_LT(PositionOf(order, "add"), PositionOf(order, "negate"));
}

// d and e are ready together; d is p1's last use (through the tuple), so it goes first.
TEST(XlaHloMemoryScheduler, ListSchedulerHandlesAliasing) {
  auto m = Parse(R"(
HloModule test_aliasing_module
ENTRY root {
  param = s32[1000] parameter(0)
  p0 = s32[1000] copy(param)
  p1 = s32[1000] copy(param)
  t = (s32[1000], s32[1000]) tuple(p0, p1)
  a = s32[1000] get-tuple-element(t), index=0
  b = s32[1000] get-tuple-element(t), index=1
  c = s32[1000] add(a, b)
  d = s32[1000] add(c, b)
  e = s32[1000] add(c, c)
  f = s32[1000] add(e, e)
  ROOT result = (s32[1000], s32[1000], s32[1000]) tuple(d, e, f)
})");
  ASSERT_NE(m, nullptr);
  const std::vector<const Instruction*> order = ListOrder(*m);
  ASSERT_EQ(order.size(), 11u);
  EXPECT_EQ(order.front()->name(), "param");
  EXPECT_EQ(order.back()->name(), "result");
  EXPECT_LT(PositionOf(order, "d"), PositionOf(order, "e"));
}

// The send's forwarded data is not new memory: send-done frees the send and goes before n1.
TEST(XlaHloMemoryScheduler, HostSendDoneSchedule) {
  auto m = Parse(R"(
HloModule module
ENTRY entry {
  p = f32[1000,1000] parameter(0)
  token.0 = token[] after-all()
  send = (f32[1000,1000], u32[], token[]) send(p, token.0), channel_id=1, is_host_transfer=true
  n1 = f32[1000,1000] negate(p)
  n2 = f32[1000,1000] negate(n1)
  n3 = f32[1000,1000] negate(n2)
  ROOT send-done = token[] send-done(send), channel_id=1, is_host_transfer=true
})");
  ASSERT_NE(m, nullptr);
  const std::vector<const Instruction*> order = ListOrder(*m);
  EXPECT_LT(PositionOf(order, "send-done"), PositionOf(order, "n1"));
}

// A tuple defines its table and frees nothing; abs_abs2 frees as much as it defines: abs_abs2
// goes before the tuple.
TEST(XlaHloMemoryScheduler, TuplesAreAccountedCorrectly) {
  auto m = Parse(R"(
HloModule TuplesAreAccountedCorrectly
ENTRY e {
  lit = f32[6] constant({1, 1, 1, 1, 1, 1})
  abs_const = f32[6] abs(lit)
  abs_abs1 = f32[6] abs(abs_const)
  tuple = (f32[6]) tuple(abs_abs1)
  tuple_elm = f32[6] get-tuple-element(tuple), index=0
  abs_abs2 = f32[6] abs(abs_const)
  ROOT add = f32[6] add(tuple_elm, abs_abs2)
})");
  ASSERT_NE(m, nullptr);
  const std::vector<const Instruction*> order = ListOrder(*m);
  EXPECT_LT(PositionOf(order, "abs_abs2"), PositionOf(order, "tuple"));
}

// The fusion defines two results and frees nothing; exp is cheaper and goes first.
TEST(XlaHloMemoryScheduler, MultiOutputFusionAccountedCorrectly) {
  auto m = Parse(R"(
HloModule MultiOutputFusionAccountedCorrectly
fused {
  c1 = f32[5] parameter(0)
  c2 = f32[5] parameter(1)
  c3 = f32[5] parameter(2)
  add = f32[5] add(c1, c2)
  mul = f32[5] multiply(add, c3)
  ROOT tuple = (f32[5], f32[5]) tuple(add, mul)
}
ENTRY e {
  c1 = f32[5] constant({1, 1, 1, 1, 1})
  c2 = f32[5] constant({1, 2, 3, 4, 5})
  c3 = f32[5] constant({0, 2, 4, 6, 8})
  fusion = (f32[5], f32[5]) fusion(c1, c2, c3), kind=kLoop, calls=fused
  tuple_elm = f32[5] get-tuple-element(fusion), index=0
  exp = f32[5] exponential(c3)
  ROOT add = f32[5] add(tuple_elm, exp)
})");
  ASSERT_NE(m, nullptr);
  const std::vector<const Instruction*> order = ListOrder(*m);
  EXPECT_LT(PositionOf(order, "exp"), PositionOf(order, "fusion"));
}

}  // namespace
}  // namespace hloscope
