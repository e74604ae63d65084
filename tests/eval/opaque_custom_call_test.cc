// Opaque custom-calls (eval/opaque_custom_call.h): the hash of the call (target and defining
// attributes, not the name or metadata), of the operands' logical values (not their layout),
// the side-effect counter, the refusal and its lifting option, and RunnableCustomCall's answer
// for known, dynamic-shape, buffer and unknown targets; calls on buffers b(T) (the array a
// buffer leaf holds, nested buffer operands, unwritten buffers).
#include "eval/opaque_custom_call.h"

#include "eval/custom_calls.h"
#include "gtest/gtest.h"
#include "hlo/verifier.h"
#include "support/option_error.h"
#include "support/status_text.h"
#include "tests/eval/eval_test_util.h"

namespace hloscope::eval {
namespace {

// Calls 0..4: the same call renamed and with metadata (1), another backend_config (2), another
// target (3), with side effects (4).
constexpr std::string_view kCalls = R"(HloModule m
ENTRY e {
  p = f32[2,3]{1,0} parameter(0)
  c0 = f32[4] custom-call(p), custom_call_target="foo", backend_config="a"
  renamed = f32[4] custom-call(p), custom_call_target="foo", backend_config="a", metadata={op_name="x"}
  c2 = f32[4] custom-call(p), custom_call_target="foo", backend_config="b"
  c3 = f32[4] custom-call(p), custom_call_target="bar", backend_config="a"
  c4 = f32[4] custom-call(p), custom_call_target="foo", backend_config="a", custom_call_has_side_effect=true
  ROOT t = (f32[4], f32[4], f32[4], f32[4], f32[4]) tuple(c0, renamed, c2, c3, c4)
}
)";

const Instruction& Operand(const Module& m, int64_t i) { return *m.entry()->root()->operand(i); }

Literal Array(std::string_view shape_text, std::string_view values) {
  std::unique_ptr<Module> m = testing::Parse(std::string("HloModule m\nENTRY e {\n  ROOT p = ") +
                                             std::string(shape_text) + " parameter(0)\n}\n");
  EXPECT_NE(m, nullptr);
  absl::StatusOr<Literal> lit = ParseLiteral(values, m->entry()->root()->shape());
  EXPECT_TRUE(lit.ok()) << StatusText(lit.status());
  return *std::move(lit);
}

TEST(EvalOpaqueCustomCallTest, KeyIgnoresNameAndMetadataButNotConfigOrTarget) {
  std::unique_ptr<Module> m = testing::Parse(kCalls);
  ASSERT_NE(m, nullptr);
  const uint64_t key = OpaqueCallKey(Operand(*m, 0));
  EXPECT_EQ(OpaqueCallKey(Operand(*m, 1)), key);
  EXPECT_NE(OpaqueCallKey(Operand(*m, 2)), key);
  EXPECT_NE(OpaqueCallKey(Operand(*m, 3)), key);
  EXPECT_NE(OpaqueCallKey(Operand(*m, 4)), key);
}

TEST(EvalOpaqueCustomCallTest, HashIsOfLogicalValuesNotLayout) {
  const Literal row_major = Array("f32[2,3]{1,0}", "{{1, 2, 3}, {4, 5, 6}}");
  const Literal column_major = Array("f32[2,3]{0,1}", "{{1, 2, 3}, {4, 5, 6}}");
  // The bytes differ (physical order), the logical values do not.
  ASSERT_NE(std::vector<uint8_t>(row_major.data().begin(), row_major.data().end()),
            std::vector<uint8_t>(column_major.data().begin(), column_major.data().end()));
  EXPECT_EQ(HashLogicalContents(row_major), HashLogicalContents(column_major));
  // One element changed, another element type, another shape of the same bytes: other hashes.
  EXPECT_NE(HashLogicalContents(Array("f32[2,3]", "{{1, 2, 3}, {4, 5, 7}}")),
            HashLogicalContents(row_major));
  EXPECT_NE(HashLogicalContents(Array("s32[2,3]", "{{1, 2, 3}, {4, 5, 6}}")),
            HashLogicalContents(row_major));
  EXPECT_NE(HashLogicalContents(Array("f32[3,2]", "{{1, 2}, {3, 4}, {5, 6}}")),
            HashLogicalContents(row_major));
}

TEST(EvalOpaqueCustomCallTest, TokensAddNothing) {
  Shape token;
  token.element_type = PrimitiveType::kToken;
  // Nothing is mixed in: the hash stays at its start, 0.
  EXPECT_EQ(HashLogicalContents(Literal::Zeros(token)), 0u);
  EXPECT_NE(HashLogicalContents(Array("s32[2]", "{1, 2}")), 0u);
}

TEST(EvalOpaqueCustomCallTest, ResultsFollowKeyOperandsAndSideEffectCount) {
  std::unique_ptr<Module> m = testing::Parse(kCalls);
  ASSERT_NE(m, nullptr);
  std::vector<Literal> operands;
  operands.push_back(Array("f32[2,3]", "{{1, 2, 3}, {4, 5, 6}}"));
  const Shape& shape = Operand(*m, 0).shape();
  const OpaqueCallResult r0 = EvalOpaqueCustomCall(Operand(*m, 0), operands, shape, 0);
  // Without side effects the count is ignored; the renamed call gives the same.
  EXPECT_EQ(
      FirstDifference(r0.result, EvalOpaqueCustomCall(Operand(*m, 0), operands, shape, 7).result),
      std::nullopt);
  EXPECT_EQ(
      FirstDifference(r0.result, EvalOpaqueCustomCall(Operand(*m, 1), operands, shape, 0).result),
      std::nullopt);
  EXPECT_NE(
      FirstDifference(r0.result, EvalOpaqueCustomCall(Operand(*m, 2), operands, shape, 0).result),
      std::nullopt);
  // With side effects each call of the run gets its own values; the logged hash is of the call
  // and its operands only.
  ASSERT_TRUE(OpaqueCallHasSideEffect(Operand(*m, 4)));
  EXPECT_FALSE(OpaqueCallHasSideEffect(Operand(*m, 0)));
  const OpaqueCallResult first = EvalOpaqueCustomCall(Operand(*m, 4), operands, shape, 0);
  const OpaqueCallResult second = EvalOpaqueCustomCall(Operand(*m, 4), operands, shape, 1);
  EXPECT_NE(FirstDifference(first.result, second.result), std::nullopt);
  EXPECT_EQ(first.operands_hash, second.operands_hash);
  // Another operand value: another result.
  std::vector<Literal> changed;
  changed.push_back(Array("f32[2,3]", "{{1, 2, 3}, {4, 5, 7}}"));
  const OpaqueCallResult r_changed = EvalOpaqueCustomCall(Operand(*m, 0), changed, shape, 0);
  EXPECT_NE(FirstDifference(r0.result, r_changed.result), std::nullopt);
  EXPECT_NE(r0.operands_hash, r_changed.operands_hash);
  // Random-argument values: multiples of 1/8 in [-2, 2), never NaN.
  for (int64_t i = 0; i < 4; ++i) {
    const double v = r0.result.GetLinear(i);
    EXPECT_GE(v, -2.0);
    EXPECT_LT(v, 2.0);
    EXPECT_EQ(v * 8, static_cast<double>(static_cast<int64_t>(v * 8)));
  }
}

TEST(EvalOpaqueCustomCallTest, RefusedByDefaultNamingTheOption) {
  std::unique_ptr<Module> m = testing::Parse(kCalls);
  ASSERT_NE(m, nullptr);
  absl::Status s = CheckRunnable(*m, EvalOptions());
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_EQ(LiftingOption(s), "custom_calls");
  EXPECT_EQ(StatusText(s),
            "the interpreter does not support custom-call target 'foo' (instruction %c0)");
  EvalOptions opaque;
  opaque.custom_calls = CustomCalls::kOpaque;
  EXPECT_TRUE(CheckRunnable(*m, opaque).ok());
}

TEST(EvalOpaqueCustomCallTest,
     RunnableCustomCallKeepsKnownDynamicAndBufferOpsAndRunsUnknownBufferCalls) {
  std::unique_ptr<Module> m = testing::Parse(R"(HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  sharding = f32[4] custom-call(p), custom_call_target="Sharding"
  padded = (f32[4], s32[]) custom-call(p), custom_call_target="PadToStatic"
  pin = b(f32[4]) custom-call(p), custom_call_target="Pin", output_to_operand_aliasing={{}: (0, {})}
  unknown_buffer = b(f32[4]) custom-call(pin), custom_call_target="foo", output_to_operand_aliasing={{}: (0, {})}
  unpin = f32[4] custom-call(unknown_buffer), custom_call_target="Unpin", output_to_operand_aliasing={{}: (0, {})}
  unknown = f32[4] custom-call(p), custom_call_target="foo"
  ROOT t = (f32[4], (f32[4], s32[]), f32[4], f32[4]) tuple(sharding, padded, unpin, unknown)
}
)");
  ASSERT_NE(m, nullptr);
  EvalOptions refuse;
  EvalOptions opaque;
  opaque.custom_calls = CustomCalls::kOpaque;
  auto named = [&](std::string_view name) -> const Instruction& {
    for (const Instruction* i : m->entry()->instructions()) {
      if (i->name() == name) return *i;
    }
    ADD_FAILURE() << "no instruction " << name;
    return *m->entry()->root();
  };
  for (const EvalOptions* options : {&refuse, &opaque}) {
    EXPECT_EQ(RunnableCustomCall(named("sharding"), *options), CustomCallRun::kKnown);
    EXPECT_EQ(RunnableCustomCall(named("padded"), *options), CustomCallRun::kKnown);
    EXPECT_EQ(RunnableCustomCall(named("pin"), *options), CustomCallRun::kKnown);
    EXPECT_EQ(RunnableCustomCall(named("unpin"), *options), CustomCallRun::kKnown);
  }
  // An unknown target on buffers b(T) runs opaque too (opaque_buffer_calls.test).
  for (std::string_view name : {"unknown", "unknown_buffer"}) {
    EXPECT_EQ(RunnableCustomCall(named(name), refuse), CustomCallRun::kRefused) << name;
    EXPECT_EQ(RunnableCustomCall(named(name), opaque), CustomCallRun::kOpaque) << name;
  }
}

// Buffers b(T): a buffer leaf of the result holds the array an array leaf of T at the same
// index would get, so a call's values do not depend on whether T is pinned.
TEST(EvalOpaqueCustomCallTest, BufferResultHoldsTheArrayAnArrayResultGets) {
  std::unique_ptr<Module> m = testing::Parse(R"(HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  pin = b(f32[4]) custom-call(p), custom_call_target="Pin", output_to_operand_aliasing={{}: (0, {})}
  on_buffer = (b(f32[4]), s32[2]) custom-call(pin), custom_call_target="foo", output_to_operand_aliasing={{0}: (0, {})}
  on_array = (f32[4], s32[2]) custom-call(p), custom_call_target="foo", output_to_operand_aliasing={{0}: (0, {})}
  b = b(f32[4]) get-tuple-element(on_buffer), index=0
  v = f32[4] custom-call(b), custom_call_target="Unpin", output_to_operand_aliasing={{}: (0, {})}
  ROOT t = (f32[4], (f32[4], s32[2])) tuple(v, on_array)
}
)");
  ASSERT_NE(m, nullptr);
  const Instruction* on_buffer = m->entry()->root()->operand(0)->operand(0)->operand(0);
  const Instruction& on_array = *m->entry()->root()->operand(1);
  ASSERT_EQ(on_buffer->name(), "on_buffer");
  std::vector<Literal> operands;
  operands.push_back(Array("f32[4]", "{1, 2, 3, 4}"));
  const OpaqueCallResult with_buffer =
      EvalOpaqueCustomCall(*on_buffer, operands, on_buffer->shape(), 0);
  const OpaqueCallResult with_array = EvalOpaqueCustomCall(on_array, operands, on_array.shape(), 0);
  ASSERT_TRUE(with_buffer.result.is_tuple());
  ASSERT_TRUE(with_buffer.result.elements()[0].is_array());
  EXPECT_EQ(FirstDifference(with_buffer.result, with_array.result), std::nullopt);
  EXPECT_EQ(with_buffer.operands_hash, with_array.operands_hash);
}

std::string RunOpaque(std::string_view text, const std::string& arg, EvalMode mode) {
  std::unique_ptr<Module> m = testing::Parse(text);
  if (m == nullptr) return "parse error";
  absl::Status v = VerifyModule(*m);
  EXPECT_TRUE(v.ok()) << StatusText(v);
  EvalOptions options;
  options.mode = mode;
  options.custom_calls = CustomCalls::kOpaque;
  absl::StatusOr<Literal> out = Evaluate(*m, testing::Args(*m, {arg}), options);
  if (!out.ok()) return "error: " + std::string(StatusText(out.status()));
  return FormatLiteral(*out, /*print_all=*/true);
}

// XLA's hlo_verifier_test VerifyBuffersNestedInOperands: the buffer reaches the call inside a
// tuple, beside the array it pins. The call reads both; by value and in buffer mode alike.
constexpr std::string_view kNestedOperand = R"(HloModule m
ENTRY e {
  p0 = f32[4] parameter(0)
  a = f32[4] negate(p0)
  b0 = b(f32[4]) custom-call(a), custom_call_target="Pin", output_to_operand_aliasing={{}:(0, {})}
  tuple = (b(f32[4]), f32[4]) tuple(b0, p0)
  b1 = b(f32[4]) custom-call(tuple), custom_call_target="foo", output_to_operand_aliasing={{}: (0, {0})}
  ROOT v0 = f32[4] custom-call(b1), custom_call_target="Unpin", output_to_operand_aliasing={{}:(0, {})}
}
)";

TEST(EvalOpaqueCustomCallTest, BufferInsideATupleOperandIsReadAndUpdated) {
  const std::string value = RunOpaque(kNestedOperand, "{1, 2, 3, 4}", EvalMode::kValue);
  EXPECT_EQ(value.rfind("f32[4] {", 0), 0u) << value;
  EXPECT_EQ(RunOpaque(kNestedOperand, "{1, 2, 3, 4}", EvalMode::kBuffer), value);
  EXPECT_EQ(RunOpaque(kNestedOperand, "{1, 2, 3, 4}", EvalMode::kValue), value);
  // The pinned array's contents reach the call: another input, another result.
  EXPECT_NE(RunOpaque(kNestedOperand, "{1, 2, 3, 5}", EvalMode::kValue), value);
}

// A buffer bound at the async-start of a late-bound chain (hlo/async_chain.h), an array bound by
// the update. The dataflow rule of the update walked into b(T) as if its array were an element
// {0}, so buffer mode refused the module ("index {0,0,0} ... does not exist") that value mode
// ran; XLA's b(T) is one leaf (found writing seeds for tests/fuzz/eval_fuzzer).
TEST(EvalOpaqueCustomCallTest, BufferBoundInALateBoundAsyncChainRunsInBothModes) {
  constexpr std::string_view kChain = R"(HloModule m
wrapped {
  pa = b(f32[3]) parameter(0)
  x = f32[3] parameter(1)
  ROOT va = b(f32[3]) custom-call(pa, x), custom_call_target="update", output_to_operand_aliasing={{}: (0, {})}
}
ENTRY e {
  p = f32[3] parameter(0)
  b = b(f32[3]) custom-call(p), custom_call_target="Pin", output_to_operand_aliasing={{}: (0, {})}
  s = ((b(f32[3])), b(f32[3]), s32[]) async-start(b), calls=wrapped
  u = ((b(f32[3]), f32[3]), b(f32[3]), s32[]) async-update(s, p)
  d = b(f32[3]) async-done(u)
  ROOT r = f32[3] custom-call(d), custom_call_target="Unpin", output_to_operand_aliasing={{}: (0, {})}
}
)";
  const std::string value = RunOpaque(kChain, "{1, 2, 3}", EvalMode::kValue);
  EXPECT_EQ(value.rfind("f32[3] {", 0), 0u) << value;
  EXPECT_EQ(RunOpaque(kChain, "{1, 2, 3}", EvalMode::kBuffer), value);
}

TEST(EvalOpaqueCustomCallTest, UnwrittenBufferInsideATupleOperandIsRefused) {
  const std::string got = RunOpaque(R"(HloModule m
ENTRY e {
  p0 = f32[4] parameter(0)
  c = b(f32[4]) custom-call(), custom_call_target="CreateBuffer"
  tuple = (b(f32[4]), f32[4]) tuple(c, p0)
  b1 = b(f32[4]) custom-call(tuple), custom_call_target="foo", output_to_operand_aliasing={{}: (0, {0})}
  ROOT v0 = f32[4] custom-call(b1), custom_call_target="Unpin", output_to_operand_aliasing={{}:(0, {})}
}
)",
                                    "{1, 2, 3, 4}", EvalMode::kValue);
  EXPECT_EQ(got,
            "error: cannot run %b1: it reads buffer contents that nothing wrote (a CreateBuffer "
            "buffer starts uninitialized: a device would read whatever its storage held)");
}

}  // namespace
}  // namespace hloscope::eval
