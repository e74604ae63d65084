// support/str_util.h and support/bytes.h: ParseInteger, the one whole-string integer parser the
// tools' flags use, and HumanBytes, the byte counts of hlo-opt's reports.
#include "support/str_util.h"

#include <cstdint>
#include <limits>

#include "gtest/gtest.h"
#include "support/bytes.h"

namespace hloscope {
namespace {

TEST(ParseInteger, TakesTheWholeDecimalText) {
  int64_t v = 7;
  EXPECT_TRUE(ParseInteger("42", &v));
  EXPECT_EQ(v, 42);
  EXPECT_TRUE(ParseInteger("-3", &v));
  EXPECT_EQ(v, -3);
  EXPECT_TRUE(ParseInteger("9223372036854775807", &v));
  EXPECT_EQ(v, std::numeric_limits<int64_t>::max());
}

TEST(ParseInteger, RefusesAnythingElseAndLeavesTheValue) {
  int64_t v = 7;
  for (const char* bad : {"", " 1", "1 ", "+1", "1x", "0x10", "1.5", "9223372036854775808"}) {
    EXPECT_FALSE(ParseInteger(bad, &v)) << "'" << bad << "'";
    EXPECT_EQ(v, 7) << "'" << bad << "'";
  }
  uint32_t u = 5;
  EXPECT_FALSE(ParseInteger("-1", &u));          // no sign where the type has none
  EXPECT_FALSE(ParseInteger("4294967296", &u));  // past uint32
  EXPECT_EQ(u, 5u);
  int32_t i = 0;
  EXPECT_TRUE(ParseInteger("-2147483648", &i));
  EXPECT_EQ(i, std::numeric_limits<int32_t>::min());
}

TEST(HumanBytes, OneDecimalInBinaryUnits) {
  EXPECT_EQ(HumanBytes(0), "0 B");
  EXPECT_EQ(HumanBytes(1023), "1023 B");
  EXPECT_EQ(HumanBytes(1536), "1.5 KiB");
  EXPECT_EQ(HumanBytes(int64_t{5} << 50), "5.0 PiB");
  EXPECT_EQ(HumanBytes(-2048), "-2.0 KiB");
}

}  // namespace
}  // namespace hloscope
