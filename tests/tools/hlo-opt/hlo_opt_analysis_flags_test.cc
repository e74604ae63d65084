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

// --ordering-query may be repeated: each query is parsed when given (a bad one is a usage
// error naming it) and answered after the printers, one line each, in the order given.
TEST(HloOptAnalysisTest, OrderingQueriesAccumulateAndAnswerInOrder) {
  AnalysisFlags flags;
  FlagTable table = testing::HloOptWordedTable();
  AddAnalysisFlags(table, flags);
  ASSERT_TRUE(testing::ParseFlag(table, "--ordering-query", "execution-constraint:d,w").ok());
  ASSERT_TRUE(testing::ParseFlag(table, "--ordering-query", "uses-before-def:w,s:0,d:0{0,0}").ok());
  ASSERT_TRUE(testing::ParseFlag(table, "--ordering-query", "executes-before:w,d").ok());
  EXPECT_EQ(StatusText(testing::ParseFlag(table, "--ordering-query", "runs-before:w,d")),
            "option '--ordering-query' in 'runs-before:w,d': unknown query 'runs-before' (one of "
            "executes-before, execution-constraint, defined-before, live-range-strictly-before, "
            "may-interfere, uses, uses-before-def)");
  ASSERT_EQ(flags.ordering_queries.size(), 3u);
  EXPECT_TRUE(flags.any());
  auto m = Parse(R"(HloModule m
wrapped {
  wp = f32[4] parameter(0)
  ROOT w = f32[4] negate(wp)
}
ENTRY e {
  p = f32[4] parameter(0)
  s = ((f32[4]), f32[4], s32[]) async-start(p), calls=wrapped
  ROOT d = f32[4] async-done(s), calls=wrapped
})");
  ASSERT_NE(m, nullptr);
  std::string out;
  ASSERT_TRUE(AppendAnalysisReports(*m, flags, out).ok());
  EXPECT_EQ(out,
            "execution-constraint(d, w): is-same\n"
            "uses-before-def({s operand 0 {}, d operand 0 {0,0}}, w{}): true\n"
            "executes-before(w, d): false\n");
  // A name the module lacks stops the answers: nothing is printed.
  flags.ordering_queries.clear();
  ASSERT_TRUE(testing::ParseFlag(table, "--ordering-query", "may-interfere:p,nope").ok());
  out.clear();
  const absl::Status missing = AppendAnalysisReports(*m, flags, out);
  EXPECT_EQ(StatusText(missing),
            "--ordering-query 'may-interfere:p,nope': no instruction named 'nope' in module m");
  EXPECT_EQ(out, "");
}

}  // namespace
}  // namespace hloscope
