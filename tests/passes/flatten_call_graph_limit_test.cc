// flatten-call-graph counts what it would create before cloning (issue 22): a small module
// whose call graph doubles at every level must be refused with a clear error and left as it
// was, not cloned until memory runs out; the count saturates instead of wrapping. Labelled
// robustness, so scripts/test runs it under UBSan too.
#include <string>

#include "fmt/format.h"
#include "gtest/gtest.h"
#include "hlo/printer.h"
#include "passes/flatten_call_graph.h"
#include "support/status_text.h"
#include "tests/passes/passes_test_util.h"

namespace hloscope {
namespace {

using passes_testing::Parse;

// f{levels} calls f{levels-1} from two sites, down to f0; `extra` more instructions in f0.
std::string FanOut(int levels, int extra = 0) {
  std::string text = "HloModule fan\nf0 {\n  p = f32[] parameter(0)\n";
  std::string last = "p";
  for (int i = 0; i < extra; ++i) {
    text += fmt::format("  n{} = f32[] negate({})\n", i, last);
    last = fmt::format("n{}", i);
  }
  text += fmt::format("  ROOT r = f32[] negate({})\n}}\n", last);
  for (int i = 1; i <= levels; ++i) {
    text += fmt::format(
        "f{0} {{\n  p = f32[] parameter(0)\n  a = f32[] call(p), to_apply=f{1}\n"
        "  ROOT b = f32[] call(a), to_apply=f{1}\n}}\n",
        i, i - 1);
  }
  text += fmt::format(
      "ENTRY e {{\n  p = f32[] parameter(0)\n  ROOT c = f32[] call(p), to_apply=f{}\n}}\n", levels);
  return text;
}

TEST(FlattenCallGraphLimitTest, ExponentialFanOutIsRefusedBeforeCloning) {
  std::unique_ptr<Module> m = Parse(FanOut(40));
  ASSERT_NE(m, nullptr);
  const std::string before = PrintModule(*m);
  absl::StatusOr<bool> changed = FlattenCallGraph().Run(*m);
  ASSERT_FALSE(changed.ok());
  EXPECT_EQ(changed.status().code(), absl::StatusCode::kResourceExhausted);
  // 2^40 copies of f0 (2 instructions), 2^(40-k) of each f_k (3 instructions), 1 of the entry.
  EXPECT_EQ(StatusText(changed.status()),
            "flatten-call-graph: the flattened module would hold 5497558138879 instructions, "
            "more than the limit of 20000000: the call graph fans out (computation 'f0' would "
            "be copied 1099511627776 times, once per call site reaching it); nothing was "
            "changed");
  EXPECT_EQ(PrintModule(*m), before);
}

TEST(FlattenCallGraphLimitTest, CountsPastInt64SaySoInsteadOfWrapping) {
  // 2^70 call sites reach f0.
  std::unique_ptr<Module> m = Parse(FanOut(70));
  ASSERT_NE(m, nullptr);
  absl::StatusOr<bool> changed = FlattenCallGraph().Run(*m);
  ASSERT_FALSE(changed.ok());
  // f7 is the first computation whose count no longer fits.
  EXPECT_EQ(
      StatusText(changed.status()),
      "flatten-call-graph: the flattened module would hold overflow (2^63 or more) instructions, "
      "more than the limit of 20000000: the call graph fans out (computation 'f7' would "
      "be copied overflow (2^63 or more) times, once per call site reaching it); nothing was "
      "changed");
}

TEST(FlattenCallGraphLimitTest, FanOutWithinTheLimitIsFlattened) {
  // 2^10 copies of f0: small enough to build, and every call site then has its own callee.
  std::unique_ptr<Module> m = Parse(FanOut(10));
  ASSERT_NE(m, nullptr);
  absl::StatusOr<bool> changed = FlattenCallGraph().Run(*m);
  ASSERT_TRUE(changed.ok()) << StatusText(changed.status());
  EXPECT_TRUE(*changed);
  // 1 entry + sum over k of 2^(10-k) copies of f_k = 1 + (2^11 - 1).
  EXPECT_EQ(m->computations().size(), size_t{1} + 2047);
  EXPECT_EQ(VerifyModule(*m), absl::OkStatus());
}

TEST(FlattenCallGraphLimitTest, TheLimitCountsInstructionsNotJustCallSites) {
  // 2^12 copies of a 5,000-instruction f0 = 20.5 million instructions: refused, although
  // 4,096 call sites alone are few.
  std::unique_ptr<Module> m = Parse(FanOut(12, 4999));
  ASSERT_NE(m, nullptr);
  absl::StatusOr<bool> changed = FlattenCallGraph().Run(*m);
  ASSERT_FALSE(changed.ok());
  EXPECT_NE(StatusText(changed.status()).find("would be copied 4096 times"), std::string::npos)
      << StatusText(changed.status());
  EXPECT_EQ(m->computations().size(), size_t{14});
}

}  // namespace
}  // namespace hloscope
