// Recognising glog line prefixes in HLO pasted from logs (hlo/log_prefix.h).
#include "hlo/log_prefix.h"

#include <gtest/gtest.h>

#include <string>

#include "hlo/parser.h"
#include "hlo/printer.h"

namespace hloscope {
namespace {

TEST(LogPrefixTest, RecognisesEverySeverityAndPadding) {
  EXPECT_EQ(LogPrefixLength("I0521 12:04:45.883483    1509 service.cc:186] HloModule m"),
            std::string("I0521 12:04:45.883483    1509 service.cc:186] ").size());
  EXPECT_EQ(LogPrefixLength("W1231 23:59:59.000001 7 a/b/dump.cc:9] x"),
            std::string("W1231 23:59:59.000001 7 a/b/dump.cc:9] ").size());
  EXPECT_GT(LogPrefixLength("E0101 00:00:00.1 42 f.cc:1] x"), 0u);
  EXPECT_GT(LogPrefixLength("F0101 00:00:00.1 42 f.cc:1] x"), 0u);
  // Nothing after the bracket: an empty log line.
  EXPECT_EQ(LogPrefixLength("I0521 12:04:45.883483    1509 service.cc:186]"),
            std::string("I0521 12:04:45.883483    1509 service.cc:186]").size());
}

TEST(LogPrefixTest, RejectsHloAndNearMisses) {
  EXPECT_EQ(LogPrefixLength("I0521 = f32[] parameter(0)"), 0u);  // an instruction named I0521
  EXPECT_EQ(LogPrefixLength("HloModule m"), 0u);
  EXPECT_EQ(LogPrefixLength(""), 0u);
  EXPECT_EQ(LogPrefixLength("X0521 12:04:45.883483 1509 service.cc:186] x"), 0u);  // severity
  EXPECT_EQ(LogPrefixLength("I052 12:04:45.883483 1509 service.cc:186] x"), 0u);   // date
  EXPECT_EQ(LogPrefixLength("I0521 12:04:45 1509 service.cc:186] x"), 0u);         // no fraction
  EXPECT_EQ(LogPrefixLength("I0521 12:04:45.88 service.cc:186] x"), 0u);           // no thread
  EXPECT_EQ(LogPrefixLength("I0521 12:04:45.88 1509 service.cc] x"), 0u);          // no :line
  EXPECT_EQ(LogPrefixLength("I0521 12:04:45.88 1509 service.cc:18x] x"), 0u);
  EXPECT_EQ(LogPrefixLength("I0521 12:04:45.88 1509 service.cc:186 x"), 0u);  // no ']'
  EXPECT_EQ(LogPrefixLength("I0521 12:04:45.88 1509 :186] x"), 0u);           // no file
}

TEST(LogPrefixTest, BlanksEveryPrefixKeepingPositions) {
  std::string text =
      "I0521 12:04:45.883483    1509 service.cc:186] HloModule m\n"
      "I0521 12:04:45.883483    1509 service.cc:186]\n"
      "  unprefixed line\n"
      "W0521 12:04:45.883483 7 x.cc:1] ENTRY e {\n";
  std::optional<std::string> blanked = BlankLogPrefixes(text);
  ASSERT_TRUE(blanked.has_value());
  EXPECT_EQ(blanked->size(), text.size());
  EXPECT_EQ(*blanked, std::string(46, ' ') + "HloModule m\n" + std::string(45, ' ') + "\n" +
                          "  unprefixed line\n" + std::string(32, ' ') + "ENTRY e {\n");
}

TEST(LogPrefixTest, OnlyWhenTheFirstLineIsPrefixed) {
  EXPECT_FALSE(BlankLogPrefixes("HloModule m\nI0521 12:04:45.8 1 f.cc:1] x\n").has_value());
  EXPECT_FALSE(BlankLogPrefixes("").has_value());
  EXPECT_FALSE(BlankLogPrefixes("  \n\n").has_value());
  // Blank lines before the first prefixed line are fine.
  EXPECT_TRUE(BlankLogPrefixes("\n\nI0521 12:04:45.8 1 f.cc:1] HloModule m\n").has_value());
  // A prefix that does not start its line does not count.
  EXPECT_FALSE(BlankLogPrefixes("  I0521 12:04:45.8 1 f.cc:1] HloModule m\n").has_value());
}

TEST(LogPrefixTest, ParsedModuleOwnsItsTextAfterTheBlankedCopyIsGone) {
  std::string text =
      "I0521 12:04:45.883483 1509 service.cc:186] HloModule m, is_scheduled=true\n"
      "I0521 12:04:45.883483 1509 service.cc:186] ENTRY e {\n"
      "I0521 12:04:45.883483 1509 service.cc:186]   p = f32[4]{0} parameter(0), "
      "metadata={op_name=\"a/b\" source_file=\"x.py\" source_line=3}\n"
      "I0521 12:04:45.883483 1509 service.cc:186]   ROOT n = f32[4]{0} negate(p), "
      "backend_config={\"k\":1}\n"
      "I0521 12:04:45.883483 1509 service.cc:186] }\n";
  auto m = ParseModule(text);
  ASSERT_TRUE(m.ok()) << m.status();
  std::string printed = PrintModule(**m);
  EXPECT_EQ(printed.find("I0521"), std::string::npos);
  EXPECT_NE(printed.find("op_name=\"a/b\""), std::string::npos);
  EXPECT_NE(printed.find("backend_config={\"k\":1}"), std::string::npos);
  // The same text without prefixes prints the same module.
  std::string plain = *BlankLogPrefixes(text);
  auto again = ParseModule(plain);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(PrintModule(**again), printed);
}

}  // namespace
}  // namespace hloscope
