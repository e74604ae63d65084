// Products and sums of counts that do not fit in int64 (issue 22): trip counts of loops whose
// s64 bounds are far apart, executions per step under 200 nested loops, and the copy traffic
// built from them. Each must come out as unknown or saturated ("overflow" in the reports),
// never as a wrapped number presented as known. Labelled robustness, so scripts/test runs it
// under UBSan, which aborts on a signed overflow.
#include <limits>
#include <string>

#include "analysis/trip_count.h"
#include "fmt/format.h"
#include "gtest/gtest.h"
#include "passes/copy_elision.h"
#include "tests/passes/passes_test_util.h"

namespace hloscope {
namespace {

using passes_testing::Find;
using passes_testing::Parse;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

// A counting loop `for (i = start; i <dir> bound; ++i)` over an s64 counter.
std::string CountingLoop(std::string_view start, std::string_view bound, std::string_view dir) {
  return fmt::format(R"(HloModule m
cond {{
  p = (s64[]) parameter(0)
  i = s64[] get-tuple-element(p), index=0
  n = s64[] constant({1})
  ROOT lt = pred[] compare(i, n), direction={2}
}}
body {{
  p = (s64[]) parameter(0)
  i = s64[] get-tuple-element(p), index=0
  one = s64[] constant(1)
  i1 = s64[] add(i, one)
  ROOT t = (s64[]) tuple(i1)
}}
ENTRY e {{
  z = s64[] constant({0})
  t = (s64[]) tuple(z)
  ROOT w = (s64[]) while(t), condition=cond, body=body
}}
)",
                     start, bound, dir);
}

TEST(CheckedCountsTest, TripCountPastInt64IsUnknown) {
  auto m = Parse(CountingLoop("-9223372036854775808", "9223372036854775807", "LT"));
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(WhileTripCount(*Find(*m, "e", "w")), std::nullopt);
  // LE adds one more trip: 2^63 - 1 - 0 + 1 does not fit either.
  m = Parse(CountingLoop("0", "9223372036854775807", "LE"));
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(WhileTripCount(*Find(*m, "e", "w")), std::nullopt);
}

TEST(CheckedCountsTest, TripCountAtTheEdgeStillCounts) {
  auto m = Parse(CountingLoop("1", "9223372036854775807", "LE"));
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(WhileTripCount(*Find(*m, "e", "w")), kMax);
  m = Parse(CountingLoop("5", "2", "LT"));
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(WhileTripCount(*Find(*m, "e", "w")), 0);
}

// `depth` 2-trip loops inside each other; the innermost body copies its f32 value.
std::string NestedLoopsWithCopy(int depth) {
  std::string text = "HloModule loops\n";
  for (int i = 0; i < depth; ++i) {
    text += fmt::format(
        "cond{} {{\n  p = (s32[], f32[]) parameter(0)\n  i = s32[] get-tuple-element(p), "
        "index=0\n  two = s32[] constant(2)\n  ROOT lt = pred[] compare(i, two), "
        "direction=LT\n}}\n",
        i);
    std::string inner =
        i + 1 < depth ? fmt::format(
                            "  z = s32[] constant(0)\n  t0 = (s32[], f32[]) tuple(z, v)\n"
                            "  w = (s32[], f32[]) while(t0), condition=cond{0}, body=body{0}\n"
                            "  x = f32[] get-tuple-element(w), index=1\n",
                            i + 1)
                      : "  cp = f32[] copy(v)\n  x = f32[] negate(cp)\n";
    text += fmt::format(
        "body{} {{\n  p = (s32[], f32[]) parameter(0)\n  i = s32[] get-tuple-element(p), "
        "index=0\n  v = f32[] get-tuple-element(p), index=1\n{}  one = s32[] constant(1)\n"
        "  i1 = s32[] add(i, one)\n  ROOT t = (s32[], f32[]) tuple(i1, x)\n}}\n",
        i, inner);
  }
  text +=
      "ENTRY e {\n  v = f32[] parameter(0)\n  z = s32[] constant(0)\n"
      "  t = (s32[], f32[]) tuple(z, v)\n"
      "  w = (s32[], f32[]) while(t), condition=cond0, body=body0\n"
      "  ROOT r = f32[] get-tuple-element(w), index=1\n}\n";
  return text;
}

CopyDecision OnlyDecision(const std::string& text, int64_t* kept_bytes) {
  auto m = Parse(text);
  EXPECT_NE(m, nullptr);
  if (m == nullptr) return {};
  CopyElision pass;
  absl::StatusOr<bool> changed = pass.Run(*m);
  EXPECT_TRUE(changed.ok());
  EXPECT_EQ(pass.report().copies.size(), 1u);
  if (pass.report().copies.size() != 1) return {};
  *kept_bytes = pass.report().bytes_kept_per_step + pass.report().bytes_saved_per_step;
  return pass.report().copies[0];
}

TEST(CheckedCountsTest, ExecutionsUnderFewNestedLoopsMultiply) {
  int64_t traffic = 0;
  CopyDecision d = OnlyDecision(NestedLoopsWithCopy(10), &traffic);
  EXPECT_EQ(d.executions_per_step, 1024);
  EXPECT_TRUE(d.executions_known);
  EXPECT_EQ(traffic, 4 * 1024);
}

TEST(CheckedCountsTest, ExecutionsUnder200NestedLoopsSaturateAsUnknown) {
  // 2^200 executions: used to wrap to 0 with executions_known true, and the summary then
  // said "(-512 B left)" for some depths.
  int64_t traffic = 0;
  CopyDecision d = OnlyDecision(NestedLoopsWithCopy(200), &traffic);
  EXPECT_EQ(d.executions_per_step, kMax);
  EXPECT_FALSE(d.executions_known);
  EXPECT_EQ(traffic, kMax);
}

}  // namespace
}  // namespace hloscope
