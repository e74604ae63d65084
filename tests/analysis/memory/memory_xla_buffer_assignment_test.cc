// XLA's buffer_assignment_test.cc (openxla/xla commit 001918b7024cf5f020051a9d25d2dd57a5896aaa):
// the tests whose assertions are about which values share one allocation because XLA colocates
// them (a call's or while's result with its callee's root, a parameter with its caller's
// operand, a bitcast with its operand, an in-place update with its operand). Those are the
// buffers of the alias analysis the memory model allocates from (analysis/alias.h): each test
// is named after the XLA test and checks the same pairs with AliasAnalysis::BuffersAt. The
// other tests of that file are listed in docs/xla_memory_tests.md.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/alias.h"
#include "gtest/gtest.h"
#include "hlo/computation.h"
#include "support/status_text.h"
#include "tests/test_util.h"

namespace hloscope {
namespace {

using testing::Find;
using testing::Parse;

class XlaBufferAssignment : public ::testing::Test {
 protected:
  void Analyze(std::string_view text) {
    module_ = Parse(text);
    ASSERT_NE(module_, nullptr);
    absl::StatusOr<std::unique_ptr<AliasAnalysis>> a = AliasAnalysis::Run(*module_, {});
    ASSERT_TRUE(a.ok()) << StatusText(a.status());
    alias_ = *std::move(a);
  }
  // The one buffer at (name, index); an instruction name is looked up in `comp` when given.
  BufferId At(std::string_view name, const ShapeIndex& index = {}, std::string_view comp = "") {
    const Instruction* in = comp.empty() ? Find(*module_, name) : Find(*module_, comp, name);
    EXPECT_NE(in, nullptr) << name;
    if (in == nullptr) return static_cast<BufferId>(-1);
    std::vector<BufferId> b = alias_->BuffersAt(*in, index);
    EXPECT_EQ(b.size(), 1u) << name << ShapeIndexToString(index);
    return b.empty() ? static_cast<BufferId>(-1) : b[0];
  }
  std::unique_ptr<Module> module_;
  std::unique_ptr<AliasAnalysis> alias_;
};

TEST_F(XlaBufferAssignment, TupleCallAsOutput) {
  Analyze(R"(
HloModule TupleCallAsOutput
sub {
  sub_param = f32[4] parameter(0)
  ROOT sub_tuple = (f32[4]) tuple(sub_param)
}
ENTRY e {
  param = f32[4] parameter(0)
  ROOT call = (f32[4]) call(param), to_apply=sub
})");
  EXPECT_EQ(At("call"), At("sub_tuple"));
  EXPECT_EQ(At("call", {0}), At("sub_param"));
  EXPECT_NE(At("param"), At("sub_tuple"));
  EXPECT_EQ(At("param"), At("sub_param"));
}

TEST_F(XlaBufferAssignment, TupleChainedCallAsOutput) {
  Analyze(R"(
HloModule TupleChainedCallAsOutput
d {
  ROOT d_param = (f32[4]) parameter(0)
}
c {
  c_param = (f32[4]) parameter(0)
  ROOT c_call = (f32[4]) call(c_param), to_apply=d
}
b {
  b_param = (f32[4]) parameter(0)
  ROOT b_call = (f32[4]) call(b_param), to_apply=c
}
ENTRY a {
  param = f32[4] parameter(0)
  a_tuple = (f32[4]) tuple(param)
  ROOT a_call = (f32[4]) call(a_tuple), to_apply=b
})");
  EXPECT_EQ(At("a_call"), At("b_call"));
  EXPECT_EQ(At("b_call"), At("c_call"));
  EXPECT_EQ(At("c_call"), At("d_param"));
  EXPECT_EQ(At("a_call", {0}), At("b_call", {0}));
  EXPECT_EQ(At("b_call", {0}), At("c_call", {0}));
  EXPECT_EQ(At("c_call", {0}), At("d_param", {0}));
  EXPECT_NE(At("param"), At("b_param"));
  EXPECT_NE(At("param"), At("c_param"));
  EXPECT_NE(At("param"), At("d_param"));
  EXPECT_EQ(At("b_param", {0}), At("c_param", {0}));
  EXPECT_EQ(At("c_param", {0}), At("d_param", {0}));
}

TEST_F(XlaBufferAssignment, BitcastAsOutput) {
  Analyze(R"(
HloModule BitcastAsOutput
ENTRY e {
  param = f32[42] parameter(0)
  ROOT bitcast = f32[42] bitcast(param)
})");
  EXPECT_EQ(At("param"), At("bitcast"));
  EXPECT_EQ(alias_->buffers().size(), 1u);  // XLA: one allocation
}

TEST_F(XlaBufferAssignment, CallParamCoAllocation) {
  Analyze(R"(
HloModule CallParamCoAllocation
Callee {
  param0 = (f32[100],(f32[200],f32[300])) parameter(0)
  param1 = s32[20] parameter(1)
  ROOT constant = f32[] constant(1)
}
ENTRY Main {
  entry_param0 = f32[100] parameter(0)
  entry_param1 = s32[20] parameter(1)
  custom_call = (f32[200],f32[300]) custom-call(), custom_call_target="call-target"
  call_op0 = (f32[100],(f32[200],f32[300])) tuple(entry_param0, custom_call)
  ROOT call_result = f32[] call(call_op0, entry_param1), to_apply=Callee
})");
  EXPECT_EQ(At("entry_param0"), At("param0", {0}));
  EXPECT_EQ(At("entry_param1"), At("param1"));
  EXPECT_EQ(At("custom_call"), At("param0", {1}));
  EXPECT_EQ(At("custom_call", {0}), At("param0", {1, 0}));
  EXPECT_EQ(At("custom_call", {1}), At("param0", {1, 1}));
}

TEST_F(XlaBufferAssignment, ExampleWhile) {
  Analyze(R"(
HloModule ExampleWhile
cond {
  const4 = s32[] constant(4)
  x = (s32[], f32[4]) parameter(0)
  index = s32[] get-tuple-element(x), index=0
  ROOT lt = pred[] compare(index, const4), direction=LT
}
body {
  const1 = s32[] constant(1)
  constv = f32[4] constant({1.1, 2.2, 3.3, 4.4})
  x = (s32[], f32[4]) parameter(0)
  indexc = s32[] get-tuple-element(x), index=0
  addc = s32[] add(indexc, const1)
  indexv = f32[4] get-tuple-element(x), index=1
  addv = f32[4] add(indexv, constv)
  ROOT tuple = (s32[], f32[4]) tuple(addc, addv)
}
ENTRY e {
  const3 = s32[] constant(0)
  const4 = f32[4] constant({1.1, 2.2, 3.3, 4.4})
  tuple = (s32[], f32[4]) tuple(const3, const4)
  ROOT while = (s32[], f32[4]) while(tuple), condition=cond, body=body
})");
  // Every element of the while's result shares its buffer with the body root's.
  for (const ShapeIndex& index : {ShapeIndex{}, ShapeIndex{0}, ShapeIndex{1}}) {
    EXPECT_EQ(At("while", index), At("tuple", index, "body")) << ShapeIndexToString(index);
  }
  // The condition's parameter shares them too.
  EXPECT_EQ(At("x", {1}, "cond"), At("while", {1}));
  EXPECT_EQ(At("x", {1}, "body"), At("while", {1}));
}

TEST_F(XlaBufferAssignment, ExampleConditional) {
  Analyze(R"(
HloModule ExampleConditional
Ceil {
  x = f32[] parameter(0)
  ROOT r = f32[] ceil(x)
}
Floor {
  x = f32[] parameter(0)
  ROOT r = f32[] floor(x)
}
ENTRY e {
  pred = pred[] constant(false)
  const1 = f32[] constant(56.4)
  const2 = f32[] constant(12.4)
  ROOT conditional = f32[] conditional(pred, const1, const2), true_computation=Ceil, false_computation=Floor
})");
  EXPECT_EQ(At("conditional"), At("r", {}, "Ceil"));
  EXPECT_EQ(At("conditional"), At("r", {}, "Floor"));
}

TEST_F(XlaBufferAssignment, InPlaceBuffer) {
  Analyze(R"(
HloModule Module
ENTRY main {
  state = (s32[], f32[1280,1,128]{2,1,0}) parameter(0)
  constant.1 = f32[] constant(0)
  broadcast.6 = f32[128,1,128]{2,1,0} broadcast(constant.1), dimensions={}
  get-tuple-element.4 = f32[1280,1,128]{2,1,0} get-tuple-element(state), index=1
  get-tuple-element.3 = s32[] get-tuple-element(state), index=0
  constant.2 = s32[] constant(128)
  add.5 = s32[] add(get-tuple-element.3, constant.2)
  constant.3 = s32[] constant(0)
  dynamic-update-slice.5 = f32[1280,1,128]{2,1,0} dynamic-update-slice(get-tuple-element.4, broadcast.6, constant.3, constant.3, constant.3)
  dynamic-update-slice.9 = f32[1280,1,128]{2,1,0} dynamic-update-slice(dynamic-update-slice.5, broadcast.6, constant.3, constant.3, constant.3)
  ROOT tuple.85 = (s32[], f32[1280,1,128]{2,1,0}) tuple(add.5, dynamic-update-slice.9)
})");
  EXPECT_EQ(At("get-tuple-element.4"), At("dynamic-update-slice.5"));
  EXPECT_EQ(At("get-tuple-element.4"), At("dynamic-update-slice.9"));
}

TEST_F(XlaBufferAssignment, AsyncCall) {
  Analyze(R"(
HloModule AsyncCall, is_scheduled=true
called_computation {
  param_0 = f32[4096]{0} parameter(0)
  param_1 = f32[4096]{0} parameter(1)
  negate_0 = f32[4096]{0} negate(param_0)
  negate_1 = f32[4096]{0} negate(param_1)
  negate_2 = f32[4096]{0} negate(negate_1)
  negate_3 = f32[4096]{0} negate(negate_2)
  ROOT result.1 = f32[4096]{0} add(negate_0, negate_3)
}
ENTRY main {
  a = f32[4096]{0} parameter(0)
  b = f32[4096]{0} parameter(1)
  async-start = ((f32[4096]{0}, f32[4096]{0}), f32[4096]{0}, u32[]) call-start(a, b), to_apply=called_computation
  negate_4 = f32[4096]{0} negate(a)
  negate_5 = f32[4096]{0} negate(b)
  negate_6 = f32[4096]{0} negate(negate_5)
  negate_7 = f32[4096]{0} negate(negate_6)
  add_0 = f32[4096]{0} add(negate_4, negate_7)
  async-done = f32[4096]{0} call-done(async-start), to_apply=called_computation
  ROOT add_1 = f32[4096]{0} add(add_0, async-done)
})");
  EXPECT_EQ(At("param_0"), At("a"));
  EXPECT_EQ(At("param_1"), At("b"));
  EXPECT_EQ(At("result.1"), At("async-done"));
}

constexpr std::string_view kColocatedWithEntryParameter = R"(
HloModule test_module
cond.v0 {
  param = s32[] parameter(0)
  ROOT constant = pred[] constant(true)
}
cond.v1 {
  param.0 = s32[] parameter(0)
  ROOT constant.0 = pred[] constant(true)
}
body.v0 {
  ROOT param.1 = s32[] parameter(0)
}
body.v1 {
  param.2 = s32[] parameter(0)
  ROOT add = s32[] add(param.2, param.2)
}
ENTRY test_module {
  INIT
  while.0 = s32[] while(INITNAME), condition=cond.v0, body=body.v0
  mul = s32[] multiply(while.0, while.0)
  while.1 = s32[] while(mul), condition=cond.v1, body=body.v1
  ROOT bcast = s32[1024,1024]{1,0} broadcast(while.1), dimensions={}
})";

std::string WithInit(std::string_view init, std::string_view name) {
  std::string text(kColocatedWithEntryParameter);
  text.replace(text.find("INITNAME"), 8, name);
  text.replace(text.find("INIT"), 4, init);
  return text;
}

TEST_F(XlaBufferAssignment, ColocatedBufferWithEntryParameter) {
  Analyze(WithInit("param.3 = s32[] parameter(0)", "param.3"));
  EXPECT_EQ(At("param.3"), At("while.0"));
  EXPECT_NE(At("param.3"), At("while.1"));
}

TEST_F(XlaBufferAssignment, ColocatedBufferWithConstant) {
  Analyze(WithInit("constant.42 = s32[] constant(42)", "constant.42"));
  EXPECT_EQ(At("constant.42"), At("while.0"));
  EXPECT_NE(At("constant.42"), At("while.1"));
}

TEST_F(XlaBufferAssignment, ColocatedBuffers) {
  Analyze(R"(
HloModule ColocatedBuffers
cond {
  const4 = s32[] constant(4)
  x = s32[] parameter(0)
  ROOT lt = pred[] compare(x, const4), direction=LT
}
body {
  const9 = s32[] constant(9)
  x = s32[] parameter(0)
  ROOT add = s32[] add(x, const9)
}
cond.1 {
  const4 = s32[] constant(4)
  x = s32[] parameter(0)
  ROOT lt = pred[] compare(x, const4), direction=LT
}
body.1 {
  const9 = s32[] constant(9)
  x = s32[] parameter(0)
  ROOT add = s32[] add(x, const9)
}
cond.2 {
  const4 = s32[] constant(4)
  x = s32[] parameter(0)
  ROOT lt = pred[] compare(x, const4), direction=LT
}
body.2 {
  const9 = s32[] constant(9)
  x = s32[] parameter(0)
  ROOT add = s32[] add(x, const9)
}
ENTRY entry {
  token = token[] after-all()
  infeed = (s32[], token[]) infeed(token)
  infeed_data = s32[] get-tuple-element(infeed), index=0
  while0 = s32[] while(infeed_data), condition=cond, body=body
  while1 = s32[] while(while0), condition=cond.1, body=body.1
  zero = s32[] constant(0)
  add = s32[] add(zero, zero)
  while2 = s32[] while(add), condition=cond.2, body=body.2
  ROOT tuple = (s32[], s32[]) tuple(while2, while1)
})");
  EXPECT_NE(At("tuple", {0}), At("tuple", {1}));
  EXPECT_EQ(At("tuple", {1}), At("while0"));
  EXPECT_EQ(At("tuple", {1}), At("while1"));
  EXPECT_EQ(At("tuple", {0}), At("while2"));
}

TEST_F(XlaBufferAssignment, WhileWithDynamicUpdateSliceShare) {
  Analyze(R"(
HloModule test
while_body {
  state = (s32[], f32[1280,1,128]{2,1,0}) parameter(0)
  constant.1 = f32[] constant(0)
  broadcast.6 = f32[128,1,128]{2,1,0} broadcast(constant.1), dimensions={}
  get-tuple-element.4 = f32[1280,1,128]{2,1,0} get-tuple-element(state), index=1
  get-tuple-element.3 = s32[] get-tuple-element(state), index=0
  constant.2 = s32[] constant(128)
  add.5 = s32[] add(get-tuple-element.3, constant.2)
  constant.3 = s32[] constant(0)
  dynamic-update-slice.5 = f32[1280,1,128]{2,1,0} dynamic-update-slice(get-tuple-element.4, broadcast.6, constant.3, constant.3, constant.3)
  dynamic-update-slice.9 = f32[1280,1,128]{2,1,0} dynamic-update-slice(dynamic-update-slice.5, broadcast.6, constant.3, constant.3, constant.3)
  ROOT tuple.85 = (s32[], f32[1280,1,128]{2,1,0}) tuple(add.5, dynamic-update-slice.9)
}
while_condition {
  state = (s32[], f32[1280,1,128]{2,1,0}) parameter(0)
  get-tuple-element = s32[] get-tuple-element(state), index=0
  get-tuple-element.1 = s32[] constant(3)
  ROOT less-than.339.338 = pred[] compare(get-tuple-element, get-tuple-element.1), direction=LT
}
ENTRY entry_computation {
  constant.7 = s32[] constant(0)
  copy.1 = s32[] copy(constant.7)
  constant.6 = f32[] constant(0)
  broadcast.6 = f32[1280,1,128]{2,1,0} broadcast(constant.6), dimensions={}
  tuple.1 = (s32[], f32[1280,1,128]{2,1,0}) tuple(copy.1, broadcast.6)
  while.0 = (s32[], f32[1280,1,128]{2,1,0}) while(tuple.1), condition=while_condition, body=while_body
  ROOT get-tuple-element.2 = s32[] get-tuple-element(while.0), index=0
})");
  EXPECT_EQ(At("dynamic-update-slice.9"), At("dynamic-update-slice.5"));
}

TEST_F(XlaBufferAssignment, CustomCallAliasedBuffer) {
  Analyze(R"(
HloModule xla_computation_f
ENTRY xla_computation_f {
  parameter.1 = f32[2,3,4,5] parameter(0)
  parameter.2 = f32[2,3,4,5] parameter(1)
  add = f32[2,3,4,5] add(parameter.1, parameter.2)
  ROOT custom-call = f32[2,3,4,5] custom-call(add, parameter.2), custom_call_target="dm_softmax", operand_layout_constraints={f32[2,3,4,5], f32[2,3,4,5]}, output_to_operand_aliasing={{}: (0, {})}
})");
  EXPECT_EQ(At("custom-call"), At("add"));
}

}  // namespace
}  // namespace hloscope
