// Reads from and writes to outside the program (eval/host_io.h, EvalOptions::host_io): refused
// by default as XLA's evaluator refuses infeed and outfeed; seeded reads and logged writes with
// HostIo::kSeeded, per replica with EvaluateReplicas.
#include "eval/host_io.h"

#include <optional>
#include <string>
#include <vector>

#include "eval/evaluator.h"
#include "eval/replicas.h"
#include "gtest/gtest.h"
#include "support/option_error.h"
#include "support/status_text.h"
#include "tests/eval/eval_test_util.h"

namespace hloscope::eval {
namespace {

// Reads an infeed tuple and outfeeds its first element doubled, then the tuple itself.
constexpr const char* kFeeds = R"(
HloModule feeds
ENTRY e {
  tok = token[] after-all()
  in = ((f32[4], s32[2]), token[]) infeed(tok)
  data = (f32[4], s32[2]) get-tuple-element(in), index=0
  x = f32[4] get-tuple-element(data), index=0
  t = token[] get-tuple-element(in), index=1
  twice = f32[4] add(x, x)
  o1 = token[] outfeed(twice, t), outfeed_shape=f32[4]{0}
  o2 = token[] outfeed(data, o1), outfeed_shape=(f32[4]{0}, s32[2]{0})
  ROOT r = f32[4] negate(x)
}
)";

struct SeededRun {
  absl::StatusOr<Literal> out;
  std::vector<OutsideWrite> writes;
};

SeededRun RunSeeded(const Module& m, EvalMode mode, uint64_t seed) {
  SeededRun run;
  EvalOptions options;
  options.mode = mode;
  options.host_io = HostIo::kSeeded;
  options.host_io_seed = seed;
  options.outside_writes = &run.writes;
  run.out = Evaluate(m, {}, options);
  return run;
}

TEST(HostIoTest, RefusedByDefaultNamingTheOption) {
  std::unique_ptr<Module> m = testing::Parse(kFeeds);
  ASSERT_NE(m, nullptr);
  absl::StatusOr<Literal> out = Evaluate(*m, {}, {});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_EQ(StatusText(out.status()),
            "the interpreter does not support opcode 'infeed' (instruction %in)");
  EXPECT_EQ(LiftingOption(out.status()), "host_io");
  EXPECT_EQ(LiftingOption(CheckRunnable(*m, {})), "host_io");
}

TEST(HostIoTest, SeededReadsAndLoggedWrites) {
  std::unique_ptr<Module> m = testing::Parse(kFeeds);
  ASSERT_NE(m, nullptr);
  SeededRun run = RunSeeded(*m, EvalMode::kValue, 5);
  ASSERT_TRUE(run.out.ok()) << StatusText(run.out.status());
  ASSERT_EQ(run.writes.size(), 2u);
  EXPECT_EQ(run.writes[0].kind, "outfeed");
  EXPECT_EQ(run.writes[0].instruction, "o1");
  EXPECT_EQ(run.writes[0].occurrence, 0);
  EXPECT_EQ(run.writes[1].instruction, "o2");
  ASSERT_TRUE(run.writes[1].data.is_tuple());
  // The data read is the stream's first value; the writes and the result follow from it.
  const Literal read = OutsideReads(5).Next(m->entry()->root()->operand(0)->operand(0)->shape());
  ASSERT_TRUE(read.is_tuple());
  EXPECT_EQ(FirstDifference(run.writes[1].data, read), std::nullopt);
  const Literal& x = read.elements()[0];
  for (int64_t i = 0; i < 4; ++i) {
    EXPECT_EQ(run.writes[0].data.GetLinear(i), 2 * x.GetLinear(i));
    EXPECT_EQ(run.out->GetLinear(i), -x.GetLinear(i));
  }
  // Buffer mode reads and writes the same; another seed reads other data.
  SeededRun buffered = RunSeeded(*m, EvalMode::kBuffer, 5);
  ASSERT_TRUE(buffered.out.ok()) << StatusText(buffered.out.status());
  EXPECT_EQ(FirstOutsideWriteDifference(run.writes, buffered.writes, false), std::nullopt);
  SeededRun other = RunSeeded(*m, EvalMode::kValue, 6);
  ASSERT_TRUE(other.out.ok());
  EXPECT_NE(FirstOutsideWriteDifference(run.writes, other.writes, false), std::nullopt);
}

TEST(HostIoTest, WriteDifferencesAreNamed) {
  std::unique_ptr<Module> m = testing::Parse(kFeeds);
  ASSERT_NE(m, nullptr);
  SeededRun a = RunSeeded(*m, EvalMode::kValue, 1);
  ASSERT_TRUE(a.out.ok());
  std::vector<OutsideWrite> changed = a.writes;
  changed[0].data.Set({2}, 100.0);
  const std::string diff = FirstOutsideWriteDifference(a.writes, changed, false).value_or("");
  EXPECT_EQ(diff.rfind("outside write 0 (outfeed %o1 #0): output {}: element [2]: ", 0), 0u)
      << diff;
  EXPECT_TRUE(diff.ends_with(" vs 100")) << diff;
  std::vector<OutsideWrite> fewer(a.writes.begin(), a.writes.begin() + 1);
  EXPECT_EQ(FirstOutsideWriteDifference(a.writes, fewer, false).value_or(""),
            "2 outside writes vs 1");
  std::vector<OutsideWrite> renamed = a.writes;
  renamed[1].instruction = "other";
  EXPECT_EQ(FirstOutsideWriteDifference(a.writes, renamed, true).value_or(""),
            "outside write 1 (replica 0: outfeed %o2 #0) vs replica 0: outfeed %other #0");
}

// A send is logged with its data as the send saw it, even when the buffer is written after.
TEST(HostIoTest, SendLogsItsDataWhenItRuns) {
  std::unique_ptr<Module> m = testing::Parse(R"(
HloModule host_send
ENTRY e {
  p = f32[4] parameter(0)
  tok = token[] after-all()
  c = f32[4] copy(p)
  s = (f32[4], u32[], token[]) send(c, tok), channel_id=3, is_host_transfer=true
  sd = token[] send-done(s), channel_id=3, is_host_transfer=true
  nine = f32[1] constant({9})
  zero = s32[] constant(0)
  ROOT u = f32[4] dynamic-update-slice(c, nine, zero)
}
)");
  ASSERT_NE(m, nullptr);
  std::vector<Literal> args = RandomArguments(*m, 2);
  for (EvalMode mode : {EvalMode::kValue, EvalMode::kBuffer}) {
    std::vector<OutsideWrite> writes;
    EvalOptions options;
    options.mode = mode;
    options.host_io = HostIo::kSeeded;
    options.outside_writes = &writes;
    absl::StatusOr<Literal> out = Evaluate(*m, args, options);
    ASSERT_TRUE(out.ok()) << StatusText(out.status());
    ASSERT_EQ(writes.size(), 1u);
    EXPECT_EQ(writes[0].kind, "send");
    EXPECT_EQ(FirstDifference(args[0], writes[0].data), std::nullopt);
    EXPECT_EQ(out->GetLinear(0), 9.0);
  }
}

TEST(HostIoTest, EachReplicaReadsItsOwnStream) {
  std::unique_ptr<Module> m = testing::Parse(kFeeds);
  ASSERT_NE(m, nullptr);
  std::vector<OutsideWrite> writes;
  EvalOptions options;
  options.host_io = HostIo::kSeeded;
  options.host_io_seed = 5;
  options.outside_writes = &writes;
  absl::StatusOr<std::vector<Literal>> outs = EvaluateReplicas(*m, {{}, {}}, options);
  ASSERT_TRUE(outs.ok()) << StatusText(outs.status());
  ASSERT_EQ(writes.size(), 4u);
  EXPECT_EQ(writes[0].replica, 0);
  EXPECT_EQ(writes[2].replica, 1);
  // Replica R reads the stream of seed + R: replica 0 as a run alone of seed 5, replica 1 as
  // one of seed 6.
  SeededRun five = RunSeeded(*m, EvalMode::kValue, 5);
  SeededRun six = RunSeeded(*m, EvalMode::kValue, 6);
  ASSERT_TRUE(five.out.ok() && six.out.ok());
  EXPECT_EQ(FirstDifference((*outs)[0], *five.out), std::nullopt);
  EXPECT_EQ(FirstDifference((*outs)[1], *six.out), std::nullopt);
  EXPECT_EQ(FirstDifference(writes[3].data, six.writes[1].data), std::nullopt);
  EXPECT_EQ(
      FormatOutsideWrite(writes[0], false, true).rfind("replica 0: outfeed %o1 #0: f32[4] {", 0),
      0u);
}

}  // namespace
}  // namespace hloscope::eval
