// The XLA assignment model (analysis/memory/xla_assignment_model.h) against XLA's own buffer
// assignments in the real dumps of a pipelined JAX step (testdata/dumps/Inputs/jax_pipeline,
// XLA:GPU on an H200 and XLA:CPU, plain and remat): the check the corpus dumps get
// (memory_xla_dumps_test.cc). At the alignment XLA's offsets show, every per-kind total is
// within 1% of XLA's and the model makes as many allocations as XLA; on these four dumps every
// total is even exact (PerKindTotalsExact). The figures are pinned in
// testdata/dumps/jax_pipeline_memory.test; docs/xla_memory_tests.md ("Real JAX pipeline dumps")
// says how they came to agree.
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "analysis/memory/memory_comparison.h"
#include "analysis/memory/xla_assignment_model.h"
#include "analysis/memory/xla_buffer_assignment.h"
#include "gtest/gtest.h"
#include "hlo/proto_reader.h"
#include "tests/analysis/memory/xla_dump_checks.h"

namespace hloscope {
namespace {

std::vector<std::filesystem::path> AfterOptimizationProtos() {
  const std::filesystem::path dir =
      std::filesystem::path(HLOSCOPE_SOURCE_DIR) / "testdata/dumps/Inputs/jax_pipeline";
  std::vector<std::filesystem::path> out;
  for (const auto& backend : std::filesystem::directory_iterator(dir)) {
    if (!backend.is_directory()) continue;
    for (const auto& entry : std::filesystem::directory_iterator(backend.path())) {
      const std::string name = entry.path().filename().string();
      if (name.ends_with("after_optimizations.hlo.pb")) out.push_back(entry.path());
    }
  }
  return out;
}

TEST(XlaJaxPipelineDumps, PerKindTotalsWithinOnePercent) {
  const std::vector<std::filesystem::path> files = AfterOptimizationProtos();
  ASSERT_EQ(files.size(), 4u);
  for (const std::filesystem::path& path : files) {
    ExpectModelWithinOnePercentOfXla(path, std::nullopt);
  }
}

// Tighter than the 1% the corpus dumps get: on these dumps the model is XLA's assignment to the
// byte, every kind, at the alignment XLA's offsets show (256 on XLA:GPU, 64 or less on
// XLA:CPU). What made the XLA:GPU temp allocation exact (it was ~32 KiB short): the heap shares
// an operand's chunk only between lone values the user reads directly, the temp allocation's
// parts are combined in XLA's (unstable partition) order, and the alignment is read up to 256
// (docs/xla_memory_tests.md, "Real JAX pipeline dumps").
TEST(XlaJaxPipelineDumps, PerKindTotalsExact) {
  const std::vector<std::filesystem::path> files = AfterOptimizationProtos();
  ASSERT_EQ(files.size(), 4u);
  for (const std::filesystem::path& path : files) {
    const std::string file = path.filename().string();
    DumpAndModel d;
    ASSERT_NO_FATAL_FAILURE(LoadDumpAndModel(path, std::nullopt, &d));
    const XlaBufferAssignment* xla = &*d.xla;
    const XlaModelAssignment* ours = &*d.ours;
    if (file.find("_gpu_") != std::string::npos) {
      EXPECT_EQ(XlaAlignmentOf(*xla), 256) << file;
    }
    const XlaAllocationTotals x = xla->Totals();
    const XlaModelTotals& o = ours->totals;
    EXPECT_EQ(o.parameter_bytes, x.parameter_bytes) << file;
    EXPECT_EQ(o.constant_bytes, x.constant_bytes) << file;
    EXPECT_EQ(o.maybe_live_out_bytes, x.maybe_live_out_bytes) << file;
    EXPECT_EQ(o.thread_local_bytes, x.thread_local_bytes) << file;
    EXPECT_EQ(o.preallocated_temp_bytes, x.preallocated_temp_bytes) << file;
    EXPECT_EQ(o.total_bytes, x.total_bytes) << file;
    EXPECT_EQ(static_cast<int64_t>(ours->allocations.size()), x.allocations) << file;
  }
}

// Offsets too: every value sits at XLA's offset in its allocation, on all four dumps, and both
// sides name the same values (an async fusion's value named on the short form's fusion-start:
// MapXlaBufferAssignmentOntoModule), in the temp allocation and in the others.
TEST(XlaJaxPipelineDumps, EveryValueAtXlasOffset) {
  const std::vector<std::filesystem::path> files = AfterOptimizationProtos();
  ASSERT_EQ(files.size(), 4u);
  for (const std::filesystem::path& path : files) {
    const std::string file = path.filename().string();
    DumpAndModel d;
    ASSERT_NO_FATAL_FAILURE(LoadDumpAndModel(path, std::nullopt, &d));
    DumpOffsets offsets;
    ASSERT_NO_FATAL_FAILURE(CompareOffsets(d, &offsets));
    const Offsets& t = offsets.temp;
    const Offsets& other = offsets.other;
    EXPECT_GT(other.same, 0) << file;
    EXPECT_EQ(other.unnamed, 0) << file;
    EXPECT_TRUE(other.apart.empty())
        << file << ": first apart " << (other.apart.empty() ? "" : other.apart.front());
    EXPECT_GT(t.same, 0) << file;
    EXPECT_EQ(t.unnamed, 0) << file;
    EXPECT_TRUE(t.apart.empty()) << file << ": " << t.apart.size() << " values apart, first "
                                 << (t.apart.empty() ? "" : t.apart.front());
  }
}

}  // namespace
}  // namespace hloscope
