// hlo-opt's --xla-buffer-assignment (issue 28) in-process: the flag, its combinations, and
// RunMemoryReport given XLA's assignment as bytes (XlaAssignmentSource: what a caller that read
// the module from an HloProto passes) or as the flag's file.
#include <fstream>
#include <sstream>
#include <string>

#include "gtest/gtest.h"
#include "support/status_text.h"
#include "tests/tools/flag_test_util.h"
#include "tools/hlo-opt/hlo_opt_memory.h"

namespace hloscope {
namespace {

const std::string kFixtures =
    std::string(HLOSCOPE_SOURCE_DIR) + "/testdata/analysis/memory/Inputs/xla/";

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(HloOptXlaAssignment, Flag) {
  MemoryFlags f;
  AnalysisFlags analysis;
  FlagTable table = testing::HloOptWordedTable();
  AddMemoryFlags(table, f, analysis);
  EXPECT_TRUE(testing::ParseFlag(table, "--xla-buffer-assignment", "m-buffer-assignment.txt").ok());
  EXPECT_TRUE(f.enabled);  // implies --memory-report
  EXPECT_EQ(f.xla_buffer_assignment, "m-buffer-assignment.txt");
  absl::Status empty = testing::ParseFlag(table, "--xla-buffer-assignment", "");
  EXPECT_EQ(StatusText(empty), "option '--xla-buffer-assignment' needs a file name");
  EXPECT_EQ(CheckMemoryFlags(f, analysis, false, 1), "");
  f.options.stage_by = MemoryOptions::StageBy::kModule;
  EXPECT_EQ(CheckMemoryFlags(f, analysis, false, 2),
            "--xla-buffer-assignment compares one module: give one input file");
}

TEST(HloOptXlaAssignment, RunMemoryReportTakesTheHloProtoBytes) {
  const std::string module = ReadFile(kFixtures + "small.hlo");
  const std::string pb = ReadFile(kFixtures + "small.hlo.pb");
  MemoryFlags flags;
  flags.enabled = true;
  flags.output = ::testing::TempDir() + "/xla_assignment_report.txt";
  std::remove(flags.output.c_str());
  const XlaAssignmentSource source{"small.hlo.pb", pb};
  EXPECT_EQ(RunMemoryReport({{"small.hlo", module}}, false, nullptr, "", flags, {}, &source), 0);
  const std::string report = ReadFile(flags.output);
  EXPECT_NE(report.find("XLA's buffer assignment (small.hlo.pb) beside ours: module small"),
            std::string::npos)
      << report;
  // The default model (xla) holds XLA's assignment against AssignLikeXla's, which puts b, a and
  // m into n's output allocation: all three are placed elsewhere (issue 29).
  EXPECT_NE(report.find("values that differ: 3 (3072 bytes)"), std::string::npos) << report;

  // Another module's assignment: exit 1 and nothing written.
  std::remove(flags.output.c_str());
  const std::string other = ReadFile(kFixtures + "other_module-buffer-assignment.txt");
  const XlaAssignmentSource wrong{"other.txt", other};
  EXPECT_EQ(RunMemoryReport({{"small.hlo", module}}, false, nullptr, "", flags, {}, &wrong), 1);
  EXPECT_FALSE(std::ifstream(flags.output).good());

  // The flag's file, read by RunMemoryReport itself; a missing one is a usage error (2).
  flags.xla_buffer_assignment = kFixtures + "small.after_optimizations-buffer-assignment.txt";
  EXPECT_EQ(RunMemoryReport({{"small.hlo", module}}, false, nullptr, "", flags), 0);
  EXPECT_NE(ReadFile(flags.output).find("values that differ: 2 (2048 bytes)"), std::string::npos);
  // Under the liveness model, the profile's own allocations: b, a and m in a 2048-byte temp
  // heap, as in XLA's text dump but for a, which XLA put into the output allocation.
  flags.options.model = MemoryOptions::Model::kLiveness;
  EXPECT_EQ(RunMemoryReport({{"small.hlo", module}}, false, nullptr, "", flags), 0);
  EXPECT_NE(ReadFile(flags.output).find("preallocated-temp                2048             2048"),
            std::string::npos)
      << ReadFile(flags.output);
  flags.options.model = MemoryOptions::Model::kXla;
  flags.xla_buffer_assignment = kFixtures + "no-such-file.txt";
  EXPECT_EQ(RunMemoryReport({{"small.hlo", module}}, false, nullptr, "", flags), 2);
}

}  // namespace
}  // namespace hloscope
