// Pass options: declaring them (bool, int, string, enum), setting them from a pass list
// (`name{key=value,...}`), tool-wide defaults that a pass list overrides, the --list-passes
// listing, and every error of the pass-list parser.
#include "passes/pass_options.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "passes/copy_elision.h"
#include "passes/pass_pipeline.h"
#include "passes/pass_registry.h"
#include "passes/pass_report.h"
#include "support/status_text.h"
#include "tests/passes/passes_test_util.h"

namespace hloscope {
namespace {

enum class Order { kForward, kBackward };

// A pass with one option of each type, so the parser's typed paths are exercised without
// depending on which built-in passes have options.
class OptionsPass : public Pass {
 public:
  OptionsPass() {
    PassOptions& o = mutable_pass_options();
    o.AddBool("fast", &fast, "Skip the slow part.");
    o.AddInt("limit", &limit, "At most this many changes.");
    o.AddString("tag", &tag, "A label.");
    o.AddEnum("order", &order, {{"forward", Order::kForward}, {"backward", Order::kBackward}},
              "Visit order.");
  }
  std::string_view name() const override { return "options-pass"; }
  std::string_view description() const override { return "Has options."; }
  absl::StatusOr<bool> RunOnModule(Module&, AnalysisCache&) override { return false; }

  bool fast = false;
  int64_t limit = 10;
  std::string tag = "none";
  Order order = Order::kForward;
};

class PassOptionsTest : public ::testing::Test {
 protected:
  PassOptionsTest() {
    EXPECT_TRUE(registry_.Register<OptionsPass>().ok());
    EXPECT_TRUE(RegisterBuiltinPasses(registry_).ok());
  }

  // The single pass of `list`, as an OptionsPass.
  std::unique_ptr<OptionsPass> Build(std::string_view list, PipelineOptions options = {}) {
    absl::StatusOr<std::unique_ptr<Pass>> pass =
        CreatePass(list, registry_, options.option_defaults);
    EXPECT_TRUE(pass.ok()) << StatusText(pass.status());
    if (!pass.ok()) return nullptr;
    return std::unique_ptr<OptionsPass>(static_cast<OptionsPass*>(pass->release()));
  }

  // The error BuildPipeline gives for `list`.
  std::string ErrorOf(std::string_view list) {
    absl::StatusOr<std::unique_ptr<PassPipeline>> p = BuildPipeline(list, registry_);
    EXPECT_FALSE(p.ok()) << list;
    if (p.ok()) return "";
    EXPECT_EQ(p.status().code(), absl::StatusCode::kInvalidArgument) << list;
    return StatusText(p.status());
  }

  PassRegistry registry_;
};

TEST_F(PassOptionsTest, DeclaredOptionsKeepTheirDefaults) {
  std::unique_ptr<OptionsPass> p = Build("options-pass");
  ASSERT_NE(p, nullptr);
  EXPECT_FALSE(p->fast);
  EXPECT_EQ(p->limit, 10);
  EXPECT_EQ(p->tag, "none");
  EXPECT_EQ(p->order, Order::kForward);
  const std::vector<PassOption>& options = p->pass_options().options();
  ASSERT_EQ(options.size(), 4u);
  EXPECT_EQ(options[0].default_value, "false");
  EXPECT_EQ(options[1].default_value, "10");
  EXPECT_EQ(options[2].default_value, "none");
  EXPECT_EQ(options[3].default_value, "forward");
  EXPECT_EQ(options[3].choices, (std::vector<std::string>{"forward", "backward"}));
  EXPECT_FALSE(p->pass_options().WasSet("fast"));
}

TEST_F(PassOptionsTest, SetsEveryTypeFromTheList) {
  std::unique_ptr<OptionsPass> p =
      Build("options-pass{fast=true, limit=-3,tag=\"a,b}c\" ,order=backward}");
  ASSERT_NE(p, nullptr);
  EXPECT_TRUE(p->fast);
  EXPECT_EQ(p->limit, -3);
  EXPECT_EQ(p->tag, "a,b}c");
  EXPECT_EQ(p->order, Order::kBackward);
  EXPECT_TRUE(p->pass_options().WasSet("limit"));
  // A bare bool option turns it on; empty braces set nothing.
  EXPECT_TRUE(Build("options-pass{fast}")->fast);
  EXPECT_FALSE(Build("options-pass{}")->pass_options().WasSet("fast"));
  EXPECT_EQ(Build("options-pass{tag=}")->tag, "");
}

TEST_F(PassOptionsTest, ToolDefaultsApplyUnlessTheListSetsTheOption) {
  PipelineOptions options;
  options.option_defaults = {{"fast", "true"}, {"limit", "7"}};
  std::unique_ptr<OptionsPass> p = Build("options-pass{limit=2}", options);
  ASSERT_NE(p, nullptr);
  EXPECT_TRUE(p->fast);    // from the defaults
  EXPECT_EQ(p->limit, 2);  // the list wins
  // Passes without the option ignore it.
  EXPECT_TRUE(BuildPipeline("dce,options-pass", registry_, options).ok());
}

TEST_F(PassOptionsTest, EachPassOfTheListHasItsOwnOptions) {
  absl::StatusOr<std::unique_ptr<PassPipeline>> p =
      BuildPipeline("options-pass{limit=1},dce , options-pass", registry_);
  ASSERT_TRUE(p.ok()) << StatusText(p.status());
  ASSERT_EQ((*p)->size(), 3u);
  EXPECT_EQ(static_cast<OptionsPass*>((*p)->pass(0))->limit, 1);
  EXPECT_EQ(static_cast<OptionsPass*>((*p)->pass(2))->limit, 10);
}

TEST_F(PassOptionsTest, CopyElisionDeclaresItsBitcastOption) {
  absl::StatusOr<std::unique_ptr<Pass>> pass =
      CreatePass("copy-elision{bitcast-defines-value=true}", PassRegistry::Global());
  ASSERT_TRUE(pass.ok()) << StatusText(pass.status());
  EXPECT_TRUE(static_cast<CopyElision&>(**pass).options().dataflow.bitcast_defines_value);
  std::vector<std::pair<std::string, std::string>> defaults = {{"bitcast-defines-value", "true"}};
  pass = CreatePass("copy-elision{bitcast-defines-value=false}", PassRegistry::Global(), defaults);
  ASSERT_TRUE(pass.ok());
  EXPECT_FALSE(static_cast<CopyElision&>(**pass).options().dataflow.bitcast_defines_value);
  pass = CreatePass("copy-elision", PassRegistry::Global(), defaults);
  ASSERT_TRUE(pass.ok());
  EXPECT_TRUE(static_cast<CopyElision&>(**pass).options().dataflow.bitcast_defines_value);
}

TEST_F(PassOptionsTest, Listing) {
  OptionsPass p;
  EXPECT_EQ(PassOptionsListing(p.pass_options(), 2),
            "  fast=false (bool): Skip the slow part.\n"
            "  limit=10 (int): At most this many changes.\n"
            "  tag=none (string): A label.\n"
            "  order=forward (enum: forward, backward): Visit order.\n");
  EXPECT_EQ(PassOptionsListing(PassRegistry::Global().Create("dce").value()->pass_options(), 2),
            "");
}

TEST_F(PassOptionsTest, UnknownOptionListsTheDeclaredOnes) {
  EXPECT_EQ(ErrorOf("options-pass{slow=true}"),
            "pass 'options-pass' has no option 'slow' (its options: fast, limit, tag, order)");
  EXPECT_EQ(ErrorOf("dce{fast=true}"), "pass 'dce' has no option 'fast' (it has no options)");
}

TEST_F(PassOptionsTest, BadValues) {
  EXPECT_EQ(ErrorOf("options-pass{fast=yes}"),
            "option 'fast' of pass 'options-pass': 'yes' is not a bool (true or false)");
  EXPECT_EQ(ErrorOf("options-pass{limit=1x}"),
            "option 'limit' of pass 'options-pass': '1x' is not an int (a 64-bit integer)");
  EXPECT_EQ(ErrorOf("options-pass{limit=}"),
            "option 'limit' of pass 'options-pass': '' is not an int (a 64-bit integer)");
  EXPECT_EQ(ErrorOf("options-pass{limit=99999999999999999999}"),
            "option 'limit' of pass 'options-pass': '99999999999999999999' is not an int (a "
            "64-bit integer)");
  EXPECT_EQ(ErrorOf("options-pass{order=sideways}"),
            "option 'order' of pass 'options-pass': 'sideways' is not one of forward, backward");
  EXPECT_EQ(ErrorOf("options-pass{limit}"),
            "option 'limit' of pass 'options-pass' needs a value (limit=VALUE)");
  EXPECT_EQ(ErrorOf("options-pass{fast=true,fast=false}"),
            "option 'fast' of pass 'options-pass' is set twice");
}

TEST_F(PassOptionsTest, SyntaxErrors) {
  EXPECT_EQ(ErrorOf("options-pass{fast=true"),
            "unbalanced braces in pass list 'options-pass{fast=true': no '}' closes the options "
            "of pass 'options-pass'");
  EXPECT_EQ(ErrorOf("options-pass{fast=true,"),
            "unbalanced braces in pass list 'options-pass{fast=true,': no '}' closes the "
            "options of pass 'options-pass'");
  EXPECT_EQ(ErrorOf("dce}"),
            "unbalanced braces in pass list 'dce}': '}' at column 4 closes "
            "nothing");
  EXPECT_EQ(ErrorOf("dce,}"),
            "unbalanced braces in pass list 'dce,}': '}' at column 5 closes "
            "nothing");
  EXPECT_EQ(ErrorOf("options-pass{fast}}"),
            "unbalanced braces in pass list 'options-pass{fast}}': '}' at column 19 closes "
            "nothing");
  EXPECT_EQ(ErrorOf("options-pass{tag={x}}"),
            "unbalanced braces in pass list 'options-pass{tag={x}}': '{' inside the options of "
            "pass 'options-pass'");
  EXPECT_EQ(ErrorOf("options-pass{{}}"),
            "unbalanced braces in pass list 'options-pass{{}}': '{' inside the options of pass "
            "'options-pass'");
  EXPECT_EQ(ErrorOf("options-pass{fast} dce"),
            "expected ',' after the options of pass 'options-pass' in pass list "
            "'options-pass{fast} dce', found 'd'");
  EXPECT_EQ(ErrorOf("options-pass{=1}"),
            "empty option name in the options of pass 'options-pass' in pass list "
            "'options-pass{=1}'");
  EXPECT_EQ(ErrorOf("options-pass{fast,}"),
            "empty option name in the options of pass 'options-pass' in pass list "
            "'options-pass{fast,}'");
  EXPECT_EQ(ErrorOf("options-pass{tag=\"x}"),
            "unterminated '\"' in the options of pass 'options-pass' in pass list "
            "'options-pass{tag=\"x}'");
  EXPECT_EQ(ErrorOf("options-pass{tag=\"x\"y}"),
            "expected ',' or '}' after a quoted value in the options of pass 'options-pass' in "
            "pass list 'options-pass{tag=\"x\"y}'");
  EXPECT_EQ(ErrorOf("dce,"), "empty pass name in pass list 'dce,'");
  EXPECT_EQ(ErrorOf("{fast}"), "empty pass name in pass list '{fast}'");
}

TEST_F(PassOptionsTest, CreatePassTakesOnePass) {
  absl::StatusOr<std::unique_ptr<Pass>> two = CreatePass("dce,dce", registry_);
  ASSERT_FALSE(two.ok());
  EXPECT_EQ(StatusText(two.status()), "'dce,dce' names more than one pass (CreatePass takes one)");
  absl::StatusOr<std::unique_ptr<Pass>> unknown = CreatePass("cse{x=1}", registry_);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kNotFound);
}

// Reports: a pass without one returns null; copy-elision's reads its last run.
TEST_F(PassOptionsTest, PassesPublishTheirReportGenerically) {
  EXPECT_EQ(PassRegistry::Global().Create("dce").value()->LastReport(), nullptr);
  std::unique_ptr<Module> m = passes_testing::Parse(R"(
HloModule m
ENTRY main {
  p = f32[8] parameter(0)
  n = f32[8] negate(p)
  c = f32[8] copy(n)
  ROOT r = f32[8] negate(c)
})");
  ASSERT_NE(m, nullptr);
  std::unique_ptr<Pass> pass = PassRegistry::Global().Create("copy-elision").value();
  ASSERT_TRUE(pass->Run(*m).ok());
  std::unique_ptr<PassReport> report = pass->LastReport();
  ASSERT_NE(report, nullptr);
  EXPECT_EQ(report->Summary("m").substr(0, 38), "copy-elision on m: 1 of 1 copies remov");
  EXPECT_EQ(report->Warning("m"), "");
}

}  // namespace
}  // namespace hloscope
