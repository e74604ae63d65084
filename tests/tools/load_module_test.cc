// LoadModule and ParseAndVerify (tools/load_module.h): the one way every tool reads, parses and
// verifies a module, and how a failure to read is told from bad input.
#include "tools/load_module.h"

#include <string>

#include "gtest/gtest.h"
#include "tests/test_util.h"
#include "tests/tool_test_util.h"

namespace hloscope {
namespace {

using testing::MessageOf;

constexpr std::string_view kGood = R"(HloModule good

ENTRY main {
  ROOT p = f32[2] parameter(0)
}
)";

// Parses, but the tuple's shape disagrees with its operand: the verifier's error.
constexpr std::string_view kInvalid = R"(HloModule invalid

ENTRY main {
  p = f32[2] parameter(0)
  ROOT t = (f32[3]) tuple(p)
}
)";

class LoadModuleTest : public testing::ToolTest {};

TEST_F(LoadModuleTest, KeepsTheTextWithTheModule) {
  const std::string path = Write("good.hlo", kGood);
  absl::StatusOr<LoadedModule> m = LoadModule(path);
  ASSERT_TRUE(m.ok()) << MessageOf(m.status());
  EXPECT_EQ(m->module->name(), "good");
  EXPECT_EQ(m->file->text(), kGood);
  EXPECT_EQ(m->label, path);
}

TEST_F(LoadModuleTest, AnUnreadableFileIsAReadError) {
  absl::StatusOr<LoadedModule> m = LoadModule(Path("missing.hlo"));
  ASSERT_FALSE(m.ok());
  EXPECT_TRUE(IsReadError(m.status()));
  EXPECT_TRUE(absl::IsNotFound(m.status()));
  EXPECT_EQ(MessageOf(m.status()),
            "cannot open '" + Path("missing.hlo") + "': No such file or directory");
}

TEST_F(LoadModuleTest, ParseAndVerifierErrorsAreBadInputNamingTheFile) {
  absl::StatusOr<LoadedModule> bad = LoadModule(Write("bad.hlo", "HloModule m\nENTRY {"));
  ASSERT_FALSE(bad.ok());
  EXPECT_FALSE(IsReadError(bad.status()));
  EXPECT_TRUE(MessageOf(bad.status()).starts_with(Path("bad.hlo") + ":2:")) << bad.status();

  absl::StatusOr<LoadedModule> invalid =
      LoadModule(Write("invalid.hlo", kInvalid), {.label = "shown.hlo"});
  ASSERT_FALSE(invalid.ok());
  EXPECT_FALSE(IsReadError(invalid.status()));
  // The verifier points into the text: the line of the bad tuple, quoted.
  EXPECT_TRUE(MessageOf(invalid.status()).starts_with("shown.hlo:5:")) << invalid.status();
  EXPECT_NE(MessageOf(invalid.status()).find("ROOT t = (f32[3]) tuple(p)"), std::string::npos)
      << invalid.status();
}

TEST(ParseAndVerifyTest, CountsLinesFromThePartsFirstLineAndTimesTheSteps) {
  LoadTimes times{.parse_seconds = -1, .verify_seconds = -1};
  absl::StatusOr<std::unique_ptr<Module>> m =
      ParseAndVerify({.text = kGood, .first_line = 10, .filename = "split.hlo"}, &times);
  ASSERT_TRUE(m.ok()) << MessageOf(m.status());
  EXPECT_GE(times.parse_seconds, 0);
  EXPECT_GE(times.verify_seconds, 0);
  absl::StatusOr<std::unique_ptr<Module>> bad =
      ParseAndVerify({.text = kInvalid, .first_line = 10, .filename = "split.hlo"});
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(MessageOf(bad.status()).starts_with("split.hlo:14:")) << bad.status();
}

TEST(InputNameTest, StandardInputIsNamedSo) {
  EXPECT_EQ(InputName("-"), "<stdin>");
  EXPECT_EQ(InputName("a.hlo"), "a.hlo");
}

}  // namespace
}  // namespace hloscope
