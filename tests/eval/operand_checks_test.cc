// The interpreter refuses instructions whose operands do not fit (instead of reading outside an
// array), whether or not the verifier has a rule for the opcode. Modules are parsed but not
// verified, as a caller of Evaluate might do.
#include "gtest/gtest.h"
#include "support/status_text.h"
#include "support/str_util.h"
#include "tests/eval/eval_test_util.h"

namespace hloscope::eval {
namespace {

std::string Refusal(std::string_view body) {
  std::unique_ptr<Module> m = testing::Parse(StrCat("HloModule m\nENTRY e {\n", body, "\n}\n"));
  if (m == nullptr) return "parse error";
  absl::StatusOr<Literal> out = Evaluate(*m, RandomArguments(*m, 1), {});
  return out.ok() ? "ran" : std::string(StatusText(out.status()));
}

struct Case {
  const char* body;
  const char* message;
};

TEST(OperandChecksTest, EveryMisfitIsRefusedWithAReason) {
  const Case cases[] = {
      {"  p = f32[4] parameter(0)\n  ROOT n = f32[5] negate(p)",
       "cannot run %n: operand 0 has shape f32[4] but the result is f32[5]"},
      {"  p = f32[4] parameter(0)\n  q = s32[4] parameter(1)\n  ROOT n = f32[4] add(p, q)",
       "cannot run %n: operands have different element types, f32 and s32 (mixed precision is "
       "not run: XLA's evaluator reads both operands as one type)"},
      {"  p = f32[4] parameter(0)\n  ROOT n = f32[4] select(p, p, p)",
       "cannot run %n: select needs a pred and two operands of the result type, not f32, f32 "
       "and f32 into f32"},
      {"  c = pred[4] parameter(0)\n  p = f32[4] parameter(1)\n  q = bf16[4] parameter(2)\n"
       "  ROOT n = f32[4] select(c, p, q)",
       "cannot run %n: select needs a pred and two operands of the result type, not pred, f32 "
       "and bf16 into f32 (mixed precision is not run: XLA's evaluator reads both branches as "
       "the result type)"},
      {"  p = f32[4] parameter(0)\n  ROOT n = f32[8] slice(p), slice={[0:8]}",
       "cannot run %n: slice dimension 0 [0:8:1] does not fit f32[4] -> f32[8]"},
      {"  p = f32[4] parameter(0)\n  ROOT n = f32[4,3] broadcast(p), dimensions={1}",
       "cannot run %n: broadcast of f32[4] to f32[4,3] with dimensions={1}"},
      {"  p = f32[4,3] parameter(0)\n  ROOT n = f32[3,4] transpose(p), dimensions={0,0}",
       "cannot run %n: transpose dimensions={...} do not fit the shapes"},
      {"  p = f32[4,3] parameter(0)\n  ROOT n = f32[5] reshape(p)",
       "cannot run %n: reshape of f32[4,3] to f32[5] changes the element count"},
      {"  p = f32[4] parameter(0)\n  ROOT n = f32[9] concatenate(p, p), dimensions={0}",
       "cannot run %n: concatenate sizes do not add up"},
      {"  p = f32[4] parameter(0)\n  z = f32[] constant(0)\n  ROOT n = f32[9] pad(p, z), "
       "padding=1_1",
       "cannot run %n: padding of dimension 0 does not give f32[9]"},
      {"  p = f32[4] parameter(0)\n  z = f32[] constant(0)\n  ROOT n = f32[6] pad(p, z), "
       "padding=1_x",
       "pad %n: cannot read padding='1_x'"},
      {"  p = f32[4] parameter(0)\n  ROOT n = f32[4] reverse(p), dimensions={1}",
       "cannot run %n: reverse dimensions do not fit"},
      // Mixed precision, which the verifier accepts by default: the bytes would be read with the
      // result's element size (XLA's instruction_fusion_test
      // BroadcastsAreAlwaysDuplicableIntoConsumers broadcasts f16 to f32).
      {"  p = f16[4] parameter(0)\n  ROOT n = f32[4,3] broadcast(p), dimensions={0}",
       "cannot run %n: broadcast moves operand 0's f16 elements into a f32 result (mixed "
       "precision is not run, nor by XLA's evaluator)"},
      {"  p = bf16[4,3] parameter(0)\n  ROOT n = f32[3,4] transpose(p), dimensions={1,0}",
       "cannot run %n: transpose moves operand 0's bf16 elements into a f32 result (mixed "
       "precision is not run)"},
      {"  p = f32[4] parameter(0)\n  q = f16[4] parameter(1)\n  ROOT n = f32[8] "
       "concatenate(p, q), dimensions={0}",
       "cannot run %n: concatenate moves operand 1's f16 elements into a f32 result (mixed "
       "precision is not run)"},
      // A float padding value of another width is converted (array_ops_test.cc); an integer
      // one is not a float value at all.
      {"  p = f32[4] parameter(0)\n  z = s32[] constant(0)\n  ROOT n = f32[6] pad(p, z), "
       "padding=1_1",
       "cannot run %n: pad moves operand 1's s32 elements into a f32 result (mixed precision is "
       "not run)"},
      {"  p = f32[4] parameter(0)\n  u = f16[2] parameter(1)\n  i = s32[] constant(0)\n  ROOT n = "
       "f32[4] dynamic-update-slice(p, u, i)",
       "cannot run %n: dynamic-update-slice moves operand 1's f16 elements into a f32 result "
       "(mixed precision is not run: XLA's evaluator copies the bytes unconverted)"},
      {"  p = f32[4] parameter(0)\n  i = s32[] parameter(1)\n  ROOT n = f32[5] dynamic-slice(p, "
       "i), dynamic_slice_sizes={5}",
       "cannot run %n: dynamic-slice operands do not fit the result"},
      {"  p = f32[4] parameter(0)\n  u = f32[5] parameter(1)\n  i = s32[] parameter(2)\n"
       "  ROOT n = f32[4] dynamic-update-slice(p, u, i)",
       "cannot run %n: dynamic-update-slice operands do not fit the result"},
      {"  p = f32[2,3] parameter(0)\n  q = f32[2,3] parameter(1)\n"
       "  ROOT n = f32[4,1] dot(p, q), lhs_contracting_dims={1}, rhs_contracting_dims={1}",
       "cannot run %n: dot dimension numbers do not fit the shapes"},
      {"  t = f32[3,2] parameter(0)\n  i = s32[2,1] parameter(1)\n"
       "  ROOT g = f32[2,3] gather(t, i), offset_dims={1}, collapsed_slice_dims={0}, "
       "start_index_map={0}, "
       "index_vector_dim=1, slice_sizes={1,2}",
       "cannot run %g: gather dimension numbers do not fit the shapes"},
      {"  p = f32[4] parameter(0)\n  ROOT i = s32[4] iota(), iota_dimension=1",
       "iota %i needs iota_dimension= within its rank"},
      {"  p = f32[4] parameter(0)\n  ROOT c = s16[4] bitcast-convert(p)",
       "the interpreter supports bitcast-convert between types of different widths only for "
       "whole-byte types, the narrower side having one more, innermost dimension of the width "
       "ratio (instruction %c)"},
      {"  p = f32[?] parameter(0)\n  ROOT n = f32[?] negate(p)",
       "the interpreter does not support dynamic shapes with unbounded (?) dimensions "
       "(instruction %p)"},
  };
  for (const Case& c : cases) EXPECT_EQ(Refusal(c.body), c.message) << c.body;
}

TEST(OperandChecksTest, ReduceWithAMisfitResult) {
  std::unique_ptr<Module> m = testing::Parse(R"(
HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  a = f32[2,3] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[2] reduce(a, z), dimensions={0}, to_apply=add
}
)");
  ASSERT_NE(m, nullptr);
  absl::StatusOr<Literal> out = Evaluate(*m, RandomArguments(*m, 1), {});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(StatusText(out.status()), "cannot run %r: reduce operands do not fit the result");
}

TEST(OperandChecksTest, CalledComputationWithTheWrongParameterShape) {
  std::unique_ptr<Module> m = testing::Parse(R"(
HloModule m
callee {
  x = f32[3] parameter(0)
  ROOT n = f32[3] negate(x)
}
ENTRY e {
  a = f32[2] parameter(0)
  ROOT c = f32[3] call(a), to_apply=callee
}
)");
  ASSERT_NE(m, nullptr);
  absl::StatusOr<Literal> out = Evaluate(*m, RandomArguments(*m, 1), {});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(StatusText(out.status()), "cannot run %x: it receives f32[2] but has shape f32[3]");
}

// hlo-run is participant 0 of a group in which every participant holds the same values.
TEST(OperandChecksTest, CollectivePermuteActsAsParticipantZero) {
  std::string body =
      "  p = f32[2] parameter(0)\n  ROOT c = f32[2] collective-permute(p), channel_id=1, "
      "source_target_pairs=";
  std::unique_ptr<Module> m =
      testing::Parse(StrCat("HloModule m\nENTRY e {\n", body, "{{0,1},{1,0}}\n}\n"));
  ASSERT_NE(m, nullptr);
  std::vector<Literal> args = testing::Args(*m, {"{1, 2}"});
  absl::StatusOr<Literal> out = Evaluate(*m, args, {});
  ASSERT_TRUE(out.ok()) << StatusText(out.status());
  EXPECT_EQ(FormatLiteral(*out, true), "f32[2] {1, 2}\n");
  // Nobody sends to participant 0: it receives zeros.
  m = testing::Parse(StrCat("HloModule m\nENTRY e {\n", body, "{{0,1},{1,2}}\n}\n"));
  ASSERT_NE(m, nullptr);
  out = Evaluate(*m, args, {});
  ASSERT_TRUE(out.ok()) << StatusText(out.status());
  EXPECT_EQ(FormatLiteral(*out, true), "f32[2] {0, 0}\n");
}

}  // namespace
}  // namespace hloscope::eval
