// A fixture for tests that run one of the command-line tools as a user would: a scratch
// directory per test, files written into it, and the tool run through the shell with its exit
// status, standard output and standard error captured.
//
//   class HloOptTest : public hloscope::testing::ToolTest {
//    protected:
//     ToolResult Run(const std::string& args) const { return RunTool(HLO_OPT_PATH, args); }
//   };
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#include "gtest/gtest.h"

namespace hloscope::testing {

struct ToolResult {
  int code = -1;  // exit status; -1 when the tool did not exit normally
  std::string out;
  std::string err;
};

inline std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void WriteFile(const std::filesystem::path& path, std::string_view text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

class ToolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    // The process id too: two checkouts running the same test at once (a second worktree,
    // a CI job beside a developer's run) would otherwise share and delete one directory.
    dir_ = std::filesystem::path(::testing::TempDir()) /
           (std::string(info->test_suite_name()) + "_" + info->name() + "_" +
            std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // A file in this test's scratch directory.
  std::string Path(std::string_view name) const { return (dir_ / name).string(); }
  // Writes `text` to the scratch file `name` and returns its path.
  std::string Write(std::string_view name, std::string_view text) const {
    WriteFile(dir_ / name, text);
    return Path(name);
  }

  // Runs `tool ARGS` through the shell (ARGS may redirect standard input).
  ToolResult RunTool(std::string_view tool, const std::string& args) const {
    const std::string out = Path("stdout.txt");
    const std::string err = Path("stderr.txt");
    const std::string cmd = std::string(tool) + " " + args + " >" + out + " 2>" + err;
    const int status = std::system(cmd.c_str());
    ToolResult r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = ReadFile(out);
    r.err = ReadFile(err);
    return r;
  }

  std::filesystem::path dir_;
};

}  // namespace hloscope::testing
