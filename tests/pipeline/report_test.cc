#include "pipeline/report.h"

#include <cmath>
#include <limits>
#include <string>

#include "google/protobuf/struct.pb.h"
#include "gtest/gtest.h"
#include "support/proto_json.h"
#include "tests/pipeline/pipeline_test_util.h"

namespace hloscope::pipeline {
namespace {

using ::hloscope::pipeline::testing::Costs;
using ::hloscope::pipeline::testing::Generate;
using ::hloscope::pipeline::testing::Sim;

constexpr double kGiB = 1024.0 * 1024 * 1024;

TEST(Report, FitsAddsStaticMemoryToThePeak) {
  const Schedule s = Generate("1f1b", 4, 8);
  const Simulation sim = Sim(s, Costs(s, 1, 1, 1, {10 * kGiB}));
  ReportOptions o;
  o.sizes_in_bytes = true;
  o.memory_limit = 50 * kGiB;
  o.static_bytes = {15 * kGiB};
  // Peaks are 40, 30, 20, 10 GiB: only rank 0 exceeds 50 once 15 GiB of weights are added.
  EXPECT_FALSE(Fits(sim, o, 0));
  EXPECT_TRUE(Fits(sim, o, 1));
  EXPECT_FALSE(AllFit(sim, o));
  const std::string text = FormatSummary(s, sim, o);
  EXPECT_NE(text.find("does NOT fit"), std::string::npos) << text;
  EXPECT_NE(text.find("40.00 GiB"), std::string::npos) << text;
}

// Static memory nothing gave is said to be unknown, never counted as 0: a rank whose
// activations fit has fit "not known"; one whose activations alone exceed the limit does not fit.
TEST(Report, UnknownStaticMemoryIsSaidNotCountedAsZero) {
  const Schedule s = Generate("1f1b", 4, 8);
  const Simulation sim = Sim(s, Costs(s, 1, 1, 1, {10 * kGiB}));
  ReportOptions o;
  o.sizes_in_bytes = true;
  o.memory_limit = 35 * kGiB;  // peaks 40, 30, 20, 10 GiB
  o.static_unknown = {"", "no module for stage 1", "", ""};
  o.static_bytes = {1 * kGiB};
  EXPECT_EQ(RankFit(sim, o, 0), Fit::kNo);  // 40 GiB of activations alone
  EXPECT_EQ(RankFit(sim, o, 1), Fit::kNotKnown);
  EXPECT_EQ(RankFit(sim, o, 2), Fit::kYes);
  EXPECT_EQ(StaticBytes(o, 1), 0);
  EXPECT_EQ(StaticUnknown(o, 1), "no module for stage 1");
  const std::string text = FormatSummary(s, sim, o);
  EXPECT_NE(text.find("static memory of rank 1: not known (no module for stage 1)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("not known  not known  not known\n"), std::string::npos) << text;
  const std::string json = SummaryJson(s, sim, o);
  EXPECT_NE(json.find("\"static_unknown\":\"no module for stage 1\"}"), std::string::npos) << json;
  EXPECT_NE(json.find("\"fits\":false,\"per_rank\""), std::string::npos) << json;  // rank 0 over
  o.memory_limit = 45 * kGiB;  // all activations fit; rank 1's total is not known
  EXPECT_EQ(ScheduleFit(sim, o), Fit::kNotKnown);
  const CompareEntry entries[] = {{"1f1b", &s, &sim, "", &o}};
  ReportOptions shared;
  shared.memory_limit = o.memory_limit;
  const std::string table = FormatCompare(entries, shared);
  EXPECT_NE(table.find("not known\n"), std::string::npos) << table;
  EXPECT_NE(table.find("1f1b: static memory of rank 1: not known"), std::string::npos) << table;
  const std::string cj = CompareJson(entries, shared);
  EXPECT_NE(cj.find("\"fits\":null,\"static_per_rank\":[1073741824,0,1073741824,1073741824],"
                    "\"static_unknown\":\"no module for stage 1\""),
            std::string::npos)
      << cj;
}

TEST(Report, CompareHasOneRowPerScheduleAndKeepsErrors) {
  const Schedule a = Generate("gpipe", 4, 8), b = Generate("1f1b", 4, 8);
  const Simulation sa = Sim(a, Costs(a, 1, 1, 1)), sb = Sim(b, Costs(b, 1, 1, 1));
  const CompareEntry entries[] = {{"gpipe", &a, &sa, ""},
                                  {"1f1b", &b, &sb, ""},
                                  {"zb-v", nullptr, nullptr, "needs more microbatches"}};
  ReportOptions o;
  o.memory_limit = 5;
  const std::string table = FormatCompare(entries, o);
  EXPECT_NE(table.find("8.00 8.00 8.00 8.00"), std::string::npos) << table;
  EXPECT_NE(table.find("4.00 3.00 2.00 1.00"), std::string::npos) << table;
  EXPECT_NE(table.find("zb-v: needs more microbatches"), std::string::npos) << table;
  const std::string json = CompareJson(entries, o);
  EXPECT_NE(json.find("\"peak_per_rank\":[4,3,2,1],\"max_peak\":4,\"fits\":true"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"schedule\":\"gpipe\""), std::string::npos);
  // A failed schedule has its name and the reason, and none of the simulated fields.
  EXPECT_NE(json.find("{\"schedule\":\"zb-v\",\"error\":\"needs more microbatches\"}"),
            std::string::npos)
      << json;
  EXPECT_EQ(json.rfind("{\"size_unit\":\"stage-equivalents\",\"memory_limit\":5,", 0), 0u) << json;
  EXPECT_EQ(json.back(), '\n');
}

TEST(Report, CompareJsonWithoutLimitSaysNullForFits) {
  const Schedule a = Generate("1f1b", 2, 4);
  const Simulation sa = Sim(a, Costs(a, 1, 1, 1));
  const CompareEntry entries[] = {{"1f\"1b", &a, &sa, ""}};
  const std::string json = CompareJson(entries, ReportOptions{});
  EXPECT_NE(json.find("\"memory_limit\":null"), std::string::npos) << json;
  EXPECT_NE(json.find("\"fits\":null}"), std::string::npos) << json;
  EXPECT_NE(json.find("\"schedule\":\"1f\\\"1b\""), std::string::npos) << json;  // escaped
}

TEST(ProtoJson, NonFiniteNumbersAreNull) {
  google::protobuf::Value v;
  SetNumberOrNull(&v, std::numeric_limits<double>::infinity());
  EXPECT_EQ(ProtoJsonLine(v), "null\n");
  SetNumberOrNull(&v, std::nan(""));
  EXPECT_EQ(ProtoJsonLine(v), "null\n");
  SetNumberOrNull(&v, 2.5);
  EXPECT_EQ(ProtoJsonLine(v), "2.5\n");
}

TEST(Report, SummaryJsonHasPerRankFields) {
  const Schedule s = Generate("gpipe", 2, 2);
  const Simulation sim = Sim(s, Costs(s, 1, 1, 1));
  const std::string json = SummaryJson(s, sim, ReportOptions{});
  EXPECT_NE(json.find("\"size_unit\":\"stage-equivalents\""), std::string::npos) << json;
  EXPECT_NE(json.find("{\"rank\":1,\"stages\":[1],"), std::string::npos) << json;
  EXPECT_NE(json.find("\"memory_limit\":null"), std::string::npos) << json;
  // Zeros and false are printed, not dropped as protobuf's defaults would be.
  EXPECT_NE(json.find("\"stage_actions\":0,"), std::string::npos) << json;
  EXPECT_NE(json.find("\"static\":0,\"fits\":true}"), std::string::npos) << json;
}

}  // namespace
}  // namespace hloscope::pipeline
