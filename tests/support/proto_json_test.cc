// support/proto_json.h: one printer, two layouts (pretty with every field; one line without
// defaults), on a well-known message so the test needs no schema of its own.
#include "support/proto_json.h"

#include <limits>

#include "google/protobuf/struct.pb.h"
#include "gtest/gtest.h"

namespace hloscope {
namespace {

google::protobuf::Struct Sample() {
  google::protobuf::Struct s;
  (*s.mutable_fields())["name"].set_string_value("a\"b");
  SetNumberOrNull(&(*s.mutable_fields())["finite"], 1.5);
  SetNumberOrNull(&(*s.mutable_fields())["inf"], std::numeric_limits<double>::infinity());
  return s;
}

TEST(ProtoJson, OneLineAndNewline) {
  const std::string line = ProtoJsonLine(Sample());
  EXPECT_EQ(line.find('\n'), line.size() - 1) << line;
  EXPECT_NE(line.find("\"name\":\"a\\\"b\""), std::string::npos) << line;
  EXPECT_NE(line.find("\"inf\":null"), std::string::npos) << line;
  EXPECT_NE(line.find("\"finite\":1.5"), std::string::npos) << line;
}

TEST(ProtoJson, PrettyIsIndented) {
  // One message for both prints: a Struct's fields are a map, whose order may differ between two
  // messages built alike.
  const google::protobuf::Struct sample = Sample();
  auto json = ProtoToJson(sample);
  ASSERT_TRUE(json.ok());
  EXPECT_NE(json->find("\n \"name\": \"a\\\"b\""), std::string::npos) << *json;
  auto same = PrintProtoJson(sample, ProtoJsonLayout::kPretty);
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(*same, *json);
}

}  // namespace
}  // namespace hloscope
