// pass_fuzz, the driver of `scripts/fuzz --passes`, run as a process: exit codes and output
// for a clean run, a found failure (reduced and printed with its seed), a single module file,
// and usage errors.
#include <sys/wait.h>

#include <cstdio>
#include <string>

#include "gtest/gtest.h"

namespace hloscope::differential {
namespace {

struct ProcessResult {
  int exit_code = -1;
  std::string output;
};

ProcessResult PassFuzz(const std::string& args) {
  ProcessResult r;
  std::string command = std::string(PASS_FUZZ_PATH) + " " + args + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return r;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) r.output.append(buffer, n);
  int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

TEST(PassFuzzTest, CleanRunExitsZero) {
  ProcessResult r = PassFuzz("--time=1 --seed=5 --passes=dce,copy-elision");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("pass_fuzz: 1s from seed 5, passes: dce, copy-elision"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("no failure"), std::string::npos) << r.output;
}

// copy-elision{region-analysis=true} decides by XLA's region analysis where the default
// refuses: it is fuzzed by default, and a pass list entry with options is accepted.
TEST(PassFuzzTest, RegionAnalysisIsFuzzedAndOptionsAreAccepted) {
  ProcessResult all = PassFuzz("--time=1 --seed=7");
  EXPECT_EQ(all.exit_code, 0) << all.output;
  EXPECT_NE(all.output.find(", copy-elision{region-analysis=true}"), std::string::npos)
      << all.output;
  ProcessResult one =
      PassFuzz("--time=1 --seed=7 '--passes=dce,copy-elision{region-analysis=true}'");
  EXPECT_EQ(one.exit_code, 0) << one.output;
  EXPECT_NE(one.output.find("passes: dce, copy-elision{region-analysis=true}\n"), std::string::npos)
      << one.output;
  ProcessResult bad = PassFuzz("'--passes=copy-elision{no-such-option=true}'");
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(bad.output.find("unknown pass 'copy-elision{no-such-option=true}'"), std::string::npos)
      << bad.output;
}

TEST(PassFuzzTest, BrokenPassIsFoundReducedAndPrinted) {
  ProcessResult r = PassFuzz("--time=5 --seed=100 --passes=remove-all-copies");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("FAILURE at seed "), std::string::npos) << r.output;
  // A result that differs ("seed N: ...") or a storage rule broken (entry outputs).
  EXPECT_NE(r.output.find("pass 'remove-all-copies' changes the result: "), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("HloModule random_"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("reproduce: pass_fuzz --time=1 --seed="), std::string::npos);
}

TEST(PassFuzzTest, ChecksOneModuleFile) {
  std::string dir = HLOSCOPE_TESTDATA_DIR "/tools/hlo_run_compare/";
  ProcessResult good = PassFuzz("--module=" + dir + "remove_all_copies.hlo");
  EXPECT_EQ(good.exit_code, 0) << good.output;
  EXPECT_NE(good.output.find("remove_all_copies.hlo: pass"), std::string::npos) << good.output;
  ProcessResult caught =
      PassFuzz("--module=" + dir + "remove_all_copies.hlo --passes=remove-all-copies");
  EXPECT_EQ(caught.exit_code, 1) << caught.output;
  EXPECT_NE(caught.output.find("remove_all_copies.hlo: FAIL"), std::string::npos);
  // The module with the copy removed is no baseline: reduced to show what it lacks.
  ProcessResult missing = PassFuzz("--module=" + dir + "Inputs/needed_copy_removed.hlo");
  EXPECT_EQ(missing.exit_code, 1) << missing.output;
  EXPECT_NE(missing.output.find("not a valid baseline (buffer mode differs from value mode)"),
            std::string::npos)
      << missing.output;
  EXPECT_NE(missing.output.find("still not a valid baseline:\nHloModule needed_copy"),
            std::string::npos)
      << missing.output;
}

TEST(PassFuzzTest, UsageErrorsExitTwo) {
  for (const char* args : {"--time=0", "--time=x", "--seed=-1", "--passes=no-such-pass", "--bogus",
                           "--module=/nonexistent/file.hlo"}) {
    ProcessResult r = PassFuzz(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
    EXPECT_NE(r.output.find("pass_fuzz: error: "), std::string::npos) << args << "\n" << r.output;
  }
  EXPECT_NE(PassFuzz("--passes=no-such-pass").output.find("unknown pass 'no-such-pass'"),
            std::string::npos);
  ProcessResult help = PassFuzz("--help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.output.find("usage: pass_fuzz"), std::string::npos);
}

}  // namespace
}  // namespace hloscope::differential
