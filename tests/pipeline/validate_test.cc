#include "pipeline/validate.h"

#include <string>

#include "gtest/gtest.h"
#include "support/status_text.h"
#include "tests/pipeline/pipeline_test_util.h"

namespace hloscope::pipeline {
namespace {

using ::hloscope::pipeline::testing::FromText;
using ::hloscope::pipeline::testing::Generate;

TEST(Validate, GeneratedSchedulesAreValid) {
  for (const char* name : {"gpipe", "1f1b", "interleaved:2", "looped-bfs:3", "zb-h1", "zb-v"}) {
    EXPECT_TRUE(ValidateSchedule(Generate(name, 4, 8)).ok()) << name;
  }
}

TEST(Validate, BackwardBeforeForwardIsMarkedInTheGrid) {
  const Schedule s = FromText({{"0F0", "0B0"}, {"1B0", "1F0"}});
  const absl::Status st = ValidateSchedule(s);
  ASSERT_FALSE(st.ok());
  const std::string msg = StatusText(st);
  EXPECT_NE(msg.find("rank 1, step 00: 1B0 comes before 1F0"), std::string::npos) << msg;
  // The grid marks the cell and says why on its line.
  EXPECT_NE(msg.find("Step 00: 0F0    >1B0<    <-- comes before 1F0 (its forward, step 1)"),
            std::string::npos)
      << msg;
}

TEST(Validate, DuplicatesAndMissingBackwards) {
  const Schedule dup = FromText({{"0F0", "0F0", "0B0"}});
  EXPECT_NE(StatusText(ValidateSchedule(dup)).find("duplicate"), std::string::npos);

  const Schedule missing = FromText({{"0F0", "0F1", "0B0"}});
  const std::string msg = StatusText(ValidateSchedule(missing));
  EXPECT_NE(msg.find("stage 0 (rank 0), microbatch 1: no backward"), std::string::npos) << msg;
}

TEST(Validate, SplitBackwardNeedsBothHalves) {
  const Schedule s = FromText({{"0F0", "0I0"}});
  EXPECT_NE(StatusText(ValidateSchedule(s)).find("no weight backward 0W0"), std::string::npos);
  const Schedule w_first = FromText({{"0F0", "0W0", "0I0"}});
  EXPECT_NE(StatusText(ValidateSchedule(w_first)).find("0W0 comes before 0I0"), std::string::npos);
}

TEST(Validate, AStageBelongsToOneRank) {
  const Schedule s = FromText({{"0F0", "0B0"}, {"0F1", "0B1"}});
  const std::string msg = StatusText(ValidateSchedule(s));
  EXPECT_NE(msg.find("the stage is on rank 0"), std::string::npos) << msg;
}

TEST(Validate, LoweredScheduleNeedsMatchingPairsAndRecvBeforeUse) {
  // SEND without RECV.
  const Schedule unmatched = FromText({{"0F0", "0SEND_F0", "0B0"}, {"1F0", "1B0"}});
  std::string msg = StatusText(ValidateSchedule(unmatched));
  EXPECT_NE(msg.find("has no matching 1RECV_F0"), std::string::npos) << msg;
  // Once any SEND/RECV is there, every cross-rank input needs its RECV first.
  EXPECT_NE(msg.find("1F0 needs 1RECV_F0"), std::string::npos) << msg;
  // A SEND between stages on one rank is a mistake, not a transfer.
  const Schedule local = FromText({{"0F0", "0SEND_F0", "1RECV_F0", "1F0", "1B0", "0B0"}});
  msg = StatusText(ValidateSchedule(local));
  EXPECT_NE(msg.find("both on this rank"), std::string::npos) << msg;
}

TEST(Validate, OutOfRangeIndices) {
  Schedule s = FromText({{"0F0", "0B0"}});
  s.rows[0].push_back({3, 0, ActionKind::kForward});
  EXPECT_NE(StatusText(ValidateSchedule(s)).find("out of range"), std::string::npos);
}

}  // namespace
}  // namespace hloscope::pipeline
