// The verifier's options that hlo-opt does not expose (allow_mixed_precision, on by default,
// and check_shapes), and which problem it reports when a module has several: step 1 (structure)
// before step 3 (shape rules), and among shape rules the first in module order, although rules
// that read only operands run during step 1 and those that read callees after it. The messages
// themselves are tested by testdata/errors/verifier*.hlo.
#include "hlo/verifier.h"

#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "support/status_text.h"
#include "support/str_util.h"
#include "tests/hlo/test_util.h"

namespace hloscope {
namespace {

using testing::ParseOrDie;

std::string Module(std::string_view body) {
  return std::string(R"(HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
)") + std::string(body) +
         "\n}\n";
}

VerifierOptions Strict() {
  VerifierOptions options;
  options.allow_mixed_precision = false;
  return options;
}

struct MixedCase {
  const char* name;
  const char* body;
  const char* strict_message;
};

// Each is accepted by default and rejected, with this message, when mixed precision is off.
const MixedCase kMixedCases[] = {
    {"add", "  a = f32[4] parameter(0)\n  b = bf16[4] parameter(1)\n  ROOT c = f32[4] add(a, b)",
     "computation 'e': instruction 'c': add operand 1 'b' element type bf16 does not match the "
     "element type of its shape f32"},
    {"select",
     "  p = pred[4] parameter(0)\n  a = f32[4] parameter(1)\n  b = f16[4] parameter(2)\n"
     "  ROOT c = f32[4] select(p, a, b)",
     "computation 'e': instruction 'c': select operand 2 'b' element type f16 does not match the "
     "element type of its shape f32"},
    {"broadcast", "  a = f64[] parameter(0)\n  ROOT c = f32[4] broadcast(a), dimensions={}",
     "computation 'e': instruction 'c': broadcast operand 0 'a' element type f64 does not match "
     "the element type of its shape f32"},
    {"transpose", "  a = f64[4,3] parameter(0)\n  ROOT c = f32[3,4] transpose(a), dimensions={1,0}",
     "computation 'e': instruction 'c': transpose shape f32[3,4] does not match f64[3,4] "
     "(operand 'a' permuted by dimensions={1,0})"},
    {"pad",
     "  a = bf16[4] parameter(0)\n  v = f32[] parameter(1)\n"
     "  ROOT c = bf16[6] pad(a, v), padding=1_1",
     "computation 'e': instruction 'c': pad operand 1 'v' element type f32 does not match "
     "operand 0's element type bf16"},
    {"concatenate",
     "  a = f32[4] parameter(0)\n  b = bf16[4] parameter(1)\n"
     "  ROOT c = f32[8] concatenate(a, b), dimensions={0}",
     "computation 'e': instruction 'c': concatenate operand 1 'b' element type bf16 does not "
     "match operand 0's element type f32"},
    {"reduce",
     "  a = f32[4] parameter(0)\n  z = bf16[] parameter(1)\n"
     "  ROOT c = f32[] reduce(a, z), dimensions={0}, to_apply=add",
     "computation 'e': instruction 'c': reduce result shape f32[] does not have the element type "
     "bf16 of init value operand 1 'z'"},
    // XLA's SameElementTypesForOperandsAndToApplyParameters: the computation map, reduce and
    // reduce-window apply takes their operands' exact types (verifier_callee_rules.cc).
    {"map",
     "  a = bf16[4] parameter(0)\n  b = bf16[4] parameter(1)\n"
     "  ROOT c = f32[4] map(a, b), dimensions={0}, to_apply=add",
     "computation 'e': instruction 'c': map to_apply 'add' parameter 0 has element type f32, but "
     "operand 0 'a' has bf16"},
    {"reduce to_apply",
     "  a = bf16[4] parameter(0)\n  z = bf16[] parameter(1)\n"
     "  ROOT c = bf16[] reduce(a, z), dimensions={0}, to_apply=add",
     "computation 'e': instruction 'c': reduce to_apply 'add' parameter 0 has element type f32, "
     "but operand 0 'a' has bf16"},
    {"reduce-window to_apply",
     "  a = bf16[4] parameter(0)\n  z = bf16[] parameter(1)\n"
     "  ROOT c = bf16[2] reduce-window(a, z), window={size=2 stride=2}, to_apply=add",
     "computation 'e': instruction 'c': reduce-window to_apply 'add' parameter 0 has element type "
     "f32, but operand 0 'a' has bf16"},
};

TEST(VerifierOptions, MixedFloatPrecisionIsAcceptedByDefaultAndRejectedWhenStrict) {
  for (const MixedCase& c : kMixedCases) {
    SCOPED_TRACE(c.name);
    std::unique_ptr<hloscope::Module> m = ParseOrDie(Module(c.body));
    ASSERT_NE(m, nullptr);
    EXPECT_TRUE(VerifyModule(*m).ok()) << StatusText(VerifyModule(*m));
    EXPECT_EQ(StatusText(VerifyModule(*m, Strict())), c.strict_message);
  }
}

TEST(VerifierOptions, IntegerAndFloatNeverMix) {
  std::unique_ptr<hloscope::Module> m = ParseOrDie(
      Module("  a = f32[4] parameter(0)\n  b = s32[4] parameter(1)\n  ROOT c = f32[4] add(a, b)"));
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(StatusText(VerifyModule(*m)),
            "computation 'e': instruction 'c': add operand 1 'b' element type s32 does not match "
            "the element type of its shape f32");
}

TEST(VerifierOptions, CheckShapesOffSkipsTheArrayRules) {
  std::unique_ptr<hloscope::Module> m = ParseOrDie(
      Module("  a = f32[4] parameter(0)\n  b = f32[5] parameter(1)\n  ROOT c = f32[4] add(a, b)"));
  ASSERT_NE(m, nullptr);
  EXPECT_FALSE(VerifyModule(*m).ok());
  VerifierOptions structure_only;
  structure_only.check_shapes = false;
  EXPECT_TRUE(VerifyModule(*m, structure_only).ok());
}

std::string VerifyMessage(std::string_view text) {
  std::unique_ptr<hloscope::Module> m = ParseOrDie(text);
  return m == nullptr ? "parse failed" : StatusText(VerifyModule(*m));
}

TEST(VerifierOrder, StructureProblemsComeBeforeShapeProblems) {
  // `bad` breaks a shape rule before a step-1 problem: with module-wide unique names, `a` in
  // computation `later` repeats the entry's `a`.
  std::unique_ptr<hloscope::Module> m = ParseOrDie(R"(HloModule m
ENTRY e {
  a = f32[4] parameter(0)
  bad = f32[5] negate(a)
  ROOT r = f32[4] call(a), to_apply=later
}
later {
  a = f32[4] parameter(0)
  ROOT n = f32[4] negate(a)
}
)");
  ASSERT_NE(m, nullptr);
  VerifierOptions options;
  options.check_module_unique_names = true;
  EXPECT_EQ(StatusText(VerifyModule(*m, options)),
            "computation 'later': instruction 'a': name is already used in computation 'e'");
  EXPECT_EQ(StatusText(VerifyModule(*m)),
            "computation 'e': instruction 'bad': negate operand 0 'a' shape f32[4] does not have "
            "the dimensions of its shape f32[5]");
}

constexpr std::string_view kBody = R"(
body {
  p = (f32[4]) parameter(0)
  g = f32[4] get-tuple-element(p), index=0
  ROOT t = (f32[4]) tuple(g)
}
cond {
  p = (f32[4]) parameter(0)
  ROOT c = pred[] constant(true)
}
)";

TEST(VerifierOrder, AnEarlierCalleeRuleWinsOverALaterOperandRule) {
  // The while's rule (deferred: it reads body and cond) fails before `bad` in module order.
  EXPECT_EQ(VerifyMessage(std::string("HloModule m\n") + std::string(kBody) + R"(
ENTRY e {
  a = f32[4] parameter(0)
  t = (f32[4]) tuple(a)
  w = (f32[5]) while(t), condition=cond, body=body
  bad = f32[5] negate(a)
  ROOT r = f32[4] negate(a)
}
)"),
            "computation 'e': instruction 'w': while operand 't' shape (f32[4]) does not match "
            "while shape (f32[5])");
}

TEST(VerifierOrder, AnEarlierOperandRuleWinsOverALaterCalleeRule) {
  EXPECT_EQ(VerifyMessage(std::string("HloModule m\n") + std::string(kBody) + R"(
ENTRY e {
  a = f32[4] parameter(0)
  bad = f32[5] negate(a)
  t = (f32[4]) tuple(a)
  w = (f32[5]) while(t), condition=cond, body=body
  ROOT r = f32[4] negate(a)
}
)"),
            "computation 'e': instruction 'bad': negate operand 0 'a' shape f32[4] does not have "
            "the dimensions of its shape f32[5]");
}

TEST(VerifierOrder, AnOperandListedLaterIsCheckedAfterStepOne) {
  // `n` uses `late`, which the instruction list has after it: its rule waits for step 1.
  std::unique_ptr<hloscope::Module> m = ParseOrDie(R"(HloModule m
ENTRY e {
  late = f32[3] parameter(0)
  ROOT n = f32[4] negate(late)
}
)");
  ASSERT_NE(m, nullptr);
  m->entry()->MoveBefore(testing::Find(*m, "n"), testing::Find(*m, "late"));
  ASSERT_EQ(m->entry()->instructions().front()->name(), "n");
  EXPECT_EQ(StatusText(VerifyModule(*m)),
            "computation 'e': instruction 'n': negate operand 0 'late' shape f32[3] does not "
            "have the dimensions of its shape f32[4]");
}

// A cross-replica-and-partition all-gather (channel_id, no global ids) has a group's replicas
// times num_partitions participants: compared when the header gives num_partitions, left to
// the shapes when it does not (XLA's tests set it in the module config) or when the count
// would not fit in int64.
std::string PartitionedGather(std::string_view header) {
  return StrCat("HloModule m", header, R"(
ENTRY e {
  a = f32[4] parameter(0)
  ROOT c = f32[8] all-gather(a), channel_id=1, replica_groups=REPLICA_GROUPS, dimensions={0}
}
)");
}

std::string WithGroups(std::string text, std::string_view groups) {
  text.replace(text.find("REPLICA_GROUPS"), 14, groups);
  return text;
}

TEST(VerifierCollectives, ParticipantsCountPartitionsOnlyWhenTheHeaderGivesThem) {
  std::unique_ptr<hloscope::Module> known =
      ParseOrDie(WithGroups(PartitionedGather(", num_partitions=2"), "{{0,1}}"));
  ASSERT_NE(known, nullptr);
  EXPECT_EQ(StatusText(VerifyModule(*known)),
            "computation 'e': instruction 'c': all-gather gathers 2 parts along dimension 0 "
            "(operand 0 'a' shape f32[4] to f32[8]), but each replica group has 4 participants");
  std::unique_ptr<hloscope::Module> unknown =
      ParseOrDie(WithGroups(PartitionedGather(""), "{{0,1}}"));
  ASSERT_NE(unknown, nullptr);
  EXPECT_TRUE(VerifyModule(*unknown).ok()) << StatusText(VerifyModule(*unknown));
}

TEST(VerifierCollectives, AParticipantCountPastInt64IsNotCompared) {
  std::unique_ptr<hloscope::Module> m = ParseOrDie(
      WithGroups(PartitionedGather(", replica_count=4611686018427387904, num_partitions=4"), "{}"));
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(VerifyModule(*m).ok()) << StatusText(VerifyModule(*m));
}

}  // namespace
}  // namespace hloscope
