// The memory report is the same on every run: users diff reports. The list scheduler once
// released an instruction's users in the order of a pointer-keyed hash set; its tie-break (the
// instruction that became ready last) then turned that order into the schedule, so
// --schedule=list (and min, which may pick list) gave a different top_buffers list on each run.
// Every parse allocates the instructions anew, so parsing a module again and again stands in
// for running the tool again and again.
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
#include "hlo/computation.h"
#include "hlo/parser.h"
#include "passes/flatten_call_graph.h"
#include "support/status_text.h"
#include "tests/test_util.h"

namespace hloscope {
namespace {

using testing::Parse;

std::vector<std::string> ListOrderNames(const Module& m) {
  std::vector<std::string> names;
  for (const Instruction* in : ScheduleWith(*m.entry(), ScheduleKind::kList)) {
    names.emplace_back(in->name());
  }
  return names;
}

// Eight users of one parameter become ready together, with the same priority (each defines
// 4000 bytes and frees nothing). As in XLA's list scheduler, the one that became ready last
// goes first, and users become ready in program order: n7 first, n0 last, on every parse.
TEST(MemoryDeterminism, ListSchedulerBreaksTiesByProgramOrder) {
  constexpr std::string_view kText = R"(
HloModule ties
ENTRY e {
  p = f32[1000] parameter(0)
  n0 = f32[1000] negate(p)
  n1 = f32[1000] negate(p)
  n2 = f32[1000] negate(p)
  n3 = f32[1000] negate(p)
  n4 = f32[1000] negate(p)
  n5 = f32[1000] negate(p)
  n6 = f32[1000] negate(p)
  n7 = f32[1000] negate(p)
  ROOT t = (f32[1000], f32[1000], f32[1000], f32[1000], f32[1000], f32[1000], f32[1000],
            f32[1000]) tuple(n0, n1, n2, n3, n4, n5, n6, n7)
})";
  const std::vector<std::string> expected = {"p",  "n7", "n6", "n5", "n4",
                                             "n3", "n2", "n1", "n0", "t"};
  // Keep every module alive so that no parse reuses another's addresses.
  std::vector<std::unique_ptr<Module>> modules;
  for (int run = 0; run < 16; ++run) {
    modules.push_back(Parse(kText));
    ASSERT_NE(modules.back(), nullptr);
    EXPECT_EQ(ListOrderNames(*modules.back()), expected) << "parse " << run;
  }
}

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
