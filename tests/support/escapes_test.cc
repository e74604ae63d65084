// support/escapes.h: one escaper per output format. C and JSON share the rule for quotes,
// backslashes and line breaks and differ in how other control bytes are written.
#include "support/escapes.h"

#include <string>

#include "gtest/gtest.h"

namespace hloscope {
namespace {

TEST(Escapes, CAndJsonShareTheCommonEscapes) {
  const std::string text = "a\"b\\c\nd\te\rf";
  EXPECT_EQ(EscapeCString(text), "a\\\"b\\\\c\\nd\\te\\rf");
  EXPECT_EQ(JsonString(text), "\"a\\\"b\\\\c\\nd\\te\\rf\"");
}

TEST(Escapes, OtherControlBytesInEachFormsOwnWay) {
  const std::string text = std::string("x\x01y\x1f", 4);
  EXPECT_EQ(EscapeCString(text), "x\\001y\\037");
  EXPECT_EQ(JsonString(text), "\"x\\u0001y\\u001f\"");
  EXPECT_EQ(EscapeControlBytes(std::string("a\x1b[2J\x7f", 6)), "a\\x1b[2J\\x7f");
}

TEST(Escapes, CStringRoundTripsThroughUnescape) {
  const std::string text = std::string("q\"\\\n\t\r\x02\xc3\xa9", 9);
  EXPECT_EQ(UnescapeCString(EscapeCString(text)), text);
}

TEST(Escapes, Utf8IsKept) {
  EXPECT_EQ(JsonString("\xc3\xa9"), "\"\xc3\xa9\"");
  EXPECT_EQ(EscapeControlBytes("\xc3\xa9"), "\xc3\xa9");
}

TEST(Escapes, Html) {
  EXPECT_EQ(HtmlEscape("<a href=\"x\">&</a>"), "&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;");
}

TEST(Escapes, CsvFieldQuotesOnlyWhenItMust) {
  EXPECT_EQ(CsvField("plain name"), "plain name");
  EXPECT_EQ(CsvField("a,b"), "\"a,b\"");
  EXPECT_EQ(CsvField("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(CsvField("line\nbreak"), "\"line\nbreak\"");
  EXPECT_EQ(CsvField("cr\r"), "\"cr\r\"");
}

}  // namespace
}  // namespace hloscope
