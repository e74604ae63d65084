// The dataflow and buffer reports (analysis/dataflow_report.h) as text and as JSON: what
// hlo-opt's --print-dataflow and --print-buffers print.
#include "analysis/dataflow_report.h"

#include "analysis_test_util.h"
#include "support/status_text.h"

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

TEST(DataflowReportTest, DataflowText) {
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
  defines.dataflow.bitcast_defines_value = true;
  EXPECT_NE(PrintDataflow(*m, defines)->find("  b{}: b{}\n"), std::string::npos);
}

TEST(DataflowReportTest, BuffersText) {
  auto m = Parse(kDus);
  absl::StatusOr<std::string> text = PrintBuffers(*m, {});
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text,
            "3 buffers, 44 bytes, 32 bytes live-out\n"
            "buffer 0: 32 bytes, live-out: buf{}, dus{}\n"
            "buffer 1: 8 bytes: upd{}\n"
            "buffer 2: 4 bytes: i{}\n");
}

TEST(DataflowReportTest, BuffersJsonUsesProtoFieldNames) {
  auto m = Parse(kDus);
  AnalysisPrintOptions options;
  options.format = ReportFormat::kJson;
  absl::StatusOr<std::string> json = PrintBuffers(*m, options);
  ASSERT_TRUE(json.ok());
  EXPECT_NE(json->find("\"live_out_bytes\": \"32\""), std::string::npos) << *json;
  EXPECT_NE(json->find("\"is_phi\": false"), std::string::npos) << *json;
  EXPECT_NE(json->find("\"instruction\": \"dus\""), std::string::npos) << *json;
}

TEST(DataflowReportTest, DataflowJson) {
  auto m = Parse(kDus);
  AnalysisPrintOptions options;
  options.format = ReportFormat::kJson;
  absl::StatusOr<std::string> json = PrintDataflow(*m, options);
  ASSERT_TRUE(json.ok());
  EXPECT_NE(json->find("\"bitcast_defines_value\": false"), std::string::npos) << *json;
  EXPECT_NE(json->find("\"value_count\": 4"), std::string::npos) << *json;
}

TEST(DataflowReportTest, CalleeAlsoEmbeddedIsAnErrorSuggestingTheFlattenPass) {
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
  EXPECT_NE(StatusText(text.status()).find("run the flatten-call-graph pass first"),
            std::string::npos);
}

}  // namespace
}  // namespace hloscope
