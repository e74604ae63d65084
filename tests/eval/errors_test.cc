// Error paths of Evaluate: unsupported opcodes and types, size limit, arguments, bad attributes.
#include "gtest/gtest.h"
#include "support/option_error.h"
#include "support/status_text.h"
#include "support/str_util.h"
#include "tests/eval/eval_test_util.h"

namespace hloscope::eval {
namespace {

using testing::RunText;

TEST(EvalErrorsTest, UnsupportedOpcodeHasTheExactMessage) {
  constexpr std::string_view text = R"(
HloModule m
ENTRY e {
  a = f32[4,4] parameter(0)
  tok = token[] after-all()
  s = (f32[4,4], token[]) infeed(tok)
  ROOT d = f32[4,4] get-tuple-element(s), index=0
}
)";
  std::unique_ptr<Module> m = testing::Parse(text);
  ASSERT_NE(m, nullptr);
  absl::StatusOr<Literal> out = Evaluate(*m, RandomArguments(*m, 1), {});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_EQ(StatusText(out.status()),
            "the interpreter does not support opcode 'infeed' (instruction %s)");
  EXPECT_FALSE(IsSupportedOpcode(Opcode::kInfeed));
  EXPECT_TRUE(IsSupportedOpcode(Opcode::kDynamicUpdateSlice));
}

TEST(EvalErrorsTest, UnsupportedOpcodeInsideAFusionIsFoundBeforeRunning) {
  EXPECT_EQ(RunText(R"(
HloModule m
fused {
  a = f32[4] parameter(0)
  tok = token[] after-all()
  s = (f32[4], token[]) infeed(tok)
  ROOT d = f32[4] get-tuple-element(s), index=0
}
ENTRY e {
  a = f32[4] parameter(0)
  ROOT f = f32[4] fusion(a), kind=kLoop, calls=fused
}
)",
                    {"{1, 2, 3, 4}"}),
            "error: the interpreter does not support opcode 'infeed' (instruction %s)");
}

TEST(EvalErrorsTest, RngGetAndUpdateStateOfAnotherShapeIsRefused) {
  // The verifier refuses it too; a library caller may not have verified the module.
  std::unique_ptr<Module> m = testing::Parse(
      "HloModule m\nENTRY e {\n  ROOT s = u32[4] rng-get-and-update-state(), delta=1\n}\n");
  ASSERT_NE(m, nullptr);
  absl::StatusOr<Literal> out = Evaluate(*m, {}, {});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(StatusText(out.status()),
            "cannot run %s: rng-get-and-update-state gives u64[2] and needs an integer delta=");
}

TEST(EvalErrorsTest, UnsupportedElementType) {
  // Every numeric type runs (sub-byte, f8/f6/f4, complex); an opaque value has no contents.
  EXPECT_EQ(RunText("HloModule m\nENTRY e {\n  a = opaque[] parameter(0)\n  ROOT t = (opaque[]) "
                    "tuple(a)\n}\n"),
            "error: the interpreter does not support element type 'opaque' (instruction %a)");
}

TEST(EvalErrorsTest, MaxBytesRefusesLargeModules) {
  std::unique_ptr<Module> m = testing::Parse(
      "HloModule m\nENTRY e {\n  a = f32[1024] parameter(0)\n  ROOT n = f32[1024] negate(a)\n}\n");
  ASSERT_NE(m, nullptr);
  EvalOptions options;
  options.max_bytes = 8000;  // needs 2 * 4096
  absl::StatusOr<Literal> out = Evaluate(*m, RandomArguments(*m, 1), options);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kResourceExhausted);
  // The message names no flag; the option that would lift the limit is in the status (hlo-run
  // turns it into "(--max-bytes)").
  EXPECT_EQ(StatusText(out.status()),
            "the module needs about 8192 bytes to run, more than the limit of 8000 bytes");
  EXPECT_EQ(LiftingOption(out.status()), "max_bytes");
  options.max_bytes = 8192;
  EXPECT_TRUE(Evaluate(*m, RandomArguments(*m, 1), options).ok());
}

TEST(EvalErrorsTest, WrongArgumentCountOrShape) {
  std::unique_ptr<Module> m = testing::Parse(
      "HloModule m\nENTRY e {\n  a = f32[2] parameter(0)\n  ROOT n = f32[2] negate(a)\n}\n");
  ASSERT_NE(m, nullptr);
  absl::StatusOr<Literal> none = Evaluate(*m, {}, {});
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(StatusText(none.status()),
            "the entry computation takes 1 parameters but 0 arguments were given");
  std::unique_ptr<Module> other = testing::Parse(
      "HloModule m\nENTRY e {\n  a = f32[3] parameter(0)\n  ROOT n = f32[3] negate(a)\n}\n");
  absl::StatusOr<Literal> wrong = Evaluate(*m, RandomArguments(*other, 1), {});
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(StatusText(wrong.status()),
            "argument 0 has shape f32[3] but parameter %a has shape f32[2]");
}

TEST(EvalErrorsTest, BufferModeReportsAliasAnalysisFailure) {
  // A computation that is both a call's callee and a reducer: the dataflow analysis refuses
  // it, as XLA's does (computations called from several control-flow sites are accepted).
  std::unique_ptr<Module> m = testing::Parse(R"(
HloModule m
callee {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT z = f32[] add(x, y)
}
ENTRY e {
  p = f32[2] parameter(0)
  s = f32[] parameter(1)
  a = f32[] reduce(p, s), dimensions={0}, to_apply=callee
  b = f32[] call(a, s), to_apply=callee
  ROOT t = (f32[], f32[]) tuple(a, b)
}
)");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(Evaluate(*m, RandomArguments(*m, 1), {}).ok());
  absl::StatusOr<Literal> out = Evaluate(*m, RandomArguments(*m, 1), {.mode = EvalMode::kBuffer});
  ASSERT_FALSE(out.ok());
  EXPECT_TRUE(
      StatusText(out.status()).starts_with("buffer mode needs the alias analysis, which failed: "))
      << StatusText(out.status());
}

TEST(EvalErrorsTest, BadConstantTextNamesTheInstruction) {
  // The verifier's constant rule rejects this module first; the interpreter's own check is for
  // modules evaluated without verifying them, so this one is not verified.
  std::unique_ptr<Module> m =
      testing::Parse("HloModule m\nENTRY e {\n  ROOT c = s32[2] constant({1, 2, 3})\n}\n");
  ASSERT_NE(m, nullptr);
  EXPECT_FALSE(VerifyModule(*m).ok());
  absl::StatusOr<Literal> out = Evaluate(*m, {}, EvalOptions());
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(StatusText(out.status()),
            "constant %c: literal column 8: expected '}' : dimension 0 of s32[2] has 2 elements");
}

TEST(EvalErrorsTest, ElidedConstantIsRefused) {
  EXPECT_EQ(
      RunText("HloModule m\nENTRY e {\n  ROOT c = f32[300] constant({...})\n}\n"),
      "error: the interpreter cannot run constant %c: its contents were elided ({...}) when the "
      "module was dumped");
}

TEST(EvalErrorsTest, CheckRunnableRefusesBeforeArgumentsExist) {
  std::unique_ptr<Module> m = testing::Parse(
      "HloModule m\nENTRY e {\n  a = f32[1000000000] parameter(0)\n  ROOT n = f32[1000000000] "
      "negate(a)\n}\n");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(RequiredBytes(*m), 8000000000);
  absl::Status s = CheckRunnable(*m, {});
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(CheckRunnable(*m, {.max_bytes = 8000000000}).ok());
}

TEST(EvalErrorsTest, BitcastThatChangesTheSize) {
  // The verifier rejects this module; Evaluate must still refuse it rather than read past the end.
  std::unique_ptr<Module> m = testing::Parse(
      "HloModule m\nENTRY e {\n  a = f32[4] parameter(0)\n  ROOT b = f64[4] bitcast(a)\n}\n");
  ASSERT_NE(m, nullptr);
  absl::StatusOr<Literal> out = Evaluate(*m, RandomArguments(*m, 1), {});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(StatusText(out.status()), "bitcast %b grows the size from 16 to 32 bytes");
}

// The verifier rejects a group_sizes of the wrong shape (XLA's rule); unverified, the
// interpreter refuses it with the rule of the module's mode.
TEST(EvalErrorsTest, RaggedDotGroupSizesOfTheWrongShape) {
  std::unique_ptr<Module> m = testing::Parse(
      "HloModule m\nENTRY e {\n  l = f32[2,1,3] parameter(0)\n  r = f32[2,3,1] parameter(1)\n"
      "  s = s32[3,2] parameter(2)\n  ROOT d = f32[2,2,1,1] ragged-dot(l, r, s), "
      "lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, "
      "rhs_contracting_dims={1}, lhs_ragged_dims={2}\n}\n");
  ASSERT_NE(m, nullptr);
  EXPECT_FALSE(VerifyModule(*m).ok());
  absl::StatusOr<Literal> out = Evaluate(*m, RandomArguments(*m, 1), {});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(StatusText(out.status()),
            "cannot run %d: ragged-dot group_sizes s32[3,2] must be [G] or [the lhs batch "
            "dims..., the lhs contracting dims before the ragged one..., G]");
}

// A sparse convolution that XLA's MaterializeSparseOperand does not define is refused.
TEST(EvalErrorsTest, SparseConvolutionsXlaDoesNotDefine) {
  auto error = [](std::string_view config, std::string_view indices_type) {
    std::unique_ptr<Module> m = testing::Parse(
        StrCat("HloModule m\nENTRY e {\n  l = f32[1,4] constant({{1, 2, 3, 4}})\n"
               "  v = f32[1,1] constant({{10}})\n  i = ",
               indices_type, "[1,1] constant({{1}})\n  k = (f32[1,1], ", indices_type,
               "[1,1]) tuple(v, i)\n  ROOT c = f32[1,1] convolution(l, k), dim_labels=bf_io->bf, "
               "sparsity_config=",
               config, "\n}\n"));
    if (m == nullptr) return std::string("parse error");
    absl::StatusOr<Literal> out = Evaluate(*m, {}, {});
    return out.ok() ? std::string("ok") : std::string(StatusText(out.status()));
  };
  EXPECT_EQ(error("{rhs={sparsity=1x4 dimension=0 stride=1}}", "s32"), "ok");
  EXPECT_EQ(error("{rhs={sparsity=2x4 dimension=0 stride=1}}", "s32"),
            "cannot run %c: rhs sparsity: only 1:N sparsity is defined (XLA's evaluator)");
  EXPECT_EQ(error("{rhs={sparsity=1x4 dimension=0}}", "s32"),
            "cannot run %c: rhs sparsity: only stride=1 is defined (XLA's evaluator)");
  EXPECT_EQ(error("{rhs={sparsity=1x4 dimension=2 stride=1}}", "s32"),
            "cannot run %c: rhs sparsity: dimension=2 is not a dimension of f32[1,1]");
  EXPECT_EQ(error("{rhs={sparsity=1x4 dimension=0 stride=1}}", "f32"),
            "cannot run %c: rhs sparsity: the indices f32[1,1] must be integers of the values' "
            "dims f32[1,1]");
  EXPECT_EQ(error("{rhs={sparsity=1x0 dimension=0 stride=1}}", "s32"),
            "cannot run %c: rhs sparsity: the block size must be positive");
}

// XLA's evaluator lets a bitcast shrink and reads the operand's first bytes (HandleBitcast in
// xla/hlo/evaluator/hlo_evaluator.cc at openxla/xla 2c731115; XLA's memory-space-assignment
// tests bitcast u32[10] to u32[5]), in both of the interpreter's modes.
TEST(EvalErrorsTest, BitcastThatShrinksReadsTheFirstBytes) {
  std::unique_ptr<Module> m = testing::Parse(
      "HloModule m\nENTRY e {\n  a = s32[5] constant({1, 2, 3, 4, 5})\n  b = s32[2] bitcast(a)\n"
      "  ROOT n = s32[2] negate(b)\n}\n");
  ASSERT_NE(m, nullptr);
  for (bool defines : {false, true}) {
    for (EvalMode mode : {EvalMode::kValue, EvalMode::kBuffer}) {
      EvalOptions options;
      options.mode = mode;
      options.dataflow.bitcast_defines_value = defines;
      absl::StatusOr<Literal> out = Evaluate(*m, {}, options);
      ASSERT_TRUE(out.ok()) << StatusText(out.status());
      EXPECT_EQ(FormatLiteral(*out, false), "s32[2] {-1, -2}\n");
    }
  }
}

}  // namespace
}  // namespace hloscope::eval
