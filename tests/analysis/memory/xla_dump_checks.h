// What the tests of real XLA dumps check alike (memory_xla_dumps_test.cc: the corpus's three
// dumps; xla_jax_pipeline_dumps_test.cc: the JAX pipeline dumps of testdata/dumps): an
// after-optimization HloProto holds the module and XLA's own buffer assignment of it, and our
// model of that assignment must be within 1% of XLA's per kind, with as many allocations.
#ifndef HLOSCOPE_TESTS_ANALYSIS_MEMORY_XLA_DUMP_CHECKS_H_
#define HLOSCOPE_TESTS_ANALYSIS_MEMORY_XLA_DUMP_CHECKS_H_

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/memory/xla_assignment_model.h"
#include "analysis/memory/xla_buffer_assignment.h"
#include "fmt/format.h"
#include "gtest/gtest.h"
#include "hlo/proto_reader.h"

namespace hloscope {

inline std::string ReadAll(const std::filesystem::path& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

inline void ExpectWithinOnePercent(std::string_view kind, int64_t ours, int64_t xla,
                                   const std::string& file) {
  const double tolerance = 0.01 * static_cast<double>(xla);
  EXPECT_LE(std::abs(static_cast<double>(ours) - static_cast<double>(xla)), tolerance)
      << file << ": " << kind << " ours " << ours << ", XLA's " << xla;
}

// One after-optimization HloProto read: the module, XLA's assignment of it, and our model of
// that assignment.
struct DumpAndModel {
  std::unique_ptr<Module> module;
  std::optional<XlaBufferAssignment> xla;
  std::optional<XlaModelAssignment> ours;
};

// Reads `path` into *out, the model at `alignment`, or at the alignment XLA's offsets show when
// there is none (fails the test and leaves *out partial when a step fails).
inline void LoadDumpAndModel(const std::filesystem::path& path, std::optional<int64_t> alignment,
                             DumpAndModel* out) {
  const std::string bytes = ReadAll(path);
  absl::StatusOr<std::unique_ptr<Module>> module =
      ParseModuleProto(bytes, InputFormat::kBinaryProto, path.string());
  ASSERT_TRUE(module.ok()) << module.status();
  out->module = *std::move(module);
  absl::StatusOr<XlaBufferAssignment> xla = ReadXlaBufferAssignmentProto(bytes, path.string());
  ASSERT_TRUE(xla.ok()) << xla.status();
  out->xla = *std::move(xla);
  absl::StatusOr<XlaModelAssignment> ours =
      AssignLikeXla(*out->module, {.alignment = alignment.value_or(XlaAlignmentOf(*out->xla)),
                                   .instruction_ids = out->xla->instruction_ids});
  ASSERT_TRUE(ours.ok()) << ours.status();
  out->ours = *std::move(ours);
}

// Every value's offset in its allocation held against XLA's by name (XLA's assignment named on
// our module: MapXlaBufferAssignmentOntoModule), the preallocated temp allocation's apart from
// the others': `same` at XLA's offset, `apart` (one line each: name, bytes, our offset, XLA's)
// elsewhere, `unnamed` the values of either side that the other side does not name (in an
// allocation of the same temp-or-not kind).
struct Offsets {
  int64_t same = 0;
  int64_t unnamed = 0;
  std::vector<std::string> apart = {};
};
struct DumpOffsets {
  Offsets temp;
  Offsets other;  // parameter, constant, output, thread-local and tuple allocations
};

inline void CompareOffsets(const DumpAndModel& d, DumpOffsets* out) {
  absl::StatusOr<XlaBufferAssignment> named = MapXlaBufferAssignmentOntoModule(*d.xla, *d.module);
  ASSERT_TRUE(named.ok()) << named.status();
  std::map<std::pair<bool, std::string>, int64_t> xla_offset;  // (temp, name) -> offset
  for (const XlaAllocation& a : named->allocations) {
    for (const XlaAssignedValue& v : a.values) {
      xla_offset[{a.is_preallocated_temp(), XlaValueName(v)}] = v.offset;
    }
  }
  std::set<std::pair<bool, std::string>> ours;
  for (const XlaModelAllocation& a : d.ours->allocations) {
    Offsets& o = a.preallocated_temp ? out->temp : out->other;
    for (const XlaModelValue& v : a.values) {
      ours.insert({a.preallocated_temp, v.name});
      auto it = xla_offset.find({a.preallocated_temp, v.name});
      if (it == xla_offset.end()) {
        ++o.unnamed;
      } else if (it->second == v.offset) {
        ++o.same;
      } else {
        o.apart.push_back(fmt::format("{} ({} bytes): ours at {}, XLA's at {}", v.name, v.size,
                                      v.offset, it->second));
      }
    }
  }
  for (const auto& [key, offset] : xla_offset) {
    if (!ours.contains(key)) ++(key.first ? out->temp : out->other).unnamed;
  }
}

// The model at `alignment`, or at the alignment XLA's offsets show when there is none.
inline void ExpectModelWithinOnePercentOfXla(const std::filesystem::path& path,
                                             std::optional<int64_t> alignment) {
  const std::string file = path.filename().string();
  DumpAndModel d;
  ASSERT_NO_FATAL_FAILURE(LoadDumpAndModel(path, alignment, &d));
  const XlaBufferAssignment* xla = &*d.xla;
  const XlaModelAssignment* ours = &*d.ours;
  const XlaAllocationTotals x = xla->Totals();
  const XlaModelTotals& o = ours->totals;
  ExpectWithinOnePercent("parameter", o.parameter_bytes, x.parameter_bytes, file);
  ExpectWithinOnePercent("constant", o.constant_bytes, x.constant_bytes, file);
  ExpectWithinOnePercent("maybe-live-out", o.maybe_live_out_bytes, x.maybe_live_out_bytes, file);
  ExpectWithinOnePercent("thread-local", o.thread_local_bytes, x.thread_local_bytes, file);
  ExpectWithinOnePercent("preallocated temp", o.preallocated_temp_bytes, x.preallocated_temp_bytes,
                         file);
  ExpectWithinOnePercent("total", o.total_bytes, x.total_bytes, file);
  EXPECT_EQ(static_cast<int64_t>(ours->allocations.size()), x.allocations) << file;
}

}  // namespace hloscope

#endif  // HLOSCOPE_TESTS_ANALYSIS_MEMORY_XLA_DUMP_CHECKS_H_
