// The lexical grammar of literal text (hlo/literal_text.h) that the verifier's constant rule and
// the interpreter's literal parser share.
#include "hlo/literal_text.h"

#include "gtest/gtest.h"

namespace hloscope {
namespace {

TEST(LiteralCursor, ReadsPunctuationAndWordsSkippingSpaceAndComments) {
  LiteralCursor cur(" {1, /*index=1*/ -2.5e3,true}  ");
  EXPECT_EQ(cur.Peek(), '{');
  EXPECT_FALSE(cur.Consume('('));
  EXPECT_TRUE(cur.Consume('{'));
  EXPECT_EQ(cur.Word(), "1");
  EXPECT_TRUE(cur.Consume(','));
  EXPECT_EQ(cur.Word(), "-2.5e3");
  EXPECT_EQ(cur.pos(), 23u);
  EXPECT_TRUE(cur.Consume(','));
  EXPECT_EQ(cur.Word(), "true");
  EXPECT_FALSE(cur.AtEnd());
  EXPECT_EQ(cur.Word(), "");  // '}' starts no word, and is left where it is
  EXPECT_TRUE(cur.Consume('}'));
  EXPECT_TRUE(cur.AtEnd());
  EXPECT_EQ(cur.Peek(), '\0');
}

TEST(LiteralCursor, TakesANanPayloadOnlyWhenAsked) {
  LiteralCursor with("-nan(0x7f800001) 2");
  EXPECT_EQ(with.Word(/*nan_payload=*/true), "-nan(0x7f800001)");
  EXPECT_EQ(with.Word(), "2");
  LiteralCursor without("nan(0x1)");
  EXPECT_EQ(without.Word(), "nan");
  EXPECT_EQ(without.Peek(), '(');
  // Only a word that ends in nan has a payload; an unclosed one stays out of the word.
  LiteralCursor number("1(2)");
  EXPECT_EQ(number.Word(true), "1");
  LiteralCursor open("nan(0x1");
  EXPECT_EQ(open.Word(true), "nan");
}

TEST(LiteralCursor, SeesAnEllipsisWithoutConsumingIt) {
  LiteralCursor cur("{ ...}");
  EXPECT_FALSE(cur.AtEllipsis());
  EXPECT_TRUE(cur.Consume('{'));
  EXPECT_TRUE(cur.AtEllipsis());
  EXPECT_EQ(cur.Peek(), '.');
  const size_t at = cur.pos();
  EXPECT_EQ(cur.Word(), "...");
  cur.set_pos(at);
  EXPECT_EQ(cur.pos(), at);
  EXPECT_TRUE(cur.AtEllipsis());
}

}  // namespace
}  // namespace hloscope
