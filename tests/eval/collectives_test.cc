// Collectives, async pairs and custom-calls: the kernels' refusals (reachable from a library
// caller that evaluates a module it never verified) and EvaluateReplicas.
#include <string>

#include "eval/replicas.h"
#include "gtest/gtest.h"
#include "support/status_text.h"
#include "tests/eval/eval_test_util.h"

namespace hloscope::eval {
namespace {

// Evaluates `text` (parsed, not verified) on random arguments; the error message or "ok".
std::string ErrorOf(std::string_view text) {
  std::unique_ptr<Module> m = testing::Parse(text);
  if (m == nullptr) return "parse error";
  absl::StatusOr<Literal> out = Evaluate(*m, RandomArguments(*m, 1), {});
  return out.ok() ? "ok" : std::string(StatusText(out.status()));
}

constexpr std::string_view kAdd = R"(
HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
)";

std::string WithAdd(std::string_view entry) { return std::string(kAdd) + std::string(entry); }

TEST(CollectivesTest, AllGatherWhoseResultIsNotTheGroupsMultipleIsRefused) {
  EXPECT_EQ(ErrorOf(WithAdd(R"(
ENTRY e {
  p = f32[2,2] parameter(0)
  ROOT g = f32[5,2] all-gather(p), dimensions={0}, replica_groups={{0,1}}
})")),
            "cannot run %g (all-gather): the result's dimension is not 2 times the operand's (the "
            "group's size)");
}

TEST(CollectivesTest, AllGatherWithoutADimensionIsRefused) {
  EXPECT_EQ(ErrorOf(WithAdd(R"(
ENTRY e {
  p = f32[2,2] parameter(0)
  ROOT g = f32[4,2] all-gather(p), dimensions={7}, replica_groups={{0,1}}
})")),
            "cannot run %g (all-gather): needs one dimension within the operand's rank in "
            "dimensions={...}");
}

TEST(CollectivesTest, ReduceScatterWhoseOperandIsNotTheGroupsMultipleIsRefused) {
  EXPECT_EQ(ErrorOf(WithAdd(R"(
ENTRY e {
  p = f32[3,2] parameter(0)
  ROOT r = f32[2,2] reduce-scatter(p), dimensions={0}, replica_groups={{0,1}}, to_apply=add
})")),
            "cannot run %r (reduce-scatter): the operand's dimension is not 2 times the result's "
            "(the group's size)");
}

TEST(CollectivesTest, AllToAllWhoseDimensionDoesNotSplitIsRefused) {
  EXPECT_EQ(ErrorOf(WithAdd(R"(
ENTRY e {
  p = f32[3,2] parameter(0)
  ROOT a = f32[3,2] all-to-all(p), dimensions={0}, replica_groups={{0,1}}
})")),
            "cannot run %a (all-to-all): the split dimension does not divide into the group");
}

TEST(CollectivesTest, AllReduceOfDifferentShapesIsRefused) {
  EXPECT_EQ(ErrorOf(WithAdd(R"(
ENTRY e {
  p = f32[3,2] parameter(0)
  ROOT a = f32[2,3] all-reduce(p), replica_groups={}, to_apply=add
})")),
            "cannot run %a (all-reduce): the operand and result shapes differ");
}

TEST(CollectivesTest, AllReduceOfMixedElementTypesIsRefused) {
  EXPECT_EQ(ErrorOf(WithAdd(R"(
ENTRY e {
  p = bf16[2] parameter(0)
  ROOT a = f32[2] all-reduce(p), replica_groups={}, to_apply=add
})")),
            "cannot run %a (all-reduce): operand 0 is bf16[2] but result 0 is f32[2] (mixed "
            "precision is not run)");
}

TEST(CollectivesTest, MalformedIotaReplicaGroupsAreRefused) {
  EXPECT_EQ(ErrorOf(WithAdd(R"(
ENTRY e {
  p = f32[2] parameter(0)
  ROOT a = f32[2] all-reduce(p), replica_groups=[2,3]<=[4], to_apply=add
})")),
            "cannot run %a (all-reduce): replica_groups in iota form does not fit its dimensions");
}

TEST(CollectivesTest, IotaReplicaGroupsWithATransposeGroupReplicaZeroCorrectly) {
  // [2,2]<=[2,2]T(1,0): groups {0,2} and {1,3}; replica 0's group has two participants.
  EXPECT_EQ(testing::RunBoth(WithAdd(R"(
ENTRY e {
  p = f32[2] parameter(0)
  ROOT a = f32[2] all-reduce(p), replica_groups=[2,2]<=[2,2]T(1,0), to_apply=add
})"),
                             {"{1, 2}"}),
            "f32[2] {2, 4}");
}

TEST(CollectivesTest, CustomCallRefusals) {
  EXPECT_EQ(ErrorOf(R"(
HloModule m
ENTRY e {
  p = f32[2] parameter(0)
  ROOT c = f32[3] custom-call(p), custom_call_target="Sharding"
})"),
            "cannot run custom-call %c (Sharding): the operand and result shapes differ");
  EXPECT_EQ(ErrorOf(R"(
HloModule m
ENTRY e {
  p = f32[2] parameter(0)
  q = f32[2] parameter(1)
  ROOT c = f32[2] custom-call(p, q), custom_call_target="MoveToHost"
})"),
            "cannot run custom-call %c (MoveToHost): needs exactly one operand");
  EXPECT_EQ(ErrorOf(R"(
HloModule m
ENTRY e {
  p = f32[2,2] parameter(0)
  ROOT c = f32[2] custom-call(p), custom_call_target="SPMDFullToShardShape"
})"),
            "cannot run custom-call %c (SPMDFullToShardShape): the operand and result differ in "
            "element type or rank");
  EXPECT_EQ(ErrorOf(R"(
HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  ROOT c = (f32[2], f32[2]) custom-call(p), custom_call_target="TopK"
})"),
            "cannot run custom-call %c (TopK): TopK needs a rank-1 or rank-2 operand and a "
            "(values, s32 indices) result");
  EXPECT_EQ(ErrorOf(R"(
HloModule m
ENTRY e {
  p = f32[2] parameter(0)
  ROOT c = f32[4] custom-call(p), custom_call_target="TopK"
})"),
            "cannot run custom-call %c (TopK): TopK needs a rank-1 or rank-2 operand and a "
            "(values, s32 indices) result");
  EXPECT_EQ(ErrorOf(R"(
HloModule m
ENTRY e {
  p = f32[2] parameter(0)
  ROOT c = (f32[3], s32[3]) custom-call(p), custom_call_target="TopK"
})"),
            "cannot run custom-call %c (TopK): k is larger than the operand's last dimension");
}

TEST(CollectivesTest, ReplicasRefuseAReplicaInNoGroup) {
  std::unique_ptr<Module> m = testing::Parse(WithAdd(R"(
ENTRY e {
  p = f32[2] parameter(0)
  ROOT a = f32[2] all-reduce(p), replica_groups={{1}}, to_apply=add
})"));
  ASSERT_NE(m, nullptr);
  std::vector<std::vector<Literal>> args = {RandomArguments(*m, 1), RandomArguments(*m, 2)};
  absl::StatusOr<std::vector<Literal>> out = EvaluateReplicas(*m, args, {});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(StatusText(out.status()),
            "replica 0: cannot run %a (all-reduce): replica 0 is in none of its replica_groups");
}

TEST(CollectivesTest, ReplicasComputeAllReduceAcrossThemInLoops) {
  // Ten loop iterations, each an all-reduce across 3 replicas: the k-th runs meet.
  std::unique_ptr<Module> m = testing::Parse(WithAdd(R"(
cond {
  s = (s32[], f32[2]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(10)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[2]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[2] get-tuple-element(s), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  third = f32[] constant(0.5)
  h = f32[2] broadcast(third), dimensions={}
  y = f32[2] multiply(x, h)
  r = f32[2] all-reduce(y), replica_groups={}, to_apply=add
  ROOT t = (s32[], f32[2]) tuple(j, r)
}
ENTRY e {
  p = f32[2] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[2]) tuple(zero, p)
  w = (s32[], f32[2]) while(init), condition=cond, body=body
  ROOT out = f32[2] get-tuple-element(w), index=1
})"));
  ASSERT_NE(m, nullptr);
  std::vector<std::vector<Literal>> args;
  for (const char* text : {"{1, 2}", "{1, 2}", "{1, 2}"}) {
    absl::StatusOr<Literal> lit = ParseLiteral(text, m->entry()->parameter(0)->shape());
    ASSERT_TRUE(lit.ok());
    args.push_back({*std::move(lit)});
  }
  for (EvalMode mode : {EvalMode::kValue, EvalMode::kBuffer}) {
    EvalOptions options;
    options.mode = mode;
    absl::StatusOr<std::vector<Literal>> out = EvaluateReplicas(*m, args, options);
    ASSERT_TRUE(out.ok()) << StatusText(out.status());
    ASSERT_EQ(out->size(), 3u);
    // Each iteration multiplies by 3/2: (3/2)^10 = 59049/1024, exact in f32.
    absl::StatusOr<Literal> want =
        ParseLiteral("{57.6650390625, 115.330078125}", m->entry()->parameter(0)->shape());
    ASSERT_TRUE(want.ok());
    for (const Literal& l : *out) {
      EXPECT_EQ(FirstDifference(*want, l), std::nullopt) << FormatLiteral(l, true);
    }
  }
}

}  // namespace
}  // namespace hloscope::eval
