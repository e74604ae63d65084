// VerifyModule: one valid and at least one invalid module per rule, with the exact message.
// Rules the parser already enforces on text (parameter numbering, cycles, duplicate names, one
// ROOT) are tested by editing a parsed module through the graph API, the way a buggy pass
// would break it.
#include "gtest/gtest.h"
#include "hlo/verifier.h"
#include "tests/hlo/test_util.h"

namespace hloscope {
namespace {

using testing::Find;
using testing::Parse;
using testing::Verify;
using testing::VerifyText;

// Every rule's opcode, valid, with layouts that differ where XLA lets them differ.
constexpr std::string_view kValid = R"(
HloModule valid

cond {
  p = (f32[2]{0}, s32[]) parameter(0)
  i = s32[] get-tuple-element(p), index=1
  n = s32[] constant(4)
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  p = (f32[2], s32[]) parameter(0)
  v = f32[2] get-tuple-element(p), index=0
  i = s32[] get-tuple-element(p), index=1
  one = s32[] constant(1)
  next = s32[] add(i, one)
  ROOT t = (f32[2], s32[]) tuple(v, next)
}

on_true {
  x = f32[2] parameter(0)
  ROOT neg = f32[2] negate(x)
}

on_false {
  y = f32[2] parameter(0)
  ROOT copy = f32[2] copy(y)
}

branch2 {
  z = s32[] parameter(0)
  k = f32[] constant(0)
  ROOT c = f32[2] broadcast(k), dimensions={}
}

callee {
  a = f32[2] parameter(0)
  b = f32[2] parameter(1)
  ROOT sum = f32[2] add(a, b)
}

fused {
  f0 = f32[4,4] parameter(0)
  f1 = f32[4,4] parameter(1)
  ROOT m = f32[4,4] multiply(f0, f1)
}

ENTRY main {
  arg = f32[2]{0} parameter(0)
  flag = pred[] parameter(1)
  idx = s32[] parameter(2)
  big = f32[4,4]{1,0} parameter(3)
  zero = s32[] constant(0)
  init = (f32[2], s32[]) tuple(arg, zero)
  loop = (f32[2]{0}, s32[]) while(init), condition=cond, body=body
  res = f32[2] get-tuple-element(loop), index=0
  cnd = f32[2] conditional(flag, res, arg), true_computation=on_true, false_computation=on_false
  sel = f32[2] conditional(idx, res, arg, idx), branch_computations={on_true, on_false, branch2}
  called = f32[2] call(cnd, sel), to_apply=callee
  fusion = f32[4,4] fusion(big, big), kind=kLoop, calls=fused
  ds = f32[2,2] dynamic-slice(fusion, idx, zero), dynamic_slice_sizes={2,2}
  upd = f32[4,4] dynamic-update-slice(big, ds, zero, idx)
  flat = f32[16]{0} bitcast(upd)
  moved = f32[4,4]{0,1} copy(upd)
  ROOT out = (f32[2], f32[16], f32[4,4]) tuple(called, flat, moved)
}
)";

TEST(VerifierTest, ValidModule) { EXPECT_EQ(VerifyText(kValid), "OK"); }

TEST(VerifierTest, ErrorsAreInvalidArgument) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(R"(
HloModule m
ENTRY main {
  p = f32[2] parameter(0)
  ROOT t = (f32[3]) tuple(p)
}
)");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(VerifyModule(**m).code(), absl::StatusCode::kInvalidArgument);
}

// --- tuple ---------------------------------------------------------------------------------

TEST(VerifierTest, TupleElementShapeMismatch) {
  EXPECT_EQ(VerifyText(R"(
HloModule m
ENTRY main {
  p = f32[2] parameter(0)
  ROOT t = (f32[3]) tuple(p)
}
)"),
            "computation 'main': instruction 't': tuple element 0 shape f32[3] does not match "
            "operand 0 'p' shape f32[2]");
}

TEST(VerifierTest, TupleElementCountMismatch) {
  EXPECT_EQ(VerifyText(R"(
HloModule m
ENTRY main {
  p = f32[2] parameter(0)
  ROOT t = (f32[2], f32[2]) tuple(p)
}
)"),
            "computation 'main': instruction 't': tuple shape (f32[2], f32[2]) has 2 elements "
            "but 1 operand");
}

TEST(VerifierTest, TupleShapeNotATuple) {
  EXPECT_EQ(VerifyText(R"(
HloModule m
ENTRY main {
  p = f32[2] parameter(0)
  ROOT t = f32[2] tuple(p)
}
)"),
            "computation 'main': instruction 't': tuple shape f32[2] is not a tuple");
}

TEST(VerifierTest, TupleIgnoresLayouts) {
  EXPECT_EQ(VerifyText(R"(
HloModule m
ENTRY main {
  p = f32[2,3]{0,1} parameter(0)
  ROOT t = (f32[2,3]{1,0}) tuple(p)
}
)"),
            "OK");
}

// --- get-tuple-element ---------------------------------------------------------------------

TEST(VerifierTest, GetTupleElementOfNonTuple) {
  EXPECT_EQ(VerifyText(R"(
HloModule m
ENTRY main {
  p = f32[2] parameter(0)
  ROOT g = f32[2] get-tuple-element(p), index=0
}
)"),
            "computation 'main': instruction 'g': get-tuple-element operand 'p' shape f32[2] is "
            "not a tuple");
}

TEST(VerifierTest, GetTupleElementIndexOutOfRange) {
  EXPECT_EQ(VerifyText(R"(
HloModule m
ENTRY main {
  p = (f32[2], s32[]) parameter(0)
  ROOT g = f32[2] get-tuple-element(p), index=2
}
)"),
            "computation 'main': instruction 'g': get-tuple-element index 2 is out of range for "
            "operand 'p' shape (f32[2], s32[])");
}

TEST(VerifierTest, GetTupleElementShapeMismatch) {
  EXPECT_EQ(VerifyText(R"(
HloModule m
ENTRY main {
  p = (f32[2], s32[]) parameter(0)
  ROOT g = f32[2] get-tuple-element(p), index=1
}
)"),
            "computation 'main': instruction 'g': get-tuple-element shape f32[2] does not match "
            "operand 'p' element 1 shape s32[]");
}

// --- while ---------------------------------------------------------------------------------

TEST(VerifierTest, WhileBodyRootMismatch) {
  EXPECT_EQ(VerifyText(R"(
HloModule m

cond {
  p = (f32[2]) parameter(0)
  ROOT t = pred[] constant(true)
}

body {
  p = (f32[2]) parameter(0)
  g = f32[2] get-tuple-element(p), index=0
  i = s32[] constant(0)
  ROOT tuple.3 = (f32[2], s32[]) tuple(g, i)
}

ENTRY main {
  a = f32[2] parameter(0)
  t = (f32[2]) tuple(a)
  ROOT w = (f32[2]) while(t), condition=cond, body=body
}
)"),
            "computation 'body': instruction 'tuple.3': while body root shape (f32[2], s32[]) "
            "does not match while shape (f32[2])");
}

TEST(VerifierTest, WhileOperandMismatch) {
  EXPECT_EQ(VerifyText(R"(
HloModule m
cond {
  p = f32[2] parameter(0)
  ROOT t = pred[] constant(true)
}
body {
  ROOT p = f32[2] parameter(0)
}
ENTRY main {
  a = f32[3] parameter(0)
  ROOT w = f32[2] while(a), condition=cond, body=body
}
)"),
            "computation 'main': instruction 'w': while operand 'a' shape f32[3] does not match "
            "while shape f32[2]");
}

TEST(VerifierTest, WhileConditionParameterCount) {
  EXPECT_EQ(VerifyText(R"(
HloModule m
cond {
  p = f32[2] parameter(0)
  q = f32[2] parameter(1)
  ROOT t = pred[] constant(true)
}
body {
  ROOT p = f32[2] parameter(0)
}
ENTRY main {
  a = f32[2] parameter(0)
  ROOT w = f32[2] while(a), condition=cond, body=body
}
)"),
            "computation 'main': instruction 'w': while condition 'cond' has 2 parameters, "
            "expected 1");
}

TEST(VerifierTest, WhileBodyParameterMismatch) {
  EXPECT_EQ(VerifyText(R"(
HloModule m
cond {
  p = f32[2] parameter(0)
  ROOT t = pred[] constant(true)
}
body {
  p = s32[2] parameter(0)
  ROOT c = f32[2] constant({1, 2})
}
ENTRY main {
  a = f32[2] parameter(0)
  ROOT w = f32[2] while(a), condition=cond, body=body
}
)"),
            "computation 'body': instruction 'p': while body parameter shape s32[2] does not "
            "match while shape f32[2]");
}

TEST(VerifierTest, WhileConditionParameterMismatch) {
  EXPECT_EQ(VerifyText(R"(
HloModule m
cond {
  p = f32[3] parameter(0)
  ROOT t = pred[] constant(true)
}
body {
  ROOT p = f32[2] parameter(0)
}
ENTRY main {
  a = f32[2] parameter(0)
  ROOT w = f32[2] while(a), condition=cond, body=body
}
)"),
            "computation 'cond': instruction 'p': while condition parameter shape f32[3] does "
            "not match while shape f32[2]");
}

TEST(VerifierTest, WhileConditionRootNotPred) {
  EXPECT_EQ(VerifyText(R"(
HloModule m
cond {
  p = f32[2] parameter(0)
  ROOT t = s32[] constant(1)
}
body {
  ROOT p = f32[2] parameter(0)
}
ENTRY main {
  a = f32[2] parameter(0)
  ROOT w = f32[2] while(a), condition=cond, body=body
}
)"),
            "computation 'cond': instruction 't': while condition root shape s32[] is not "
            "pred[]");
}

// --- conditional ---------------------------------------------------------------------------

constexpr std::string_view kBranches = R"(
HloModule m
b0 {
  x = f32[2] parameter(0)
  ROOT n = f32[2] negate(x)
}
b1 {
  y = f32[2] parameter(0)
  ROOT c = f32[2] copy(y)
}
b2 {
  z = s32[] parameter(0)
  ROOT k = f32[2] constant({0, 0})
}
b_two_params {
  u = f32[2] parameter(0)
  v = f32[2] parameter(1)
  ROOT w = f32[2] add(u, v)
}
b_tuple_root {
  t = f32[2] parameter(0)
  ROOT r = (f32[2]) tuple(t)
}
)";

std::string VerifyBranches(std::string_view entry) {
  return VerifyText(std::string(kBranches) + std::string(entry));
}

TEST(VerifierTest, ConditionalValid) {
  EXPECT_EQ(VerifyBranches(R"(
ENTRY main {
  i = s32[] parameter(0)
  a = f32[2] parameter(1)
  ROOT c = f32[2] conditional(i, a, a, i), branch_computations={b0, b1, b2}
}
)"),
            "OK");
}

TEST(VerifierTest, ConditionalBranchIndexType) {
  EXPECT_EQ(VerifyBranches(R"(
ENTRY main {
  i = f32[] parameter(0)
  a = f32[2] parameter(1)
  ROOT c = f32[2] conditional(i, a, a), branch_computations={b0, b1}
}
)"),
            "computation 'main': instruction 'c': conditional branch index 'i' shape f32[] is "
            "not pred[] or s32[]");
}

TEST(VerifierTest, ConditionalPredNeedsTwoBranches) {
  EXPECT_EQ(VerifyBranches(R"(
ENTRY main {
  i = pred[] parameter(0)
  a = f32[2] parameter(1)
  ROOT c = f32[2] conditional(i, a, a, a), branch_computations={b0, b1, b1}
}
)"),
            "computation 'main': instruction 'c': conditional with a pred[] branch index has 3 "
            "branches, expected 2");
}

TEST(VerifierTest, ConditionalBranchCountVsOperands) {
  EXPECT_EQ(VerifyBranches(R"(
ENTRY main {
  i = s32[] parameter(0)
  a = f32[2] parameter(1)
  ROOT c = f32[2] conditional(i, a), branch_computations={b0, b1}
}
)"),
            "computation 'main': instruction 'c': conditional has 2 branches but 1 branch "
            "operand");
}

TEST(VerifierTest, ConditionalBranchParameterCount) {
  EXPECT_EQ(VerifyBranches(R"(
ENTRY main {
  p = pred[] parameter(0)
  a = f32[2] parameter(1)
  ROOT c = f32[2] conditional(p, a, a), true_computation=b0, false_computation=b_two_params
}
)"),
            "computation 'main': instruction 'c': conditional branch 1 'b_two_params' has 2 "
            "parameters, expected 1");
}

TEST(VerifierTest, ConditionalBranchParameterMismatch) {
  EXPECT_EQ(VerifyBranches(R"(
ENTRY main {
  i = s32[] parameter(0)
  a = f32[2] parameter(1)
  ROOT c = f32[2] conditional(i, a, a, a), branch_computations={b0, b1, b2}
}
)"),
            "computation 'b2': instruction 'z': conditional branch 2 parameter shape s32[] does "
            "not match operand 3 'a' shape f32[2]");
}

TEST(VerifierTest, ConditionalBranchRootMismatch) {
  EXPECT_EQ(VerifyBranches(R"(
ENTRY main {
  p = pred[] parameter(0)
  a = f32[2] parameter(1)
  ROOT c = f32[2] conditional(p, a, a), true_computation=b_tuple_root, false_computation=b0
}
)"),
            "computation 'b_tuple_root': instruction 'r': conditional branch 0 root shape "
            "(f32[2]) does not match conditional shape f32[2]");
}

// --- call and fusion -----------------------------------------------------------------------

constexpr std::string_view kCallee = R"(
HloModule m
callee {
  a = f32[2] parameter(0)
  b = s32[] parameter(1)
  ROOT n = f32[2] negate(a)
}
)";

std::string VerifyWithCallee(std::string_view entry) {
  return VerifyText(std::string(kCallee) + std::string(entry));
}

TEST(VerifierTest, CallParameterCount) {
  EXPECT_EQ(VerifyWithCallee(R"(
ENTRY main {
  x = f32[2] parameter(0)
  ROOT c = f32[2] call(x), to_apply=callee
}
)"),
            "computation 'main': instruction 'c': call computation 'callee' has 2 parameters "
            "but the call has 1 operand");
}

TEST(VerifierTest, CallParameterMismatch) {
  EXPECT_EQ(VerifyWithCallee(R"(
ENTRY main {
  x = f32[2] parameter(0)
  ROOT c = f32[2] call(x, x), to_apply=callee
}
)"),
            "computation 'callee': instruction 'b': call parameter 1 shape s32[] does not match "
            "operand 1 'x' shape f32[2]");
}

TEST(VerifierTest, CallRootMismatch) {
  EXPECT_EQ(VerifyWithCallee(R"(
ENTRY main {
  x = f32[2] parameter(0)
  i = s32[] parameter(1)
  ROOT c = f32[3] call(x, i), to_apply=callee
}
)"),
            "computation 'callee': instruction 'n': call root shape f32[2] does not match call "
            "shape f32[3]");
}

TEST(VerifierTest, FusionParameterCount) {
  EXPECT_EQ(VerifyWithCallee(R"(
ENTRY main {
  x = f32[2] parameter(0)
  i = s32[] parameter(1)
  ROOT f = f32[2] fusion(x, i, i), kind=kLoop, calls=callee
}
)"),
            "computation 'main': instruction 'f': fusion computation 'callee' has 2 parameters "
            "but the fusion has 3 operands");
}

TEST(VerifierTest, FusionParameterMismatch) {
  EXPECT_EQ(VerifyWithCallee(R"(
ENTRY main {
  x = f32[2] parameter(0)
  ROOT f = f32[2] fusion(x, x), kind=kLoop, calls=callee
}
)"),
            "computation 'callee': instruction 'b': fusion parameter 1 shape s32[] does not "
            "match operand 1 'x' shape f32[2]");
}

TEST(VerifierTest, FusionRootMismatch) {
  EXPECT_EQ(VerifyWithCallee(R"(
ENTRY main {
  x = f32[2] parameter(0)
  i = s32[] parameter(1)
  ROOT f = bf16[2] fusion(x, i), kind=kLoop, calls=callee
}
)"),
            "computation 'callee': instruction 'n': fusion root shape f32[2] does not match "
            "fusion shape bf16[2]");
}

TEST(VerifierTest, FusionAndCallIgnoreLayouts) {
  EXPECT_EQ(VerifyWithCallee(R"(
ENTRY main {
  x = f32[2]{0:T(128)} parameter(0)
  i = s32[] parameter(1)
  f = f32[2]{0:T(256)} fusion(x, i), kind=kLoop, calls=callee
  ROOT c = f32[2]{0} call(f, i), to_apply=callee
}
)"),
            "OK");
}

// --- dynamic-slice -------------------------------------------------------------------------

TEST(VerifierTest, DynamicSliceIndexCount) {
  EXPECT_EQ(VerifyText(R"(
HloModule m
ENTRY main {
  a = f32[4,4] parameter(0)
  i = s32[] parameter(1)
  ROOT d = f32[2,2] dynamic-slice(a, i), dynamic_slice_sizes={2,2}
}
)"),
            "computation 'main': instruction 'd': dynamic-slice has 1 start index but operand "
            "'a' has rank 2");
}

TEST(VerifierTest, DynamicSliceIndexNotIntegerScalar) {
  EXPECT_EQ(VerifyText(R"(
HloModule m
ENTRY main {
  a = f32[4,4] parameter(0)
  i = s32[] parameter(1)
  f = f32[] parameter(2)
  ROOT d = f32[2,2] dynamic-slice(a, i, f), dynamic_slice_sizes={2,2}
}
)"),
            "computation 'main': instruction 'd': dynamic-slice operand 2 'f' shape f32[] is not "
            "an integer scalar");
}

TEST(VerifierTest, DynamicSliceSizesCount) {
  EXPECT_EQ(VerifyText(R"(
HloModule m
ENTRY main {
  a = f32[4,4] parameter(0)
  i = s32[] parameter(1)
  ROOT d = f32[2] dynamic-slice(a, i, i), dynamic_slice_sizes={2}
}
)"),
            "computation 'main': instruction 'd': dynamic-slice dynamic_slice_sizes={2} has 1 "
            "entry but operand 'a' has rank 2");
}

TEST(VerifierTest, DynamicSliceSizeTooLarge) {
  EXPECT_EQ(VerifyText(R"(
HloModule m
ENTRY main {
  a = f32[4,4] parameter(0)
  i = u32[] parameter(1)
  ROOT d = f32[2,5] dynamic-slice(a, i, i), dynamic_slice_sizes={2,5}
}
)"),
            "computation 'main': instruction 'd': dynamic-slice size 5 in dimension 1 does not "
            "fit in operand 'a' shape f32[4,4]");
}

TEST(VerifierTest, DynamicSliceResultMismatch) {
  EXPECT_EQ(VerifyText(R"(
HloModule m
ENTRY main {
  a = f32[4,4] parameter(0)
  i = s32[] parameter(1)
  ROOT d = f32[2,3] dynamic-slice(a, i, i), dynamic_slice_sizes={2,2}
}
)"),
            "computation 'main': instruction 'd': dynamic-slice shape f32[2,3] does not match "
            "f32[2,2] (element type of operand 'a', dynamic_slice_sizes={2,2})");
}

TEST(VerifierTest, DynamicSliceAcceptsIndexVector) {
  // The deprecated form: one s32[rank] operand holding all start indices.
  EXPECT_EQ(VerifyText(R"(
HloModule m
ENTRY main {
  a = f32[4,4] parameter(0)
  v = s32[2] parameter(1)
  ROOT d = f32[2,2] dynamic-slice(a, v), dynamic_slice_sizes={2,2}
}
)"),
            "OK");
}

// --- dynamic-update-slice ------------------------------------------------------------------

TEST(VerifierTest, DynamicUpdateSliceIndexCount) {
  EXPECT_EQ(VerifyText(R"(
HloModule m
ENTRY main {
  a = f32[4,4] parameter(0)
  u = f32[2,2] parameter(1)
  i = s32[] parameter(2)
  ROOT d = f32[4,4] dynamic-update-slice(a, u, i, i, i)
}
)"),
            "computation 'main': instruction 'd': dynamic-update-slice has 3 start indices but "
            "operand 'a' has rank 2");
}

TEST(VerifierTest, DynamicUpdateSliceIndexNotScalar) {
  EXPECT_EQ(VerifyText(R"(
HloModule m
ENTRY main {
  a = f32[4,4] parameter(0)
  u = f32[2,2] parameter(1)
  i = s32[] parameter(2)
  j = s32[1] parameter(3)
  ROOT d = f32[4,4] dynamic-update-slice(a, u, i, j)
}
)"),
            "computation 'main': instruction 'd': dynamic-update-slice operand 3 'j' shape "
            "s32[1] is not an integer scalar");
}

TEST(VerifierTest, DynamicUpdateSliceUpdateRank) {
  EXPECT_EQ(VerifyText(R"(
HloModule m
ENTRY main {
  a = f32[4,4] parameter(0)
  u = f32[2] parameter(1)
  i = s32[] parameter(2)
  ROOT d = f32[4,4] dynamic-update-slice(a, u, i, i)
}
)"),
            "computation 'main': instruction 'd': dynamic-update-slice update 'u' shape f32[2] "
            "has rank 1 but operand 'a' shape f32[4,4] has rank 2");
}

// The update's element type is the operand's, but for floating-point precision with
// allow_mixed_precision (on by default), as in XLA's InferDynamicUpdateSliceShape.
TEST(VerifierTest, DynamicUpdateSliceUpdateElementType) {
  EXPECT_EQ(VerifyText(R"(
HloModule m
ENTRY main {
  a = f32[4,4] parameter(0)
  u = s32[2,2] parameter(1)
  i = s32[] parameter(2)
  ROOT d = f32[4,4] dynamic-update-slice(a, u, i, i)
}
)"),
            "computation 'main': instruction 'd': dynamic-update-slice update 'u' element type "
            "s32 does not match operand 'a' element type f32");
  EXPECT_EQ(VerifyText(R"(
HloModule m
ENTRY main {
  a = f32[4,4] parameter(0)
  u = bf16[2,2] parameter(1)
  i = s32[] parameter(2)
  ROOT d = f32[4,4] dynamic-update-slice(a, u, i, i)
}
)"),
            "OK");
}

TEST(VerifierTest, DynamicUpdateSliceUpdateTooLarge) {
  EXPECT_EQ(VerifyText(R"(
HloModule m
ENTRY main {
  a = f32[4,4] parameter(0)
  u = f32[2,8] parameter(1)
  i = s32[] parameter(2)
  ROOT d = f32[4,4] dynamic-update-slice(a, u, i, i)
}
)"),
            "computation 'main': instruction 'd': dynamic-update-slice update 'u' shape f32[2,8] "
            "does not fit in operand 'a' shape f32[4,4]");
}

TEST(VerifierTest, DynamicUpdateSliceResultMismatch) {
  EXPECT_EQ(VerifyText(R"(
HloModule m
ENTRY main {
  a = f32[4,4] parameter(0)
  u = f32[2,2] parameter(1)
  i = s32[] parameter(2)
  ROOT d = f32[4,5] dynamic-update-slice(a, u, i, i)
}
)"),
            "computation 'main': instruction 'd': dynamic-update-slice shape f32[4,5] does not "
            "match operand 'a' shape f32[4,4]");
}

// --- bitcast and copy ----------------------------------------------------------------------

TEST(VerifierTest, BitcastByteSizeMismatch) {
  EXPECT_EQ(VerifyText(R"(
HloModule m
ENTRY main {
  a = f32[4]{0} parameter(0)
  ROOT b = f16[4]{0} bitcast(a)
}
)"),
            "computation 'main': instruction 'b': bitcast shape f16[4]{0} has 8 bytes but "
            "operand 'a' shape f32[4]{0} has 16 bytes");
}

TEST(VerifierTest, BitcastSameBytesDifferentTypeAndRank) {
  EXPECT_EQ(VerifyText(R"(
HloModule m
ENTRY main {
  a = f32[4]{0} parameter(0)
  b = u8[2,8]{1,0} bitcast(a)
  ROOT c = s4[32]{0} bitcast(b)
}
)"),
            "OK");
}

TEST(VerifierTest, BitcastHonoursElementSizeInBits) {
  // E(4): the f32 elements are stored in 4 bits each, so 8 of them fill 4 bytes.
  EXPECT_EQ(VerifyText(R"(
HloModule m
ENTRY main {
  a = f32[8]{0:E(4)} parameter(0)
  ROOT b = f32[8]{0} bitcast(a)
}
)"),
            "computation 'main': instruction 'b': bitcast shape f32[8]{0} has 32 bytes but "
            "operand 'a' shape f32[8]{0:E(4)} has 4 bytes");
}

TEST(VerifierTest, BitcastComparesTiledPaddedSizes) {
  // TPU layouts pad each tiled dimension to the tile: both occupy 128 u32 elements.
  EXPECT_EQ(VerifyText(R"(
HloModule m
ENTRY main {
  a = u32[10]{0:T(128)} parameter(0)
  ROOT b = u32[5]{0:T(128)} bitcast(a)
}
)"),
            "OK");
}

TEST(VerifierTest, CopyShapeMismatch) {
  EXPECT_EQ(VerifyText(R"(
HloModule m
ENTRY main {
  a = f32[4,2] parameter(0)
  ROOT c = f32[2,4] copy(a)
}
)"),
            "computation 'main': instruction 'c': copy shape f32[2,4] does not match operand "
            "'a' shape f32[4,2]");
}

TEST(VerifierTest, CopyMayChangeLayout) {
  EXPECT_EQ(VerifyText(R"(
HloModule m
ENTRY main {
  a = f32[4,2]{1,0} parameter(0)
  ROOT c = f32[4,2]{0,1} copy(a)
}
)"),
            "OK");
}

// --- operand counts from the opcode table --------------------------------------------------

TEST(VerifierTest, FixedArity) {
  EXPECT_EQ(VerifyText(R"(
HloModule m
ENTRY main {
  p = f32[2] parameter(0)
  ROOT n = f32[2] negate(p, p)
}
)"),
            "computation 'main': instruction 'n': negate expects 1 operand, has 2");
  EXPECT_EQ(VerifyText(R"(
HloModule m
ENTRY main {
  p = f32[2] parameter(0)
  ROOT n = f32[2] add(p)
}
)"),
            "computation 'main': instruction 'n': add expects 2 operands, has 1");
}

TEST(VerifierTest, GetTupleElementArity) {
  EXPECT_EQ(VerifyText(R"(
HloModule m
ENTRY main {
  p = (f32[2]) parameter(0)
  ROOT g = f32[2] get-tuple-element(p, p), index=0
}
)"),
            "computation 'main': instruction 'g': get-tuple-element expects 1 operand, has 2");
}

TEST(VerifierTest, WhileArity) {
  EXPECT_EQ(VerifyText(R"(
HloModule m
cond {
  p = f32[2] parameter(0)
  ROOT t = pred[] constant(true)
}
body {
  ROOT p = f32[2] parameter(0)
}
ENTRY main {
  a = f32[2] parameter(0)
  ROOT w = f32[2] while(a, a), condition=cond, body=body
}
)"),
            "computation 'main': instruction 'w': while expects 1 operand, has 2");
}

// --- names ---------------------------------------------------------------------------------

constexpr std::string_view kSharedNames = R"(
HloModule m
f {
  p = f32[2] parameter(0)
  ROOT n = f32[2] negate(p)
}
ENTRY main {
  p = f32[2] parameter(0)
  ROOT c = f32[2] call(p), to_apply=f
}
)";

TEST(VerifierTest, NamesMayRepeatAcrossComputationsByDefault) {
  EXPECT_EQ(VerifyText(kSharedNames), "OK");
}

TEST(VerifierTest, ModuleUniqueNamesOption) {
  VerifierOptions options;
  options.check_module_unique_names = true;
  EXPECT_EQ(VerifyText(kSharedNames, options),
            "computation 'main': instruction 'p': name is already used in computation 'f'");
}

TEST(VerifierTest, DuplicateNameInComputation) {
  std::unique_ptr<Module> m = Parse(R"(
HloModule m
ENTRY main {
  p = f32[2] parameter(0)
  ROOT n = f32[2] negate(p)
}
)");
  ASSERT_NE(m, nullptr);
  Computation* main = m->FindComputation("main");
  Instruction* p = Find(*m, "main", "p");
  Instruction* dup = m->CreateInstruction(Opcode::kNegate, p->shape_ptr(), "n", main);
  dup->AppendOperand(p);
  main->AddInstruction(dup);
  EXPECT_EQ(Verify(*m),
            "computation 'main': instruction 'n': name is already used in "
            "computation 'main'");
  VerifierOptions no_names;
  no_names.check_unique_names = false;
  EXPECT_EQ(Verify(*m, no_names), "OK");
}

TEST(VerifierTest, DuplicateNameAfterRenamingAParsedInstruction) {
  // The parser vouches for distinct names, which lets the verifier skip its own check; a
  // rename afterwards withdraws that, so the duplicate is still found.
  std::unique_ptr<Module> m = Parse(R"(
HloModule m
ENTRY main {
  p = f32[2] parameter(0)
  a = f32[2] negate(p)
  ROOT n = f32[2] negate(a)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(m->instruction_names_known_unique());
  EXPECT_EQ(Verify(*m), "OK");
  InstructionBuilder(Find(*m, "main", "a")).set_name("p");
  EXPECT_FALSE(m->instruction_names_known_unique());
  EXPECT_EQ(Verify(*m),
            "computation 'main': instruction 'p': name is already used in "
            "computation 'main'");
}

TEST(VerifierTest, DuplicateNameInLargeComputation) {
  // More than a handful of instructions: the check uses a set instead of comparing pairs.
  std::unique_ptr<Module> m = Parse(R"(
HloModule m
ENTRY main {
  p = f32[2] parameter(0)
  a = f32[2] negate(p)
  b = f32[2] negate(a)
  c = f32[2] negate(b)
  d = f32[2] negate(c)
  e = f32[2] negate(d)
  f = f32[2] negate(e)
  g = f32[2] negate(f)
  h = f32[2] negate(g)
  ROOT i = f32[2] negate(h)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(Verify(*m), "OK");
  Computation* main = m->FindComputation("main");
  Instruction* dup = m->CreateInstruction(Opcode::kNegate, main->root()->shape_ptr(), "c", main);
  dup->AppendOperand(Find(*m, "main", "p"));
  main->AddInstruction(dup);
  EXPECT_EQ(Verify(*m),
            "computation 'main': instruction 'c': name is already used in "
            "computation 'main'");
}

// --- parameters ----------------------------------------------------------------------------

constexpr std::string_view kTwoParams = R"(
HloModule m
ENTRY main {
  p0 = f32[2] parameter(0)
  p1 = f32[2] parameter(1)
  ROOT s = f32[2] add(p0, p1)
}
)";

// Adds a parameter instruction numbered `number` to `main` without registering it.
Instruction* AddRawParameter(Module& m, int64_t number, std::string_view name) {
  Computation* main = m.FindComputation("main");
  Instruction* p =
      m.CreateInstruction(Opcode::kParameter, Find(m, "main", "p0")->shape_ptr(), name, main);
  InstructionBuilder(p).set_number(number);
  main->AddInstruction(p);
  return p;
}

TEST(VerifierTest, ParameterNumberOutOfRange) {
  std::unique_ptr<Module> m = Parse(kTwoParams);
  ASSERT_NE(m, nullptr);
  AddRawParameter(*m, 5, "p5");
  EXPECT_EQ(Verify(*m),
            "computation 'main': instruction 'p5': parameter number 5 is out of "
            "range: the computation has 3 parameters");
}

TEST(VerifierTest, ParameterNumberUsedTwice) {
  std::unique_ptr<Module> m = Parse(kTwoParams);
  ASSERT_NE(m, nullptr);
  AddRawParameter(*m, 0, "again");
  EXPECT_EQ(Verify(*m),
            "computation 'main': instruction 'again': parameter number 0 is "
            "already used by 'p0'");
}

TEST(VerifierTest, ParameterTableOutOfDate) {
  std::unique_ptr<Module> m = Parse(kTwoParams);
  ASSERT_NE(m, nullptr);
  AddRawParameter(*m, 2, "p2");  // numbered right, but never given to SetParameter
  EXPECT_EQ(Verify(*m),
            "computation 'main': parameter table has 2 entries but the "
            "computation has 3 parameters");
  ASSERT_TRUE(m->FindComputation("main")->SetParameter(Find(*m, "main", "p2")));
  EXPECT_EQ(Verify(*m), "OK");
}

// --- roots ---------------------------------------------------------------------------------

TEST(VerifierTest, MissingRoot) {
  std::unique_ptr<Module> m = Parse(kTwoParams);
  ASSERT_NE(m, nullptr);
  m->FindComputation("main")->set_root(nullptr);
  EXPECT_EQ(Verify(*m), "computation 'main': has no root instruction");
}

TEST(VerifierTest, RootFromAnotherComputation) {
  std::unique_ptr<Module> m = Parse(kSharedNames);
  ASSERT_NE(m, nullptr);
  m->FindComputation("main")->set_root(Find(*m, "f", "n"));
  EXPECT_EQ(Verify(*m),
            "computation 'main': root instruction 'n' is not in this computation "
            "(it belongs to computation 'f')");
}

TEST(VerifierTest, RemovedRoot) {
  std::unique_ptr<Module> m = Parse(kTwoParams);
  ASSERT_NE(m, nullptr);
  Computation* main = m->FindComputation("main");
  Instruction* s = Find(*m, "main", "s");
  // The graph API refuses to remove a root...
  EXPECT_FALSE(main->RemoveInstruction(s));
  // ...but a pass can still point the root at an instruction it never added.
  Instruction* ghost = m->CreateInstruction(Opcode::kNegate, s->shape_ptr(), "ghost", main);
  main->set_root(ghost);
  EXPECT_EQ(Verify(*m),
            "computation 'main': root instruction 'ghost' is not in this computation "
            "(it is not listed in any computation)");
}

// --- operands, users and control edges -----------------------------------------------------

TEST(VerifierTest, OperandFromAnotherComputation) {
  std::unique_ptr<Module> m = Parse(kSharedNames);
  ASSERT_NE(m, nullptr);
  Find(*m, "f", "n")->ReplaceOperand(0, Find(*m, "main", "p"));
  EXPECT_EQ(Verify(*m),
            "computation 'f': instruction 'n': operand 0 'p' is not in this "
            "computation (it belongs to computation 'main')");
}

TEST(VerifierTest, OperandRemovedFromComputation) {
  std::unique_ptr<Module> m = Parse(R"(
HloModule m
ENTRY main {
  p = f32[2] parameter(0)
  n = f32[2] negate(p)
  ROOT e = f32[2] exponential(n)
}
)");
  ASSERT_NE(m, nullptr);
  Computation* main = m->FindComputation("main");
  Instruction* n = Find(*m, "main", "n");
  // The graph API refuses to remove an instruction that still has users...
  EXPECT_FALSE(main->RemoveInstruction(n));
  // ...so the broken state comes from an operand that was created but never added.
  Instruction* ghost = m->CreateInstruction(Opcode::kNegate, n->shape_ptr(), "ghost", main);
  ghost->AppendOperand(Find(*m, "main", "p"));
  Find(*m, "main", "e")->ReplaceOperand(0, ghost);
  EXPECT_EQ(Verify(*m),
            "computation 'main': instruction 'e': operand 0 'ghost' is not in this "
            "computation (it is not listed in any computation)");
}

TEST(VerifierTest, UserNotInComputation) {
  std::unique_ptr<Module> m = Parse(kTwoParams);
  ASSERT_NE(m, nullptr);
  Computation* main = m->FindComputation("main");
  Instruction* p0 = Find(*m, "main", "p0");
  // Created with operands but never added to the computation's list: p0 lists a user that the
  // computation does not have.
  Instruction* ghost = m->CreateInstruction(Opcode::kNegate, p0->shape_ptr(), "ghost", main);
  ghost->AppendOperand(p0);
  EXPECT_EQ(Verify(*m),
            "computation 'main': instruction 'p0': user 'ghost' is not in this "
            "computation (it is not listed in any computation)");
}

TEST(VerifierTest, ControlSuccessorNotInComputation) {
  std::unique_ptr<Module> m = Parse(kTwoParams);
  ASSERT_NE(m, nullptr);
  Computation* main = m->FindComputation("main");
  Instruction* p0 = Find(*m, "main", "p0");
  Instruction* ghost = m->CreateInstruction(Opcode::kNegate, p0->shape_ptr(), "ghost", main);
  ghost->AddControlPredecessor(p0);
  EXPECT_EQ(Verify(*m),
            "computation 'main': instruction 'p0': control successor 'ghost' is "
            "not in this computation (it is not listed in any computation)");
}

TEST(VerifierTest, ControlPredecessorFromAnotherComputation) {
  std::unique_ptr<Module> m = Parse(kSharedNames);
  ASSERT_NE(m, nullptr);
  Find(*m, "main", "c")->AddControlPredecessor(Find(*m, "f", "n"));
  EXPECT_EQ(Verify(*m),
            "computation 'main': instruction 'c': control predecessor 'n' is not "
            "in this computation (it belongs to computation 'f')");
}

TEST(VerifierTest, InstructionListedTwice) {
  std::unique_ptr<Module> m = Parse(kTwoParams);
  ASSERT_NE(m, nullptr);
  Computation* main = m->FindComputation("main");
  main->AddInstruction(Find(*m, "main", "s"));
  EXPECT_EQ(Verify(*m),
            "computation 'main': instruction 's': is listed twice (also in "
            "computation 'main')");
}

// --- cycles --------------------------------------------------------------------------------

constexpr std::string_view kChain = R"(
HloModule m
ENTRY main {
  p = f32[2] parameter(0)
  a = f32[2] negate(p)
  b = f32[2] exponential(a)
  c = f32[2] sqrt(b)
  ROOT r = f32[2] add(c, p)
}
)";

TEST(VerifierTest, CycleThroughOperands) {
  std::unique_ptr<Module> m = Parse(kChain);
  ASSERT_NE(m, nullptr);
  Find(*m, "main", "a")->ReplaceOperand(0, Find(*m, "main", "c"));
  EXPECT_EQ(Verify(*m),
            "computation 'main': instruction 'a': is part of a cycle: a -> c -> b "
            "-> a");
}

TEST(VerifierTest, CycleThroughControlPredecessor) {
  std::unique_ptr<Module> m = Parse(kChain);
  ASSERT_NE(m, nullptr);
  Find(*m, "main", "a")->AddControlPredecessor(Find(*m, "main", "c"));
  EXPECT_EQ(Verify(*m),
            "computation 'main': instruction 'a': is part of a cycle: a -> c -> b "
            "-> a");
}

TEST(VerifierTest, OutOfOrderButAcyclic) {
  // A list that is not in topological order is fine as long as there is no cycle.
  std::unique_ptr<Module> m = Parse(kChain);
  ASSERT_NE(m, nullptr);
  Computation* main = m->FindComputation("main");
  main->MoveBefore(Find(*m, "main", "c"), Find(*m, "main", "a"));
  EXPECT_EQ(Verify(*m), "OK");
}

TEST(VerifierTest, CallGraphCycle) {
  EXPECT_EQ(VerifyText(R"(
HloModule m
f {
  x = f32[2] parameter(0)
  ROOT c = f32[2] call(x), to_apply=g
}
g {
  y = f32[2] parameter(0)
  ROOT c = f32[2] call(y), to_apply=f
}
ENTRY main {
  p = f32[2] parameter(0)
  ROOT c = f32[2] call(p), to_apply=f
}
)"),
            "computation 'g': instruction 'c': call graph cycle: f -> g -> f");
}

// --- module level --------------------------------------------------------------------------

TEST(VerifierTest, ModuleWithoutEntry) {
  Module m("empty");
  EXPECT_EQ(Verify(m), "module 'empty': has no entry computation");
}

TEST(VerifierTest, CalledComputationOfAnotherModule) {
  std::unique_ptr<Module> m = Parse(kSharedNames);
  std::unique_ptr<Module> other = Parse(kSharedNames);
  ASSERT_NE(m, nullptr);
  ASSERT_NE(other, nullptr);
  InstructionBuilder(Find(*m, "main", "c")).AddCalledComputation(other->FindComputation("f"));
  EXPECT_EQ(Verify(*m),
            "computation 'main': instruction 'c': calls computation 'f', which is "
            "not in the module");
}

TEST(VerifierTest, ComputationAttributeOutOfRange) {
  std::unique_ptr<Module> m = Parse(kSharedNames);
  ASSERT_NE(m, nullptr);
  Attribute body;
  body.key = kAttrBody;
  body.first = 1;
  body.count = 1;
  body.is_computation_ref = true;
  InstructionBuilder(Find(*m, "main", "c")).AddAttribute(body);
  EXPECT_EQ(Verify(*m),
            "computation 'main': instruction 'c': attribute 'body' refers to called "
            "computations 1 to 1 but the instruction calls 1 computation");
}

TEST(VerifierTest, ShapeChecksCanBeTurnedOff) {
  constexpr std::string_view kBadTuple = R"(
HloModule m
ENTRY main {
  p = f32[2] parameter(0)
  ROOT t = (f32[3]) tuple(p)
}
)";
  VerifierOptions options;
  options.check_shapes = false;
  EXPECT_EQ(VerifyText(kBadTuple, options), "OK");
}

TEST(VerifierTest, ConstantLiteralWithUnbalancedBracketsFromCode) {
  // The parser balances a literal's brackets before the verifier sees it, but a literal set in
  // code is not parsed: the constant rule must still end cleanly on one that stops early.
  std::unique_ptr<Module> m = Parse(R"(
HloModule m
ENTRY main {
  a = f32[2] constant({1, 2})
  ROOT t = (f32[], s32[]) constant((1, 2))
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(Verify(*m), "OK");
  InstructionBuilder(Find(*m, "main", "a")).set_literal("{1, 2");
  EXPECT_EQ(Verify(*m),
            "computation 'main': instruction 'a': constant literal: unbalanced '{' in the "
            "literal of f32[2]");
  InstructionBuilder(Find(*m, "main", "a")).set_literal("{1, 2}");
  InstructionBuilder(Find(*m, "main", "t")).set_literal("(1, 2");
  EXPECT_EQ(Verify(*m),
            "computation 'main': instruction 't': constant literal: unterminated literal of "
            "tuple shape (f32[], s32[])");
  InstructionBuilder(Find(*m, "main", "t")).set_literal("(1");
  EXPECT_EQ(Verify(*m),
            "computation 'main': instruction 't': constant literal: unterminated literal of "
            "tuple shape (f32[], s32[])");
}

// The pad rule takes its result from shape inference, which does not say which dimension has
// no size; the message names the first, past an unbounded one and one that pads fine.
TEST(VerifierTest, PadNamesTheFirstDimensionWithoutASize) {
  EXPECT_EQ(VerifyText(R"(
HloModule m
ENTRY main {
  a = f32[?,4,2,3] parameter(0)
  v = f32[] parameter(1)
  ROOT c = f32[?,4,0,0] pad(a, v), padding=1_1x0_0x-2_-1x-3_-3
}
)"),
            "computation 'main': instruction 'c': pad padding=1_1x0_0x-2_-1x-3_-3 gives dimension "
            "2 of operand 'a' no size: negative interior padding, a negative result or an "
            "overflow");
}

}  // namespace
}  // namespace hloscope
