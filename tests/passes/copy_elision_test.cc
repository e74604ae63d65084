// The copy-elision pass (passes/copy_elision.h): what it removes, what it keeps and why, its
// report, determinism and errors. Every test verifies the module after the pass.
#include "passes/copy_elision.h"

#include <string>

#include "gtest/gtest.h"
#include "hlo/printer.h"
#include "passes/pass_registry.h"
#include "support/status_text.h"
#include "tests/passes/passes_test_util.h"

namespace hloscope {
namespace {

using passes_testing::Find;
using passes_testing::Parse;
using passes_testing::Verify;

// The paxml pattern: a loop fusion updates the stash in place between bitcasts, and the body
// copies the whole stash before its root.
constexpr char kPaxml[] = R"(
HloModule paxml
stash {
  buf = f32[8,2,4]{2,1,0} parameter(0)
  rows = f32[8,8]{1,0} bitcast(buf)
  act = f32[2,4]{1,0} parameter(1)
  row = f32[1,8]{1,0} bitcast(act)
  i = s32[] parameter(2)
  zero = s32[] constant(0)
  dus = f32[8,8]{1,0} dynamic-update-slice(rows, row, i, zero)
  ROOT out = f32[8,2,4]{2,1,0} bitcast(dus)
}
cond {
  cp = (f32[8,2,4], s32[], f32[2,4]) parameter(0)
  ci = s32[] get-tuple-element(cp), index=1
  n = s32[] constant(8)
  ROOT lt = pred[] compare(ci, n), direction=LT
}
body {
  p = (f32[8,2,4], s32[], f32[2,4]) parameter(0)
  s = f32[8,2,4] get-tuple-element(p), index=0
  i = s32[] get-tuple-element(p), index=1
  x = f32[2,4] get-tuple-element(p), index=2
  act = f32[2,4] tanh(x)
  update = f32[8,2,4] fusion(s, act, i), kind=kLoop, calls=stash
  stash_copy = f32[8,2,4] copy(update)
  one = s32[] constant(1)
  next_i = s32[] add(i, one)
  ROOT next = (f32[8,2,4], s32[], f32[2,4]) tuple(stash_copy, next_i, x)
}
ENTRY main {
  x0 = f32[2,4] parameter(0)
  zero = f32[] constant(0)
  stash0 = f32[8,2,4] broadcast(zero), dimensions={}
  i0 = s32[] constant(0)
  init = (f32[8,2,4], s32[], f32[2,4]) tuple(stash0, i0, x0)
  loop = (f32[8,2,4], s32[], f32[2,4]) while(init), condition=cond, body=body
  ROOT final = f32[8,2,4] get-tuple-element(loop), index=0
}
)";

struct Result {
  bool changed = false;
  CopyElisionReport report;
};

Result RunPass(Module& m, CopyElisionOptions options = {}) {
  CopyElision pass(options);
  absl::StatusOr<bool> changed = pass.Run(m);
  EXPECT_TRUE(changed.ok()) << StatusText(changed.status());
  EXPECT_EQ(Verify(m), "OK");
  return {changed.ok() && *changed, pass.report()};
}

TEST(CopyElisionTest, RemovesThePaxmlStashCopy) {
  auto m = Parse(kPaxml);
  ASSERT_NE(m, nullptr);
  Result r = RunPass(*m);
  EXPECT_TRUE(r.changed);
  EXPECT_EQ(Find(*m, "body", "stash_copy"), nullptr);
  EXPECT_EQ(m->FindComputation("body")->root()->operand(0)->name(), "update");
  ASSERT_EQ(r.report.copies.size(), 1u);
  const CopyDecision& d = r.report.copies[0];
  EXPECT_EQ(d.name, "stash_copy");
  EXPECT_EQ(d.computation, "body");
  EXPECT_TRUE(d.removed);
  EXPECT_EQ(d.reason, "");
  EXPECT_EQ(d.bytes, 8 * 2 * 4 * 4);
  EXPECT_EQ(d.executions_per_step, 8);  // from the loop condition: i < 8, i from 0, +1
  EXPECT_TRUE(d.executions_known);
  EXPECT_EQ(r.report.removed, 1);
  EXPECT_EQ(r.report.kept, 0);
  EXPECT_EQ(r.report.bytes_saved_per_step, 8 * 256);
}

TEST(CopyElisionTest, BitcastsAsNewValuesKeepThePaxmlCopyAndNameTheBitcast) {
  auto m = Parse(kPaxml);
  ASSERT_NE(m, nullptr);
  Result r = RunPass(*m, {.dataflow = {.bitcast_defines_value = true}});
  EXPECT_FALSE(r.changed);
  EXPECT_NE(Find(*m, "body", "stash_copy"), nullptr);
  ASSERT_EQ(r.report.copies.size(), 1u);
  EXPECT_FALSE(r.report.copies[0].removed);
  EXPECT_EQ(r.report.copies[0].reason,
            "operand 0 of %update is not updated in place: %rows defines a new value");
  EXPECT_TRUE(r.report.bitcast_defines_value);
  EXPECT_EQ(r.report.bytes_kept_per_step, 8 * 256);
}

TEST(CopyElisionTest, IsRegisteredAndDeterministic) {
  absl::StatusOr<std::unique_ptr<Pass>> pass = PassRegistry::Global().Create("copy-elision");
  ASSERT_TRUE(pass.ok()) << StatusText(pass.status());
  auto a = Parse(kPaxml);
  auto b = Parse(kPaxml);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  ASSERT_TRUE((*pass)->Run(*a).ok());
  ASSERT_TRUE((*pass)->Run(*b).ok());
  EXPECT_EQ(Verify(*a), "OK");
  std::string ta, tb;
  AppendModule(*a, PrintOptions{}, ta);
  AppendModule(*b, PrintOptions{}, tb);
  EXPECT_EQ(ta, tb);
  // A second run finds nothing more to do.
  absl::StatusOr<bool> again = (*pass)->Run(*a);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(*again);
}

TEST(CopyElisionTest, ChainsOfCopiesGoToAFixedPoint) {
  auto m = Parse(R"(
HloModule m
ENTRY main {
  p = f32[4] parameter(0)
  a = f32[4] negate(p)
  c1 = f32[4] copy(a)
  c2 = f32[4] copy(c1)
  c3 = f32[4] copy(c2)
  ROOT r = f32[4] exponential(c3)
}
)");
  ASSERT_NE(m, nullptr);
  Result r = RunPass(*m);
  EXPECT_TRUE(r.changed);
  EXPECT_EQ(r.report.removed, 3);
  EXPECT_EQ(Find(*m, "main", "r")->operand(0)->name(), "a");
}

TEST(CopyElisionTest, KeepsCopiesWithFixedReasons) {
  auto m = Parse(R"(
HloModule m
ENTRY main {
  p = f32[4,2]{1,0} parameter(0)
  t = (f32[4,2], f32[4,2]) tuple(p, p)
  ct = (f32[4,2], f32[4,2]) copy(t)
  layout = f32[4,2]{0,1} copy(p)
  space = f32[4,2]{1,0:S(1)} copy(p)
  a = f32[4,2] negate(p)
  ordered = f32[4,2] copy(a), control-predecessors={a}
  ROOT r = ((f32[4,2], f32[4,2]), f32[4,2]{0,1}, f32[4,2]{1,0:S(1)}, f32[4,2]) tuple(ct, layout, space, ordered)
}
)");
  ASSERT_NE(m, nullptr);
  Result r = RunPass(*m);
  ASSERT_EQ(r.report.copies.size(), 4u);
  EXPECT_EQ(r.report.copies[0].reason, "copies a tuple (only its index table)");
  EXPECT_EQ(r.report.copies[1].reason, "changes the layout: f32[4,2]{1,0} to f32[4,2]{0,1}");
  EXPECT_EQ(r.report.copies[2].reason, "changes the memory space: S(0) to S(1)");
  EXPECT_EQ(r.report.copies[3].reason, "has control dependencies");
  EXPECT_FALSE(r.changed);
}

TEST(CopyElisionTest, KeepsACopyOfAParameterInTheResult) {
  auto m = Parse(R"(
HloModule m
ENTRY main {
  p = f32[4] parameter(0)
  ROOT c = f32[4] copy(p)
}
)");
  ASSERT_NE(m, nullptr);
  Result r = RunPass(*m);
  ASSERT_EQ(r.report.copies.size(), 1u);
  EXPECT_EQ(r.report.copies[0].reason,
            "source %p is read-only (entry parameter 0, not donated), and the destination is "
            "live out of the entry");
}

TEST(CopyElisionTest, UnknownTripCountCountsOnce) {
  auto m = Parse(R"(
HloModule m
cond {
  cp = (f32[4], pred[]) parameter(0)
  ROOT go = pred[] get-tuple-element(cp), index=1
}
body {
  bp = (f32[4], pred[]) parameter(0)
  x = f32[4] get-tuple-element(bp), index=0
  g = pred[] get-tuple-element(bp), index=1
  y = f32[4] negate(x)
  c = f32[4] copy(y)
  ROOT r = (f32[4], pred[]) tuple(c, g)
}
ENTRY main {
  p = f32[4] parameter(0)
  go = pred[] parameter(1)
  init = (f32[4], pred[]) tuple(p, go)
  ROOT w = (f32[4], pred[]) while(init), condition=cond, body=body
}
)");
  ASSERT_NE(m, nullptr);
  Result r = RunPass(*m);
  ASSERT_EQ(r.report.copies.size(), 1u);
  EXPECT_EQ(r.report.copies[0].executions_per_step, 1);
  EXPECT_FALSE(r.report.copies[0].executions_known);
}

// Shared callees are analysed as XLA does (issue 19): the callee's parameter holds both call
// sites' values, so its copy cannot be shown redundant and is kept.
TEST(CopyElisionTest, SharedCalleeCopyIsKeptWhenItsSourceHoldsSeveralValues) {
  auto m = Parse(R"(
HloModule m
f {
  fp = f32[4] parameter(0)
  ROOT c = f32[4] copy(fp)
}
ENTRY main {
  p = f32[4] parameter(0)
  a = f32[4] call(p), to_apply=f
  ROOT b = f32[4] call(a), to_apply=f
}
)");
  ASSERT_NE(m, nullptr);
  Result r = RunPass(*m);
  EXPECT_FALSE(r.changed);
  EXPECT_NE(Find(*m, "f", "c"), nullptr);
}

}  // namespace
}  // namespace hloscope
