#include "pipeline/trace_json.h"

#include <map>
#include <regex>
#include <string>

#include "pipeline/lowering.h"
#include "gtest/gtest.h"
#include "tests/pipeline/pipeline_test_util.h"

namespace hloscope::pipeline {
namespace {

using ::hloscope::pipeline::testing::Costs;
using ::hloscope::pipeline::testing::Generate;
using ::hloscope::pipeline::testing::Sim;

int Count(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// Balanced brackets outside strings: a cheap check that the hand-written JSON is well formed.
bool Balanced(const std::string& text) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    if (c == '{' || c == '[') ++depth;
    if (c == '}' || c == ']') --depth;
    if (depth < 0) return false;
  }
  return depth == 0 && !in_string;
}

class TraceJsonTest : public ::testing::Test {
 protected:
  void SetUp() override {
    schedule_ = *AddSendRecv(Generate("1f1b", 4, 8));
    sim_ = Sim(schedule_, Costs(schedule_, 2, 1.5, 1.5, {1 << 20}, {}, 0.25));
    json_ = ChromeTraceJson(schedule_, sim_);
  }
  Schedule schedule_;
  Simulation sim_;
  std::string json_;
};

TEST_F(TraceJsonTest, OneProcessPerRankWithComputeAndCommThreads) {
  EXPECT_TRUE(Balanced(json_));
  EXPECT_EQ(Count(json_, "\"name\":\"process_name\""), 4);
  EXPECT_EQ(Count(json_, "\"args\":{\"name\":\"compute\"}"), 4);
  EXPECT_EQ(Count(json_, "\"args\":{\"name\":\"send/recv\"}"), 4);
  EXPECT_EQ(Count(json_, "\"ph\":\"X\""), schedule_.CountActions());
}

TEST_F(TraceJsonTest, SlicesCarrySimulatedTimes) {
  // 3F0 starts after three forwards and three hops: 3 * (2 + 0.25).
  EXPECT_NE(json_.find("\"name\":\"3F0\",\"cat\":\"forward\",\"pid\":3,\"tid\":0,\"ts\":6.75,"
                       "\"dur\":2"),
            std::string::npos);
}

TEST_F(TraceJsonTest, EverySendFlowsToItsRecv) {
  std::map<std::string, int> out, in;
  const std::regex flow(R"re("bind_id":(\d+),"flow_(out|in)":true)re");
  for (std::sregex_iterator it(json_.begin(), json_.end(), flow), end; it != end; ++it) {
    ((*it)[2] == "out" ? out : in)[(*it)[1]]++;
  }
  int sends = 0;
  for (const auto& row : schedule_.rows) {
    for (const Action& a : row) sends += IsSend(a.kind);
  }
  EXPECT_EQ(static_cast<int>(out.size()), sends);
  EXPECT_EQ(out, in);  // same ids, each once on each side
  for (const auto& [id, n] : out) EXPECT_EQ(n, 1) << id;
}

TEST_F(TraceJsonTest, MemoryCountersFollowTheSimulation) {
  int points = 0;
  for (const auto& m : sim_.memory) points += static_cast<int>(m.size()) + 1;  // + the zero
  EXPECT_EQ(Count(json_, "\"ph\":\"C\""), points);
  // Rank 0 of 1F1B reaches p = 4 microbatches of 1 MiB.
  EXPECT_NE(json_.find("\"pid\":0,\"tid\":0,\"ts\":6,\"args\":{\"bytes\":4194304}"),
            std::string::npos);
}

}  // namespace
}  // namespace hloscope::pipeline
