// hlo-opt's proto output (-o FILE.pb, --output-format): exit status 0 / 1 (a module the writer
// cannot express) / 2 (bad usage), and what is left on disk. The outputs themselves are checked
// by testdata/tools/proto_output.hlo.
#include <filesystem>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/tool_test_util.h"

namespace {

namespace fs = std::filesystem;
using Result = ::hloscope::testing::ToolResult;
using ::hloscope::testing::ReadFile;

class HloOptProtoOutputTest : public ::hloscope::testing::ToolTest {
 protected:
  Result Run(const std::string& args) const { return RunTool(HLO_OPT_PATH, args); }
};

constexpr std::string_view kGood = R"(HloModule good

ENTRY main {
  a = f32[2] parameter(0)
  ROOT n = f32[2] negate(a)
}
)";

// `my_hint` has no HloInstructionProto field.
constexpr std::string_view kUnwritable = R"(HloModule unwritable

ENTRY main {
  a = f32[2] parameter(0)
  ROOT n = f32[2] negate(a), my_hint=3
}
)";

TEST_F(HloOptProtoOutputTest, WritesBinaryProtoThatReadsBack) {
  const std::string in = Write("good.hlo", kGood);
  Result text = Run(in);
  Result r = Run(in + " -o " + Path("good.hlo.pb"));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "");
  const std::string bytes = ReadFile(Path("good.hlo.pb"));
  ASSERT_FALSE(bytes.empty());
  // Field 1 (name), length-delimited: a binary HloModuleProto, not text.
  EXPECT_EQ(bytes[0], '\x0a');
  EXPECT_EQ(bytes.find("HloModule"), std::string::npos);
  Result back = Run(Path("good.hlo.pb"));
  EXPECT_EQ(back.code, 0) << back.err;
  EXPECT_EQ(back.out.find("ROOT n = f32[2] negate(a)") != std::string::npos, true) << back.out;
}

TEST_F(HloOptProtoOutputTest, ModuleWithoutProtoFormIsBadInputAndWritesNothing) {
  Result r = Run(Write("unwritable.hlo", kUnwritable) + " -o " + Path("out.hlo.pb"));
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("instruction 'n': attribute 'my_hint'"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(Path("out.hlo.pb")));
}

TEST_F(HloOptProtoOutputTest, FailedWriteKeepsTheOldFile) {
  const std::string out = Write("out.hlo.pb", "old contents");
  Result r = Run(Write("unwritable.hlo", kUnwritable) + " -o " + out);
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(ReadFile(out), "old contents");
}

TEST_F(HloOptProtoOutputTest, BadUsage) {
  const std::string in = Write("good.hlo", kGood);
  for (const std::string& args : std::vector<std::string>{
           " --output-format=json", " --output-format", " -o " + Path("s.pb") + " --stats",
           " --output-format=pb --split-input-file", " --output-format=pbtxt --no-metadata",
           " --output-format=pb --print-style=legacy", " --output-format=pb --check-in-place"}) {
    Result r = Run(in + args);
    EXPECT_EQ(r.code, 2) << args << ": " << r.err;
    EXPECT_EQ(r.out, "") << args;
  }
  EXPECT_FALSE(fs::exists(Path("s.pb")));
}

}  // namespace
