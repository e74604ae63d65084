// The verifier's shape rules for the opcodes whose shape XLA's parser builds itself (send,
// send-done, recv, recv-done, infeed, outfeed, after-all, add-dependency;
// hlo/parser_derived_shapes.h). Text can no longer reach them: the parser replaces the
// written shape. Modules read from protos and edited by passes still can, so each rule is
// tested the way a buggy pass would break it: a parsed module whose instruction is given the
// shape of the `wrong` parameter through the graph API.
#include "gtest/gtest.h"
#include "hlo/verifier.h"
#include "tests/hlo/test_util.h"

namespace hloscope {
namespace {

using testing::Find;
using testing::Parse;
using testing::Verify;

// Parses `text` (which verifies), gives instruction `c` of computation `e` the shape of
// parameter `wrong` and returns the verifier's message.
std::string VerifyWithWrongShape(std::string_view text, const VerifierOptions& options = {}) {
  std::unique_ptr<Module> m = Parse(text);
  if (m == nullptr) return "(does not parse)";
  std::string before = Verify(*m, options);
  if (before != "OK") return "(does not verify before the edit: " + before + ")";
  InstructionBuilder(Find(*m, "e", "c")).set_shape(Find(*m, "e", "wrong")->shape_ptr());
  return Verify(*m, options);
}

// send and recv-done pass their data on unconverted: exact element types even where mixed
// precision is allowed (XLA's ShapeVerifier::CheckShape uses ShapesSame for them).
VerifierOptions MixedPrecision() {
  VerifierOptions options;
  options.allow_mixed_precision = true;
  return options;
}

TEST(VerifierBuiltShapesTest, Send) {
  EXPECT_EQ(VerifyWithWrongShape(R"(
HloModule m
ENTRY e {
  a = f32[4] parameter(0)
  wrong = (f32[4], token[]) parameter(1)
  t = token[] after-all()
  ROOT c = (f32[4], u32[], token[]) send(a, t), channel_id=1
})"),
            "computation 'e': instruction 'c': send shape (f32[4], token[]) is not (f32[4], "
            "u32[], token[]) for operand 0 'a'");
}

TEST(VerifierBuiltShapesTest, SendDataTypeIsExactUnderMixedPrecision) {
  EXPECT_EQ(VerifyWithWrongShape(R"(
HloModule m
ENTRY e {
  a = f16[2] parameter(0)
  wrong = (f32[2], u32[], token[]) parameter(1)
  t = token[] after-all()
  ROOT c = (f16[2], u32[], token[]) send(a, t), channel_id=1
})",
                                 MixedPrecision()),
            "computation 'e': instruction 'c': send shape (f32[2], u32[], token[]) is not (f16[2], "
            "u32[], token[]) for operand 0 'a'");
}

TEST(VerifierBuiltShapesTest, SendDone) {
  EXPECT_EQ(VerifyWithWrongShape(R"(
HloModule m
ENTRY e {
  a = f32[4] parameter(0)
  wrong = (f32[4], token[]) parameter(1)
  t = token[] after-all()
  s = (f32[4], u32[], token[]) send(a, t), channel_id=1
  ROOT c = token[] send-done(s), channel_id=1
})"),
            "computation 'e': instruction 'c': send-done shape (f32[4], token[]) is not token[]");
}

TEST(VerifierBuiltShapesTest, Recv) {
  EXPECT_EQ(VerifyWithWrongShape(R"(
HloModule m
ENTRY e {
  wrong = (f32[4], s32[], token[]) parameter(0)
  t = token[] after-all()
  ROOT c = (f32[4], u32[], token[]) recv(t), channel_id=1
})"),
            "computation 'e': instruction 'c': recv shape (f32[4], s32[], token[]) is not (data, "
            "u32[], token[])");
}

TEST(VerifierBuiltShapesTest, RecvDoneForm) {
  EXPECT_EQ(VerifyWithWrongShape(R"(
HloModule m
ENTRY e {
  wrong = f32[4] parameter(0)
  t = token[] after-all()
  r = (f32[4], u32[], token[]) recv(t), channel_id=1
  ROOT c = (f32[4], token[]) recv-done(r), channel_id=1
})"),
            "computation 'e': instruction 'c': recv-done shape f32[4] is not (data, token[])");
}

TEST(VerifierBuiltShapesTest, RecvDoneData) {
  EXPECT_EQ(VerifyWithWrongShape(R"(
HloModule m
ENTRY e {
  wrong = (f32[8], token[]) parameter(0)
  t = token[] after-all()
  r = (f32[4], u32[], token[]) recv(t), channel_id=1
  ROOT c = (f32[4], token[]) recv-done(r), channel_id=1
})"),
            "computation 'e': instruction 'c': recv-done element 0 shape f32[8] does not match "
            "element 0 shape f32[4] of operand 0 'r'");
}

TEST(VerifierBuiltShapesTest, RecvDoneDataTypeIsExactUnderMixedPrecision) {
  EXPECT_EQ(VerifyWithWrongShape(R"(
HloModule m
ENTRY e {
  wrong = (f32[2], token[]) parameter(0)
  t = token[] after-all()
  r = (f16[2], u32[], token[]) recv(t), channel_id=1
  ROOT c = (f16[2], token[]) recv-done(r), channel_id=1
})",
                                 MixedPrecision()),
            "computation 'e': instruction 'c': recv-done element 0 shape f32[2] does not match "
            "element 0 shape f16[2] of operand 0 'r'");
}

TEST(VerifierBuiltShapesTest, Infeed) {
  EXPECT_EQ(VerifyWithWrongShape(R"(
HloModule m
ENTRY e {
  wrong = f32[4] parameter(0)
  t = token[] after-all()
  ROOT c = (f32[4], token[]) infeed(t)
})"),
            "computation 'e': instruction 'c': infeed shape f32[4] is not (data, token[])");
}

TEST(VerifierBuiltShapesTest, Outfeed) {
  EXPECT_EQ(VerifyWithWrongShape(R"(
HloModule m
ENTRY e {
  a = f32[4] parameter(0)
  wrong = (f32[4]) parameter(1)
  t = token[] after-all()
  ROOT c = token[] outfeed(a, t)
})"),
            "computation 'e': instruction 'c': outfeed shape (f32[4]) is not token[]");
}

TEST(VerifierBuiltShapesTest, AddDependency) {
  EXPECT_EQ(VerifyWithWrongShape(R"(
HloModule m
ENTRY e {
  a = f32[4] parameter(0)
  wrong = f32[5] parameter(1)
  t = token[] after-all()
  ROOT c = f32[4] add-dependency(a, t)
})"),
            "computation 'e': instruction 'c': add-dependency shape f32[5] does not match operand "
            "0 'a' shape f32[4]");
}

TEST(VerifierBuiltShapesTest, AfterAll) {
  EXPECT_EQ(VerifyWithWrongShape(R"(
HloModule m
ENTRY e {
  wrong = f32[] parameter(0)
  ROOT c = token[] after-all()
})"),
            "computation 'e': instruction 'c': after-all shape f32[] is not a token");
}

}  // namespace
}  // namespace hloscope
