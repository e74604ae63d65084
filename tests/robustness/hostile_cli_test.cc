// No tool writes over what the user gave it, and messages show what they quote (issue 34): the
// tools run as processes, as a careless user would run them. Labelled robustness, so
// scripts/test runs these again with the tools built under ASan+UBSan.
//
//   - every output flag of every tool, pointed at an input (the same path, `./`, `dir/..` and a
//     symbolic link): exit 2, the exact message, the input byte-identical, no file left over;
//   - two outputs to one file: exit 2, nothing written;
//   - a failing run leaves existing output files as they were;
//   - control bytes in file names are escaped in error prefixes; a CSV's byte-order mark is
//     skipped and an invisible character in an action is shown escaped.
//
// The output flags are read from each tool's flag table (Flag::output_file), so that a new
// output flag is tested without an edit here; tests/tools/common/flag_tables_test.cc checks that
// every flag whose value names a file is marked or known as an input.
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "gtest/gtest.h"
#include "tests/tool_test_util.h"
#include "tests/tools/tool_tables.h"
#include "tools/common/flag_table.h"
#include "tools/common/output_paths.h"

namespace hloscope {
namespace {

using ::hloscope::testing::ReadFile;
using ::hloscope::testing::ToolResult;

constexpr std::string_view kModule =
    "HloModule m\n"
    "ENTRY e {\n"
    "  p = f32[4] parameter(0)\n"
    "  c = f32[4] copy(p)\n"
    "  ROOT n = f32[4] negate(c)\n"
    "}\n";
constexpr std::string_view kScheduleCsv = "0F0,0B0\n";

// How to run one tool on an input, for its output flags: the flags themselves are read from
// the tool's flag table (Flag::output_file, tests/tools/tool_tables.h), so that a new output
// flag is tested here without an edit.
struct ToolRun {
  testing::Tool tool;                // name, binary, flag table
  std::string_view input = {};       // the input file's name in the scratch directory; empty: none
  std::string_view args = {};        // the arguments before the output flag, with {in}
  std::string_view usage_hint = {};  // the line a usage error ends with
};

// hlo-run writes only to standard output, and hlo-gen reads no file, so neither has an output
// that could name an input; TheToolsWithoutInputsHaveNoOutputThatCouldNameOne holds them to it.
std::vector<ToolRun> ToolRuns() {
  std::vector<ToolRun> runs;
  for (testing::Tool& tool : testing::Tools()) {
    ToolRun run{.tool = std::move(tool)};
    if (run.tool.name == "hlo-opt") {
      run.input = "m.hlo";
      run.args = "{in}";
      run.usage_hint = "Run 'hlo-opt --help' for usage.";
    } else if (run.tool.name == "hlo-pipeline") {
      run.input = "s.csv";
      run.args = "--schedule=csv:{in}";
      run.usage_hint = "(see hlo-pipeline --help)";
    }
    runs.push_back(std::move(run));
  }
  return runs;
}

// What an output flag needs beside the input for its tool to take it at all.
std::string_view CompanionArgs(std::string_view flag) {
  return flag == "--report" ? "--passes=copy-elision" : "";
}

// `flag` naming `out`, spelled as the help row spells it: "-o OUT", "--report=OUT".
std::string Spelled(std::string_view flag, std::string_view out) {
  return std::string(flag) + (flag.starts_with("--") ? "=" : " ") + std::string(out);
}

std::string Fill(std::string_view pattern, std::string_view in) {
  std::string s(pattern);
  s.replace(s.find("{in}"), 4, in);
  return s;
}

std::string FirstLines(const std::string& text, int n) {
  size_t end = 0;
  for (int i = 0; i < n && end != std::string::npos; ++i) {
    end = text.find('\n', end == 0 ? 0 : end + 1);
  }
  return end == std::string::npos ? text : text.substr(0, end);
}

class HostileCliTest : public ::hloscope::testing::ToolTest {
 protected:
  void SetUp() override {
    ToolTest::SetUp();
    Write("m.hlo", kModule);
    Write("s.csv", kScheduleCsv);
    std::filesystem::create_directory(dir_ / "sub");
    std::filesystem::create_symlink("m.hlo", dir_ / "m-link.hlo");
    std::filesystem::create_symlink("s.csv", dir_ / "s-link.csv");
  }

  // Runs `tool ARGS` in the scratch directory, so that relative spellings work.
  ToolResult RunHere(std::string_view tool, const std::string& args) const {
    return RunTool("cd " + dir_.string() + " && " + std::string(tool), args);
  }

  // The scratch directory's entries besides the captures, sorted.
  std::vector<std::string> Entries() const {
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(dir_)) {
      std::string name = entry.path().filename().string();
      if (name != "stdout.txt" && name != "stderr.txt") names.push_back(name);
    }
    std::sort(names.begin(), names.end());
    return names;
  }
};

TEST_F(HostileCliTest, EveryOutputFlagNamingAnInputIsAUsageErrorAndTheInputStaysAsItWas) {
  int tested = 0;
  for (const ToolRun& run : ToolRuns()) {
    if (run.input.empty()) continue;  // TheToolsWithoutInputsHaveNoOutputThatCouldNameOne
    std::shared_ptr<void> keep;
    const FlagTable table = run.tool.table(keep);
    for (const Flag& row : table.flags()) {
      if (!row.output_file) continue;
      const std::string flag = row.names.back();
      const std::string input(run.input);
      const std::string link = input == "m.hlo" ? "m-link.hlo" : "s-link.csv";
      // The same file spelled as given, from `./`, through `sub/..`, through a symbolic link.
      for (const std::string& out : {input, "./" + input, "sub/../" + input, link}) {
        SCOPED_TRACE(run.tool.name + " " + flag + " " + out);
        const std::vector<std::string> before = Entries();
        const std::string contents = ReadFile(dir_ / input);
        std::string args = Fill(run.args, input);
        if (!CompanionArgs(flag).empty()) args += " " + std::string(CompanionArgs(flag));
        ToolResult r = RunHere(run.tool.path, args + " " + Spelled(flag, out));
        EXPECT_EQ(r.code, 2) << r.err;
        EXPECT_EQ(FirstLines(r.err, 2), run.tool.name + ": error: " + Spelled(flag, out) +
                                            " names the input file '" + input +
                                            "'; an output never replaces an input\n" +
                                            std::string(run.usage_hint))
            << r.err;
        EXPECT_TRUE(r.out.empty()) << r.out;
        EXPECT_EQ(ReadFile(dir_ / input), contents);
        EXPECT_TRUE(std::filesystem::is_symlink(dir_ / link));
        EXPECT_EQ(Entries(), before);
      }
      ++tested;
    }
  }
  // hlo-opt's -o, --report, --memory-report and --stage-costs; hlo-pipeline's --trace and
  // --dump-csv at least: a table that lost its marks would test nothing.
  EXPECT_GE(tested, 6);
}

TEST(HostileCliTables, TheToolsWithoutInputsHaveNoOutputThatCouldNameOne) {
  for (const ToolRun& run : ToolRuns()) {
    if (!run.input.empty()) continue;
    SCOPED_TRACE(run.tool.name);
    std::shared_ptr<void> keep;
    const FlagTable table = run.tool.table(keep);
    std::vector<std::string> outputs;
    for (const Flag& row : table.flags()) {
      if (row.output_file) outputs.push_back(row.names.back());
    }
    // hlo-run prints to standard output only; hlo-gen's -o is its one file, and it reads none.
    EXPECT_EQ(outputs, run.tool.name == "hlo-gen" ? std::vector<std::string>{"-o"}
                                                  : std::vector<std::string>{});
  }
}

TEST_F(HostileCliTest, StandardInputRedirectedFromTheOutputIsAnInput) {
  const std::string contents = ReadFile(dir_ / "m.hlo");
  ToolResult r = RunHere(HLO_OPT_PATH, "- -o m.hlo < m.hlo");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(
      r.err.starts_with("hlo-opt: error: -o m.hlo names the input file '<stdin>'; an "
                        "output never replaces an input\n"))
      << r.err;
  EXPECT_EQ(ReadFile(dir_ / "m.hlo"), contents);
  // From a pipe there is no file to protect.
  r = RunHere(HLO_OPT_PATH, "- -o copy.hlo < m.hlo");
  EXPECT_EQ(r.code, 0) << r.err;
  r = RunHere("cat m.hlo | " + std::string(HLO_OPT_PATH), "- -o copy.hlo");
  EXPECT_EQ(r.code, 0) << r.err;
}

TEST_F(HostileCliTest, TwoOutputsToOneFileAreAUsageErrorAndNothingIsWritten) {
  // Each combination of output flags a tool accepts, the second spelled another way. The
  // message names them in the order the tool lists its outputs.
  struct Case {
    std::string_view path;
    std::string args;
    std::string message;
  };
  const Case cases[] = {
      {HLO_OPT_PATH, "m.hlo -o out.txt --passes=copy-elision --report=sub/../out.txt",
       "hlo-opt: error: -o out.txt and --report=sub/../out.txt name the same file; give each "
       "output its own path\n"},
      {HLO_OPT_PATH, "m.hlo --memory-report=./out.txt --passes=copy-elision --report=out.txt",
       "hlo-opt: error: --report=out.txt and --memory-report=./out.txt name the same file; give "
       "each output its own path\n"},
      {HLO_PIPELINE_PATH, "--schedule=csv:s.csv --trace=out.txt --dump-csv=sub/../out.txt",
       "hlo-pipeline: error: --trace=out.txt and --dump-csv=sub/../out.txt name the same file; "
       "give each output its own path\n"},
  };
  for (bool exists : {false, true}) {
    if (exists) Write("out.txt", "old\n");
    for (const Case& c : cases) {
      SCOPED_TRACE(c.args + (exists ? " (out.txt exists)" : ""));
      const std::vector<std::string> before = Entries();
      ToolResult r = RunHere(c.path, c.args);
      EXPECT_EQ(r.code, 2) << r.err;
      EXPECT_TRUE(r.err.starts_with(c.message)) << r.err;
      EXPECT_EQ(Entries(), before);
      if (exists) {
        EXPECT_EQ(ReadFile(dir_ / "out.txt"), "old\n");
      }
    }
  }
}

TEST_F(HostileCliTest, AnOutputThatDoesNotExistYetIsNoInput) {
  ToolResult r = RunHere(HLO_OPT_PATH, "m.hlo -o new.hlo --passes=copy-elision --report=new.json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(ReadFile(dir_ / "new.hlo").find("ENTRY"), std::string::npos);
  EXPECT_NE(ReadFile(dir_ / "new.json").find("\"removed\""), std::string::npos);
  r = RunHere(HLO_PIPELINE_PATH, "--schedule=csv:s.csv --trace=t.json --dump-csv=d.csv");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(ReadFile(dir_ / "d.csv"), kScheduleCsv);
  EXPECT_NE(ReadFile(dir_ / "t.json").find("traceEvents"), std::string::npos);
}

TEST_F(HostileCliTest, AFailingRunLeavesExistingOutputsAsTheyWere) {
  // The first module is fine, the second does not parse: exit 1, and neither -o nor
  // --report=FILE may change (the report used to be replaced by an empty one).
  Write("half.hlo", std::string(kModule) +
                        "// -----\nHloModule bad\nENTRY e {\n  ROOT c = f32[] "
                        "constant(x)\n}\n");
  Write("report.json", "old report\n");
  Write("out.hlo", "old module\n");
  ToolResult r = RunHere(HLO_OPT_PATH,
                         "--split-input-file half.hlo --passes=copy-elision --report=report.json "
                         "-o out.hlo");
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_TRUE(
      r.err.starts_with("half.hlo:10:8: error: computation 'e': instruction 'c': constant "
                        "literal: 'x' is not a f32 value"))
      << r.err;
  EXPECT_EQ(ReadFile(dir_ / "report.json"), "old report\n");
  EXPECT_EQ(ReadFile(dir_ / "out.hlo"), "old module\n");
  EXPECT_EQ(Entries(), (std::vector<std::string>{"half.hlo", "m-link.hlo", "m.hlo", "out.hlo",
                                                 "report.json", "s-link.csv", "s.csv", "sub"}));
}

// A memory diff whose sizes pass int64 bytes is written, saturated numbers and all, but it is
// no success: as the memory report, -o FILE (or --memory-report=FILE) stays as it was, the diff
// goes to FILE.partial, and the exit code is 1.
TEST_F(HostileCliTest, ASaturatedMemoryDiffGoesToFilePartialAndLeavesFileAsItWas) {
  Write("past_int64.hlo",
        "HloModule past_int64, is_scheduled=true\n"
        "ENTRY e {\n"
        "  a = f32[1152921504606846976] parameter(0)\n"
        "  b = f32[1152921504606846976] parameter(1)\n"
        "  ROOT t = (f32[1152921504606846976], f32[1152921504606846976]) tuple(a, b)\n"
        "}\n");
  const std::string before_m = ReadFile(dir_ / "m.hlo");
  const std::string before_past = ReadFile(dir_ / "past_int64.hlo");
  for (const std::string flag : {"-o ", "--memory-report="}) {
    SCOPED_TRACE(flag);
    Write("diff.txt", "old diff\n");
    std::filesystem::remove(dir_ / "diff.txt.partial");
    ToolResult r = RunHere(HLO_OPT_PATH, "--memory-diff m.hlo past_int64.hlo " + flag + "diff.txt");
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_EQ(r.err,
              "hlo-opt: error: memory sizes past int64 bytes; the saturated numbers are lower "
              "bounds (report written to 'diff.txt.partial')\n");
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_EQ(ReadFile(dir_ / "diff.txt"), "old diff\n");
    const std::string partial = ReadFile(dir_ / "diff.txt.partial");
    EXPECT_NE(partial.find("sizes past int64: numbers shown as 9223372036854775807 are lower "
                           "bounds"),
              std::string::npos)
        << partial;
    EXPECT_EQ(ReadFile(dir_ / "m.hlo"), before_m);
    EXPECT_EQ(ReadFile(dir_ / "past_int64.hlo"), before_past);
  }
  // Standard output is no file to keep: the diff is printed there, with the same exit code.
  ToolResult r = RunHere(HLO_OPT_PATH, "--memory-diff m.hlo past_int64.hlo");
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_EQ(r.err,
            "hlo-opt: error: memory sizes past int64 bytes; the saturated numbers are lower "
            "bounds\n");
  EXPECT_NE(r.out.find("9223372036854775807"), std::string::npos) << r.out;
  // FILE.partial is an output too: it may not name an input.
  Write("d.txt.partial", kModule);
  r = RunHere(HLO_OPT_PATH, "--memory-diff d.txt.partial past_int64.hlo -o d.txt");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(
      r.err.starts_with("hlo-opt: error: -o d.txt.partial names the input file "
                        "'d.txt.partial'; an output never replaces an input\n"))
      << r.err;
  EXPECT_EQ(ReadFile(dir_ / "d.txt.partial"), kModule);
}

TEST_F(HostileCliTest, HloGenReplacesNoStageFileUnlessEveryStageIsWritten) {
  // Stage 1's target is a directory, so the run fails there: stage 0's existing file, already
  // generated into its temporary, must stay as it was (it used to be replaced).
  std::filesystem::create_directories(dir_ / "stages" / "stage_1.hlo");
  Write("stages/stage_0.hlo", "old stage 0\n");
  ToolResult r = RunHere(HLO_GEN_PATH,
                         "--layout=mpmd --stages=2 --layers=2 --hidden=64 --heads=2 --seq=16 "
                         "--microbatch=1 --microbatches=2 -o stages/");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(r.err.starts_with(
      "hlo-gen: error: cannot open 'stages/stage_1.hlo' for writing: Is a directory\n"))
      << r.err;
  EXPECT_EQ(ReadFile(dir_ / "stages" / "stage_0.hlo"), "old stage 0\n");
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir_ / "stages")) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"stage_0.hlo", "stage_1.hlo"}));  // no temporary
  // Once both can be written, both are.
  std::filesystem::remove(dir_ / "stages" / "stage_1.hlo");
  r = RunHere(HLO_GEN_PATH,
              "--layout=mpmd --stages=2 --layers=2 --hidden=64 --heads=2 --seq=16 "
              "--microbatch=1 --microbatches=2 -o stages/");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(ReadFile(dir_ / "stages" / "stage_0.hlo").starts_with("HloModule"));
  EXPECT_TRUE(ReadFile(dir_ / "stages" / "stage_1.hlo").starts_with("HloModule"));
}

TEST_F(HostileCliTest, HloPipelineReplacesNeitherOutputUnlessBothAreWritten) {
  // --dump-csv names a directory: the run fails, and the existing --trace file stays.
  std::filesystem::create_directory(dir_ / "dir.csv");
  Write("trace.json", "old trace\n");
  ToolResult r = RunHere(HLO_PIPELINE_PATH,
                         "--schedule=gpipe --ranks=1 --microbatches=2 --trace=trace.json "
                         "--dump-csv=dir.csv");
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_EQ(r.err, "hlo-pipeline: error: cannot open 'dir.csv' for writing: Is a directory\n");
  EXPECT_EQ(ReadFile(dir_ / "trace.json"), "old trace\n");
  EXPECT_EQ(Entries(), (std::vector<std::string>{"dir.csv", "m-link.hlo", "m.hlo", "s-link.csv",
                                                 "s.csv", "sub", "trace.json"}));
}

TEST_F(HostileCliTest, ControlBytesInFileNamesAreEscapedInErrorPrefixes) {
  const std::string name = "e\x1b[31mrr.hlo";
  Write(name, "HloModule m\nENTRY e {\n  ROOT c = f32[] constant(x)\n}\n");
  const std::string contents = ReadFile(dir_ / name);
  for (std::string_view tool : {std::string_view(HLO_OPT_PATH), std::string_view(HLO_RUN_PATH)}) {
    SCOPED_TRACE(tool);
    ToolResult r = RunHere(tool, "'" + name + "'");
    EXPECT_EQ(r.code, tool == HLO_OPT_PATH ? 1 : 3) << r.err;
    EXPECT_TRUE(
        r.err.starts_with("e\\x1b[31mrr.hlo:3:8: error: computation 'e': instruction "
                          "'c': constant literal: 'x' is not a f32 value"))
        << r.err;
    EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << r.err;
    EXPECT_EQ(ReadFile(dir_ / name), contents);
  }
  // A file that does not exist: the tools' own message.
  ToolResult r = RunHere(HLO_OPT_PATH, "'no\x1b]0;title\x07pe.hlo'");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(r.err.starts_with(
      "hlo-opt: error: cannot open 'no\\x1b]0;title\\x07pe.hlo': No such file or directory\n"))
      << r.err;
}

TEST_F(HostileCliTest, ScheduleCsvByteOrderMarkIsSkippedAndInvisibleCharactersAreShown) {
  Write("bom.csv",
        "\xEF\xBB\xBF"
        "0F0,0B0\n");
  ToolResult r = RunHere(HLO_PIPELINE_PATH, "--schedule=csv:bom.csv");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(r.out.starts_with("schedule bom.csv: 1 ranks, 1 stages, 1 microbatches, 2 compute"))
      << r.out;
  EXPECT_EQ(ReadFile(dir_ / "bom.csv"),
            "\xEF\xBB\xBF"
            "0F0,0B0\n");

  Write("zwsp.csv",
        "0F0,0F\xE2\x80\x8B"
        "0\n");
  r = RunHere(HLO_PIPELINE_PATH, "--schedule=csv:zwsp.csv");
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_TRUE(
      r.err.starts_with("hlo-pipeline: error: zwsp.csv:1:5: rank 0: action "
                        "'0F\\u200b0': unknown kind 'F\\u200b' (expected F, B,"))
      << r.err;
  EXPECT_EQ(ReadFile(dir_ / "zwsp.csv"),
            "0F0,0F\xE2\x80\x8B"
            "0\n");
}

TEST(OutputPathsTest, ComparesFilesNotSpellings) {
  const std::filesystem::path dir =
      std::filesystem::path(::testing::TempDir()) / "output_paths_unit";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "sub");
  ::hloscope::testing::WriteFile(dir / "in.hlo", "x");
  std::filesystem::create_symlink(dir / "in.hlo", dir / "link");
  std::filesystem::create_directory_symlink(dir / "sub", dir / "sub-link");
  const std::string in = (dir / "in.hlo").string();
  // The same file by any spelling.
  for (const std::string& out :
       {in, (dir / "sub" / ".." / "in.hlo").string(), (dir / "link").string()}) {
    EXPECT_EQ(CheckOutputPaths({{"--report", out}}, {in}),
              "--report=" + out + " names the input file '" + in +
                  "'; an output never replaces an input");
  }
  // Standard output and streams are never compared; an input that does not exist protects
  // nothing; a new file is no input.
  EXPECT_EQ(CheckOutputPaths({{"-o", "-"}, {"--trace", "-"}}, {"-"}), "");
  EXPECT_EQ(CheckOutputPaths({{"-o", "/dev/null"}, {"--trace", "/dev/null"}}, {"/dev/null"}), "");
  EXPECT_EQ(CheckOutputPaths({{"-o", (dir / "missing").string()}}, {(dir / "missing").string()}),
            "");
  EXPECT_EQ(CheckOutputPaths({{"-o", (dir / "new.hlo").string()}}, {in}), "");
  // Two new files: the same when their directories resolve to one.
  EXPECT_EQ(
      CheckOutputPaths(
          {{"-o", (dir / "sub" / "a").string()}, {"--report", (dir / "sub-link" / "a").string()}},
          {}),
      "-o " + (dir / "sub" / "a").string() + " and --report=" + (dir / "sub-link" / "a").string() +
          " name the same file; give each output its own path");
  EXPECT_EQ(
      CheckOutputPaths(
          {{"-o", (dir / "sub" / "a").string()}, {"--report", (dir / "sub" / "b").string()}}, {}),
      "");
  // Control bytes in a path are escaped in the message.
  ::hloscope::testing::WriteFile(dir / "e\x1bx", "x");
  EXPECT_EQ(CheckOutputPaths({{"-o", (dir / "e\x1bx").string()}}, {(dir / "e\x1bx").string()}),
            "-o " + dir.string() + "/e\\x1bx names the input file '" + dir.string() +
                "/e\\x1bx'; an output never replaces an input");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace hloscope
