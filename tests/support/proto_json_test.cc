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

// A string that is not UTF-8 (HLO metadata may hold any bytes; the memory fuzzer's report of a
// module with such an op_name printed "ab" for "a\xffb", and protobuf logged an error): each
// stray byte is written as \xHH text, UTF-8 sequences are kept, in nested messages and lists
// too, and the message printed is left as it was.
TEST(ProtoJson, BytesThatAreNotUtf8AreEscapedNotDropped) {
  google::protobuf::Struct s;
  (*s.mutable_fields())["name"].set_string_value(
      "a\xff"
      "b\xc3\xa9"
      "c\xe2\x82");
  google::protobuf::ListValue* list = (*s.mutable_fields())["list"].mutable_list_value();
  list->add_values()->set_string_value("\xed\xa0\x80");  // a surrogate: not UTF-8
  list->add_values()->set_string_value("ok");
  const std::string line = ProtoJsonLine(s);
  EXPECT_NE(line.find(R"("name":"a\\xFFb)"
                      "\xc3\xa9"
                      R"(c\\xE2\\x82")"),
            std::string::npos)
      << line;
  EXPECT_NE(line.find(R"(["\\xED\\xA0\\x80","ok"])"), std::string::npos) << line;
  // The message printed keeps its bytes (a map's serialization order varies: compare fields).
  EXPECT_EQ(s.fields().at("name").string_value(),
            "a\xff"
            "b\xc3\xa9"
            "c\xe2\x82");
  EXPECT_EQ(s.fields().at("list").list_value().values(0).string_value(), "\xed\xa0\x80");
  auto pretty = ProtoToJson(s);
  ASSERT_TRUE(pretty.ok());
  EXPECT_NE(pretty->find(R"(a\\xFFb)"), std::string::npos) << *pretty;
}

}  // namespace
}  // namespace hloscope
