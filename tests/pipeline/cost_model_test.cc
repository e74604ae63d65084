#include "pipeline/cost_model.h"

#include <vector>

#include "gtest/gtest.h"
#include "support/option_error.h"
#include "support/status_text.h"
#include "tests/pipeline/pipeline_test_util.h"

namespace hloscope::pipeline {
namespace {

using ::hloscope::pipeline::testing::Generate;

TEST(SpreadOverStages, SingleValueIsEachRanksShareSpreadOverItsStages) {
  // 4 ranks with 2 stages each: every stage gets half of a rank's share.
  absl::StatusOr<std::vector<double>> v = SpreadOverStages(std::vector<double>{10}, 4, 8);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, std::vector<double>(8, 5.0));
}

TEST(SpreadOverStages, PartsAreSplitOrMergedInModelOrder) {
  const std::vector<double> parts = {1, 2, 3, 4};
  absl::StatusOr<std::vector<double>> split = SpreadOverStages(parts, 4, 8);
  ASSERT_TRUE(split.ok());
  EXPECT_EQ(*split, (std::vector<double>{0.5, 0.5, 1, 1, 1.5, 1.5, 2, 2}));
  absl::StatusOr<std::vector<double>> merged = SpreadOverStages(parts, 2, 2);
  ASSERT_TRUE(merged.ok());
  EXPECT_EQ(*merged, (std::vector<double>{3, 7}));
}

TEST(SpreadOverStages, IncompatibleCountsAreAnError) {
  absl::StatusOr<std::vector<double>> v = SpreadOverStages(std::vector<double>{1, 2, 3}, 3, 4);
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.status().message().find("cannot be spread"), absl::string_view::npos);
}

TEST(BuildCostModel, FullBackwardDefaultsToInputPlusWeight) {
  const Schedule s = Generate("1f1b", 2, 2);
  CostInputs in;
  in.forward_time = {3};
  in.backward_input_time = {4};
  in.backward_weight_time = {5};
  absl::StatusOr<CostModel> c = BuildCostModel(in, s);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->Duration({0, 0, ActionKind::kBackward}), 9);
  EXPECT_EQ(c->Duration({1, 1, ActionKind::kForward}), 3);
}

TEST(BuildCostModel, MismatchedBackwardPartsNameTheBackwardTimeOption) {
  // The library names the CostInputs field; hlo-pipeline respells it as --backward-time.
  const Schedule s = Generate("1f1b", 2, 2);
  CostInputs in;
  in.forward_time = {3};
  in.backward_input_time = {4, 4};
  in.backward_weight_time = {5, 5, 5};
  absl::StatusOr<CostModel> c = BuildCostModel(in, s);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(StatusText(c.status()),
            "backward-input and backward-weight times have different part counts; give "
            "backward_time explicitly");
  EXPECT_EQ(ErrorOption(c.status()), "backward_time");
}

TEST(BuildCostModel, MicrobatchTokensScaleFromTheLargest) {
  const Schedule s = Generate("gpipe", 2, 3);
  CostInputs in;
  in.forward_time = {100};
  in.activation_bytes = {1000};
  in.microbatch_tokens = {2048, 1024, 512};
  absl::StatusOr<CostModel> c = BuildCostModel(in, s);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->Bytes(0, 0), 1000);
  EXPECT_EQ(c->Bytes(0, 1), 500);
  EXPECT_EQ(c->Bytes(1, 2), 250);
  EXPECT_EQ(c->Duration({0, 2, ActionKind::kForward}), 25);
}

TEST(BuildCostModel, TokenCountMustMatchMicrobatches) {
  const Schedule s = Generate("gpipe", 2, 3);
  CostInputs in;
  in.microbatch_tokens = {1, 2};
  absl::StatusOr<CostModel> c = BuildCostModel(in, s);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("3 microbatches"), absl::string_view::npos) << c.status();
}

}  // namespace
}  // namespace hloscope::pipeline
