// The XLA assignment model (analysis/memory/xla_assignment_model.h) against XLA's real buffer
// assignments: the three HloProto dumps of the corpus (xla_dumps/, XLA:GPU after optimizations,
// module and BufferAssignmentProto from one compilation). At XLA:GPU's alignment (128 bytes)
// every per-kind total (parameter, constant, maybe-live-out, thread-local, preallocated temp,
// total) is within 1% of XLA's, and the model makes as many allocations as XLA. What still
// differs is listed in docs/xla_memory_tests.md ("Real dumps").
#include <cstdint>
#include <cstdlib>
#include <filesystem>
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
