// hlo-opt's flags for the dataflow and buffer reports (tools/hlo-opt/hlo_opt_analysis.h): parsing,
// every bad value, and the reports they ask for in order. The printers' own tests are
// dataflow_report_test.cc.
#include "support/status_text.h"
#include "tests/analysis/analysis_test_util.h"
#include "tests/tools/flag_test_util.h"
#include "tools/hlo-opt/hlo_opt_analysis.h"

namespace hloscope {
namespace {

using analysis_testing::Parse;

TEST(HloOptAnalysisTest, FlagParsing) {
  AnalysisFlags flags;
  FlagTable table = testing::HloOptWordedTable();
  AddAnalysisFlags(table, flags);
  EXPECT_TRUE(testing::ParseFlag(table, "--print-buffers", std::nullopt).ok());
  EXPECT_TRUE(testing::ParseFlag(table, "--bitcast-defines-value", "true").ok());
  // --format is the memory report's row (hlo_opt_memory_flags_test.cc).
  EXPECT_FALSE(testing::ParseFlag(table, "--stats", std::nullopt).ok());
  EXPECT_TRUE(flags.print_buffers && !flags.print_dataflow &&
              flags.print.dataflow.bitcast_defines_value);
  EXPECT_EQ(StatusText(testing::ParseFlag(table, "--bitcast-defines-value", "maybe")),
            "option '--bitcast-defines-value' needs 'true' or 'false'");
  EXPECT_EQ(StatusText(testing::ParseFlag(table, "--print-dataflow", "1")),
            "option '--print-dataflow' takes no value");
}

TEST(HloOptAnalysisTest, AppendReportsPrintsDataflowThenBuffers) {
  auto m = Parse(R"(HloModule m
ENTRY e {
  ROOT p = f32[4] parameter(0)
})");
  AnalysisFlags flags;
  flags.print_dataflow = flags.print_buffers = true;
  std::string out;
  ASSERT_TRUE(AppendAnalysisReports(*m, flags, out).ok());
  EXPECT_EQ(out,
            "computation e\n  p{}: p{}\n"
            "1 buffers, 16 bytes, 16 bytes live-out\nbuffer 0: 16 bytes, live-out: p{}\n");
}

}  // namespace
}  // namespace hloscope
