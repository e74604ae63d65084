// Inputs tests/fuzz/eval_fuzzer (scripts/fuzz --fuzzer=eval) found to crash the interpreter or
// trip a sanitizer, each kept as a regression test (issue 35: bad input gets a clear error, never
// a crash). Labelled robustness, so scripts/test runs them under ASan+UBSan as well: some of
// these failed only there (undefined behaviour that a plain build does not show).
#include <string>
#include <string_view>
#include <vector>

#include "gtest/gtest.h"
#include "support/status_text.h"
#include "tests/eval/eval_test_util.h"

namespace hloscope::eval {
namespace {

using testing::RunBoth;

// The verifier rejects `text` even with mixed precision allowed (these rules compare exact element
// types, as XLA's ShapesSame does), and its message contains `needle`.
void ExpectRejectedWithMixedPrecision(const char* text, std::string_view needle) {
  std::unique_ptr<Module> m = testing::Parse(text);
  ASSERT_NE(m, nullptr) << text;
  VerifierOptions options;
  options.allow_mixed_precision = true;
  absl::Status s = VerifyModule(*m, options);
  ASSERT_FALSE(s.ok()) << text;
  EXPECT_NE(StatusText(s).find(needle), std::string::npos) << StatusText(s);
}

// An empty array's byte vector may have a null data(): RandomLiteral and buffer mode's store of a
// result into its buffer called memcpy(null, null, 0), which UBSan reports (seeds
// testdata/tools/hlo_run/evaluator/concatenate_zero_element.hlo,
// pad_2d_integer_zero_dimension.hlo).
TEST(EvalFuzzRegressions, EmptyArraysAsRandomArgumentsAndInBuffers) {
  constexpr char kText[] = R"(
HloModule empty
ENTRY e {
  p = f32[0,3] parameter(0)
  n = f32[0,3] negate(p)
  one = f32[] constant(1)
  b = f32[2,3] broadcast(one), dimensions={}
  ROOT c = f32[2,3] concatenate(n, b), dimensions={0}
}
)";
  std::unique_ptr<Module> m = testing::Parse(kText);
  ASSERT_NE(m, nullptr);
  std::vector<Literal> args = RandomArguments(*m, 1);
  ASSERT_EQ(args.size(), 1u);
  EXPECT_EQ(args[0].element_count(), 0);
  std::vector<std::string> printed;
  for (EvalMode mode : {EvalMode::kValue, EvalMode::kBuffer}) {
    EvalOptions options;
    options.mode = mode;
    absl::StatusOr<Literal> out = Evaluate(*m, args, options);
    ASSERT_TRUE(out.ok()) << StatusText(out.status());
    printed.push_back(FormatLiteral(*out, /*print_all=*/true));
  }
  // The six ones of `b` (the empty operand adds no row), the same in both modes.
  ASSERT_EQ(printed.size(), 2u);
  EXPECT_EQ(printed[0], printed[1]);
  const size_t first = printed[0].find("1, 1, 1");
  ASSERT_NE(first, std::string::npos) << printed[0];
  EXPECT_NE(printed[0].find("1, 1, 1", first + 1), std::string::npos) << printed[0];
}

// map, reduce, reduce-window and scatter without their computation verified, and the
// interpreter then called a null one (found from a map whose `to_apply=` the fuzzer had cut).
// XLA's parser requires the attribute (to_apply for all four: xla/hlo/parser/hlo_parser.cc),
// so the verifier refuses the module now, naming the instruction.
TEST(EvalFuzzRegressions, AppliedComputationMissingIsAVerifierError) {
  struct Case {
    const char* text;
    const char* message;
  };
  const Case kCases[] = {
      {R"(HloModule m
ENTRY e {
  c = f32[3] constant({1, 2, 3})
  ROOT m = f32[3] map(c), dimensions={0}
})",
       "map has no to_apply computation"},
      {R"(HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[] reduce(p, z), dimensions={0}
})",
       "reduce has no to_apply computation"},
      {R"(HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[2] reduce-window(p, z), window={size=2 stride=2}
})",
       "reduce-window has no to_apply computation"},
      {R"(HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  i = s32[1,1] constant({{1}})
  u = f32[1] constant({5})
  ROOT s = f32[4] scatter(p, i, u), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1
})",
       "scatter has no"},
  };
  for (const Case& c : kCases) {
    std::unique_ptr<Module> m = testing::Parse(c.text);
    ASSERT_NE(m, nullptr) << c.text;
    absl::Status s = VerifyModule(*m);
    ASSERT_FALSE(s.ok()) << c.text;
    EXPECT_NE(StatusText(s).find(c.message), std::string::npos) << StatusText(s);
  }
}

// recv-done's data typed f32 for a recv of f16 (and send's likewise) verified under mixed
// precision, and the interpreter copied the recv's 4 bytes as 8 (ASan: heap-buffer-overflow).
// XLA's ShapeVerifier::CheckShape compares send, send-done, recv and recv-done with ShapesSame
// (xla/service/hlo_verifier.cc), so they are exact now whatever allow_mixed_precision says
// (tests/hlo/verifier_built_shapes_test.cc). From text, the parser now builds send's and
// recv-done's shapes from their operands as XLA's parser does (hlo/parser_derived_shapes.h): the
// written f32 is replaced by the f16 that moves, and the f32 reader of the recv-done is what the
// verifier rejects.
TEST(EvalFuzzRegressions, SendAndRecvDoneKeepTheirDataTypeExactly) {
  constexpr char kRecv[] = R"(HloModule m
ENTRY e {
  tok = token[] after-all()
  r = (f16[2], u32[], token[]) recv(tok), channel_id=1
  rd = (f32[2], token[]) recv-done(r), channel_id=1
  ROOT d = f32[2] get-tuple-element(rd), index=0
})";
  constexpr char kSend[] = R"(HloModule m
ENTRY e {
  tok = token[] after-all()
  x = f16[2] constant({1, 2})
  s = (f32[2], u32[], token[]) send(x, tok), channel_id=1
  ROOT sd = token[] send-done(s), channel_id=1
})";
  ExpectRejectedWithMixedPrecision(kRecv, "f16[2]");
  std::unique_ptr<Module> send = testing::Parse(kSend);
  ASSERT_NE(send, nullptr);
  const Instruction* s = nullptr;
  for (const Instruction* instr : send->entry()->instructions()) {
    if (instr->name() == "s") s = instr;
  }
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->shape().ToString(), "(f16[2], u32[], token[])");
  VerifierOptions options;
  options.allow_mixed_precision = true;
  EXPECT_TRUE(VerifyModule(*send, options).ok());
}

// reduce-window (and reduce) of an f64 input with an f32 init value and reducer, which mixed
// precision allows: the init value was read as the input's type, 8 bytes from a 4-byte scalar
// (ASan: heap-buffer-overflow in EvalReduceWindow). Each init value is read in its own type now.
constexpr char kMaxF32[] = R"(HloModule m
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
)";

TEST(EvalFuzzRegressions, ReduceWindowReadsItsInitValueInTheInitType) {
  EXPECT_EQ(RunBoth(std::string(kMaxF32) + R"(
ENTRY e {
  x = f64[4] parameter(0)
  init = f32[] constant(-1)
  ROOT r = f32[2] reduce-window(x, init), window={size=2 stride=2}, to_apply=max
}
)",
                    {"{1, -3, -5, -7}"}),
            "f32[2] {1, -1}");
}

TEST(EvalFuzzRegressions, ReduceReadsItsInitValueInTheInitType) {
  EXPECT_EQ(RunBoth(std::string(kMaxF32) + R"(
ENTRY e {
  x = f64[2,2] parameter(0)
  init = f32[] constant(-1)
  ROOT r = f32[2] reduce(x, init), dimensions={1}, to_apply=max
}
)",
                    {"{{1, -3}, {-5, -7}}"}),
            "f32[2] {1, -1}");
}

// copy, reshape and dynamic-update-slice of an empty array called memcpy(null, null, 0), which
// UBSan reports (found by the pipeline fuzzer: copy-insertion copies an f32[<=0] entry
// parameter returned at the root). Each runs, in both modes, to an empty result.
TEST(EvalFuzzRegressions, EmptyArraysCopiedReshapedAndUpdated) {
  EXPECT_EQ(RunBoth(R"(
HloModule m
ENTRY e {
  p = f32[<=0] parameter(0)
  ROOT c = f32[<=0] copy(p)
}
)",
                    {"{}"}),
            "f32[<=0](0) {}");
  EXPECT_EQ(RunBoth(R"(
HloModule m
ENTRY e {
  p = f32[0,3] parameter(0)
  ROOT r = f32[3,0] reshape(p)
}
)",
                    {"{}"}),
            "f32[3,0] {{}, {}, {}}");
  EXPECT_EQ(RunBoth(R"(
HloModule m
ENTRY e {
  p = f32[0] parameter(0)
  u = f32[0] parameter(1)
  i = s32[] constant(0)
  ROOT c = f32[0] dynamic-update-slice(p, u, i)
}
)",
                    {"{}", "{}"}),
            "f32[0] {}");
}

// set-dimension-size of an f64[4,4] typed f32[4,<=4] verifies under mixed precision; the
// interpreter relaid the f64 bytes into the f32 result (ASan: heap-buffer-overflow in Relayout;
// found by the pipeline fuzzer on an mhlo import test's module). XLA's HandleSetDimensionSize
// memcpy's the operand bytes unconverted, so hlo-run refuses it, as for dynamic-update-slice.
// Of one element type it still runs.
TEST(EvalFuzzRegressions, SetDimensionSizeOfAnotherElementTypeIsRefused) {
  constexpr char kText[] = R"(
HloModule m
ENTRY e {
  p = f64[4,4] parameter(0)
  n = s32[] parameter(1)
  ROOT s = f32[4,<=4] set-dimension-size(p, n), dimensions={1}
}
)";
  EXPECT_EQ(
      RunBoth(kText, {"{{1, 2, 3, 4}, {5, 6, 7, 8}, {9, 10, 11, 12}, {13, 14, 15, 16}}", "2"}),
      "error: cannot run %s: set-dimension-size moves f64 elements into a f32 result (mixed "
      "precision is not run: XLA's evaluator copies the bytes unconverted)");
  EXPECT_EQ(RunBoth(R"(
HloModule m
ENTRY e {
  p = f32[2,2] parameter(0)
  n = s32[] parameter(1)
  ROOT s = f32[2,<=2] set-dimension-size(p, n), dimensions={1}
}
)",
                    {"{{1, 2}, {3, 4}}", "1"}),
            "f32[2,<=2](2,1) {{1}, {3}}");
}

// copy-start of an f32 operand typed (f16, f32, u32[]) verified under mixed precision, and
// the interpreter relaid the f32 bytes into the f16 slot (ASan: heap-buffer-overflow in
// Relayout). XLA's ShapeVerifier::CheckShape compares copy-start and copy-done with ShapesSame.
TEST(EvalFuzzRegressions, CopyStartAndCopyDoneKeepTheOperandTypeExactly) {
  constexpr char kStart[] = R"(HloModule m
ENTRY e {
  p = f32[2,2] parameter(0)
  cs = (f16[2,2], f32[2,2], u32[]) copy-start(p)
  ROOT cd = f32[2,2] copy-done(cs)
})";
  constexpr char kDone[] = R"(HloModule m
ENTRY e {
  p = f32[2,2] parameter(0)
  cs = (f32[2,2], f32[2,2], u32[]) copy-start(p)
  ROOT cd = f16[2,2] copy-done(cs)
})";
  ExpectRejectedWithMixedPrecision(kStart, "copy-");
  ExpectRejectedWithMixedPrecision(kDone, "copy-");
}

// A negate-done typed f64 after an f32 negate-start verified under mixed precision, and the
// interpreter handed the 4-byte value on as 8 (ASan: heap-buffer-overflow). XLA's
// ShapeVerifier::HandleAsyncDone compares the done with the start's element 1 by ShapesSame.
TEST(EvalFuzzRegressions, AsyncDoneKeepsTheStartedResultTypeExactly) {
  ExpectRejectedWithMixedPrecision(R"(HloModule m
ENTRY e {
  init = f32[] constant(42)
  s = ((f32[]), f32[], u32[]) negate-start(init)
  u = ((f32[]), f32[], u32[]) negate-update(s)
  ROOT d = f64[] negate-done(u)
})",
                                   "negate-done shape f64[]");
}

// A block_scaled_dot custom-call declaring f32[2,3] for operands that give [1,3]: the dot
// kernel wrote 6 elements into the 3 its operands make (ASan: heap-buffer-overflow). A
// custom-call's declared result is not verified against the dot it computes, so the kernel
// checks the element count itself now and refuses.
TEST(EvalFuzzRegressions, DotComputedForACustomCallChecksTheDeclaredResultSize) {
  std::unique_ptr<Module> m = testing::Parse(R"(HloModule m
ENTRY e {
  lhs = f8e4m3fn[1,4] parameter(0)
  lhs_scale = f8e8m0fnu[1,2] parameter(1)
  rhs = f8e4m3fn[3,4] parameter(2)
  rhs_scale = f8e8m0fnu[3,2] parameter(3)
  ROOT d = f32[2,3] custom-call(lhs, rhs, lhs_scale, rhs_scale), custom_call_target="__op$block_scaled_dot"
})");
  ASSERT_NE(m, nullptr);
  ASSERT_TRUE(VerifyModule(*m).ok());
  std::vector<Literal> args = RandomArguments(*m, 1);
  for (EvalMode mode : {EvalMode::kValue, EvalMode::kBuffer}) {
    EvalOptions options;
    options.mode = mode;
    absl::StatusOr<Literal> out = Evaluate(*m, args, options);
    ASSERT_FALSE(out.ok());
    EXPECT_NE(StatusText(out.status()).find("f32[2,3] does not hold the 3 elements"),
              std::string::npos)
        << StatusText(out.status());
  }
}

// __cublas$lt$matmul$f8 with beta 1 (c third, scales after it) but only 4 operands: the
// b_scale was read from past the operand list (UBSan/absl: span index out of range).
TEST(EvalFuzzRegressions, CublasLtF8WithBetaNeedsTheScalesAfterC) {
  std::unique_ptr<Module> m = testing::Parse(R"(HloModule m
ENTRY e {
  a = f8e4m3fn[2,2] constant({{1, 2}, {3, 4}})
  b = f8e4m3fn[2,2] constant({{1, 1}, {1.5, 2}})
  a_scale = f32[] constant(2)
  b_scale = f32[] constant(3)
  g = (f32[2,2], s8[16]) custom-call(a, b, a_scale, b_scale), custom_call_target="__cublas$lt$matmul$f8", backend_config={"gemm_backend_config":{"alpha_real":0.5,"beta":1,"dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],"rhs_contracting_dimensions":["0"],"lhs_batch_dimensions":[],"rhs_batch_dimensions":[]}}}
  ROOT d = f32[2,2] get-tuple-element(g), index=0
})");
  ASSERT_NE(m, nullptr);
  ASSERT_TRUE(VerifyModule(*m).ok());
  absl::StatusOr<Literal> out = Evaluate(*m, {}, {});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(StatusText(out.status())
                .find("with beta not 0 it takes (a, b, c, a_scale, b_scale, ...), not 4"),
            std::string::npos)
      << StatusText(out.status());
}

// A dot-update typed f32 after an f16 dot-start verified under mixed precision, and the
// interpreter read the f16 value as f32 (ASan: heap-buffer-overflow). XLA's
// ShapeVerifier::HandleAsyncUpdate requires the update's shape to be its operand's (ShapesSame).
TEST(EvalFuzzRegressions, AsyncUpdateKeepsItsOperandTypeExactly) {
  ExpectRejectedWithMixedPrecision(R"(HloModule m
ENTRY e {
  p = f32[3,4] parameter(0)
  w = f32[4,2] parameter(1)
  s = ((f32[3,4], f32[4,2]), f16[3,2], u32[]) dot-start(p, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  u = ((f32[3,4], f32[4,2]), f32[3,2], u32[]) dot-update(s)
  ROOT d = f32[3,2] dot-done(u)
})",
                                   "dot-update");
}

// A collective-permute-done typed f16 after an f32 collective-permute-start verified (XLA's
// ShapeVerifier::CheckShape lets the float types differ under mixed precision, the default
// here), and the interpreter handed the start's tuple on as an f16 array (UBSan: member call on
// a null byte vector in ToLiteral; a segfault in hlo-run). All-reduce-done's start is the
// result itself: f64 after f32 would have read past its bytes. Now refused in both modes.
TEST(EvalFuzzRegressions, CollectiveDoneOfAnotherTypeThanItsStartIsRefused) {
  struct Case {
    const char* text;
    const char* message;
  };
  const Case kCases[] = {
      {R"(HloModule m
ENTRY e {
  input = f32[4] parameter(0)
  cp-start = (f32[4], f32[4]) collective-permute-start(input), source_target_pairs={{0,1}}
  ROOT cp-done = f16[4] collective-permute-done(cp-start)
})",
       "cannot run %cp-done: collective-permute-done shape f16[4] is not the shape of the result "
       "%cp-start gives ((f32[4], f32[4])); a -done converts no element type"},
      {R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  input = f32[4] parameter(0)
  ar-start = f32[4] all-reduce-start(input), to_apply=add
  ROOT ar-done = f64[4] all-reduce-done(ar-start)
})",
       "cannot run %ar-done: all-reduce-done shape f64[4] is not the shape of the result "
       "%ar-start gives (f32[4])"},
  };
  for (const Case& c : kCases) {
    std::unique_ptr<Module> m = testing::Parse(c.text);
    ASSERT_NE(m, nullptr) << c.text;
    ASSERT_TRUE(VerifyModule(*m).ok()) << c.text;
    std::vector<Literal> args = RandomArguments(*m, 1);
    for (EvalMode mode : {EvalMode::kValue, EvalMode::kBuffer}) {
      EvalOptions options;
      options.mode = mode;
      absl::StatusOr<Literal> out = Evaluate(*m, args, options);
      ASSERT_FALSE(out.ok()) << c.text;
      EXPECT_NE(StatusText(out.status()).find(c.message), std::string::npos)
          << StatusText(out.status());
    }
  }
}

// A dynamic-update-slice of an f64 update into a CreateBuffer b(f32[4]) verified (mixed
// precision), and buffer mode copied the 32 update bytes into the 16 of the buffer's array
// (ASan: heap-buffer-overflow in Relayout). A buffer is written in place, unconverted: refused.
TEST(EvalFuzzRegressions, BufferUpdateOfAnotherElementTypeIsRefused) {
  std::unique_ptr<Module> m = testing::Parse(R"(HloModule m
ENTRY main {
  x = f64[4] parameter(0)
  c = b(f32[4]) custom-call(), custom_call_target="CreateBuffer"
  zero = s32[] constant(0)
  w = b(f32[4]) dynamic-update-slice(c, x, zero)
  ROOT y = f32[4] custom-call(w), custom_call_target="Unpin", output_to_operand_aliasing={{}: (0, {})}
})");
  ASSERT_NE(m, nullptr);
  ASSERT_TRUE(VerifyModule(*m).ok());
  std::vector<Literal> args = RandomArguments(*m, 1);
  for (EvalMode mode : {EvalMode::kValue, EvalMode::kBuffer}) {
    EvalOptions options;
    options.mode = mode;
    absl::StatusOr<Literal> out = Evaluate(*m, args, options);
    ASSERT_FALSE(out.ok());
    EXPECT_NE(StatusText(out.status())
                  .find("cannot run %w: a dynamic-update-slice into a buffer of f32[4] takes an "
                        "update of its element type, not f64[4]"),
              std::string::npos)
        << StatusText(out.status());
  }
}

// Fuzz round 10: a scatter whose operand dimension 0 is both an inserted window dim and an
// input batching dim verifies (XLA's InferScatterShape counts the two lists apart and does not
// refuse the overlap), and leaves operand dim 1 as a window dim with no update window dim to
// walk it: the interpreter read update_window_dims past its end (ASan: heap-buffer-overflow in
// EvalScatter). The fuzzer's input was XLA's EvaluateScatter_ExplicitBatchDims with
// inserted_window_dims={0} beside input_batching_dims={0,3}. Refused in both modes.
TEST(EvalFuzzRegressions, ScatterDimensionBothInsertedAndBatchingIsRefused) {
  std::unique_ptr<Module> m = testing::Parse(R"(HloModule m
add {
  x = s32[] parameter(0)
  y = s32[] parameter(1)
  ROOT s = s32[] add(x, y)
}

ENTRY main {
  input = s32[2,3] parameter(0)
  indices = s32[2,1] parameter(1)
  updates = s32[2] parameter(2)
  ROOT s = s32[2,3] scatter(input, indices, updates), update_window_dims={},
    inserted_window_dims={0}, scatter_dims_to_operand_dims={1}, index_vector_dim=1,
    input_batching_dims={0}, scatter_indices_batching_dims={0}, to_apply=add
})");
  ASSERT_NE(m, nullptr);
  ASSERT_TRUE(VerifyModule(*m).ok());
  std::vector<Literal> args = RandomArguments(*m, 1);
  for (EvalMode mode : {EvalMode::kValue, EvalMode::kBuffer}) {
    EvalOptions options;
    options.mode = mode;
    absl::StatusOr<Literal> out = Evaluate(*m, args, options);
    ASSERT_FALSE(out.ok());
    EXPECT_NE(StatusText(out.status())
                  .find("cannot run %s: scatter leaves 1 operand dimensions for its 0 "
                        "update_window_dims (an operand dimension is both in "
                        "inserted_window_dims and input_batching_dims, or repeated)"),
              std::string::npos)
        << StatusText(out.status());
  }
}

}  // namespace
}  // namespace hloscope::eval
