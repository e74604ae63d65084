// The paxml pattern (google/paxml issue 17; testdata/examples/pipelined_stash.hlo with the
// layer's activations kept alive across the stash copy and without its dead instruction, so
// the body's peak stays at the copy's step) before and after copy-elision: the
// peak drops by exactly the bytes of the stash copy the pass removes, which were live at the
// peak.
#include <memory>
#include <string>

#include "analysis/memory/memory_profile.h"
#include "gtest/gtest.h"
#include "passes/pass_registry.h"
#include "support/status_text.h"
#include "tests/test_util.h"

namespace hloscope {
namespace {

using testing::Find;
using testing::Parse;

constexpr char kPaxml[] = R"(
HloModule pipelined_stash, entry_computation_layout={(bf16[4,16,64,256]{3,2,1,0}, bf16[8,1,4,256,16,64]{3,5,4,2,1,0}, bf16[256,256]{1,0})->(bf16[4,16,64,256]{3,2,1,0}, bf16[8,1,4,256,16,64]{3,5,4,2,1,0}, s32[], bf16[256,256]{1,0})}

stash_activation {
  stash_in = bf16[8,1,4,256,16,64]{3,5,4,2,1,0} parameter(0)
  stash_rows = bf16[8,1,4,16,64,256]{5,4,3,2,1,0} bitcast(stash_in)
  activation_in = bf16[4,16,64,256]{3,2,1,0} parameter(1)
  activation_row = bf16[1,1,4,16,64,256]{5,4,3,2,1,0} bitcast(activation_in)
  microbatch = s32[] parameter(2)
  zero = s32[] constant(0)
  is_negative = pred[] compare(microbatch, zero), direction=LT, metadata={op_name="jit(train_step)/transformer/pipeline/while/body/layer_0/stash/rem" source_file="model/pipeline.py" source_line=131}
  num_microbatches = s32[] constant(8)
  wrapped = s32[] add(microbatch, num_microbatches), metadata={op_name="jit(train_step)/transformer/pipeline/while/body/layer_0/stash/add" source_file="model/pipeline.py" source_line=131}
  slot = s32[] select(is_negative, wrapped, microbatch), metadata={op_name="jit(train_step)/transformer/pipeline/while/body/layer_0/stash/select_n" source_file="model/pipeline.py" source_line=131}
  updated_rows = bf16[8,1,4,16,64,256]{5,4,3,2,1,0} dynamic-update-slice(stash_rows, activation_row, slot, zero, zero, zero, zero, zero), metadata={op_name="jit(train_step)/transformer/pipeline/while/body/layer_0/stash/dynamic_update_slice" source_file="model/pipeline.py" source_line=134}
  ROOT updated = bf16[8,1,4,256,16,64]{3,5,4,2,1,0} bitcast(updated_rows), metadata={op_name="jit(train_step)/transformer/pipeline/while/body/layer_0/stash/dynamic_update_slice" source_file="model/pipeline.py" source_line=134}
}

microbatch_loop_cond {
  cond_state = (bf16[4,16,64,256]{3,2,1,0}, bf16[8,1,4,256,16,64]{3,5,4,2,1,0}, s32[], bf16[256,256]{1,0}) parameter(0)
  cond_counter = s32[] get-tuple-element(cond_state), index=2
  trip_count = s32[] constant(8)
  ROOT keep_going = pred[] compare(cond_counter, trip_count), direction=LT
}

microbatch_loop_body {
  loop_state = (bf16[4,16,64,256]{3,2,1,0}, bf16[8,1,4,256,16,64]{3,5,4,2,1,0}, s32[], bf16[256,256]{1,0}) parameter(0)
  x = bf16[4,16,64,256]{3,2,1,0} get-tuple-element(loop_state), index=0
  stash = bf16[8,1,4,256,16,64]{3,5,4,2,1,0} get-tuple-element(loop_state), index=1
  counter = s32[] get-tuple-element(loop_state), index=2
  weights = bf16[256,256]{1,0} get-tuple-element(loop_state), index=3
  projected = bf16[4,16,64,256]{3,2,1,0} dot(x, weights), lhs_contracting_dims={3}, rhs_contracting_dims={0}, metadata={op_name="jit(train_step)/transformer/pipeline/while/body/layer_0/mlp/dot_general" source_file="model/layers.py" source_line=57}
  activation = bf16[4,16,64,256]{3,2,1,0} tanh(projected), metadata={op_name="jit(train_step)/transformer/pipeline/while/body/layer_0/mlp/tanh" source_file="model/layers.py" source_line=58}
  stash_update = bf16[8,1,4,256,16,64]{3,5,4,2,1,0} fusion(stash, activation, counter), kind=kLoop, calls=stash_activation, metadata={op_name="jit(train_step)/transformer/pipeline/while/body/layer_0/stash/dynamic_update_slice" source_file="model/pipeline.py" source_line=134}
  stash_copy = bf16[8,1,4,256,16,64]{3,5,4,2,1,0} copy(stash_update)
  next_x = bf16[4,16,64,256]{3,2,1,0} add(activation, projected)
  one = s32[] constant(1)
  next_counter = s32[] add(counter, one), metadata={op_name="jit(train_step)/transformer/pipeline/while/body/add" source_file="model/pipeline.py" source_line=140}
  ROOT next_state = (bf16[4,16,64,256]{3,2,1,0}, bf16[8,1,4,256,16,64]{3,5,4,2,1,0}, s32[], bf16[256,256]{1,0}) tuple(next_x, stash_copy, next_counter, weights)
}

ENTRY train_step {
  input = bf16[4,16,64,256]{3,2,1,0} parameter(0)
  stash_init = bf16[8,1,4,256,16,64]{3,5,4,2,1,0} parameter(1)
  initial_weights = bf16[256,256]{1,0} parameter(2)
  start = s32[] constant(0)
  init = (bf16[4,16,64,256]{3,2,1,0}, bf16[8,1,4,256,16,64]{3,5,4,2,1,0}, s32[], bf16[256,256]{1,0}) tuple(input, stash_init, start, initial_weights)
  loop = (bf16[4,16,64,256]{3,2,1,0}, bf16[8,1,4,256,16,64]{3,5,4,2,1,0}, s32[], bf16[256,256]{1,0}) while(init), condition=microbatch_loop_cond, body=microbatch_loop_body, backend_config="{\"known_trip_count\":{\"n\":\"8\"}}", metadata={op_name="jit(train_step)/transformer/pipeline/while" source_file="model/pipeline.py" source_line=120}
  final_x = bf16[4,16,64,256]{3,2,1,0} get-tuple-element(loop), index=0
  final_stash = bf16[8,1,4,256,16,64]{3,5,4,2,1,0} get-tuple-element(loop), index=1
  final_counter = s32[] get-tuple-element(loop), index=2
  weights_out = bf16[256,256]{1,0} get-tuple-element(init), index=3
  ROOT result = (bf16[4,16,64,256]{3,2,1,0}, bf16[8,1,4,256,16,64]{3,5,4,2,1,0}, s32[], bf16[256,256]{1,0}) tuple(final_x, final_stash, final_counter, weights_out)
}
)";

TEST(MemoryCopyElision, PaxmlStashCopySavingIsTheCopy) {
  auto before = Parse(kPaxml);
  auto after = Parse(kPaxml);
  ASSERT_NE(before, nullptr);
  ASSERT_NE(after, nullptr);
  absl::StatusOr<std::unique_ptr<Pass>> pass = PassRegistry::Global().Create("copy-elision");
  ASSERT_TRUE(pass.ok()) << StatusText(pass.status());
  absl::StatusOr<bool> changed = (*pass)->Run(*after);
  ASSERT_TRUE(changed.ok()) << StatusText(changed.status());
  ASSERT_TRUE(*changed);
  const Instruction* copy = Find(*before, "microbatch_loop_body", "stash_copy");
  ASSERT_NE(copy, nullptr);
  ASSERT_EQ(Find(*after, "microbatch_loop_body", "stash_copy"), nullptr);  // removed

  absl::StatusOr<MemoryReport> rb = ProfileModule(*before, {});
  absl::StatusOr<MemoryReport> ra = ProfileModule(*after, {});
  ASSERT_TRUE(rb.ok() && ra.ok());
  // Before, the loop's body peaks at the copy: the copy's 16 MiB ride on the while.
  EXPECT_EQ(rb->peak_instruction, "loop");
  bool copy_in_peak = false;
  for (const LiveBuffer& b : rb->top_buffers) {
    if (b.kind == LiveBufferKind::kCallee) copy_in_peak = b.bytes >= copy->shape().ByteSize();
  }
  EXPECT_TRUE(copy_in_peak);
  EXPECT_EQ(rb->peak_bytes - ra->peak_bytes, copy->shape().ByteSize());
  EXPECT_EQ(copy->shape().ByteSize(), 16777216);
}

}  // namespace
}  // namespace hloscope
