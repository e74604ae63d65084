#include "support/option_spelling.h"

#include <string>
#include <string_view>

#include "gtest/gtest.h"

namespace hloscope {
namespace {

// A tool's spelling: its flags for the options it has one for, "" for the rest.
std::string AsFlag(std::string_view option) {
  if (option == "top") return "--top";
  if (option == "memory_model") return "--memory-model";
  return "";
}

TEST(OptionSpelling, TheCallerSpellsTheOptionsItKnows) {
  EXPECT_EQ(SpellOption(AsFlag, "top"), "--top");
  EXPECT_EQ(SpellOption(AsFlag, "memory_model"), "--memory-model");
}

TEST(OptionSpelling, AnOptionTheCallerDoesNotKnowKeepsTheApisName) {
  EXPECT_EQ(SpellOption(AsFlag, "assume_donated"), "assume_donated");
}

TEST(OptionSpelling, WithoutASpellingTheApisNameStands) {
  EXPECT_EQ(SpellOption(OptionSpelling(), "top"), "top");
  EXPECT_EQ(SpellOption({}, "stage_regex"), "stage_regex");
}

}  // namespace
}  // namespace hloscope
