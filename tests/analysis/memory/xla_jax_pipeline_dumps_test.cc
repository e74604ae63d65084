// The XLA assignment model (analysis/memory/xla_assignment_model.h) against XLA's own buffer
// assignments in the real dumps of a pipelined JAX step (testdata/dumps/Inputs/jax_pipeline,
// XLA:GPU on an H200 and XLA:CPU, plain and remat): the check the corpus dumps get
// (memory_xla_dumps_test.cc). At the alignment XLA's offsets show, every per-kind total is
// within 1% of XLA's and the model makes as many allocations as XLA. The exact figures are
// pinned in testdata/dumps/jax_pipeline_memory.test; docs/xla_memory_tests.md ("Real JAX
// pipeline dumps") says what still differs.
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

}  // namespace
}  // namespace hloscope
