// hlo-opt end to end: exit status 0 / 1 (bad input) / 2 (bad usage), what goes to stdout and
// stderr, files, stdin, --split-input-file and --stats.
#include <filesystem>
#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "tests/tool_test_util.h"

namespace {

namespace fs = std::filesystem;
using Result = ::hloscope::testing::ToolResult;
using ::hloscope::testing::ReadFile;

class HloOptTest : public ::hloscope::testing::ToolTest {
 protected:
  // Runs `hlo-opt ARGS` through the shell (ARGS may redirect stdin).
  Result Run(const std::string& args) const { return RunTool(HLO_OPT_PATH, args); }
};

constexpr std::string_view kGood = R"(HloModule good

ENTRY main {
  a = f32[2] parameter(0)
  t = (f32[2]) tuple(a)
  g = f32[2] get-tuple-element(t), index=0
  dead = f32[2] exponential(a)
  ROOT n = f32[2] negate(g)
}
)";

constexpr std::string_view kInvalid = R"(HloModule invalid

ENTRY main {
  p = f32[2] parameter(0)
  ROOT t = (f32[3]) tuple(p)
}
)";

TEST_F(HloOptTest, PrintsValidModule) {
  Result r = Run(Write("good.hlo", kGood));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out.find("HloModule good"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ROOT n = f32[2] negate(g)"), std::string::npos) << r.out;
}

TEST_F(HloOptTest, ReadsStdin) {
  const std::string file = Write("good.hlo", kGood);
  Result from_file = Run(file);
  Result dash = Run("- < " + file);
  Result no_arg = Run("< " + file);
  EXPECT_EQ(dash.code, 0) << dash.err;
  EXPECT_EQ(no_arg.code, 0) << no_arg.err;
  EXPECT_EQ(dash.out, from_file.out);
  EXPECT_EQ(no_arg.out, from_file.out);
}

TEST_F(HloOptTest, RunsPasses) {
  Result r = Run(Write("good.hlo", kGood) + " --passes=tuple-simplify,dce --verify-each");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.find("exponential"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("get-tuple-element"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ROOT n = f32[2] negate(a)"), std::string::npos) << r.out;
}

TEST_F(HloOptTest, WritesOutputFile) {
  const std::string in = Write("good.hlo", kGood);
  Result to_stdout = Run(in + " -o -");
  Result to_file = Run(in + " -o " + Path("out.hlo"));
  EXPECT_EQ(to_file.code, 0) << to_file.err;
  EXPECT_EQ(to_file.out, "");
  EXPECT_EQ(ReadFile(Path("out.hlo")), to_stdout.out);
  // The output parses again.
  Result again = Run(Path("out.hlo"));
  EXPECT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(again.out, to_stdout.out);
}

TEST_F(HloOptTest, ParseErrorIsBadInput) {
  const std::string file =
      Write("bad.hlo", "HloModule bad\n\nENTRY main {\n  p = f32[2] bogus-op(0)\n}\n");
  Result r = Run(file);
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.rfind(file + ":4:", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(": error: "), std::string::npos) << r.err;
}

TEST_F(HloOptTest, VerifierErrorIsBadInput) {
  Result r = Run(Write("invalid.hlo", kInvalid));
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out, "");
  // Pointed into the file like a parse error: file:line:col, the line, a caret.
  EXPECT_EQ(r.err, Path("invalid.hlo") +
                       ":5:8: error: computation 'main': instruction 't': tuple element 0 shape "
                       "f32[3] does not match operand 0 'p' shape f32[2]\n"
                       "  ROOT t = (f32[3]) tuple(p)\n"
                       "       ^\n");
}

TEST_F(HloOptTest, FailedRunLeavesNoOutputFile) {
  Result r = Run(Write("invalid.hlo", kInvalid) + " -o " + Path("out.hlo"));
  EXPECT_EQ(r.code, 1);
  EXPECT_FALSE(fs::exists(Path("out.hlo")));
}

TEST_F(HloOptTest, UnknownOptionIsBadUsage) {
  Result r = Run("--frobnicate");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            "hlo-opt: error: unknown option '--frobnicate'\n"
            "Run 'hlo-opt --help' for usage.\n");
}

TEST_F(HloOptTest, MissingFileIsBadUsage) {
  Result r = Run(Path("missing.hlo"));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("cannot open '" + Path("missing.hlo") + "': No such file or directory"),
            std::string::npos)
      << r.err;
}

TEST_F(HloOptTest, UnreadableInputIsBadUsage) {
  Result r = Run(dir_.string());  // a directory
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("cannot read '" + dir_.string() + "': Is a directory"), std::string::npos)
      << r.err;
}

TEST_F(HloOptTest, UnknownPassIsBadUsage) {
  Result r = Run(Write("good.hlo", kGood) + " --passes=dce,cse");
  EXPECT_EQ(r.code, 2);
  // The known passes as --list-passes shows them ("  name  description" lines, in name order;
  // a pass's options follow on lines indented further), so registering a pass needs no edit
  // here.
  Result list = Run("--list-passes");
  ASSERT_EQ(list.code, 0);
  std::string known;
  std::istringstream lines(list.out);
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with("  ") || line.size() < 3 || line[2] == ' ') continue;
    const size_t begin = line.find_first_not_of(' ');
    known += (known.empty() ? "" : ", ") + line.substr(begin, line.find(' ', begin) - begin);
  }
  EXPECT_NE(known.find("copy-elision"), std::string::npos) << list.out;
  EXPECT_EQ(r.err, "hlo-opt: error: unknown pass 'cse' (known passes: " + known +
                       ")\nRun 'hlo-opt --help' for usage.\n");
}

TEST_F(HloOptTest, OtherUsageErrors) {
  const std::string good = Write("good.hlo", kGood);
  EXPECT_EQ(Run(good + " " + good).code, 2);
  EXPECT_EQ(Run(good + " --print-style=fancy").code, 2);
  EXPECT_EQ(Run(good + " -o").code, 2);
  EXPECT_EQ(Run(good + " --stats=yes").code, 2);
  EXPECT_EQ(Run(good + " -o " + Path("no/such/dir/out.hlo")).code, 2);
}

TEST_F(HloOptTest, HelpDocumentsEveryOption) {
  Result r = Run("--help");
  EXPECT_EQ(r.code, 0);
  for (const char* flag :
       {"-o OUT", "--passes=", "--list-passes", "--split-input-file", "--verify-each",
        "--print-style=", "--no-metadata", "--stats", "--help"}) {
    EXPECT_NE(r.out.find(flag), std::string::npos) << flag;
  }
}

TEST_F(HloOptTest, ListPasses) {
  Result r = Run("--list-passes");
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("  dce "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  tuple-simplify "), std::string::npos) << r.out;
}

TEST_F(HloOptTest, SplitInputFile) {
  std::string text =
      std::string(kGood) + "// -----\n" + std::string(kInvalid) + "// -----\n" + std::string(kGood);
  Result r = Run(Write("split.hlo", text) + " --split-input-file");
  EXPECT_EQ(r.code, 1);
  // Both good modules are printed, separated by one `// -----` line.
  Result one = Run(Write("good.hlo", kGood));
  EXPECT_EQ(r.out, one.out + "// -----\n" + one.out);
  EXPECT_NE(r.err.find("instruction 't': tuple element 0"), std::string::npos) << r.err;
}

TEST_F(HloOptTest, SplitInputFileErrorsNameLinesOfTheWholeFile) {
  std::string text =
      std::string(kGood) + "// -----\n" + "HloModule bad\nENTRY e {\n  x = f32[] oops()\n}\n";
  const std::string file = Write("split.hlo", text);
  Result r = Run(file + " --split-input-file");
  EXPECT_EQ(r.code, 1);
  // kGood has 9 lines, the separator is line 10, `x = ...` is line 13.
  EXPECT_EQ(r.err.rfind(file + ":13:", 0), 0u) << r.err;
}

TEST_F(HloOptTest, Stats) {
  Result r = Run(Write("good.hlo", kGood) + " --stats");
  EXPECT_EQ(r.code, 0) << r.err;
  for (const char* line :
       {"module good", "computations", "instructions", "total array bytes", "parse time",
        "verify time", "IR memory", "per instruction", "instructions per opcode"}) {
    EXPECT_NE(r.out.find(line), std::string::npos) << line << "\n" << r.out;
  }
  EXPECT_NE(r.out.find("  instructions          5\n"), std::string::npos) << r.out;
  // Five results of 8 bytes each (the tuple counts its one f32[2] element).
  EXPECT_NE(r.out.find("  total array bytes     40 (40 B)\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("HloModule"), std::string::npos);
}

TEST_F(HloOptTest, NoMetadataAndLegacyStyle) {
  const std::string file = Write(
      "meta.hlo",
      "HloModule m\n\nENTRY main {\n  ROOT a = f32[2] parameter(0), metadata={op_name=\"x\"}\n}\n");
  Result with = Run(file);
  Result without = Run(file + " --no-metadata");
  EXPECT_NE(with.out.find("metadata="), std::string::npos) << with.out;
  EXPECT_EQ(without.out.find("metadata="), std::string::npos) << without.out;
  Result legacy = Run(file + " --print-style=legacy");
  EXPECT_EQ(legacy.code, 0);
  EXPECT_NE(legacy.out.find("%a"), std::string::npos) << legacy.out;
}

}  // namespace
