#include "pipeline/lowering.h"

#include "pipeline/grid_text.h"
#include "gtest/gtest.h"
#include "tests/pipeline/pipeline_test_util.h"

namespace hloscope::pipeline {
namespace {

using ::hloscope::pipeline::testing::FromText;
using ::hloscope::pipeline::testing::Generate;

TEST(Lowering, SendAfterProducerRecvBeforeConsumer) {
  const Schedule s = FromText({{"0F0", "0B0"}, {"1F0", "1B0"}});
  absl::StatusOr<Schedule> low = AddSendRecv(s);
  ASSERT_TRUE(low.ok()) << low.status();
  EXPECT_EQ(FormatStepGrid(*low),
            "         Rank 0   Rank 1\n"
            "Step 00: 0F0      1RECV_F0\n"
            "Step 01: 0SEND_F0 1F0\n"
            "Step 02: 0RECV_B0 1B0\n"
            "Step 03: 0B0      1SEND_B0\n");
}

TEST(Lowering, SameRankStagesPassDirectly) {
  // ZB-V: the last rank holds stages p-1 and p, which must not talk through SEND/RECV.
  const int p = 4;
  const Schedule s = Generate("zb-v", p, 8);
  absl::StatusOr<Schedule> low = AddSendRecv(s);
  ASSERT_TRUE(low.ok()) << low.status();
  int64_t sends = 0, recvs = 0;
  for (const auto& row : low->rows) {
    for (const Action& a : row) {
      if (!IsComm(a.kind)) continue;
      // Between stages p-1 and p there is nothing to send.
      EXPECT_FALSE(a.kind == ActionKind::kSendForward && a.stage == p - 1) << ToString(a);
      EXPECT_FALSE(a.kind == ActionKind::kRecvForward && a.stage == p) << ToString(a);
      EXPECT_FALSE(a.kind == ActionKind::kSendBackward && a.stage == p) << ToString(a);
      EXPECT_FALSE(a.kind == ActionKind::kRecvBackward && a.stage == p - 1) << ToString(a);
      (IsSend(a.kind) ? sends : recvs)++;
    }
  }
  // 2p stages have 2p-1 edges, of which one is on a rank; each crosses twice per microbatch.
  EXPECT_EQ(sends, 2 * (2 * p - 2) * 8);
  EXPECT_EQ(recvs, sends);
}

TEST(Lowering, RefusesAlreadyLoweredSchedules) {
  absl::StatusOr<Schedule> low = AddSendRecv(Generate("1f1b", 2, 2));
  ASSERT_TRUE(low.ok());
  EXPECT_FALSE(AddSendRecv(*low).ok());
}

TEST(Lowering, RefusesInvalidSchedules) {
  const Schedule s = FromText({{"0F0"}, {"1F0", "1B0"}});  // 0B0 missing
  EXPECT_FALSE(AddSendRecv(s).ok());
}

}  // namespace
}  // namespace hloscope::pipeline
