// XLA:GPU's buffer-sharing hint (analysis/memory/xla_gpu_buffer_sharing.h), against
// xla/service/gpu/buffer_sharing.cc (CanShareBufferHint, FusionCanShareBufferHint) read at
// openxla/xla commit 088587f378b9e15c351a783ea64aba61a0ec3dbe, and what it changes in the XLA
// assignment model. On the corpus's MaxText train step it is what lets loop_multiply_fusion.5
// (f32[2,2048] read through a bitcast as f32[1,2,2048]) take over input_reduce_fusion.1's chunk,
// as XLA's heap trace does; on the Pax step it put 201 values in XLA's allocations.
#include "analysis/memory/xla_gpu_buffer_sharing.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "analysis/in_place_pairs.h"
#include "analysis/memory/xla_assignment_model.h"
#include "gtest/gtest.h"
#include "hlo/computation.h"
#include "support/status_text.h"
#include "tests/test_util.h"

namespace hloscope {
namespace {

using testing::Parse;

const Instruction* Find(const Module& m, std::string_view name) {
  for (const Computation* c : m.computations()) {
    for (const Instruction* in : c->instructions()) {
      if (in->name() == name) return in;
    }
  }
  ADD_FAILURE() << name << " not found";
  return nullptr;
}

std::optional<bool> Hint(const Module& m, std::string_view user, std::string_view operand,
                         const ShapeIndex& index = {}) {
  const Instruction* u = Find(m, user);
  const Instruction* o = Find(m, operand);
  if (u == nullptr || o == nullptr) return std::nullopt;
  return XlaGpuCanShareBufferHint(*u, *o, index);
}

// A loop fusion that reads its operand through a bitcast to another shape of the same element
// count and element size, elementwise to the root: the hint shares (the generic rule needs
// equal shapes and does not). Another element count, another element size, or a broadcast on
// the way: no.
TEST(XlaGpuBufferSharing, LoopFusionThroughABitcastOfTheSameElements) {
  auto m = Parse(R"(
HloModule M
through_bitcast {
  p0 = f32[2,2048]{1,0} parameter(0)
  b = f32[1,2,2048]{2,1,0} bitcast(p0)
  ROOT m = f32[1,2,2048]{2,1,0} multiply(b, b)
}
to_bf16 {
  p0 = f32[2,2048]{1,0} parameter(0)
  b = f32[1,2,2048]{2,1,0} bitcast(p0)
  ROOT c = bf16[1,2,2048]{2,1,0} convert(b)
}
broadcasting {
  p0 = f32[2,2048]{1,0} parameter(0)
  ROOT b = f32[3,2,2048]{2,1,0} broadcast(p0), dimensions={1,2}
}
transposing {
  p0 = f32[2,2048]{1,0} parameter(0)
  ROOT t = f32[2048,2]{1,0} transpose(p0), dimensions={1,0}
}
ENTRY e {
  p = f32[2,2048]{1,0} parameter(0)
  a = f32[2,2048]{1,0} negate(p)
  f = f32[1,2,2048]{2,1,0} fusion(a), kind=kLoop, calls=through_bitcast
  g = bf16[1,2,2048]{2,1,0} fusion(a), kind=kLoop, calls=to_bf16
  h = f32[3,2,2048]{2,1,0} fusion(a), kind=kLoop, calls=broadcasting
  tf = f32[2048,2]{1,0} fusion(a), kind=kLoop, calls=transposing
  n = f32[2,2048]{1,0} add(a, a)
  ROOT r = (f32[1,2,2048]{2,1,0}, bf16[1,2,2048]{2,1,0}, f32[3,2,2048]{2,1,0}, f32[2048,2]{1,0}, f32[2,2048]{1,0}) tuple(f, g, h, tf, n)
})");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(Hint(*m, "f", "a"), std::optional<bool>(true));
  EXPECT_FALSE(CanShareOperandBufferWithUser(*Find(*m, "a"), {}, *Find(*m, "f"), {}));
  EXPECT_EQ(Hint(*m, "g", "a"), std::optional<bool>(false));   // 4 bytes an element, then 2
  EXPECT_EQ(Hint(*m, "h", "a"), std::optional<bool>(false));   // 3x the elements
  EXPECT_EQ(Hint(*m, "tf", "a"), std::optional<bool>(false));  // same elements, not in order
  EXPECT_EQ(Hint(*m, "n", "a"), std::nullopt);  // no fusion: the generic rule decides
  EXPECT_TRUE(XlaGpuCanShareOperandBufferWithUser(*Find(*m, "a"), {}, *Find(*m, "n"), {}, {}));
}

// A reduction fusion's reduce hero ends the walk: the reduction emitter reads the whole input
// before writing any output, so the fusion's other output (the exponential) may take over the
// operand. Without a reduce hero (a loop fusion whose second output is a transpose) it may not.
TEST(XlaGpuBufferSharing, ReduceHeroEndsTheWalk) {
  auto m = Parse(R"(
HloModule M
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
reducing {
  p0 = f32[8,16]{1,0} parameter(0)
  e = f32[8,16]{1,0} exponential(p0)
  z = f32[] constant(0)
  r = f32[8]{0} reduce(e, z), dimensions={1}, to_apply=add
  ROOT t = (f32[8]{0}, f32[8,16]{1,0}) tuple(r, e)
}
transposing {
  p0 = f32[8,16]{1,0} parameter(0)
  e = f32[8,16]{1,0} exponential(p0)
  tr = f32[16,8]{1,0} transpose(p0), dimensions={1,0}
  ROOT t = (f32[16,8]{1,0}, f32[8,16]{1,0}) tuple(tr, e)
}
ENTRY e {
  p = f32[8,16]{1,0} parameter(0)
  a = f32[8,16]{1,0} negate(p)
  f = (f32[8]{0}, f32[8,16]{1,0}) fusion(a), kind=kInput, calls=reducing
  g = (f32[16,8]{1,0}, f32[8,16]{1,0}) fusion(a), kind=kLoop, calls=transposing
  ROOT r = ((f32[8]{0}, f32[8,16]{1,0}), (f32[16,8]{1,0}, f32[8,16]{1,0})) tuple(f, g)
})");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(Hint(*m, "f", "a", {1}), std::optional<bool>(true));
  EXPECT_EQ(Hint(*m, "f", "a", {0}), std::optional<bool>(false));  // another element count
  EXPECT_EQ(Hint(*m, "g", "a", {1}), std::optional<bool>(false));
}

// The hint's other users: an all-reduce reduces in place (one operand, or the operand of its
// own output element); a custom-call shares only as cuBLASLt's bias with a nonzero beta or
// cuSOLVER's cholesky on output 0, any other target never.
TEST(XlaGpuBufferSharing, AllReduceAndCustomCalls) {
  auto m = Parse(R"(
HloModule M
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  p = f32[64]{0} parameter(0)
  q = f32[64]{0} parameter(1)
  one = f32[64]{0} all-reduce(p), to_apply=add
  two = (f32[64]{0}, f32[64]{0}) all-reduce(p, q), to_apply=add
  lt = f32[64]{0} custom-call(p, q, q), custom_call_target="__cublas$lt$matmul", backend_config={"gemm_backend_config":{"beta":1}}
  lt0 = f32[64]{0} custom-call(p, q, p), custom_call_target="__cublas$lt$matmul", backend_config={"gemm_backend_config":{"beta":0}}
  other = f32[64]{0} custom-call(p), custom_call_target="something"
  ROOT r = (f32[64]{0}, (f32[64]{0}, f32[64]{0}), f32[64]{0}, f32[64]{0}, f32[64]{0}) tuple(one, two, lt, lt0, other)
})");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(Hint(*m, "one", "p"), std::optional<bool>(true));
  EXPECT_EQ(Hint(*m, "two", "q", {1}), std::optional<bool>(true));
  EXPECT_EQ(Hint(*m, "two", "q", {0}), std::optional<bool>(false));
  EXPECT_EQ(Hint(*m, "lt", "q"), std::optional<bool>(true));
  EXPECT_EQ(Hint(*m, "lt0", "p"), std::optional<bool>(false));
  EXPECT_EQ(Hint(*m, "other", "p"), std::optional<bool>(false));
  EXPECT_TRUE(LooksLikeXlaGpuModule(*m));  // the cuBLAS target
}

// XLA's rule for a slice input fusion (horizontal fusion: operands concatenated, then cut back
// by 1-D slices), which XLA applies before any other on every backend: output k may take
// operand k's buffer (same element count and type) when the operand's parameter reaches
// output k only through elementwise ops and the concat the slices undo. Output 0 comes from
// parameter 0 (through the multiply), not from parameter 1. On the Pax step this put
// all-gather-start.9{1,187} in XLA's output allocation 481, where input_slice_fusion{1} takes
// it over.
TEST(XlaGpuBufferSharing, SliceInputFusionSharesOperandKWithOutputK) {
  auto m = Parse(R"(
HloModule M
horizontal {
  p0 = f32[4]{0} parameter(0)
  p1 = f32[6]{0} parameter(1)
  m0 = f32[4]{0} multiply(p0, p0)
  c = f32[10]{0} concatenate(m0, p1), dimensions={0}
  s0 = f32[4]{0} slice(c), slice={[0:4]}
  s1 = f32[6]{0} slice(c), slice={[4:10]}
  ROOT t = (f32[4]{0}, f32[6]{0}) tuple(s0, s1)
}
ENTRY e {
  a = f32[4]{0} parameter(0)
  b = f32[6]{0} parameter(1)
  na = f32[4]{0} negate(a)
  nb = f32[6]{0} negate(b)
  ROOT f = (f32[4]{0}, f32[6]{0}) fusion(na, nb), kind=kInput, calls=horizontal
})");
  ASSERT_NE(m, nullptr);
  const Instruction* f = Find(*m, "f");
  const Instruction* na = Find(*m, "na");
  const Instruction* nb = Find(*m, "nb");
  EXPECT_EQ(XlaSliceInputFusionShare(*na, {}, *f, {0}), std::optional<bool>(true));
  EXPECT_EQ(XlaSliceInputFusionShare(*nb, {}, *f, {1}), std::optional<bool>(true));
  EXPECT_EQ(XlaSliceInputFusionShare(*nb, {}, *f, {0}), std::optional<bool>(false));
  EXPECT_EQ(XlaSliceInputFusionShare(*na, {}, *Find(*m, "nb"), {}), std::nullopt);
  // Both the GPU rule and the generic one take it first.
  EXPECT_TRUE(XlaGpuCanShareOperandBufferWithUser(*na, {}, *f, {0}, {}));
  EXPECT_FALSE(CanShareOperandBufferWithUser(*na, {}, *f, {0}));
}

// The model: a f32[2,2048] value read by a fusion through a bitcast as f32[1,2,2048]. With
// XLA:GPU's rule the fusion's buffer may take a's allocation, where a's live range ends at the
// fusion: r (live out) gets the output allocation, a ([1,2]) joins it, then f ([2,3]) touches
// a's end at f and joins too: no temporaries. XLA's generic rule (equal shapes only) keeps f
// apart: 16 KiB of temporaries. Unset, the option follows the module's marks: with an
// XLA:GPU backend_config the model shares as XLA:GPU.
TEST(XlaGpuBufferSharing, RuleGpuFusionTakesOverABitcastOperand) {
  constexpr std::string_view kModule = R"(
HloModule M, is_scheduled=true
through_bitcast {
  p0 = f32[2,2048]{1,0} parameter(0)
  b = f32[1,2,2048]{2,1,0} bitcast(p0)
  ROOT m = f32[1,2,2048]{2,1,0} multiply(b, b)
}
ENTRY e {
  p = f32[2,2048]{1,0} parameter(0)
  a = f32[2,2048]{1,0} negate(p)
  f = f32[1,2,2048]{2,1,0} fusion(a), kind=kLoop, calls=through_bitcast CONFIG
  ROOT r = f32[1,2,2048]{2,1,0} negate(f)
})";
  auto assign = [&](std::string_view config, std::optional<bool> gpu) {
    std::string text(kModule);
    text.replace(text.find("CONFIG"), 6, config);
    auto m = Parse(text);
    EXPECT_NE(m, nullptr);
    absl::StatusOr<XlaModelAssignment> a =
        AssignLikeXla(*m, {.alignment = 128, .gpu_buffer_sharing = gpu});
    EXPECT_TRUE(a.ok()) << StatusText(a.status());
    return a.ok() ? *std::move(a) : XlaModelAssignment{};
  };
  const XlaModelAssignment gpu = assign("", true);
  EXPECT_EQ(gpu.AllocationOf("a"), gpu.AllocationOf("f"));
  EXPECT_EQ(gpu.totals.preallocated_temp_bytes, 0);
  const XlaModelAssignment generic = assign("", false);
  EXPECT_NE(generic.AllocationOf("a"), generic.AllocationOf("f"));
  EXPECT_EQ(generic.totals.preallocated_temp_bytes, 16384);
  EXPECT_EQ(assign("", std::nullopt).totals.preallocated_temp_bytes, 16384);
  EXPECT_EQ(assign(R"(, backend_config={"operation_queue_id":"0","force_earliest_schedule":false})",
                   std::nullopt)
                .totals.preallocated_temp_bytes,
            0);
}

}  // namespace
}  // namespace hloscope
