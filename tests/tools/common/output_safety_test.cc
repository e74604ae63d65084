// Outputs are written whole or not at all, and output that cannot be written is an error
// (issue 22, "Data loss"): every tool, as a user runs it, with the write made to fail by
// `ulimit -f` (the process's file-size limit) or by /dev/full as standard output.
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/tool_test_util.h"

namespace hloscope {
namespace {

using testing::ReadFile;
using testing::ToolResult;

// Large enough that its printed form passes a 1 KiB file-size limit (`ulimit -f 2` in dash's
// 512-byte blocks), small enough to stay quick.
std::string BigModule() {
  std::string text = "HloModule big\n\nENTRY main {\n  p = f32[8] parameter(0)\n";
  std::string last = "p";
  for (int i = 0; i < 200; ++i) {
    // Appends only: GCC 12 at -O3 flags `"n" + std::to_string(i)` with a false -Wrestrict.
    std::string name = "n";
    name += std::to_string(i);
    text += "  ";
    text += name;
    text += " = f32[8] negate(";
    text += last;
    text += ")\n";
    last = name;
  }
  text += "  ROOT r = f32[8] add(" + last + ", p)\n}\n";
  return text;
}

constexpr std::string_view kSmallModule = R"(HloModule small

ENTRY main {
  a = f32[2] constant({1, 2})
  ROOT b = f32[2] add(a, a)
}
)";

class OutputSafetyTest : public testing::ToolTest {
 protected:
  // Runs `command` (a shell line) with its standard output going to /dev/full.
  ToolResult RunToFull(const std::string& command) const {
    const std::string err = Path("stderr.txt");
    const int status = std::system((command + " >/dev/full 2>" + err).c_str());
    ToolResult r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.err = ReadFile(err);
    return r;
  }
  // Runs `tool ARGS` under a 1 KiB file-size limit.
  ToolResult RunLimited(std::string_view tool, const std::string& args) const {
    return RunTool("ulimit -f 2; " + std::string(tool), args);
  }
  // The names in the scratch directory other than the test's own captures: a failed write
  // must not leave its temporary behind.
  std::vector<std::string> StrayFiles() const {
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(dir_)) {
      std::string name = entry.path().filename().string();
      if (name != "stdout.txt" && name != "stderr.txt") names.push_back(name);
    }
    std::sort(names.begin(), names.end());
    return names;
  }
};

// Writing over the input itself is refused before anything runs (issue 34; tools/common/output_paths.h
// and tests/robustness/hostile_cli_test.cc); a failed write leaves any other existing target
// byte-identical.
TEST_F(OutputSafetyTest, FailedRewriteOfAnExistingFileLeavesItByteIdentical) {
  const std::string input = Write("x.hlo", BigModule());
  const std::string target = Write("out.hlo", BigModule());
  const std::string before = ReadFile(target);
  ToolResult r = RunLimited(HLO_OPT_PATH, input + " -o " + target);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("hlo-opt: error: cannot write '" + target + "': File too large"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(ReadFile(target), before);
  EXPECT_EQ(StrayFiles(), (std::vector<std::string>{"out.hlo", "x.hlo"}));
}

TEST_F(OutputSafetyTest, FailedWriteOfANewFileLeavesNoFile) {
  const std::string input = Write("x.hlo", BigModule());
  ToolResult r = RunLimited(HLO_OPT_PATH, input + " -o " + Path("out.hlo"));
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(StrayFiles(), std::vector<std::string>{"x.hlo"});
}

// Outputs past AtomicFileWriter's writeback step (16 MiB), whose earlier stretches are handed
// to the kernel's writeback while later modules are still written.
std::string ManyModules(int copies) {
  std::string text;
  const std::string one = BigModule();
  for (int i = 0; i < copies; ++i) {
    if (i > 0) text += "// -----\n";
    text += one;
  }
  return text;
}

TEST_F(OutputSafetyTest, LargeOutputReplacesAFileWhole) {
  const std::string input = Write("many.hlo", ManyModules(4500));  // ~25 MB printed
  const std::string target = Write("out.hlo", "old contents\n");
  ToolResult printed = RunTool(HLO_OPT_PATH, "--split-input-file --jobs=2 " + input);
  ASSERT_EQ(printed.code, 0) << printed.err;
  ASSERT_GT(printed.out.size(), size_t{20} << 20);
  ToolResult r = RunTool(HLO_OPT_PATH, "--split-input-file --jobs=2 " + input + " -o " + target);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(ReadFile(target) == printed.out);  // not EXPECT_EQ: no 25 MB diff on failure
  EXPECT_EQ(StrayFiles(), (std::vector<std::string>{"many.hlo", "out.hlo"}));
}

TEST_F(OutputSafetyTest, LargeOutputFailingPastTheWritebackStepLeavesTheTargetUntouched) {
  const std::string input = Write("many.hlo", ManyModules(4500));
  const std::string target = Write("out.hlo", "old contents\n");
  // 40000 blocks of 512 bytes: the write fails at ~20 MB, after the first writeback.
  ToolResult r = RunTool("ulimit -f 40000; " + std::string(HLO_OPT_PATH),
                         "--split-input-file --jobs=2 " + input + " -o " + target);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("hlo-opt: error: cannot write '" + target + "': File too large"),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(ReadFile(target) == "old contents\n");
  EXPECT_EQ(StrayFiles(), (std::vector<std::string>{"many.hlo", "out.hlo"}));
}

TEST_F(OutputSafetyTest, SuccessfulRewriteKeepsModeAndSymbolicLink) {
  const std::string input = Write("x.hlo", BigModule());
  const std::string target = Write("out.hlo", "old contents\n");
  ASSERT_EQ(::chmod(target.c_str(), 0640), 0);
  std::filesystem::create_symlink("out.hlo", Path("link.hlo"));
  ToolResult r = RunTool(HLO_OPT_PATH, input + " --passes=dce -o " + Path("link.hlo"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::is_symlink(Path("link.hlo")));
  struct stat info;
  ASSERT_EQ(::stat(target.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 07777, 0640u);
  EXPECT_NE(ReadFile(target).find("ENTRY"), std::string::npos);
  EXPECT_EQ(StrayFiles(), (std::vector<std::string>{"link.hlo", "out.hlo", "x.hlo"}));
}

TEST_F(OutputSafetyTest, DeviceTargetIsWrittenInPlaceNotReplaced) {
  const std::string input = Write("x.hlo", kSmallModule);
  ToolResult r = RunTool(HLO_OPT_PATH, input + " -o /dev/null");
  EXPECT_EQ(r.code, 0) << r.err;
  struct stat info;
  ASSERT_EQ(::stat("/dev/null", &info), 0);
  EXPECT_TRUE(S_ISCHR(info.st_mode));
}

TEST_F(OutputSafetyTest, DirectoryTargetIsAnError) {
  const std::string input = Write("x.hlo", kSmallModule);
  std::filesystem::create_directory(Path("dir"));
  ToolResult r = RunTool(HLO_OPT_PATH, input + " -o " + Path("dir"));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("Is a directory"), std::string::npos) << r.err;
}

TEST_F(OutputSafetyTest, HloGenFailedWriteLeavesTargetUntouched) {
  Write("gen.hlo", "previous contents\n");
  ToolResult r = RunLimited(HLO_GEN_PATH, "--layers=4 -o " + Path("gen.hlo"));
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("hlo-gen: error: cannot write"), std::string::npos) << r.err;
  EXPECT_EQ(ReadFile(Path("gen.hlo")), "previous contents\n");
  EXPECT_EQ(StrayFiles(), std::vector<std::string>{"gen.hlo"});
  // And a new file is not created at all.
  r = RunLimited(HLO_GEN_PATH, "--layers=4 -o " + Path("new.hlo"));
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_EQ(StrayFiles(), std::vector<std::string>{"gen.hlo"});
}

TEST_F(OutputSafetyTest, PipelineDumpCsvFailureLeavesNoFile) {
  ToolResult r = RunLimited(HLO_PIPELINE_PATH,
                            "--schedule=1f1b --ranks=8 --microbatches=64 "
                            "--dump-csv=" +
                                Path("s.csv"));
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("cannot write"), std::string::npos) << r.err;
  EXPECT_EQ(StrayFiles(), std::vector<std::string>{});
}

// Standard output that cannot be written is a failure in every tool, never exit 0.
TEST_F(OutputSafetyTest, StandardOutputToAFullDeviceFails) {
  const std::string input = Write("x.hlo", kSmallModule);
  struct Case {
    std::string command;
    int code;
    std::string tool;
  };
  const Case cases[] = {
      {std::string(HLO_OPT_PATH) + " " + input, 2, "hlo-opt"},
      {std::string(HLO_OPT_PATH) + " --help", 2, "hlo-opt"},
      {std::string(HLO_RUN_PATH) + " " + input, 2, "hlo-run"},
      {std::string(HLO_PIPELINE_PATH) + " --schedule=gpipe --ranks=2 --microbatches=2", 1,
       "hlo-pipeline"},
      {std::string(HLO_GEN_PATH) + " --layers=4", 1, "hlo-gen"},
  };
  for (const Case& c : cases) {
    ToolResult r = RunToFull(c.command);
    EXPECT_EQ(r.code, c.code) << c.command << "\n" << r.err;
    EXPECT_NE(r.err.find(c.tool + ": error: cannot write"), std::string::npos) << c.command << "\n"
                                                                               << r.err;
    // Reported once, not once per layer that noticed.
    EXPECT_EQ(r.err.find("error:"), r.err.rfind("error:")) << c.command << "\n" << r.err;
  }
}

}  // namespace
}  // namespace hloscope
