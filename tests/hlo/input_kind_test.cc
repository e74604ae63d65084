#include "hlo/input_kind.h"

#include <string>

#include "gtest/gtest.h"
#include "hlo/parser.h"
#include "support/option_error.h"
#include "support/status_text.h"

namespace hloscope {
namespace {

bool NoteSays(std::string_view text, std::string_view words) {
  std::optional<std::string> note = NotHloTextNote(text);
  return note.has_value() && note->find(words) != std::string::npos;
}

TEST(NotHloTextNote, NamesBinaryProtoTextProtoAndMlir) {
  EXPECT_TRUE(NoteSays(std::string("\x0a\x05jit_f\x12\x06main.3\x1a\x00", 17), "binary"));
  EXPECT_TRUE(NoteSays("name: \"m\"\ncomputations {\n  name: \"e\"\n}\n", "protobuf text format"));
  EXPECT_TRUE(NoteSays("hlo_module {\n  name: \"m\"\n}\n", "protobuf text format"));
  EXPECT_TRUE(NoteSays("// a comment\nmodule @jit_f {\n  func.func @main() {\n  }\n}\n", "MLIR"));
  EXPECT_TRUE(
      NoteSays("#loc = loc(unknown)\nmodule {\n  %0 = stablehlo.constant dense<1>\n}\n", "MLIR"));
}

TEST(NotHloTextNote, SaysNothingForHloTextEvenWhenDamaged) {
  EXPECT_EQ(NotHloTextNote(""), std::nullopt);
  EXPECT_EQ(NotHloTextNote("HloModule m\nENTRY e {\n  ROOT x = f32[] bogus()\n}\n"), std::nullopt);
  // A NUL byte in an HLO module is damage, not a proto.
  EXPECT_EQ(NotHloTextNote(std::string("HloModule m\n\0\0\0\0ENTRY", 21)), std::nullopt);
  // Computations may be called `module` or `computations`: without MLIR ops or quoted proto
  // fields that is HLO.
  EXPECT_EQ(NotHloTextNote("module {\n  ROOT x = f32[] constant(1)\n  y = bad\n}\n"), std::nullopt);
  EXPECT_EQ(NotHloTextNote("computations {\n  ROOT x = f32[] constant(1)\n}\n"), std::nullopt);
}

TEST(NotHloTextNote, FollowsTheParseErrorAndControlBytesAreShownAsQuestionMarks) {
  auto m =
      ParseModule(std::string("\x0a\x05jit_f\x12\x06main.3\x1a\x00", 17), {.filename = "m.pb"});
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(StatusText(m.status()),
            "m.pb:2:1: error: expected a computation name or 'ENTRY', found byte 0x05\n"
            "?jit_f??main.3??\n"
            "^\n"
            "m.pb: note: the input is binary, not HLO text (an HloModuleProto or HloSnapshot "
            ".pb?); hloscope reads an HloProto or HloModuleProto as a proto unless the input "
            "format is forced to HLO text (input_format)");
  // The note names the option as the library does; a tool spells it as its flag.
  EXPECT_EQ(ErrorOption(m.status()), kInputFormatOption);
  EXPECT_TRUE(absl::IsInvalidArgument(m.status()));
}

TEST(NotHloTextNote, MlirNamesNoOption) {
  auto m = ParseModule("module {\n  func.func @main() {\n  }\n}\n", {.filename = "m.mlir"});
  ASSERT_FALSE(m.ok());
  EXPECT_NE(StatusText(m.status()).find("m.mlir: note: this looks like MLIR"), std::string::npos)
      << StatusText(m.status());
  EXPECT_EQ(ErrorOption(m.status()), "");
}

TEST(ParseModule, ASecondHloModuleNamesTheSplitOption) {
  auto m = ParseModule("HloModule a\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\nHloModule b\n",
                       {.filename = "two.hlo"});
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(StatusText(m.status()),
            "two.hlo:5:1: error: a second 'HloModule' in the same input; separate modules with a "
            "'// -----' line and use split_input_file\n"
            "HloModule b\n"
            "^");
  EXPECT_EQ(ErrorOption(m.status()), "split_input_file");
  // Spelled as a tool's flag in its place, the source line and caret kept.
  const absl::Status spelled = RespellOption(m.status(), [](std::string_view option) {
    return option == "split_input_file" ? std::string("--split-input-file") : std::string();
  });
  EXPECT_EQ(StatusText(spelled),
            "two.hlo:5:1: error: a second 'HloModule' in the same input; separate modules with a "
            "'// -----' line and use --split-input-file\n"
            "HloModule b\n"
            "^");
}

}  // namespace
}  // namespace hloscope
