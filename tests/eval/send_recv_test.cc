// Send/recv between replicas: the pairs attribute's parsing (eval/send_recv_pairs.h) and what
// EvaluateReplicas reports across replicas.
#include <optional>
#include <string>
#include <vector>

#include "eval/replicas.h"
#include "eval/send_recv_pairs.h"
#include "gtest/gtest.h"
#include "support/status_text.h"
#include "support/str_util.h"
#include "tests/eval/eval_test_util.h"

namespace hloscope::eval {
namespace {

// The pairs of the send in a module whose frontend attributes are `attributes`, as text:
// "none", "error: ...", or "0>1 1>2".
std::string PairsOf(std::string_view attributes) {
  std::unique_ptr<Module> m = testing::Parse(StrCat(R"(
HloModule m
ENTRY e {
  x = f32[2] parameter(0)
  tok = token[] after-all()
  s = (f32[2], u32[], token[]) send(x, tok), channel_id=1, frontend_attributes={)",
                                                    attributes, R"(}
  ROOT d = token[] send-done(s), channel_id=1
})"));
  if (m == nullptr) return "parse error";
  const Instruction* send = m->entry()->instructions()[2];
  absl::StatusOr<std::optional<std::vector<SourceTargetPair>>> pairs = SendRecvPairs(*send);
  if (!pairs.ok()) return StrCat("error: ", StatusText(pairs.status()));
  if (!pairs->has_value()) return "none";
  std::string out;
  for (const auto& [s, t] : **pairs) out += StrCat(out.empty() ? "" : " ", s, ">", t);
  return out;
}

TEST(SendRecvPairsTest, ReadsQuotedAndUnquotedPairs) {
  EXPECT_EQ(PairsOf("_xla_send_recv_source_target_pairs={{0,1},{1,2}}"), "0>1 1>2");
  EXPECT_EQ(PairsOf(R"(_xla_send_recv_source_target_pairs="{{3, 0}}")"), "3>0");
  EXPECT_EQ(PairsOf(R"(other="a,b",_xla_send_recv_source_target_pairs={{0,1}},_xla_x=1)"), "0>1");
  EXPECT_EQ(PairsOf("_xla_send_recv_source_target_pairs={}"), "");
  EXPECT_EQ(PairsOf("_xla_send_send_source_target_pairs={{0,1}}"), "none");
}

TEST(SendRecvPairsTest, RefusesPairsThatDoNotParse) {
  EXPECT_EQ(PairsOf("_xla_send_recv_source_target_pairs={{0,1},{2}}"),
            "error: cannot run %s: _xla_send_recv_source_target_pairs={{0,1},{2}} has a pair "
            "without a source (expected {{source,target},...})");
  EXPECT_EQ(PairsOf(R"(_xla_send_recv_source_target_pairs="{{0,-1}}")"),
            "error: cannot run %s: _xla_send_recv_source_target_pairs={{0,-1}} has a pair "
            "without a target (expected {{source,target},...})");
  EXPECT_EQ(PairsOf(R"(_xla_send_recv_source_target_pairs="0,1")"),
            "error: cannot run %s: _xla_send_recv_source_target_pairs=0,1 does not start with "
            "'{' (expected {{source,target},...})");
  EXPECT_EQ(PairsOf(R"(_xla_send_recv_source_target_pairs="{{0,1}} x")"),
            "error: cannot run %s: _xla_send_recv_source_target_pairs={{0,1}} x has text after "
            "its last '}' (expected {{source,target},...})");
}

TEST(SendRecvPairsTest, ReplicasForSendRecvIsTheHighestNamedPlusOne) {
  std::unique_ptr<Module> m = testing::Parse(R"(
HloModule m
ENTRY e {
  x = f32[2] parameter(0)
  tok = token[] after-all()
  r = (f32[2], u32[], token[]) recv(tok), channel_id=1, frontend_attributes={_xla_send_recv_source_target_pairs={{0,1},{4,2}}}
  d = (f32[2], token[]) recv-done(r), channel_id=1
  ROOT g = f32[2] get-tuple-element(d), index=0
})");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(ReplicasForSendRecv(*m), 5);
}

TEST(SendRecvReplicasTest, ReadOnlyOverwritesOfEveryReplicaAreMergedOnce) {
  // dynamic-update-slice writes in place into the constant's buffer on every replica; the
  // caller's list names %c once, as one replica's does.
  std::unique_ptr<Module> m = testing::Parse(R"(
HloModule m
ENTRY e {
  p = f32[1] parameter(0)
  c = f32[2] constant({1, 2})
  i = s32[] constant(1)
  ROOT u = f32[2] dynamic-update-slice(c, p, i)
})");
  ASSERT_NE(m, nullptr);
  std::vector<std::string> single;
  EvalOptions options;
  options.mode = EvalMode::kBuffer;
  options.read_only_overwrites = &single;
  ASSERT_TRUE(Evaluate(*m, RandomArguments(*m, 1), options).ok());
  ASSERT_EQ(single, std::vector<std::string>{"%c"});
  std::vector<std::string> merged = {"stale"};
  options.read_only_overwrites = &merged;
  std::vector<std::vector<Literal>> args = {RandomArguments(*m, 1), RandomArguments(*m, 2)};
  absl::StatusOr<std::vector<Literal>> out = EvaluateReplicas(*m, args, options);
  ASSERT_TRUE(out.ok()) << StatusText(out.status());
  EXPECT_EQ(merged, single);
}

}  // namespace
}  // namespace hloscope::eval
