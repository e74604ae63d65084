// No number silently wrong, and messages that show what they quote (issue 34), in-process:
//   - known_trip_count is read whole; past int64 it is an error at the backend_config attribute;
//   - a floating-point literal that rounds past its type's largest finite value is out of
//     range, for every floating type (f8, f6, f4 included), in constants (the verifier) and in
//     hlo-run's --inputs (eval::ParseLiteral); the largest value itself and what rounds down
//     to it are kept;
//   - control bytes in a file name are escaped in the parser's error prefix;
//   - a schedule CSV's byte-order mark is skipped and invisible characters are shown escaped.
// Labelled robustness: scripts/test runs it again under ASan+UBSan.
#include <cmath>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "eval/evaluator.h"
#include "fmt/format.h"
#include "gtest/gtest.h"
#include "hlo/float_range.h"
#include "hlo/module.h"
#include "hlo/parser.h"
#include "hlo/verifier.h"
#include "pipeline/schedule_csv.h"
#include "pipeline/visible_text.h"
#include "support/status_text.h"

namespace hloscope {
namespace {

std::string LoopWithTripCount(std::string_view n) {
  return fmt::format(
      "HloModule m\n"
      "c {{\n  p = s32[] parameter(0)\n  ROOT t = pred[] constant(true)\n}}\n"
      "b {{\n  ROOT p = s32[] parameter(0)\n}}\n"
      "ENTRY e {{\n  z = s32[] constant(0)\n"
      "  ROOT w = s32[] while(z), condition=c, body=b, "
      "backend_config={{\"known_trip_count\":{{\"n\":\"{}\"}}}}\n}}\n",
      n);
}

TEST(KnownTripCountTest, IsReadWhole) {
  for (std::string_view n :
       {"0", "7", "1000000000000000000", "9223372036854775807", "0000000000000000000000000042"}) {
    SCOPED_TRACE(n);
    absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(LoopWithTripCount(n));
    ASSERT_TRUE(m.ok()) << m.status();
    std::optional<int64_t> count = (*m)->entry()->root()->known_trip_count();
    ASSERT_TRUE(count.has_value());
    EXPECT_EQ(*count, std::stoll(std::string(n)));
  }
}

TEST(KnownTripCountTest, PastInt64IsAnErrorAtTheAttribute) {
  for (std::string_view n : {"9223372036854775808", "100000000000000000000",
                             "99999999999999999999999999999999999999999999"}) {
    SCOPED_TRACE(n);
    absl::StatusOr<std::unique_ptr<Module>> m =
        ParseModule(LoopWithTripCount(n), {.filename = "loop.hlo"});
    ASSERT_FALSE(m.ok());
    // Line 11, column 49: the `b` of backend_config.
    EXPECT_TRUE(StatusText(m.status())
                    .starts_with("loop.hlo:11:49: error: known_trip_count in backend_config is "
                                 "past the largest int64 (9223372036854775807)\n"))
        << m.status();
  }
}

absl::Status VerifyConstant(std::string_view type, std::string_view literal) {
  const std::string text =
      fmt::format("HloModule m\nENTRY e {{\n  ROOT c = {}[] constant({})\n}}\n", type, literal);
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(text, {.filename = "c.hlo"});
  if (!m.ok()) return m.status();
  return VerifyModule(**m, {.source_text = text});
}

// Every floating type with its largest finite value, a value that rounds down to it, and the
// first value that rounds past it (ties to even: f8e4m3fn's and f8e8m0fnu's midpoints round
// down, the others' up).
struct FloatCase {
  std::string_view type;
  std::string_view largest;
  std::string_view rounds_down;
  std::string_view rounds_past;
};

constexpr FloatCase kFloatCases[] = {
    {"f16", "65504", "65519.99", "65520"},
    {"bf16", "3.3895313892515355e+38", "3.396e+38", "3.3962e+38"},
    {"f32", "3.4028234663852886e+38", "3.4028235e+38", "3.402824e+38"},
    {"f64", "1.7976931348623157e+308", "1.7976931348623157e+308", "1e309"},
    {"f8e5m2", "57344", "61439", "61440"},
    {"f8e4m3", "240", "247", "248"},
    {"f8e4m3fn", "448", "464", "464.001"},
    {"f8e4m3b11fnuz", "30", "30.99", "31"},
    {"f8e5m2fnuz", "57344", "61439", "61440"},
    {"f8e4m3fnuz", "240", "247", "248"},
    {"f8e3m4", "15.5", "15.74", "15.75"},
    {"f8e8m0fnu", "1.7014118346046923e+38", "2.5521177519070385e+38", "2.56e+38"},
    {"f6e2m3fn", "7.5", "7.74", "7.75"},
    {"f6e3m2fn", "28", "29.9", "30"},
    {"f4e2m1fn", "6", "6.9", "7"},
};

TEST(FloatLiteralRangeTest, EveryFloatTypeRejectsWhatRoundsPastItsLargestValue) {
  for (const FloatCase& c : kFloatCases) {
    SCOPED_TRACE(c.type);
    const PrimitiveType type = *ParsePrimitiveType(c.type);
    EXPECT_EQ(fmt::format("{}", LargestFiniteFloat(type)), c.largest);
    for (std::string_view sign : {"", "-"}) {
      if (c.type == "f8e8m0fnu" && sign == "-") continue;  // no negative values at all (below)
      for (std::string_view ok : {c.largest, c.rounds_down}) {
        EXPECT_TRUE(VerifyConstant(c.type, fmt::format("{}{}", sign, ok)).ok())
            << sign << ok << ": " << VerifyConstant(c.type, fmt::format("{}{}", sign, ok));
      }
      const std::string past = fmt::format("{}{}", sign, c.rounds_past);
      absl::Status s = VerifyConstant(c.type, past);
      EXPECT_EQ(StatusText(s).substr(0, StatusText(s).find('\n')),
                fmt::format("c.hlo:3:8: error: computation 'e': instruction 'c': constant "
                            "literal: '{}' is out of range for {}: it rounds past the largest "
                            "finite {}, {} (in the literal of {}[])",
                            past, c.type, c.type, c.largest, c.type));
    }
    // Infinities and NaNs are values, not numbers out of range.
    for (std::string_view special : {"inf", "-inf", "nan"}) {
      EXPECT_TRUE(VerifyConstant(c.type, special).ok()) << special;
    }
  }
}

TEST(FloatLiteralRangeTest, XlaParserTestValues) {
  // XLA's ConstantF16Overflow and ConstantBf16Overflow, and the neighbours that are kept.
  EXPECT_FALSE(VerifyConstant("f16", "-65520").ok());
  EXPECT_TRUE(VerifyConstant("f16", "-65505").ok());
  EXPECT_TRUE(VerifyConstant("bf16", "-65505").ok());
  EXPECT_FALSE(VerifyConstant("bf16", "1e100").ok());
  const absl::Status negative = VerifyConstant("f8e8m0fnu", "-1");
  EXPECT_EQ(StatusText(negative).substr(0, StatusText(negative).find('\n')),
            "c.hlo:3:8: error: computation 'e': instruction 'c': constant literal: '-1' is out of "
            "range for f8e8m0fnu: f8e8m0fnu holds no negative values (in the literal of "
            "f8e8m0fnu[])");
}

TEST(FloatLiteralRangeTest, ArraysAndComplexNumbers) {
  const std::string text =
      "HloModule m\nENTRY e {\n  ROOT c = c64[2] constant({(1, 2), (3, -1e39)})\n}\n";
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(text, {.filename = "c.hlo"});
  ASSERT_TRUE(m.ok()) << m.status();
  absl::Status s = VerifyModule(**m, {.source_text = text});
  EXPECT_TRUE(StatusText(s).starts_with(
      "c.hlo:3:8: error: computation 'e': instruction 'c': constant literal: '-1e39' is out of "
      "range for f32: it rounds past the largest finite f32, 3.4028234663852886e+38 (in the "
      "literal of c64[2])"))
      << s;
}

// hlo-run reads --inputs for the shapes of the entry's parameters.
absl::StatusOr<eval::Literal> ParseArgument(std::string_view shape, std::string_view literal) {
  absl::StatusOr<std::unique_ptr<Module>> m =
      ParseModule(fmt::format("HloModule m\nENTRY e {{\n  ROOT p = {} parameter(0)\n}}\n", shape));
  if (!m.ok()) return m.status();
  return eval::ParseLiteral(literal, (*m)->entry()->parameter(0)->shape());
}

TEST(FloatLiteralRangeTest, HloRunInputsFollowTheSameRule) {
  absl::StatusOr<eval::Literal> l = ParseArgument("f16[2]", "{1, 65520}");
  ASSERT_FALSE(l.ok());
  EXPECT_EQ(StatusText(l.status()),
            "literal column 5: '65520' is out of range for f16: it rounds past the largest "
            "finite f16, 65504");
  l = ParseArgument("f64[]", "-1e400");
  ASSERT_FALSE(l.ok());
  EXPECT_EQ(StatusText(l.status()),
            "literal column 1: '-1e400' is out of range for f64: it rounds past the largest "
            "finite f64, 1.7976931348623157e+308");
  EXPECT_TRUE(ParseArgument("f16[]", "-65505").ok());
  EXPECT_TRUE(ParseArgument("bf16[]", "-inf").ok());
}

TEST(FileNameEscapeTest, ControlBytesInTheFileNameAreEscapedInTheErrorPrefix) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(
      "HloModule m\nENTRY e {\n  ROOT p = f32[] parmeter(0)\n}\n", {.filename = "a\x1b[2J\x07\x7f"
                                                                                "b.hlo"});
  ASSERT_FALSE(m.ok());
  EXPECT_TRUE(StatusText(m.status()).starts_with("a\\x1b[2J\\x07\\x7fb.hlo:3:")) << m.status();
  EXPECT_EQ(StatusText(m.status()).find('\x1b'), std::string_view::npos);
}

TEST(ScheduleCsvTest, ByteOrderMarkIsSkipped) {
  absl::StatusOr<pipeline::Schedule> s = pipeline::ParseScheduleCsv(
      "\xEF\xBB\xBF"
      "0F0,0B0\n1F0\n",
      "bom.csv");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->num_ranks(), 2);
  // Only at the start: elsewhere it is an invisible character in a cell.
  s = pipeline::ParseScheduleCsv(
      "0F0,\xEF\xBB\xBF"
      "0B0\n",
      "mid.csv");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(StatusText(s.status()),
            "mid.csv:1:5: rank 0: action '\\ufeff0B0': unknown kind '\\ufeff0B' (expected F, B, I, "
            "W, SEND_F, RECV_F, SEND_B, RECV_B, UNSHARD, RESHARD, REDUCE_GRAD or an OVERLAP_F_B "
            "cell)");
}

TEST(ScheduleCsvTest, InvisibleCharactersInActionsAreShownEscaped) {
  absl::StatusOr<pipeline::Schedule> s = pipeline::ParseScheduleCsv(
      "0F0,0F\xE2\x80\x8B"
      "0\n",
      "zwsp.csv");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(StatusText(s.status()),
            "zwsp.csv:1:5: rank 0: action '0F\\u200b0': unknown kind 'F\\u200b' (expected F, B, "
            "I, W, SEND_F, RECV_F, SEND_B, RECV_B, UNSHARD, RESHARD, REDUCE_GRAD or an "
            "OVERLAP_F_B cell)");
}

TEST(VisibleTextTest, EscapesWhatCannotBeSeenAndKeepsTheRest) {
  EXPECT_EQ(pipeline::VisibleText("0F0"), "0F0");
  EXPECT_EQ(pipeline::VisibleText("caf\xC3\xA9 \xE6\x97\xA5"), "caf\xC3\xA9 \xE6\x97\xA5");
  EXPECT_EQ(pipeline::VisibleText("a\tb\x1b[0m\x7f"), "a\\x09b\\x1b[0m\\x7f");
  EXPECT_EQ(pipeline::VisibleText("\xC2\xA0\xC2\xAD\xE2\x80\x8B\xE2\x80\xAF\xEF\xBB\xBF"),
            "\\u00a0\\u00ad\\u200b\\u202f\\ufeff");
  EXPECT_EQ(pipeline::VisibleText("\xF3\xA0\x80\x81"), "\\U000e0001");  // a language tag
  // Not UTF-8: a stray continuation byte, an overlong '/', a truncated sequence, a surrogate.
  EXPECT_EQ(pipeline::VisibleText("\x80\xC0\xAF\xE2\x80\xED\xA0\x80"),
            "\\x80\\xc0\\xaf\\xe2\\x80\\xed\\xa0\\x80");
}

}  // namespace
}  // namespace hloscope
