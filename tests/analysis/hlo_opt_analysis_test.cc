// The text and JSON printers behind hlo-opt's --print-dataflow and --print-buffers.
#include "tools/hlo_opt_analysis.h"

#include "analysis_test_util.h"

namespace hloscope {
namespace {

using analysis_testing::Parse;

constexpr std::string_view kDus = R"(HloModule m
ENTRY e {
  buf = f32[8] parameter(0)
  upd = f32[2] parameter(1)
  i = s32[] parameter(2)
  dus = f32[8] dynamic-update-slice(buf, upd, i)
  ROOT b = f32[2,4] bitcast(dus)
})";

TEST(HloOptAnalysisTest, DataflowText) {
  auto m = Parse(kDus);
  absl::StatusOr<std::string> text = PrintDataflow(*m, {});
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text,
            "computation e\n"
            "  buf{}: buf{}\n"
            "  upd{}: upd{}\n"
            "  i{}: i{}\n"
            "  dus{}: dus{}\n"
            "  b{}: dus{}\n");
  AnalysisPrintOptions defines;
  defines.bitcast_defines_value = true;
  EXPECT_NE(PrintDataflow(*m, defines)->find("  b{}: b{}\n"), std::string::npos);
}

TEST(HloOptAnalysisTest, BuffersText) {
  auto m = Parse(kDus);
  absl::StatusOr<std::string> text = PrintBuffers(*m, {});
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text,
            "3 buffers, 44 bytes, 32 bytes live-out\n"
            "buffer 0: 32 bytes, live-out: buf{}, dus{}\n"
            "buffer 1: 8 bytes: upd{}\n"
            "buffer 2: 4 bytes: i{}\n");
}

TEST(HloOptAnalysisTest, BuffersJsonUsesProtoFieldNames) {
  auto m = Parse(kDus);
  AnalysisPrintOptions options;
  options.format = ReportFormat::kJson;
  absl::StatusOr<std::string> json = PrintBuffers(*m, options);
  ASSERT_TRUE(json.ok());
  EXPECT_NE(json->find("\"live_out_bytes\": \"32\""), std::string::npos) << *json;
  EXPECT_NE(json->find("\"is_phi\": false"), std::string::npos) << *json;
  EXPECT_NE(json->find("\"instruction\": \"dus\""), std::string::npos) << *json;
}

TEST(HloOptAnalysisTest, DataflowJson) {
  auto m = Parse(kDus);
  AnalysisPrintOptions options;
  options.format = ReportFormat::kJson;
  absl::StatusOr<std::string> json = PrintDataflow(*m, options);
  ASSERT_TRUE(json.ok());
  EXPECT_NE(json->find("\"bitcast_defines_value\": false"), std::string::npos) << *json;
  EXPECT_NE(json->find("\"value_count\": 4"), std::string::npos) << *json;
}

TEST(HloOptAnalysisTest, CalleeAlsoEmbeddedIsAnErrorSuggestingTheFlattenPass) {
  auto m = Parse(R"(HloModule m
callee {
  x = f32[] parameter(0)
  ROOT n = f32[] negate(x)
}
ENTRY e {
  a = f32[4] parameter(0)
  s = f32[] parameter(1)
  m = f32[4] map(a), dimensions={0}, to_apply=callee
  ROOT c2 = f32[] call(s), to_apply=callee
})");
  absl::StatusOr<std::string> text = PrintBuffers(*m, {});
  ASSERT_FALSE(text.ok());
  EXPECT_NE(analysis_testing::MessageOf(text.status()).find("--passes=flatten-call-graph"),
            std::string::npos);
}

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
  EXPECT_TRUE(flags.print_buffers && !flags.print_dataflow && flags.print.bitcast_defines_value);
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
