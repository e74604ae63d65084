// support/option_error.h: the library names an option its way, a caller respells it; a prefix
// added on the way up keeps the place, and user text that contains the name is never touched.
// A refusal an option would lift gets the caller's spelling appended.
#include "support/option_error.h"

#include <string>
#include <string_view>

#include "gtest/gtest.h"
#include "support/status_text.h"

namespace hloscope {
namespace {

std::string AsFlag(std::string_view option) {
  return option == "dim_value" ? "--dim-value" : option == "stage_regex" ? "--stage-regex" : "";
}

TEST(OptionError, NamesTheOptionAsTheLibrarySpellsIt) {
  const absl::Status status = InvalidOptionError("", "stage_regex", " 'x' has no capture group");
  EXPECT_TRUE(absl::IsInvalidArgument(status));
  EXPECT_EQ(StatusText(status), "stage_regex 'x' has no capture group");
  EXPECT_EQ(ErrorOption(status), "stage_regex");
}

TEST(OptionError, RespelledWhereTheNameStandsOnly) {
  // The module is called dim_value too: only the option's own place changes.
  const absl::Status status =
      InvalidOptionError("module 'dim_value': p is unbounded; size it with ", "dim_value", "=N");
  const absl::Status spelled = RespellOption(status, AsFlag);
  EXPECT_EQ(StatusText(spelled), "module 'dim_value': p is unbounded; size it with --dim-value=N");
  EXPECT_TRUE(absl::IsInvalidArgument(spelled));
  EXPECT_EQ(ErrorOption(spelled), "");  // spelled once
}

TEST(OptionError, APrefixKeepsThePlace) {
  const absl::Status status =
      PrefixError(InvalidOptionError("", "stage_regex", " 'stage_regex(' is not valid"), "a.hlo: ");
  EXPECT_EQ(ErrorOption(status), "stage_regex");
  EXPECT_EQ(StatusText(RespellOption(status, AsFlag)),
            "a.hlo: --stage-regex 'stage_regex(' is not valid");
}

TEST(OptionError, OtherErrorsAndUnknownOptionsStayAsTheyAre) {
  const absl::Status plain = absl::InvalidArgumentError("dim_value is wrong");
  EXPECT_EQ(ErrorOption(plain), "");
  EXPECT_EQ(StatusText(RespellOption(plain, AsFlag)), "dim_value is wrong");
  EXPECT_EQ(StatusText(PrefixError(plain, "x: ")), "x: dim_value is wrong");
  const absl::Status unknown = InvalidOptionError("", "top", " must be positive");
  EXPECT_EQ(StatusText(RespellOption(unknown, AsFlag)), "top must be positive");
  EXPECT_EQ(ErrorOption(unknown), "top");
}

TEST(OptionError, AMessageRewrittenWithoutTheHelperNamesNoOption) {
  // A caller that builds a new status from the text (no payload) or whose text no longer
  // holds the name where recorded: nothing is replaced at a wrong place.
  absl::Status status = InvalidOptionError("", "dim_value", " is needed");
  absl::Status rewritten(status.code(), "something else entirely");
  rewritten.SetPayload("hloscope/option-error", *status.GetPayload("hloscope/option-error"));
  EXPECT_EQ(ErrorOption(rewritten), "");
  EXPECT_EQ(StatusText(RespellOption(rewritten, AsFlag)), "something else entirely");
}

std::string AsRunFlag(std::string_view option) {
  return option == "max_steps" ? "--max-steps" : "";
}

TEST(OptionError, ALiftingOptionIsAppendedNotReplaced) {
  // The message does not name the option; the caller appends its own spelling.
  const absl::Status status =
      LiftedByOption(absl::ResourceExhaustedError("the run took max_steps steps"), "max_steps");
  EXPECT_TRUE(absl::IsResourceExhausted(status));
  EXPECT_EQ(LiftingOption(status), "max_steps");
  EXPECT_EQ(ErrorOption(status), "");
  const absl::Status spelled = RespellOption(status, AsRunFlag);
  EXPECT_EQ(StatusText(spelled), "the run took max_steps steps (--max-steps)");
  EXPECT_TRUE(absl::IsResourceExhausted(spelled));
  EXPECT_EQ(LiftingOption(spelled), "");  // spelled once
}

TEST(OptionError, APrefixKeepsTheLiftingOption) {
  const absl::Status status = PrefixError(
      LiftedByOption(absl::ResourceExhaustedError("too long"), "max_steps"), "replica 1: ");
  EXPECT_EQ(LiftingOption(status), "max_steps");
  EXPECT_EQ(StatusText(RespellOption(status, AsRunFlag)), "replica 1: too long (--max-steps)");
}

TEST(OptionError, ALiftingOptionTheCallerDoesNotSpellIsLeftOut) {
  const absl::Status status = LiftedByOption(absl::ResourceExhaustedError("too big"), "max_bytes");
  EXPECT_EQ(StatusText(RespellOption(status, AsRunFlag)), "too big");
  EXPECT_EQ(LiftingOption(absl::ResourceExhaustedError("too big")), "");
  EXPECT_TRUE(LiftedByOption(absl::OkStatus(), "max_steps").ok());
  EXPECT_EQ(LiftingOption(LiftedByOption(absl::OkStatus(), "max_steps")), "");
}

}  // namespace
}  // namespace hloscope
