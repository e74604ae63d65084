// The memory report is the same on every run: users diff reports. The list scheduler once
// released an instruction's users in the order of a pointer-keyed hash set; its tie-break (the
// instruction that became ready last) then turned that order into the schedule, so
// --schedule=list (and min, which may pick list) gave a different top_buffers list on each run.
// Every parse allocates the instructions anew, so parsing a module again and again stands in
// for running the tool again and again. The corpus half (real modules under every schedule and
// memory model) is memory_determinism_corpus_test.cc, labelled corpus for its run time; the
// default suite also runs hlo-opt twice on the Llama module in
// testdata/analysis/memory/bugs/report_determinism.test.
#include <memory>
#include <string>
#include <vector>

#include "analysis/memory/memory_profile.h"
#include "analysis/memory/memory_report_printers.h"
#include "analysis/memory/memory_schedulers.h"
#include "fmt/format.h"
#include "gtest/gtest.h"
#include "hlo/computation.h"
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
constexpr std::string_view kTies = R"(
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

TEST(MemoryDeterminism, ListSchedulerBreaksTiesByProgramOrder) {
  const std::vector<std::string> expected = {"p",  "n7", "n6", "n5", "n4",
                                             "n3", "n2", "n1", "n0", "t"};
  // Keep every module alive so that no parse reuses another's addresses.
  std::vector<std::unique_ptr<Module>> modules;
  for (int run = 0; run < 16; ++run) {
    modules.push_back(Parse(kTies));
    ASSERT_NE(modules.back(), nullptr);
    EXPECT_EQ(ListOrderNames(*modules.back()), expected) << "parse " << run;
  }
}

// The whole report (JSON and text) of the same module under every --schedule and
// --memory-model, over several parses: byte for byte the same.
TEST(MemoryDeterminism, ReportsAreTheSameOnEveryParse) {
  std::vector<std::unique_ptr<Module>> modules;
  for (ScheduleKind schedule : {ScheduleKind::kText, ScheduleKind::kDfs, ScheduleKind::kList,
                                ScheduleKind::kPostOrder, ScheduleKind::kMin}) {
    for (MemoryOptions::Model model :
         {MemoryOptions::Model::kLiveness, MemoryOptions::Model::kXla}) {
      MemoryOptions options;
      options.schedule = schedule;
      options.model = model;
      const std::string where =
          fmt::format("--schedule={} --memory-model={}", ScheduleKindName(schedule),
                      model == MemoryOptions::Model::kXla ? "xla" : "liveness");
      std::string first;
      for (int run = 0; run < 8; ++run) {
        modules.push_back(Parse(kTies));
        ASSERT_NE(modules.back(), nullptr);
        absl::StatusOr<MemoryReport> r = ProfileModule(*modules.back(), options);
        ASSERT_TRUE(r.ok()) << where << ": " << StatusText(r.status());
        absl::StatusOr<std::string> json = MemoryReportJson(*r);
        ASSERT_TRUE(json.ok()) << where << ": " << StatusText(json.status());
        const std::string report = *json + MemoryReportText(*r);
        if (run == 0) {
          first = report;
        } else {
          EXPECT_TRUE(report == first) << where << ": parse " << run << "'s report differs";
        }
      }
    }
  }
}

}  // namespace
}  // namespace hloscope
