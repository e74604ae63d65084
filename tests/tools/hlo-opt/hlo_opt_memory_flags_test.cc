// hlo-opt's --memory-report flags: parsing (every error) and combinations. The printers'
// tests are memory_report_printers_test.cc.
#include <string>

#include "gtest/gtest.h"
#include "support/status_text.h"
#include "tests/test_util.h"
#include "tests/tools/flag_test_util.h"
#include "tools/hlo-opt/hlo_opt_memory.h"

namespace hloscope {
namespace {

using testing::Parse;

// `name=value` (or `name` alone) through a table of the memory report's rows.
absl::Status Flag(std::string_view name, std::optional<std::string_view> value, MemoryFlags& flags,
                  AnalysisFlags& analysis) {
  FlagTable table = testing::HloOptWordedTable();
  AddMemoryFlags(table, flags, analysis);
  return testing::ParseFlag(table, name, value);
}

TEST(HloOptMemoryFlags, Parse) {
  MemoryFlags f;
  AnalysisFlags analysis;
  EXPECT_TRUE(Flag("--memory-report", std::nullopt, f, analysis).ok());
  EXPECT_TRUE(f.enabled);
  EXPECT_EQ(f.output, "-");
  EXPECT_TRUE(Flag("--memory-report", "out.html", f, analysis).ok());
  EXPECT_EQ(f.output, "out.html");
  // text and json are shared with the analysis printers; csv and html are ours.
  EXPECT_TRUE(Flag("--format", "json", f, analysis).ok());
  EXPECT_EQ(f.format, MemoryFormat::kJson);
  EXPECT_EQ(analysis.print.format, ReportFormat::kJson);
  EXPECT_TRUE(Flag("--format", "html", f, analysis).ok());
  EXPECT_EQ(f.format, MemoryFormat::kHtml);
  EXPECT_TRUE(f.format_is_memory_only);
  EXPECT_TRUE(Flag("--format", "csv", f, analysis).ok());
  EXPECT_EQ(f.format, MemoryFormat::kCsv);
  EXPECT_TRUE(Flag("--stage-by", "module", f, analysis).ok());
  EXPECT_EQ(f.options.stage_by, MemoryOptions::StageBy::kModule);
  EXPECT_TRUE(Flag("--stage-by", "attr:_stage", f, analysis).ok());
  EXPECT_EQ(f.options.stage_by, MemoryOptions::StageBy::kFrontendAttribute);
  EXPECT_EQ(f.options.stage_attr, "_stage");
  EXPECT_TRUE(Flag("--stage-regex", "s(\\d)", f, analysis).ok());
  EXPECT_EQ(f.options.stage_by, MemoryOptions::StageBy::kOpNameRegex);
  EXPECT_EQ(f.options.stage_regex, "s(\\d)");
  EXPECT_TRUE(Flag("--forward-regex", "fwd", f, analysis).ok());
  EXPECT_TRUE(Flag("--backward-regex", "bwd", f, analysis).ok());
  EXPECT_EQ(f.options.forward_regex, "fwd");
  EXPECT_EQ(f.options.backward_regex, "bwd");
  EXPECT_TRUE(Flag("--dim-value", "7", f, analysis).ok());
  EXPECT_EQ(f.options.dim_value, 7);
  EXPECT_TRUE(Flag("--top", "3", f, analysis).ok());
  EXPECT_EQ(f.options.top_buffers, 3);
  EXPECT_TRUE(Flag("--count-tuple-tables", std::nullopt, f, analysis).ok());
  EXPECT_TRUE(f.options.count_tuple_tables);
  EXPECT_FALSE(Flag("--stats", std::nullopt, f, analysis).ok());  // not a memory flag
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
    AnalysisFlags analysis;
    EXPECT_EQ(StatusText(Flag(b.name, b.value, f, analysis)), b.error) << b.name;
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
}  // namespace
}  // namespace hloscope
