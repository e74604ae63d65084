// hlo-opt's --memory-report: flag parsing (every error), flag combinations, and the text,
// JSON, CSV and HTML printers, alone and before/after.
#include "tools/hlo_opt_memory.h"

#include <string>

#include "gtest/gtest.h"
#include "tests/test_util.h"
#include "tools/report_util.h"

namespace hloscope {
namespace {

using testing::MessageOf;
using testing::Parse;

MemoryFlagResult Flag(std::string_view name, std::optional<std::string_view> value,
                      MemoryFlags& flags, std::string* error) {
  AnalysisFlags analysis;
  return ParseMemoryFlag(name, value, flags, analysis, error);
}

TEST(HloOptMemoryFlags, Parse) {
  MemoryFlags f;
  AnalysisFlags analysis;
  std::string error;
  EXPECT_EQ(ParseMemoryFlag("--memory-report", std::nullopt, f, analysis, &error),
            MemoryFlagResult::kTaken);
  EXPECT_TRUE(f.enabled);
  EXPECT_EQ(f.output, "-");
  EXPECT_EQ(ParseMemoryFlag("--memory-report", "out.html", f, analysis, &error),
            MemoryFlagResult::kTaken);
  EXPECT_EQ(f.output, "out.html");
  // text and json are shared with the analysis printers; csv and html are ours.
  EXPECT_EQ(ParseMemoryFlag("--format", "json", f, analysis, &error), MemoryFlagResult::kTaken);
  EXPECT_EQ(f.format, MemoryFormat::kJson);
  EXPECT_EQ(analysis.print.format, ReportFormat::kJson);
  EXPECT_EQ(ParseMemoryFlag("--format", "html", f, analysis, &error), MemoryFlagResult::kTaken);
  EXPECT_EQ(f.format, MemoryFormat::kHtml);
  EXPECT_TRUE(f.format_is_memory_only);
  EXPECT_EQ(ParseMemoryFlag("--format", "csv", f, analysis, &error), MemoryFlagResult::kTaken);
  EXPECT_EQ(f.format, MemoryFormat::kCsv);
  EXPECT_EQ(ParseMemoryFlag("--stage-by", "module", f, analysis, &error), MemoryFlagResult::kTaken);
  EXPECT_EQ(f.options.stage_by, MemoryOptions::StageBy::kModule);
  EXPECT_EQ(ParseMemoryFlag("--stage-by", "attr:_stage", f, analysis, &error),
            MemoryFlagResult::kTaken);
  EXPECT_EQ(f.options.stage_by, MemoryOptions::StageBy::kFrontendAttribute);
  EXPECT_EQ(f.options.stage_attr, "_stage");
  EXPECT_EQ(ParseMemoryFlag("--stage-regex", "s(\\d)", f, analysis, &error),
            MemoryFlagResult::kTaken);
  EXPECT_EQ(f.options.stage_by, MemoryOptions::StageBy::kOpNameRegex);
  EXPECT_EQ(f.options.stage_regex, "s(\\d)");
  EXPECT_EQ(ParseMemoryFlag("--forward-regex", "fwd", f, analysis, &error),
            MemoryFlagResult::kTaken);
  EXPECT_EQ(ParseMemoryFlag("--backward-regex", "bwd", f, analysis, &error),
            MemoryFlagResult::kTaken);
  EXPECT_EQ(f.options.forward_regex, "fwd");
  EXPECT_EQ(f.options.backward_regex, "bwd");
  EXPECT_EQ(ParseMemoryFlag("--dim-value", "7", f, analysis, &error), MemoryFlagResult::kTaken);
  EXPECT_EQ(f.options.dim_value, 7);
  EXPECT_EQ(ParseMemoryFlag("--top", "3", f, analysis, &error), MemoryFlagResult::kTaken);
  EXPECT_EQ(f.options.top_buffers, 3);
  EXPECT_EQ(ParseMemoryFlag("--count-tuple-tables", std::nullopt, f, analysis, &error),
            MemoryFlagResult::kTaken);
  EXPECT_TRUE(f.options.count_tuple_tables);
  EXPECT_EQ(ParseMemoryFlag("--stats", std::nullopt, f, analysis, &error),
            MemoryFlagResult::kNotMemoryFlag);
}

TEST(HloOptMemoryFlags, BadValues) {
  struct Bad {
    const char* name;
    std::optional<std::string_view> value;
    const char* error;
  };
  const Bad cases[] = {
      {"--memory-report", "", "option '--memory-report=' needs a file name"},
      {"--format", "xml", "option '--format' needs 'text', 'json', 'csv' or 'html'"},
      {"--format", std::nullopt, "option '--format' needs 'text', 'json', 'csv' or 'html'"},
      {"--stage-by", "rank", "option '--stage-by' needs 'module' or 'attr:NAME', not 'rank'"},
      {"--stage-by", "attr:", "option '--stage-by' needs 'module' or 'attr:NAME', not 'attr:'"},
      {"--stage-by", std::nullopt, "option '--stage-by' needs a value"},
      {"--stage-regex", "", "option '--stage-regex' needs a value"},
      {"--forward-regex", std::nullopt, "option '--forward-regex' needs a value"},
      {"--dim-value", "x", "option '--dim-value' needs a non-negative integer"},
      {"--dim-value", "-1", "option '--dim-value' needs a non-negative integer"},
      {"--top", std::nullopt, "option '--top' needs a non-negative integer"},
      {"--count-tuple-tables", "yes", "option '--count-tuple-tables' takes no value"},
  };
  for (const Bad& b : cases) {
    MemoryFlags f;
    std::string error;
    EXPECT_EQ(Flag(b.name, b.value, f, &error), MemoryFlagResult::kBadValue) << b.name;
    EXPECT_EQ(error, b.error);
  }
}

TEST(HloOptMemoryFlags, Combinations) {
  MemoryFlags f;
  AnalysisFlags analysis;
  EXPECT_EQ(CheckMemoryFlags(f, analysis, false, 1), "");
  f.format_is_memory_only = true;
  EXPECT_EQ(CheckMemoryFlags(f, analysis, false, 1),
            "--format=csv and --format=html need --memory-report");
  f.enabled = true;
  EXPECT_EQ(CheckMemoryFlags(f, analysis, false, 1), "");
  EXPECT_EQ(CheckMemoryFlags(f, analysis, true, 1),
            "--memory-report cannot be combined with --print-dataflow, --print-buffers or "
            "--stats");
  analysis.print_buffers = true;
  EXPECT_NE(CheckMemoryFlags(f, analysis, false, 1), "");
  analysis.print_buffers = false;
  EXPECT_NE(CheckMemoryFlags(f, analysis, false, 2).find("more than one input file"),
            std::string::npos);
  f.options.stage_by = MemoryOptions::StageBy::kModule;
  EXPECT_EQ(CheckMemoryFlags(f, analysis, false, 2), "");
}

constexpr char kModule[] = R"(
HloModule straight, is_scheduled=true
ENTRY e {
  p = f32[256] parameter(0)
  b = f32[4,256] broadcast(p), dimensions={1}, metadata={op_name="jit(f)/s<1>/b"}
  c = f32[4,256] exponential(b), metadata={op_name="jit(f)/s<1>/c"}
  ROOT d = f32[1,256] slice(c), slice={[0:1], [0:256]}
})";

constexpr char kSmaller[] = R"(
HloModule straight, is_scheduled=true
ENTRY e {
  p = f32[256] parameter(0)
  b = f32[4,256] broadcast(p), dimensions={1}, metadata={op_name="jit(f)/s<1>/b"}
  ROOT d = f32[1,256] slice(b), slice={[0:1], [0:256]}
})";

// The printers' expected numbers are the liveness model's (issue 7's hand computations).
MemoryReport Profile(const Module& m, MemoryOptions o = {}) {
  o.model = MemoryOptions::Model::kLiveness;
  absl::StatusOr<MemoryReport> r = ProfileModule(m, o);
  EXPECT_TRUE(r.ok()) << MessageOf(r.status());
  return r.ok() ? *std::move(r) : MemoryReport{};
}

TEST(HloOptMemoryPrinters, Text) {
  auto m = Parse(kModule);
  ASSERT_NE(m, nullptr);
  const std::string text = MemoryReportText(Profile(*m));
  EXPECT_NE(text.find("module straight: peak 9216 bytes (9.0 KiB) at c (jit(f)/s<1>/c)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("schedule: text order (is_scheduled), 4 entry instructions"),
            std::string::npos);
  EXPECT_NE(text.find("4096 buffer     b f32[4,256]"), std::string::npos) << text;
}

TEST(HloOptMemoryPrinters, Json) {
  auto m = Parse(kModule);
  ASSERT_NE(m, nullptr);
  absl::StatusOr<std::string> json = MemoryReportJson(Profile(*m));
  ASSERT_TRUE(json.ok());
  EXPECT_NE(json->find("\"peak_bytes\": \"9216\""), std::string::npos) << *json;
  EXPECT_NE(json->find("\"peak_instruction\": \"c\""), std::string::npos);
  EXPECT_NE(json->find("\"activation_bytes_per_microbatch\": \"0\""), std::string::npos);
  EXPECT_NE(json->find("\"peak_activation_bytes\""), std::string::npos);
  EXPECT_NE(json->find("\"stage\": \"0\""), std::string::npos);
  EXPECT_NE(json->find("\"dynamic_sizes\": \"bound\""), std::string::npos);
}

TEST(HloOptMemoryPrinters, Csv) {
  auto m = Parse(kModule);
  ASSERT_NE(m, nullptr);
  MemoryOptions o;
  o.stage_by = MemoryOptions::StageBy::kOpNameRegex;
  o.stage_regex = "/s<(\\d)>/";
  EXPECT_EQ(MemoryReportCsv(Profile(*m, o)),
            "module,step,instruction,stage,live_bytes\n"
            "straight,0,p,,1024\n"
            "straight,1,b,1,5120\n"
            "straight,2,c,1,9216\n"
            "straight,3,d,,6144\n");
}

TEST(HloOptMemoryPrinters, BeforeAndAfter) {
  auto a = Parse(kModule);
  auto b = Parse(kSmaller);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  MemoryReport before = Profile(*a), after = Profile(*b);
  const std::string text = MemoryReportText(before, &after, "dce");
  EXPECT_NE(text.find("memory before and after --passes=dce"), std::string::npos);
  // 9216 -> 6144: 3072 bytes, a third.
  const size_t line = text.find("\npeak bytes ");
  ASSERT_NE(line, std::string::npos) << text;
  const std::string peak_line = text.substr(line + 1, text.find('\n', line + 1) - line - 1);
  for (const char* token : {" 9216 ", " 6144 ", " 3072 ", " 33.33%"}) {
    EXPECT_NE(peak_line.find(token), std::string::npos) << token << " in: " << peak_line;
  }
  absl::StatusOr<std::string> json = MemoryReportJson(before, &after, "dce");
  ASSERT_TRUE(json.ok());
  EXPECT_NE(json->find("\"saving_bytes\": \"3072\""), std::string::npos) << *json;
  EXPECT_NE(json->find("\"passes\": \"dce\""), std::string::npos);
  EXPECT_NE(json->find("\"before\""), std::string::npos);
  const std::string csv = MemoryReportCsv(before, &after);
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "phase,module,step,instruction,stage,live_bytes");
  EXPECT_NE(csv.find("after,straight,2,d,,6144\n"), std::string::npos) << csv;
  const std::string html = MemoryReportHtml(before, &after, "dce");
  EXPECT_NE(html.find("saving 3072 bytes (33.33%)"), std::string::npos);
  EXPECT_NE(html.find("after: all buffers"), std::string::npos);
}

// The page stands alone: inline SVG, no scripts, links or external resources; names are
// escaped.
TEST(HloOptMemoryPrinters, HtmlIsSelfContained) {
  auto m = Parse(kModule);
  ASSERT_NE(m, nullptr);
  MemoryOptions o;
  o.stage_by = MemoryOptions::StageBy::kOpNameRegex;
  o.stage_regex = "/s<(\\d)>/";
  const std::string html = MemoryReportHtml(Profile(*m, o));
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("<polyline class=\"series\""), std::string::npos);
  EXPECT_NE(html.find("stage 1"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(html.find("url("), std::string::npos);
  EXPECT_NE(html.find("jit(f)/s&lt;1&gt;/c"), std::string::npos);
  EXPECT_EQ(html.find("s<1>"), std::string::npos);
}

TEST(HloOptMemoryPrinters, HumanBytes) {
  EXPECT_EQ(HumanBytes(1023), "1023 B");
  EXPECT_EQ(HumanBytes(1536), "1.5 KiB");
  EXPECT_EQ(HumanBytes(3 * 1024 * 1024), "3.0 MiB");
  EXPECT_EQ(HumanBytes(-2048), "-2.0 KiB");  // savings can be negative
}

}  // namespace
}  // namespace hloscope
