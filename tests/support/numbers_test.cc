// support/checked_int.h, support/bytes.h and support/status_text.h: checked and saturating
// arithmetic, the one byte formatter with its two precisions, and a status's text.
#include <cstdint>
#include <limits>
#include <optional>

#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "support/bytes.h"
#include "support/checked_int.h"
#include "support/status_text.h"

namespace hloscope {
namespace {

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

TEST(CheckedInt, SaysWhenItDoesNotFit) {
  EXPECT_EQ(CheckedMul(int64_t{1} << 31, int64_t{1} << 31), int64_t{1} << 62);
  EXPECT_EQ(CheckedMul(int64_t{1} << 32, int64_t{1} << 31), std::nullopt);
  EXPECT_EQ(CheckedAdd(kInt64Max, 1), std::nullopt);
  EXPECT_EQ(CheckedSub(kMin, 1), std::nullopt);
}

TEST(CheckedInt, SaturatesAtTheMaximumAndSaysSo) {
  EXPECT_EQ(SaturatingAdd(kInt64Max - 1, 1), kInt64Max);
  EXPECT_EQ(SaturatingAdd(kInt64Max, 5), kInt64Max);
  EXPECT_EQ(SaturatingMul(int64_t{1} << 40, int64_t{1} << 40), kInt64Max);
  bool saturated = false;
  EXPECT_EQ(SaturatingAdd(2, 3, &saturated), 5);
  EXPECT_FALSE(saturated);
  EXPECT_EQ(SaturatingAdd(kInt64Max, 1, &saturated), kInt64Max);
  EXPECT_TRUE(saturated);
}

TEST(CheckedInt, ClampsTowardTheAddend) {
  EXPECT_EQ(ClampedAdd(-3, 5), 2);
  EXPECT_EQ(ClampedAdd(kInt64Max, 1), kInt64Max);
  EXPECT_EQ(ClampedAdd(kMin, -1), kMin);
}

TEST(Bytes, OneUnitRuleTwoPrecisions) {
  EXPECT_EQ(FormatBinaryBytes(1536, 1), "1.5 KiB");
  EXPECT_EQ(FormatBinaryBytes(1536, 2), "1.50 KiB");
  EXPECT_EQ(FormatBytes(100), "100 B");
  EXPECT_EQ(FormatBytes(1.5 * 1024 * 1024 * 1024), "1.50 GiB");
  EXPECT_EQ(FormatBytes(-2048), "-2.00 KiB");
  EXPECT_EQ(HumanBytes(1023), "1023 B");
  EXPECT_EQ(HumanBytes(kInt64Max), "8192.0 PiB");  // PiB is the largest unit
}

TEST(Bytes, ASaturatedFigureHasOneSpelling) {
  EXPECT_EQ(FormatCount(0), "0");
  EXPECT_EQ(FormatCount(-7), "-7");
  EXPECT_EQ(FormatCount(kInt64Max - 1), "9223372036854775806");
  EXPECT_EQ(FormatCount(kInt64Max), "overflow (2^63 or more)");
  EXPECT_EQ(HumanBytesOrOverflow(1536), "1.5 KiB");
  EXPECT_EQ(HumanBytesOrOverflow(kInt64Max - 1), "8192.0 PiB");
  EXPECT_EQ(HumanBytesOrOverflow(kInt64Max), "overflow (2^63 or more)");
  EXPECT_EQ(FormatCount(SaturatingMul(int64_t{1} << 40, int64_t{1} << 40)), kSaturatedText);
}

TEST(StatusText, TheMessageWithoutTheCode) {
  EXPECT_EQ(StatusText(absl::InvalidArgumentError("bad: x")), "bad: x");
  EXPECT_EQ(StatusText(absl::OkStatus()), "");
}

}  // namespace
}  // namespace hloscope
