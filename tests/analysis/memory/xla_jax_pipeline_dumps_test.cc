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
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/memory/memory_comparison.h"
#include "analysis/memory/xla_assignment_model.h"
#include "analysis/memory/xla_buffer_assignment.h"
#include "gtest/gtest.h"
#include "hlo/proto_reader.h"

namespace hloscope {
namespace {

std::string ReadAll(const std::filesystem::path& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

void ExpectWithinOnePercent(std::string_view kind, int64_t ours, int64_t xla,
                            const std::string& file) {
  const double tolerance = 0.01 * static_cast<double>(xla);
  EXPECT_LE(std::abs(static_cast<double>(ours) - static_cast<double>(xla)), tolerance)
      << file << ": " << kind << " ours " << ours << ", XLA's " << xla;
}

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
    const std::string file = path.filename().string();
    const std::string bytes = ReadAll(path);
    absl::StatusOr<std::unique_ptr<Module>> module =
        ParseModuleProto(bytes, InputFormat::kBinaryProto, path.string());
    ASSERT_TRUE(module.ok()) << module.status();
    absl::StatusOr<XlaBufferAssignment> xla = ReadXlaBufferAssignmentProto(bytes, path.string());
    ASSERT_TRUE(xla.ok()) << xla.status();
    absl::StatusOr<XlaModelAssignment> ours =
        AssignLikeXla(**module, {.alignment = XlaAlignmentOf(*xla)});
    ASSERT_TRUE(ours.ok()) << ours.status();
    const XlaAllocationTotals x = xla->Totals();
    const XlaModelTotals& o = ours->totals;
    ExpectWithinOnePercent("parameter", o.parameter_bytes, x.parameter_bytes, file);
    ExpectWithinOnePercent("constant", o.constant_bytes, x.constant_bytes, file);
    ExpectWithinOnePercent("maybe-live-out", o.maybe_live_out_bytes, x.maybe_live_out_bytes, file);
    ExpectWithinOnePercent("thread-local", o.thread_local_bytes, x.thread_local_bytes, file);
    ExpectWithinOnePercent("preallocated temp", o.preallocated_temp_bytes,
                           x.preallocated_temp_bytes, file);
    ExpectWithinOnePercent("total", o.total_bytes, x.total_bytes, file);
    EXPECT_EQ(static_cast<int64_t>(ours->allocations.size()), x.allocations) << file;
  }
}

}  // namespace
}  // namespace hloscope
