// LoadModule and ParseAndVerify (tools/common/load_module.h): the one way every tool reads, parses and
// verifies a module, and how a failure to read is told from bad input.
#include "tools/common/load_module.h"

#include <string>

#include "gtest/gtest.h"
#include "support/status_text.h"
#include "tests/test_util.h"
#include "tests/tool_test_util.h"

namespace hloscope {
namespace {

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
  ASSERT_TRUE(m.ok()) << StatusText(m.status());
  EXPECT_EQ(m->module->name(), "good");
  EXPECT_EQ(m->file->text(), kGood);
  EXPECT_EQ(m->label, path);
}

TEST_F(LoadModuleTest, AnUnreadableFileIsAReadError) {
  absl::StatusOr<LoadedModule> m = LoadModule(Path("missing.hlo"));
  ASSERT_FALSE(m.ok());
  EXPECT_TRUE(IsReadError(m.status()));
  EXPECT_TRUE(absl::IsNotFound(m.status()));
  EXPECT_EQ(StatusText(m.status()),
            "cannot open '" + Path("missing.hlo") + "': No such file or directory");
}

TEST_F(LoadModuleTest, ParseAndVerifierErrorsAreBadInputNamingTheFile) {
  absl::StatusOr<LoadedModule> bad = LoadModule(Write("bad.hlo", "HloModule m\nENTRY {"));
  ASSERT_FALSE(bad.ok());
  EXPECT_FALSE(IsReadError(bad.status()));
  EXPECT_TRUE(StatusText(bad.status()).starts_with(Path("bad.hlo") + ":2:")) << bad.status();

  absl::StatusOr<LoadedModule> invalid = LoadModule(
      Write("invalid.hlo", kInvalid), {.label = "shown.hlo", .input_format = std::nullopt});
  ASSERT_FALSE(invalid.ok());
  EXPECT_FALSE(IsReadError(invalid.status()));
  // The verifier points into the text: the line of the bad tuple, quoted.
  EXPECT_TRUE(StatusText(invalid.status()).starts_with("shown.hlo:5:")) << invalid.status();
  EXPECT_NE(StatusText(invalid.status()).find("ROOT t = (f32[3]) tuple(p)"), std::string::npos)
      << invalid.status();
}

TEST(ParseAndVerifyTest, CountsLinesFromThePartsFirstLineAndTimesTheSteps) {
  LoadTimes times{.parse_seconds = -1, .verify_seconds = -1};
  absl::StatusOr<std::unique_ptr<Module>> m =
      ParseAndVerify({.text = kGood, .first_line = 10, .filename = "split.hlo"}, &times);
  ASSERT_TRUE(m.ok()) << StatusText(m.status());
  EXPECT_GE(times.parse_seconds, 0);
  EXPECT_GE(times.verify_seconds, 0);
  absl::StatusOr<std::unique_ptr<Module>> bad =
      ParseAndVerify({.text = kInvalid, .first_line = 10, .filename = "split.hlo"});
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(StatusText(bad.status()).starts_with("split.hlo:14:")) << bad.status();
}

TEST(InputNameTest, StandardInputIsNamedSo) {
  EXPECT_EQ(InputName("-"), "<stdin>");
  EXPECT_EQ(InputName("a.hlo"), "a.hlo");
}

// An XLA dump in its binary proto form loads through the same call (issue 28): detected by
// content, read as the HLO text XLA prints, parsed and verified; the text stays with the module.
// A corrupt proto is bad input naming the byte offset, not a read error.
TEST_F(LoadModuleTest, LoadsAnXlaProtoDump) {
  const std::string dump = std::string(HLOSCOPE_CORPUS_DIR) +
                           "/xla_dumps/NVIDIA_JAX-Toolbox__maxtext_fsdp4__module_0003."
                           "jit__unnamed_wrapped_function_.sm_9.0_gpu_after_optimizations.hlo.pb";
  absl::StatusOr<LoadedModule> m = LoadModule(dump);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->module->name(), "jit__unnamed_wrapped_function_");
  EXPECT_TRUE(m->module->is_scheduled());
  ASSERT_NE(m->converted, nullptr);
  EXPECT_TRUE(m->converted->starts_with("HloModule jit__unnamed_wrapped_function_"));

  absl::StatusOr<LoadedModule> forced =
      LoadModule(dump, {.label = "", .input_format = InputFormat::kHloText});
  EXPECT_FALSE(forced.ok());  // read as HLO text, the bytes are no module
  EXPECT_FALSE(IsReadError(forced.status()));

  std::string bytes;
  std::string error;
  ASSERT_TRUE(ReadInput(dump, &bytes, &error)) << error;
  const std::string truncated = Write("truncated.hlo.pb", bytes.substr(0, bytes.size() / 2));
  absl::StatusOr<LoadedModule> bad = LoadModule(truncated);
  ASSERT_FALSE(bad.ok());
  EXPECT_FALSE(IsReadError(bad.status()));
  EXPECT_NE(StatusText(bad.status()).find("byte"), std::string::npos) << bad.status();
}

}  // namespace
}  // namespace hloscope
