#include "pipeline/schedule_csv.h"

#include <string>

#include "pipeline/lowering.h"
#include "pipeline/simulator.h"
#include "gtest/gtest.h"
#include "tests/pipeline/pipeline_test_util.h"

namespace hloscope::pipeline {
namespace {

using ::hloscope::pipeline::testing::Generate;

// PyTorch's lowered form: FSDP and gradient-reduction actions, and DualPipeV's overlapped cells.
TEST(ScheduleCsv, ParsesStageActionsAndOverlapCells) {
  absl::StatusOr<Schedule> s =
      ParseScheduleCsv("0UNSHARD,3UNSHARD,0F0,(3F0;0F1)OVERLAP_F_B,0REDUCE_GRAD\n");
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->rows[0].size(), 6u);
  EXPECT_EQ(s->rows[0][0].kind, ActionKind::kUnshard);
  EXPECT_TRUE(s->rows[0][3].overlaps_next);
  EXPECT_FALSE(s->rows[0][4].overlaps_next);
  EXPECT_EQ(s->num_microbatches, 2);
  EXPECT_EQ(DumpScheduleCsv(*s), "0UNSHARD,3UNSHARD,0F0,(3F0;0F1)OVERLAP_F_B,0REDUCE_GRAD\n");
  // A bad part names the cell, its line and column.
  absl::StatusOr<Schedule> bad = ParseScheduleCsv("0F0\n1F0,(1B0;1RECV_F0)OVERLAP_F_B\n", "x.csv");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("x.csv:2:5: rank 1: cell '(1B0;1RECV_F0)OVERLAP_F_B'"),
            absl::string_view::npos)
      << bad.status();
}

TEST(ScheduleCsv, ParsesPyTorchRowsWithIdleCells) {
  absl::StatusOr<Schedule> s = ParseScheduleCsv("0F0,0F1,,0B0,0B1\n,1F0,1F1,1B0,1B1\n");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->num_ranks(), 2);
  EXPECT_EQ(s->num_stages, 2);
  EXPECT_EQ(s->num_microbatches, 2);
  EXPECT_TRUE(s->rows[0][2].is_idle());
  EXPECT_TRUE(s->rows[1][0].is_idle());
  EXPECT_EQ(s->stage_rank, (std::vector<int32_t>{0, 1}));
}

TEST(ScheduleCsv, RoundTripsGeneratedAndLoweredSchedules) {
  for (const char* name : {"gpipe", "1f1b", "interleaved:2", "zb-h1", "zb-v", "interleaved-zb:2",
                           "looped-bfs:2", "dualpipev"}) {
    const Schedule s = Generate(name, 4, 8);
    absl::StatusOr<Schedule> lowered = AddSendRecv(s);
    ASSERT_TRUE(lowered.ok());
    absl::StatusOr<Schedule> aligned = AlignToSteps(*lowered);
    ASSERT_TRUE(aligned.ok());
    for (const Schedule* original :
         std::initializer_list<const Schedule*>{&s, &*lowered, &*aligned}) {
      const std::string csv = DumpScheduleCsv(*original);
      absl::StatusOr<Schedule> back = ParseScheduleCsv(csv);
      ASSERT_TRUE(back.ok()) << back.status();
      EXPECT_EQ(back->rows, original->rows) << name;
      EXPECT_EQ(back->stage_rank, original->stage_rank) << name;
      EXPECT_EQ(DumpScheduleCsv(*back), csv);
    }
  }
}

TEST(ScheduleCsv, ToleratesCrLfQuotesAndSpaces) {
  absl::StatusOr<Schedule> s = ParseScheduleCsv("\"0F0\", 0B0 \r\n");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(ToString(s->rows[0][0]), "0F0");
  EXPECT_EQ(ToString(s->rows[0][1]), "0B0");
}

TEST(ScheduleCsv, ErrorsNameLineAndColumn) {
  absl::StatusOr<Schedule> s = ParseScheduleCsv("0F0,0B0\n1F0,1Q0\n", "mine.csv");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("mine.csv:2:5: rank 1"), absl::string_view::npos)
      << s.status();
}

TEST(ScheduleCsv, MissingFileIsAnError) {
  EXPECT_FALSE(ReadScheduleCsvFile("/nonexistent/schedule.csv").ok());
}

}  // namespace
}  // namespace hloscope::pipeline
