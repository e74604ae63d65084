// The XLA assignment model (analysis/memory/xla_assignment_model.h) against XLA's real buffer
// assignments: the three HloProto dumps of the corpus (xla_dumps/, XLA:GPU after optimizations,
// module and BufferAssignmentProto from one compilation). At XLA:GPU's alignment (128 bytes)
// every per-kind total (parameter, constant, maybe-live-out, thread-local, preallocated temp,
// total) is within 1% of XLA's, and the model makes as many allocations as XLA; all but two
// temp totals are exact, and those two remainders are pinned. What still differs is listed in
// docs/xla_memory_tests.md ("Real dumps").
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "analysis/memory/memory_comparison.h"
#include "analysis/memory/xla_assignment_model.h"
#include "analysis/memory/xla_buffer_assignment.h"
#include "fmt/format.h"
#include "gtest/gtest.h"
#include "hlo/proto_reader.h"
#include "tests/analysis/memory/xla_dump_checks.h"

namespace hloscope {
namespace {

TEST(XlaRealDumps, PerKindTotalsWithinOnePercent) {
  const std::filesystem::path dir = std::filesystem::path(HLOSCOPE_CORPUS_DIR) / "xla_dumps";
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".pb") continue;
    ++files;
    ExpectModelWithinOnePercentOfXla(entry.path(), 128);
  }
  EXPECT_EQ(files, 3);
}

// Tighter than the 1% above: at XLA:GPU's alignment every per-kind total is XLA's to the byte
// but the preallocated temp of two dumps, whose remainders are pinned (docs/xla_memory_tests.md,
// "Real dumps", names the values behind them): the MaxText train step 640 bytes short, the Pax
// step 1,152 bytes short. The MaxText init module is exact, allocation by allocation.
TEST(XlaRealDumps, PerKindTotalsExactButPinnedTempRemainders) {
  const std::filesystem::path dir = std::filesystem::path(HLOSCOPE_CORPUS_DIR) / "xla_dumps";
  const std::map<std::string, int64_t> temp_remainder = {
      {"module_0003", 0}, {"module_0016", -640}, {"module_0040", -1152}};
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".pb") continue;
    const std::string file = entry.path().filename().string();
    auto it = std::find_if(temp_remainder.begin(), temp_remainder.end(),
                           [&](const auto& r) { return file.find(r.first) != std::string::npos; });
    ASSERT_NE(it, temp_remainder.end()) << file;
    ++files;
    DumpAndModel d;
    ASSERT_NO_FATAL_FAILURE(LoadDumpAndModel(entry.path(), 128, &d));
    const XlaAllocationTotals x = d.xla->Totals();
    const XlaModelTotals& o = d.ours->totals;
    EXPECT_EQ(o.parameter_bytes, x.parameter_bytes) << file;
    EXPECT_EQ(o.constant_bytes, x.constant_bytes) << file;
    EXPECT_EQ(o.maybe_live_out_bytes, x.maybe_live_out_bytes) << file;
    EXPECT_EQ(o.thread_local_bytes, x.thread_local_bytes) << file;
    EXPECT_EQ(o.preallocated_temp_bytes - x.preallocated_temp_bytes, it->second) << file;
    EXPECT_EQ(o.total_bytes - x.total_bytes, it->second) << file;
    EXPECT_EQ(static_cast<int64_t>(d.ours->allocations.size()), x.allocations) << file;
  }
  EXPECT_EQ(files, 3);
}

// The side-by-side of `hlo-opt X.hlo.pb --memory-report` (AddXlaBufferAssignment with the
// model, as --memory-model=xla asks): the alignment is read from XLA's own offsets (XLA:GPU's
// 128), our side is AssignLikeXla's, and every per-kind row is within 1% of XLA's, with as
// many allocations on our side as on XLA's, each of XLA's beside one of ours.
TEST(XlaRealDumps, SideBySideHoldsXlasAssignmentAgainstTheModel) {
  const std::filesystem::path dir = std::filesystem::path(HLOSCOPE_CORPUS_DIR) / "xla_dumps";
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".pb") continue;
    ++files;
    const std::string file = entry.path().filename().string();
    const std::string bytes = ReadAll(entry.path());
    absl::StatusOr<std::unique_ptr<Module>> module =
        ParseModuleProto(bytes, InputFormat::kBinaryProto, entry.path().string());
    ASSERT_TRUE(module.ok()) << module.status();
    absl::StatusOr<XlaBufferAssignment> xla =
        ReadXlaBufferAssignmentProto(bytes, entry.path().string());
    ASSERT_TRUE(xla.ok()) << xla.status();
    EXPECT_EQ(XlaAlignmentOf(*xla), 128) << file;
    MemoryOptions options;
    options.list_allocations = true;
    absl::StatusOr<MemoryComparison> c = ProfileBeforeAfter({module->get()}, nullptr, "", options);
    ASSERT_TRUE(c.ok()) << c.status();
    ASSERT_TRUE(AddXlaBufferAssignment(*c, **module, bytes, file, 10, /*with_model=*/true).ok());
    ASSERT_EQ(c->xla.size(), 1u);
    const XlaAssignmentComparison& x = c->xla[0];
    ASSERT_EQ(x.totals.size(), 6u);
    for (const XlaKindTotal& t : x.totals) ExpectWithinOnePercent(t.kind, t.ours, t.xla, file);
    std::set<int64_t> ours;
    int64_t theirs = 0;
    for (const XlaAllocationPair& p : x.allocations) {
      if (p.ours_index >= 0) ours.insert(p.ours_index);
      if (p.xla_index >= 0) ++theirs;
      EXPECT_TRUE(p.xla_index < 0 || p.ours_index >= 0)
          << file << ": XLA's allocation " << p.xla_index << " has none beside it";
    }
    EXPECT_EQ(static_cast<int64_t>(ours.size()), theirs) << file;
    EXPECT_EQ(theirs, xla->Totals().allocations) << file;
  }
  EXPECT_EQ(files, 3);
}

}  // namespace
}  // namespace hloscope
