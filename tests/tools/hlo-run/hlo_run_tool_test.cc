// hlo-run end to end: the exit statuses of --help (0 ok / 1 differ / 2 usage / 3 cannot run),
// with output on stdout and errors on stderr. The binary's path is compiled in.
#include <string>

#include "gtest/gtest.h"
#include "tests/eval/needed_copy_module.h"
#include "tests/tool_test_util.h"

namespace {

using Result = ::hloscope::testing::ToolResult;

constexpr std::string_view kNeededCopy = ::hloscope::eval::testing::kWithCopy;

class HloRunToolTest : public ::hloscope::testing::ToolTest {
 protected:
  Result Run(const std::string& args) const { return RunTool(HLO_RUN_PATH, args); }
};

TEST_F(HloRunToolTest, RunPrintsOutputsAndExitsZero) {
  std::string a = Write("a.hlo", kNeededCopy);
  Result r = Run(a + " --mode=buffer --seed=5");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(r.out.starts_with("{0}: f32[4] {")) << r.out;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(Run("--help").code, 0);
}

TEST_F(HloRunToolTest, CompareExitsOneWhenOutputsDiffer) {
  std::string a = Write("a.hlo", kNeededCopy);
  std::string text(kNeededCopy);
  std::string removed = text.replace(text.find("  c = f32[4] copy(x)\n"), 21, "");
  removed.replace(removed.find("dynamic-update-slice(c,"), 23, "dynamic-update-slice(x,");
  std::string b = Write("b.hlo", removed);
  Result same = Run("--compare " + a + " " + a);
  EXPECT_EQ(same.code, 0) << same.err;
  EXPECT_EQ(same.out, "outputs match (8 elements)\n");
  Result differ = Run("--compare " + a + " " + b);
  EXPECT_EQ(differ.code, 1) << differ.err;
  EXPECT_NE(differ.out.find("output {0}: element [1]: "), std::string::npos) << differ.out;
  // In value mode the copy makes no difference.
  EXPECT_EQ(Run("--compare " + a + " " + b + " --mode-b=value").code, 0);
}

TEST_F(HloRunToolTest, UsageErrorsExitTwo) {
  std::string a = Write("a.hlo", kNeededCopy);
  Result r = Run(a + " --frobnicate");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "hlo-run: error: unknown option '--frobnicate'\nRun 'hlo-run --help' for usage.\n");
  EXPECT_EQ(Run(a + " --mode=x").code, 2);
  EXPECT_EQ(Run("--compare " + a).code, 2);
  EXPECT_EQ(Run((dir_ / "missing.hlo").string()).code, 2);
  EXPECT_EQ(Run(a + " --inputs=" + (dir_ / "missing.txt").string()).code, 2);
}

TEST_F(HloRunToolTest, ModulesThatCannotRunExitThree) {
  std::string state = Write("state.hlo",
                            "HloModule m\nENTRY e {\n  p = f32[4] parameter(0)\n"
                            "  tok = token[] after-all()\n  s = (f32[4], token[]) infeed(tok)\n"
                            "  ROOT d = f32[4] get-tuple-element(s), index=0\n}\n");
  Result r = Run(state);
  EXPECT_EQ(r.code, 3);
  EXPECT_EQ(r.err,
            "hlo-run: error: the interpreter does not support opcode 'infeed' (instruction %s) "
            "(--host-io=seeded)\n");
  EXPECT_EQ(Run(Write("bad.hlo", "HloModule m\nENTRY e {\n  ROOT p = f32[4] bogus()\n}\n")).code,
            3);
  std::string a = Write("a.hlo", kNeededCopy);
  EXPECT_EQ(Run(a + " --max-bytes=10").code, 3);
  EXPECT_EQ(Run(a + " --inputs=" + Write("in.txt", "{1, 2}\n")).code, 3);
  // Shapes that do not fit their operands (the verifier has no rule for negate).
  EXPECT_EQ(Run(Write("verify.hlo",
                      "HloModule m\nENTRY e {\n  p = f32[4] parameter(0)\n"
                      "  ROOT n = f32[5] negate(p)\n}\n"))
                .code,
            3);
}

// The interpreter's refusals name no flag; hlo-run adds the one that lifts the limit, on every
// path that reports them: one module, replicas, and --compare.
TEST_F(HloRunToolTest, LimitsNameTheFlagThatLiftsThem) {
  std::string a = Write("a.hlo", kNeededCopy);
  Result bytes = Run(a + " --max-bytes=10");
  EXPECT_EQ(bytes.code, 3);
  EXPECT_TRUE(bytes.err.starts_with("hlo-run: error: the module needs about ")) << bytes.err;
  EXPECT_TRUE(bytes.err.ends_with(", more than the limit of 10 bytes (--max-bytes)\n"))
      << bytes.err;
  Result steps = Run(a + " --max-steps=1");
  EXPECT_EQ(steps.code, 3);
  EXPECT_TRUE(
      steps.err.starts_with("hlo-run: error: the run evaluated more than 1 instructions; "
                            "stopped at %"))
      << steps.err;
  EXPECT_TRUE(steps.err.ends_with(" (--max-steps)\n")) << steps.err;
  Result replicas = Run(a + " --replicas=2 --max-steps=1");
  EXPECT_EQ(replicas.code, 3);
  EXPECT_TRUE(replicas.err.starts_with("hlo-run: error: replica 0: the run evaluated more than 1 "))
      << replicas.err;
  EXPECT_TRUE(replicas.err.ends_with(" (--max-steps)\n")) << replicas.err;
  Result compare = Run("--compare " + a + " " + a + " --max-steps=1");
  EXPECT_EQ(compare.code, 3);
  EXPECT_TRUE(compare.err.ends_with(" (--max-steps)\n")) << compare.err;
}

}  // namespace
