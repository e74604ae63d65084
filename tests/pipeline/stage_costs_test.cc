// pipeline/stage_costs.h: the JSON that hlo-opt --stage-costs writes and hlo-pipeline reads,
// round trip, every error of the reader, and the table hlo-pipeline prints.
#include "pipeline/stage_costs.h"

#include <cmath>
#include <string>

#include "gtest/gtest.h"
#include "support/option_error.h"
#include "support/status_text.h"

namespace hloscope::pipeline {
namespace {

StageCosts TwoStages() {
  StageCosts c;
  c.device_tflops = 312.5;
  c.backward_regex = R"(transpose\()";
  StageCost a;
  a.path = "s0.hlo";
  a.forward_flops = 1638400;
  a.backward_input_flops = 2293760;
  a.backward_weight_flops = 525860864;
  a.dots = 28;
  a.unknown_trip_counts = 1;
  a.forward_us = a.forward_flops / (c.device_tflops * 1e6);
  a.backward_input_us = a.backward_input_flops / (c.device_tflops * 1e6);
  a.backward_weight_us = a.backward_weight_flops / (c.device_tflops * 1e6);
  a.activation_bytes = 10240;
  a.activation_source = "stash";
  a.static_bytes = 4211712;
  StageCost b = a;
  b.static_bytes = std::nullopt;  // a file written before static_bytes was measured
  b.path = "dir with space/s1 \"q\".hlo";
  b.forward_us = 0.1 + 0.2;  // not exact in decimal: the round trip must keep every bit
  b.activation_bytes = 0;
  b.activation_source = "none";
  c.stages = {a, b};
  return c;
}

// A stage's JSON with `field` left out (or every field when it is empty).
std::string StageWithout(std::string_view field) {
  std::string out = "{";
  const std::pair<std::string_view, std::string_view> fields[] = {
      {"path", "\"s.hlo\""},          {"forward_flops", "1"},    {"backward_input_flops", "2"},
      {"backward_weight_flops", "3"}, {"forward_us", "4"},       {"backward_input_us", "5"},
      {"backward_weight_us", "6"},    {"activation_bytes", "7"}, {"activation_source", "\"stash\""},
  };
  for (const auto& [name, value] : fields) {
    if (name == field) continue;
    if (out.size() > 1) out += ",";
    out += "\"" + std::string(name) + "\":" + std::string(value);
  }
  return out + "}";
}

std::string WithStages(std::string_view stages) {
  return "{\"device_tflops\":400,\"stages\":[" + std::string(stages) + "]}";
}

std::string ErrorOf(std::string_view json) {
  absl::StatusOr<StageCosts> c = ParseStageCostsJson(json, "costs.json");
  EXPECT_FALSE(c.ok()) << json;
  return c.ok() ? "" : StatusText(c.status());
}

TEST(StageCosts, JsonRoundTripKeepsEveryField) {
  const StageCosts in = TwoStages();
  const std::string json = StageCostsJson(in);
  EXPECT_EQ(json.back(), '\n');
  EXPECT_EQ(json.find('\n'), json.size() - 1) << "one line";
  absl::StatusOr<StageCosts> out = ParseStageCostsJson(json, "x");
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->device_tflops, in.device_tflops);
  EXPECT_EQ(out->backward_regex, in.backward_regex);
  ASSERT_EQ(out->stages.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    const StageCost& a = in.stages[i];
    const StageCost& b = out->stages[i];
    EXPECT_EQ(b.path, a.path);
    EXPECT_EQ(b.forward_flops, a.forward_flops);
    EXPECT_EQ(b.backward_input_flops, a.backward_input_flops);
    EXPECT_EQ(b.backward_weight_flops, a.backward_weight_flops);
    EXPECT_EQ(b.dots, a.dots);
    EXPECT_EQ(b.unknown_trip_counts, a.unknown_trip_counts);
    EXPECT_EQ(b.static_bytes, a.static_bytes);
    // Bit for bit: --from-hlo through hlo-opt must simulate exactly what it did in-process.
    EXPECT_EQ(b.forward_us, a.forward_us);
    EXPECT_EQ(b.backward_input_us, a.backward_input_us);
    EXPECT_EQ(b.backward_weight_us, a.backward_weight_us);
    EXPECT_EQ(b.activation_bytes, a.activation_bytes);
    EXPECT_EQ(b.activation_source, a.activation_source);
  }
}

TEST(StageCosts, JsonUsesTheSchemaFieldNames) {
  const std::string json = StageCostsJson(TwoStages());
  for (const char* name : {"\"device_tflops\":312.5", "\"backward_regex\":", "\"stages\":[",
                           "\"path\":\"s0.hlo\"", "\"forward_flops\":1638400",
                           "\"backward_input_flops\":", "\"backward_weight_flops\":", "\"dots\":28",
                           "\"unknown_trip_counts\":1", "\"forward_us\":", "\"backward_input_us\":",
                           "\"backward_weight_us\":", "\"activation_bytes\":10240",
                           "\"activation_source\":\"stash\""}) {
    EXPECT_NE(json.find(name), std::string::npos) << name << " in " << json;
  }
}

TEST(StageCosts, OptionalFieldsMayBeLeftOut) {
  absl::StatusOr<StageCosts> c = ParseStageCostsJson(WithStages(StageWithout("")), "x");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->backward_regex, "");
  ASSERT_EQ(c->stages.size(), 1u);
  EXPECT_EQ(c->stages[0].dots, 0);
  EXPECT_EQ(c->stages[0].unknown_trip_counts, 0);
  EXPECT_EQ(c->stages[0].forward_us, 4);
  EXPECT_EQ(c->stages[0].activation_bytes, 7);
}

TEST(StageCosts, NotJsonIsAnErrorNamingTheSource) {
  const std::string e = ErrorOf("per-stage costs from HLO");
  EXPECT_EQ(e.rfind("costs.json: not stage costs JSON (StageCostsJson writes them): ", 0), 0u) << e;
  // The writer is named as an option, so a tool can name its own (hlo-pipeline: hlo-opt's flag).
  EXPECT_EQ(ErrorOption(ParseStageCostsJson("{", "costs.json").status()), kStageCostsWriter);
  EXPECT_NE(ErrorOf("").find("costs.json: not stage costs JSON"), std::string::npos);
  EXPECT_NE(ErrorOf("[1,2]").find("costs.json: not stage costs JSON"), std::string::npos);
}

TEST(StageCosts, AnUnknownFieldIsAnError) {
  const std::string e = ErrorOf(R"({"device_tflops":400,"stagez":[]})");
  EXPECT_NE(e.find("costs.json: not stage costs JSON"), std::string::npos) << e;
  EXPECT_NE(e.find("stagez"), std::string::npos) << e;
}

TEST(StageCosts, AFieldOfTheWrongTypeIsAnError) {
  const std::string e = ErrorOf(WithStages(R"({"path":"s.hlo","forward_flops":"many"})"));
  EXPECT_NE(e.find("costs.json: not stage costs JSON"), std::string::npos) << e;
}

TEST(StageCosts, DeviceTflopsIsRequiredAndPositive) {
  EXPECT_EQ(ErrorOf("{\"stages\":[" + StageWithout("") + "]}"),
            "costs.json: \"device_tflops\" is missing");
  EXPECT_EQ(ErrorOf("{\"device_tflops\":0,\"stages\":[" + StageWithout("") + "]}"),
            "costs.json: \"device_tflops\" is 0; expected a finite number > 0");
  EXPECT_EQ(ErrorOf("{\"device_tflops\":\"Infinity\",\"stages\":[" + StageWithout("") + "]}"),
            "costs.json: \"device_tflops\" is inf; expected a finite number > 0");
}

TEST(StageCosts, NoStagesIsAnError) {
  EXPECT_EQ(ErrorOf(R"({"device_tflops":400})"),
            "costs.json: no stages (\"stages\" is missing or empty)");
  EXPECT_EQ(ErrorOf(R"({"device_tflops":400,"stages":[]})"),
            "costs.json: no stages (\"stages\" is missing or empty)");
}

TEST(StageCosts, EveryRequiredFieldLeftOutIsNamed) {
  for (const char* field :
       {"path", "forward_flops", "backward_input_flops", "backward_weight_flops", "forward_us",
        "backward_input_us", "backward_weight_us", "activation_bytes", "activation_source"}) {
    // The second stage lacks it: the error names that stage by index.
    EXPECT_EQ(ErrorOf(WithStages(StageWithout("") + "," + StageWithout(field))),
              "costs.json: stage 1: \"" + std::string(field) + "\" is missing")
        << field;
  }
}

TEST(StageCosts, NegativeOrNonFiniteNumbersAreErrors) {
  std::string stage = StageWithout("forward_us");
  stage.insert(1, "\"forward_us\":-1,");
  EXPECT_EQ(ErrorOf(WithStages(stage)),
            "costs.json: stage 0: \"forward_us\" is -1; expected a finite number >= 0");
  stage = StageWithout("activation_bytes");
  stage.insert(1, "\"activation_bytes\":\"NaN\",");
  EXPECT_EQ(ErrorOf(WithStages(stage)),
            "costs.json: stage 0: \"activation_bytes\" is nan; expected a finite number >= 0");
  stage = StageWithout("");
  stage.insert(1, "\"dots\":-2,");
  EXPECT_EQ(ErrorOf(WithStages(stage)),
            "costs.json: stage 0: \"dots\" is -2; expected a finite number >= 0");
}

TEST(StageCosts, TableHasOneRowPerStage) {
  const std::string table = FormatStageCosts(TwoStages());
  EXPECT_EQ(table.rfind("per-stage costs from HLO (312.5 TFLOP/s; one microbatch):\n", 0), 0u)
      << table;
  EXPECT_NE(table.find("  stage      F GFLOP      I GFLOP      W GFLOP         F us       I+W us"
                       "       act/mb  act from       static  file\n"),
            std::string::npos)
      << table;
  // Stage 0: 1638400 FLOP = 0.002 GFLOP; I+W = (2293760 + 525860864) / 312.5e6 us = 1.69 us.
  EXPECT_NE(table.find("  0            0.002        0.002        0.526         0.01         1.69"
                       "    10.00 KiB  stash        4.02 MiB  s0.hlo\n"),
            std::string::npos)
      << table;
  // Static memory a file does not give is said to be unknown, not printed as 0.
  EXPECT_NE(table.find("          0 B  none        not known  dir with space/s1 \"q\".hlo\n"),
            std::string::npos)
      << table;
}

}  // namespace
}  // namespace hloscope::pipeline
