// The buffers live at the peak grouped by category and op_name scope
// (analysis/memory/peak_groups.h): the scope rule, the grouping itself, and the profiler's
// groups adding up to its peak.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "analysis/memory/memory_profile.h"
#include "analysis/memory/peak_groups.h"
#include "gtest/gtest.h"
#include "support/status_text.h"
#include "tests/test_util.h"

namespace hloscope {
namespace {

using testing::Parse;

TEST(OpNameScope, DropsTheLastPathPart) {
  EXPECT_EQ(OpNameScope("jit(f)/stage_0/dot_general"), "jit(f)/stage_0");
  EXPECT_EQ(OpNameScope("jit(f)/dot"), "jit(f)");
  EXPECT_EQ(OpNameScope("add"), "add");
  EXPECT_EQ(OpNameScope(""), "");
}

// A '/' inside a transformation's parentheses is part of its argument, not a path step.
TEST(OpNameScope, KeepsParenthesesWhole) {
  EXPECT_EQ(OpNameScope("jit(f)/transpose(jvp(a/b))/dot"), "jit(f)/transpose(jvp(a/b))");
  EXPECT_EQ(OpNameScope("transpose(jvp(a/b))"), "transpose(jvp(a/b))");
  // An unbalanced ')' does not make the depth negative.
  EXPECT_EQ(OpNameScope("a)/b/c"), "a)/b");
}

LiveBuffer Buffer(int64_t bytes, std::string name, std::string op_name, std::string category) {
  LiveBuffer b;
  b.bytes = bytes;
  b.instruction = std::move(name);
  b.op_name = std::move(op_name);
  b.category = std::move(category);
  return b;
}

TEST(GroupPeakBuffers, SumsCountsAndOrdersLargestFirst) {
  const std::vector<LiveBuffer> live = {
      Buffer(100, "a", "jit(f)/s0/dot", "temporaries"),
      Buffer(300, "b", "jit(f)/s0/add", "temporaries"),
      Buffer(50, "c", "jit(f)/s1/mul", "temporaries"),
      Buffer(1000, "p", "", "parameters"),
      Buffer(20, "d", "jit(f)/s1/exp", "temporaries"),
  };
  const std::vector<PeakGroup> groups = GroupPeakBuffers(live, /*keep=*/1);
  ASSERT_EQ(groups.size(), 3u);
  // parameters (1000) before temporaries (470); inside temporaries s0 (400) before s1 (70).
  EXPECT_EQ(groups[0].category, "parameters");
  EXPECT_EQ(groups[0].scope, "");
  EXPECT_EQ(groups[0].bytes, 1000);
  EXPECT_EQ(groups[1].category, "temporaries");
  EXPECT_EQ(groups[1].scope, "jit(f)/s0");
  EXPECT_EQ(groups[1].bytes, 400);
  EXPECT_EQ(groups[1].buffers, 2);
  ASSERT_EQ(groups[1].largest.size(), 1u);  // keep=1: the largest only
  EXPECT_EQ(groups[1].largest[0].instruction, "b");
  EXPECT_EQ(groups[2].scope, "jit(f)/s1");
  EXPECT_EQ(groups[2].bytes, 70);
  EXPECT_EQ(groups[2].buffers, 2);
}

TEST(GroupPeakBuffers, EmptyAndSaturating) {
  EXPECT_TRUE(GroupPeakBuffers({}, 10).empty());
  const int64_t huge = std::numeric_limits<int64_t>::max() - 1;
  const std::vector<LiveBuffer> live = {Buffer(huge, "a", "x/y", "temporaries"),
                                        Buffer(huge, "b", "x/z", "temporaries")};
  const std::vector<PeakGroup> groups = GroupPeakBuffers(live, 0);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].bytes, std::numeric_limits<int64_t>::max());
  EXPECT_EQ(groups[0].buffers, 2);
  EXPECT_TRUE(groups[0].largest.empty());
}

// The profiler groups every buffer live at its peak (not only the --top ones): the groups add
// up to the peak, and each buffer is in its category.
TEST(GroupPeakBuffers, ProfilerGroupsAddUpToThePeak) {
  auto m = Parse(R"(
HloModule groups, is_scheduled=true
ENTRY e {
  p = f32[256] parameter(0)
  a = f32[256] negate(p), metadata={op_name="jit(f)/layer_0/neg"}
  b = f32[256] exponential(p), metadata={op_name="jit(f)/layer_0/exp"}
  c = f32[256] log(p), metadata={op_name="jit(f)/layer_1/log"}
  d = f32[256] add(a, b), metadata={op_name="jit(f)/layer_1/add"}
  ROOT r = f32[256] add(c, d), metadata={op_name="jit(f)/out"}
})");
  ASSERT_NE(m, nullptr);
  MemoryOptions options;
  options.model = MemoryOptions::Model::kLiveness;
  options.top_buffers = 1;
  absl::StatusOr<MemoryReport> r = ProfileModule(*m, options);
  ASSERT_TRUE(r.ok()) << StatusText(r.status());
  const ModuleMemory& mm = r->modules.at(0);
  // Peak at d: p, a, b, c, d live (5 KiB).
  EXPECT_EQ(mm.peak_bytes, 5 * 1024);
  EXPECT_EQ(mm.top_buffers.size(), 1u);
  int64_t sum = 0, buffers = 0;
  for (const PeakGroup& g : mm.peak_groups) {
    sum += g.bytes;
    buffers += g.buffers;
    EXPECT_LE(g.largest.size(), 1u);
  }
  EXPECT_EQ(sum, mm.peak_bytes);
  EXPECT_EQ(buffers, 5);
  ASSERT_EQ(mm.peak_groups.size(), 3u);
  EXPECT_EQ(mm.peak_groups[0].category, "temporaries");
  EXPECT_EQ(mm.peak_groups[0].scope, "jit(f)/layer_0");  // a and b: 2 KiB
  EXPECT_EQ(mm.peak_groups[0].bytes, 2048);
  EXPECT_EQ(mm.peak_groups[1].scope, "jit(f)/layer_1");  // c and d
  EXPECT_EQ(mm.peak_groups[1].bytes, 2048);
  EXPECT_EQ(mm.peak_groups[2].category, "parameters");
  EXPECT_EQ(mm.peak_groups[2].buffers, 1);
}

// Buffers without an op_name group by defining opcode and shape (issue 33): two copies of one
// shape are one group, a copy of another shape and a multiply of the same shape are their own;
// buffers with an op_name keep grouping by scope whatever their opcode.
TEST(GroupPeakBuffers, WithoutOpNameGroupsByOpcodeAndShape) {
  auto buffer = [](int64_t bytes, std::string name, std::string op_name, std::string opcode,
                   std::string shape) {
    LiveBuffer b = Buffer(bytes, std::move(name), std::move(op_name), "temporaries");
    b.opcode = std::move(opcode);
    b.shape = std::move(shape);
    return b;
  };
  const std::vector<LiveBuffer> live = {
      buffer(100, "c1", "", "copy", "bf16[8,16]"),
      buffer(100, "c2", "", "copy", "bf16[8,16]"),
      buffer(50, "c3", "", "copy", "bf16[4,16]"),
      buffer(100, "m1", "", "multiply", "bf16[8,16]"),
      buffer(10, "n1", "f/s/neg", "negate", "f32[2]"),
      buffer(10, "n2", "f/s/add", "add", "f32[4]"),
  };
  const std::vector<PeakGroup> groups = GroupPeakBuffers(live, /*keep=*/5);
  ASSERT_EQ(groups.size(), 4u);
  EXPECT_EQ(groups[0].scope, "");
  EXPECT_EQ(groups[0].opcode, "copy");
  EXPECT_EQ(groups[0].shape, "bf16[8,16]");
  EXPECT_EQ(groups[0].buffers, 2);
  EXPECT_EQ(groups[0].bytes, 200);
  EXPECT_EQ(groups[1].opcode, "multiply");
  EXPECT_EQ(groups[1].bytes, 100);
  EXPECT_EQ(groups[2].opcode, "copy");
  EXPECT_EQ(groups[2].shape, "bf16[4,16]");
  EXPECT_EQ(groups[3].scope, "f/s");  // negate and add: one scope, no opcode split
  EXPECT_EQ(groups[3].opcode, "");
  EXPECT_EQ(groups[3].buffers, 2);
}

// The profiler fills each live buffer's opcode and metadata source line.
TEST(GroupPeakBuffers, ProfilerNamesOpcodeAndSourceLine) {
  auto m = Parse(R"(
HloModule src, is_scheduled=true
ENTRY e {
  p = f32[256] parameter(0)
  a = f32[256] negate(p), metadata={op_name="jit(f)/neg" source_file="model.py" source_line=12}
  b = f32[256] exponential(p)
  ROOT r = f32[256] add(a, b)
})");
  ASSERT_NE(m, nullptr);
  MemoryOptions options;
  options.model = MemoryOptions::Model::kLiveness;
  absl::StatusOr<MemoryReport> r = ProfileModule(*m, options);
  ASSERT_TRUE(r.ok()) << StatusText(r.status());
  bool saw_a = false, saw_b = false;
  for (const LiveBuffer& b : r->modules.at(0).top_buffers) {
    if (b.instruction == "a") {
      saw_a = true;
      EXPECT_EQ(b.opcode, "negate");
      EXPECT_EQ(b.source, "model.py:12");
    } else if (b.instruction == "b") {
      saw_b = true;
      EXPECT_EQ(b.opcode, "exponential");
      EXPECT_EQ(b.source, "");
    }
  }
  EXPECT_TRUE(saw_a);
  EXPECT_TRUE(saw_b);
}

}  // namespace
}  // namespace hloscope
