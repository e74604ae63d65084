// The memory report of real corpus modules (HLOSCOPE_CORPUS_DIR, read by path) is the same on
// every run, under every --schedule and --memory-model, byte for byte in JSON and text. Each
// run parses the module anew, so its instructions get fresh addresses and any hash-order
// dependence shows up as a difference (memory_determinism_test.cc tells the bug this guards).
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/memory/memory_profile.h"
#include "analysis/memory/memory_report_printers.h"
#include "analysis/memory/memory_schedulers.h"
#include "fmt/format.h"
#include "gtest/gtest.h"
#include "hlo/parser.h"
#include "passes/flatten_call_graph.h"
#include "support/status_text.h"

namespace hloscope {
namespace {

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The JSON and text reports of `path` (parsed anew, flattened as hlo-opt does) under `options`.
std::string ReportOf(const std::filesystem::path& path, const MemoryOptions& options) {
  absl::StatusOr<std::unique_ptr<Module>> m =
      ParseModule(ReadFile(path), {.filename = path.filename().string()});
  EXPECT_TRUE(m.ok()) << path << ": " << StatusText(m.status());
  if (!m.ok()) return {};
  FlattenCallGraph flatten;
  EXPECT_TRUE(flatten.Run(**m).ok()) << path;
  absl::StatusOr<MemoryReport> r = ProfileModule(**m, options);
  EXPECT_TRUE(r.ok()) << path << ": " << StatusText(r.status());
  if (!r.ok()) return {};
  absl::StatusOr<std::string> json = MemoryReportJson(*r);
  EXPECT_TRUE(json.ok()) << path << ": " << StatusText(json.status());
  return json.value_or("") + MemoryReportText(*r);
}

// Real modules under every --schedule and --memory-model: two runs, byte for byte. The Llama
// module is where the bug was seen (list and min differed on every run).
TEST(MemoryDeterminism, CorpusReportsAreTheSameOnEveryRun) {
  const std::filesystem::path corpus = HLOSCOPE_CORPUS_DIR;
  const std::vector<std::string> files = {
      "openxla_xla__xla_tools_benchmarks_hlo_hlo_llama31_8b_bf16_1x8.hlo",
      "openxla_xla__xla_tools_data_benchmarking_mobilenet_v2.hlo",
      "Tixxx_xla__collective_pipeliner_test_h100bug_pax_gpt.hlo",
      "kahfizulkifli_GraphHelper__src_HLO_pbtxt_llama2_llama2_dp_1_tp_1_pp_1.hlo",
  };
  for (const std::string& file : files) {
    for (ScheduleKind schedule : {ScheduleKind::kText, ScheduleKind::kDfs, ScheduleKind::kList,
                                  ScheduleKind::kPostOrder, ScheduleKind::kMin}) {
      for (MemoryOptions::Model model :
           {MemoryOptions::Model::kLiveness, MemoryOptions::Model::kXla}) {
        MemoryOptions options;
        options.schedule = schedule;
        options.model = model;
        const std::string where =
            fmt::format("{} --schedule={} --memory-model={}", file, ScheduleKindName(schedule),
                        model == MemoryOptions::Model::kXla ? "xla" : "liveness");
        const std::string first = ReportOf(corpus / file, options);
        ASSERT_FALSE(first.empty()) << where;
        const std::string second = ReportOf(corpus / file, options);
        EXPECT_TRUE(first == second) << where << ": the two runs' reports differ";
      }
    }
  }
}

}  // namespace
}  // namespace hloscope
