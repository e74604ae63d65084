// hlo-opt's flags for the dataflow and buffer reports (tools/hlo_opt_analysis.h): parsing,
// every bad value, and the reports they ask for in order. The printers' own tests are
// dataflow_report_test.cc.
#include "tools/hlo_opt_analysis.h"

#include "tests/analysis/analysis_test_util.h"

namespace hloscope {
namespace {

using analysis_testing::Parse;

TEST(HloOptAnalysisTest, FlagParsing) {
  AnalysisFlags flags;
  std::string error;
  EXPECT_EQ(ParseAnalysisFlag("--print-buffers", std::nullopt, flags, &error),
            AnalysisFlagResult::kTaken);
  EXPECT_EQ(ParseAnalysisFlag("--bitcast-defines-value", "true", flags, &error),
            AnalysisFlagResult::kTaken);
  EXPECT_EQ(ParseAnalysisFlag("--format", "json", flags, &error), AnalysisFlagResult::kTaken);
  EXPECT_EQ(ParseAnalysisFlag("--stats", std::nullopt, flags, &error),
            AnalysisFlagResult::kNotAnalysisFlag);
  EXPECT_TRUE(flags.print_buffers && !flags.print_dataflow &&
              flags.print.dataflow.bitcast_defines_value);
  EXPECT_EQ(flags.print.format, ReportFormat::kJson);
  EXPECT_EQ(ParseAnalysisFlag("--format", "xml", flags, &error), AnalysisFlagResult::kBadValue);
  EXPECT_EQ(error, "option '--format' needs 'text' or 'json'");
  EXPECT_EQ(ParseAnalysisFlag("--print-dataflow", "1", flags, &error),
            AnalysisFlagResult::kBadValue);
  EXPECT_EQ(error, "option '--print-dataflow' takes no value");
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
