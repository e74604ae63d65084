// The memory profiler on every curated corpus file (HLOSCOPE_CORPUS_DIR, read by path), after
// flatten-call-graph as the analyses need: it succeeds, and its numbers agree with each other.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "analysis/memory/memory_profile.h"
#include "fmt/format.h"
#include "gtest/gtest.h"
#include "hlo/computation.h"
#include "hlo/parser.h"
#include "passes/flatten_call_graph.h"
#include "support/status_text.h"
#include "tests/test_util.h"

namespace hloscope {
namespace {

void CheckReport(const std::string& where, const Module& m, const MemoryReport& r) {
  ASSERT_EQ(r.modules.size(), 1u) << where;
  const ModuleMemory& mm = r.modules[0];
  ASSERT_EQ(mm.timeline.size(), static_cast<size_t>(m.entry()->instruction_count())) << where;
  int64_t max = 0;
  for (const TimelinePoint& p : mm.timeline) {
    EXPECT_GE(p.live_bytes, 0) << where << ": " << p.instruction->name();
    max = std::max(max, p.live_bytes);
  }
  EXPECT_EQ(r.peak_bytes, max) << where;
  // The categories of the stacked view add up to the timeline at every step.
  ASSERT_EQ(mm.categories.size(), 5u) << where;
  for (size_t t = 0; t < mm.timeline.size(); ++t) {
    int64_t sum = 0;
    for (const CategorySeries& c : mm.categories) sum += c.live_bytes.at(t);
    ASSERT_EQ(sum, mm.timeline[t].live_bytes) << where << " step " << t;
  }
  // The heap holds at least what is live at the peak.
  EXPECT_GE(mm.heap_bytes, mm.peak_bytes) << where;
  int64_t listed = 0;
  for (const LiveBuffer& b : mm.top_buffers) {
    EXPECT_GT(b.bytes, 0) << where;
    listed += b.bytes;
  }
  EXPECT_LE(listed, r.peak_bytes) << where;
  for (const StageMemory& s : r.stages) {
    EXPECT_LE(s.peak_activation_bytes, s.peak_bytes) << where << " stage " << s.stage;
  }
}

TEST(MemoryCorpus, ProfilesEveryCuratedFile) {
  int modules = 0;
  int unbounded = 0;
  for (const auto& entry : std::filesystem::directory_iterator(HLOSCOPE_CORPUS_DIR)) {
    if (entry.path().extension() != ".hlo") continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    const std::string content = text.str();
    for (const InputChunk& chunk : SplitInputFile(content)) {
      const std::string where =
          fmt::format("{}:{}", entry.path().filename().string(), chunk.first_line);
      absl::StatusOr<std::unique_ptr<Module>> m =
          ParseModule(chunk.text, {.first_line = chunk.first_line});
      ASSERT_TRUE(m.ok()) << where << ": " << StatusText(m.status());
      FlattenCallGraph flatten;
      ASSERT_TRUE(flatten.Run(**m).ok()) << where;
      for (bool tables : {false, true}) {
        MemoryOptions options;
        options.count_tuple_tables = tables;
        absl::StatusOr<MemoryReport> r = ProfileModule(**m, options);
        if (!r.ok() && StatusText(r.status()).find("has an unbounded dynamic dimension") !=
                           std::string::npos) {
          // No peak without a size for `?` dimensions (issue 20); --dim-value gives one.
          ++unbounded;
          options.dim_value = 8;
          r = ProfileModule(**m, options);
        }
        ASSERT_TRUE(r.ok()) << where << ": " << StatusText(r.status());
        CheckReport(where, **m, *r);
      }
      ++modules;
    }
  }
  EXPECT_GT(modules, 10);
  EXPECT_GT(unbounded, 0);  // the corpus has such modules: the error path is exercised
}

}  // namespace
}  // namespace hloscope
