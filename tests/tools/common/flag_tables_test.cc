// Flags declared once (tools/common/flag_table.h): the table's parsing, help rows and "did you
// mean", and for each tool that its --help and its parser come from one table - every flag a help
// row names is parsed, every flag the table parses is in --help, and each one parses with a valid
// value given as `--x=V` and as `--x V`.
#include <functional>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "gtest/gtest.h"
#include "support/option_error.h"
#include "support/status_text.h"
#include "tests/test_util.h"
#include "tests/tool_test_util.h"
#include "tests/tools/flag_test_util.h"
#include "tests/tools/tool_tables.h"
#include "tools/common/flag_table.h"
#include "tools/hlo-gen/options.h"
#include "tools/hlo-opt/hlo_opt_flags.h"
#include "tools/hlo-opt/hlo_opt_option_flags.h"
#include "tools/hlo-pipeline/hlo_pipeline_flags.h"
#include "tools/hlo-run/hlo_run_flags.h"

namespace hloscope {
namespace {

using testing::ParseArgs;

// --- the table itself ---

struct Seen {
  std::optional<std::string> value;
  std::vector<std::string> positional;
  bool flag = false;
};

FlagTable SmallTable(Seen& seen) {
  FlagTable table = testing::HloOptWordedTable();
  table.Section("OPTIONS:", 20);
  table.Add({.names = {"--value"},
             .value = FlagValue::kRequired,
             .placeholder = "V",
             .help = "A value.",
             .handler = [&seen](std::optional<std::string_view> v) {
               if (!v) return FlagError("option '--value' needs a value");
               seen.value = std::string(*v);
               return absl::OkStatus();
             }});
  table.Add({.names = {"--maybe"},
             .value = FlagValue::kOptional,
             .placeholder = "FILE",
             .help = "An optional value; this help is long enough that it must be wrapped at "
                     "the width.\nA forced break.",
             .handler = [&seen](std::optional<std::string_view> v) {
               seen.value = v ? std::string(*v) : "(none)";
               return absl::OkStatus();
             }});
  table.Add({.names = {"-s", "--switch"},
             .help = "A switch.",
             .handler = [&seen](std::optional<std::string_view>) {
               seen.flag = true;
               return absl::OkStatus();
             }});
  table.Add({.names = {"--memory-report"},
             .help = "A long label.",
             .handler = [](std::optional<std::string_view>) { return absl::OkStatus(); },
             .label = "--memory-report=LONG-LABEL"});
  table.Positional([&seen](std::string_view arg) {
    seen.positional.push_back(std::string(arg));
    return absl::OkStatus();
  });
  return table;
}

TEST(FlagTable, ValueAfterEqualsOrAsNextArgument) {
  Seen seen;
  FlagTable table = SmallTable(seen);
  ASSERT_TRUE(ParseArgs(table, {"--value=a=b"}).ok());
  EXPECT_EQ(seen.value, "a=b");  // split at the first '='
  ASSERT_TRUE(ParseArgs(table, {"--value", "-x", "file"}).ok());
  EXPECT_EQ(seen.value, "-x");  // the next argument, whatever it looks like
  EXPECT_EQ(seen.positional, std::vector<std::string>{"file"});
  EXPECT_EQ(StatusText(ParseArgs(table, {"--value"})), "option '--value' needs a value");
}

TEST(FlagTable, OptionalValueOnlyAfterEquals) {
  Seen seen;
  FlagTable table = SmallTable(seen);
  ASSERT_TRUE(ParseArgs(table, {"--maybe", "file"}).ok());
  EXPECT_EQ(seen.value, "(none)");
  EXPECT_EQ(seen.positional, std::vector<std::string>{"file"});
  ASSERT_TRUE(ParseArgs(table, {"--maybe=out.json"}).ok());
  EXPECT_EQ(seen.value, "out.json");
}

TEST(FlagTable, SwitchesAliasesAndTheEndOfOptions) {
  Seen seen;
  FlagTable table = SmallTable(seen);
  ASSERT_TRUE(ParseArgs(table, {"-s", "-", "--", "--switch", "-s"}).ok());
  EXPECT_TRUE(seen.flag);
  EXPECT_EQ(seen.positional, (std::vector<std::string>{"-", "--switch", "-s"}));
  EXPECT_EQ(StatusText(ParseArgs(table, {"--switch=1"})), "option '--switch' takes no value");
}

TEST(FlagTable, UnknownFlagsSuggestTheNearestName) {
  Seen seen;
  FlagTable table = SmallTable(seen);
  EXPECT_EQ(StatusText(ParseArgs(table, {"--memroy-report"})),
            "unknown option '--memroy-report'; did you mean '--memory-report'?");
  EXPECT_EQ(StatusText(ParseArgs(table, {"--swich=3"})),
            "unknown option '--swich=3'; did you mean '--switch'?");
  // Nothing near: no guess. Single letters: no guess either.
  EXPECT_EQ(StatusText(ParseArgs(table, {"--frobnicate"})), "unknown option '--frobnicate'");
  EXPECT_EQ(StatusText(ParseArgs(table, {"-x"})), "unknown option '-x'");
  EXPECT_EQ(table.Nearest("--vaule"), "--value");
}

TEST(FlagTable, RefusesPositionalArgumentsWithoutAHandler) {
  FlagTable table = testing::HloOptWordedTable();
  EXPECT_EQ(StatusText(ParseArgs(table, {"file"})), "unexpected argument 'file'");
}

// Rows at the column, at most 60 characters wide here.
TEST(FlagTable, HelpRowsAreAlignedAndWrapped) {
  Seen seen;
  FlagTable table = SmallTable(seen);
  EXPECT_EQ(table.Help(60),
            "OPTIONS:\n"
            "  --value=V         A value.\n"
            "  --maybe[=FILE]    An optional value; this help is long\n"
            "                    enough that it must be wrapped at the\n"
            "                    width.\n"
            "                    A forced break.\n"
            "  -s, --switch      A switch.\n"
            "  --memory-report=LONG-LABEL\n"
            "                    A long label.\n");
}

TEST(FlagTableDeathTest, ANameDeclaredTwiceAborts) {
  Seen seen;
  EXPECT_DEATH(
      {
        FlagTable table = SmallTable(seen);
        table.Add({.names = {"--other", "--switch"}});
      },
      "flag '--switch' is declared twice");
}

// --- each tool: --help and the parser come from one table ---

// A valid value for every flag that needs one (a new flag must add its own here).
const std::map<std::string, std::string, std::less<>> kSamples = {
    // hlo-opt
    {"-o", "out.hlo"},
    {"--passes", "dce"},
    {"--jobs", "2"},
    {"--print-style", "legacy"},
    {"--bitcast-defines-value", "true"},
    {"--format", "json"},
    {"--input-format", "pb"},
    {"--ordering-of", "a,b"},
    {"--ordering-query", "uses-before-def:v{0},u:1{0,1},w:0"},
    {"--ssa-form", "false"},
    {"--xla-buffer-assignment", "m-buffer-assignment.txt"},
    {"--output-format", "pbtxt"},
    {"--stage-by", "module"},
    {"--stage-regex", "stage(\\d)"},
    {"--forward-regex", "fwd"},
    {"--backward-regex", "bwd"},
    {"--dim-value", "4"},
    {"--top", "3"},
    {"--alignment", "128"},
    {"--multiheap-size-constraint-per-heap", "801"},
    {"--memory-limit", "80GiB"},
    {"--assume-donated", "3,8"},
    {"--replicas", "2"},
    {"--rng-seed", "7"},
    {"--memory-model", "liveness"},
    {"--schedule", "list"},
    {"--timeline", "whole-program"},
    {"--pipeline-schedule", "1f1b"},
    {"--microbatches", "4"},
    {"--tflops", "100"},
    {"--xla-dump", "dump"},
    {"--module", "jit_step"},
    // hlo-run
    {"--seed", "3"},
    {"--mode", "buffer"},
    {"--mode-a", "buffer"},
    {"--mode-b", "value"},
    {"--inputs", "args.txt"},
    {"--max-bytes", "1000"},
    {"--max-steps", "1000"},
    {"--host-io", "seeded"},
    {"--elided-constants", "seeded"},
    {"--custom-calls", "opaque"},
    {"--mixed-precision", "convert"},
    {"--rng-default", "philox"},
    {"--rng-empty-range", "backend"},
    // hlo-gen
    {"--layout", "mpmd"},
    {"--stage", "1"},
    {"--layers", "4"},
    {"--hidden", "64"},
    {"--heads", "4"},
    {"--seq", "16"},
    {"--microbatch", "1"},
    {"--stages", "2"},
    {"--dtype", "f32"},
    {"--remat", "full"},
    {"--xla-copies", "off"},
    // hlo-pipeline (--schedule, --microbatches, --backward-regex, --format: above)
    {"--compare", "1f1b,gpipe"},
    {"--ranks", "4"},
    {"--forward-time", "10,20"},
    {"--backward-time", "10"},
    {"--backward-input-time", "10"},
    {"--backward-weight-time", "10"},
    {"--comm-time", "1"},
    {"--unshard-time", "1"},
    {"--reshard-time", "1"},
    {"--reduce-grad-time", "1"},
    {"--activation-bytes", "1GiB"},
    {"--microbatch-tokens", "100,200"},
    {"--from-hlo", "s0.hlo,s1.hlo"},
    {"--device-tflops", "100"},
    {"--stage-costs", "costs.json"},
    {"--memory-limit", "80GiB"},
    {"--replicas", "2"},
    {"--static-bytes", "1GiB"},
    {"--grid-style", "pytorch"},
    {"--trace", "trace.json"},
    {"--dump-csv", "schedule.csv"},
    {"--recv", "eager"},
};

using testing::Tool;
using testing::Tools;

// The flag names in `text`: '-' or '--' and a letter, at the start or after a space, comma or
// '[' (so "post-order" and "'-'" are not flags).
std::set<std::string> FlagTokens(std::string_view text) {
  static const std::regex kFlag(R"((?:^|[\s,\[])(--?[A-Za-z][A-Za-z0-9-]*))");
  std::set<std::string> out;
  std::string s(text);
  for (auto it = std::sregex_iterator(s.begin(), s.end(), kFlag); it != std::sregex_iterator();
       ++it) {
    out.insert((*it)[1].str());
  }
  return out;
}

class ToolFlagsTest : public testing::ToolTest {};

// The flags whose value names a file the tool reads. Every other flag whose placeholder names a
// file (FILE, PATH, DIR, OUT, a file name) must carry the output mark (Flag::output_file), which
// the output-path checks and tests/robustness/hostile_cli_test.cc go by: a new flag that writes
// a file and is not marked fails here.
const std::map<std::string, std::set<std::string>>& InputFileFlags() {
  static const auto* flags = new std::map<std::string, std::set<std::string>>{
      {"hlo-opt", {"--xla-buffer-assignment", "--xla-dump"}},
      {"hlo-run", {"--inputs"}},
      {"hlo-gen", {}},
      {"hlo-pipeline", {"--from-hlo", "--stage-costs"}},
  };
  return *flags;
}

// Whether a help placeholder says that the value is a file name.
bool NamesAFile(const std::string& placeholder) {
  static const std::regex kNamesAFile(R"(FILE|PATH|DIR|OUT|\.(hlo|json|csv|pb)\b)");
  return std::regex_search(placeholder, kNamesAFile);
}

TEST(ToolFlagTables, EveryFlagNamingAFileIsMarkedOutputOrKnownAsAnInput) {
  for (const Tool& tool : Tools()) {
    SCOPED_TRACE(tool.name);
    std::shared_ptr<void> keep;
    const FlagTable table = tool.table(keep);
    const std::set<std::string>& inputs = InputFileFlags().at(tool.name);
    std::set<std::string> seen_inputs;
    for (const Flag& flag : table.flags()) {
      const std::string& name = flag.names.back();
      SCOPED_TRACE(name + " " + flag.placeholder);
      const bool names_a_file = NamesAFile(flag.placeholder);
      if (inputs.contains(name)) {
        seen_inputs.insert(name);
        EXPECT_FALSE(flag.output_file) << "an input flag is marked as an output";
      } else if (flag.output_file) {
        EXPECT_NE(flag.value, FlagValue::kNone) << "an output flag takes no file";
        EXPECT_TRUE(names_a_file) << "an output flag's placeholder should say it is a file";
      } else {
        EXPECT_FALSE(names_a_file) << "names a file: mark the row output_file, or list it in "
                                      "InputFileFlags if the tool reads it";
      }
    }
    EXPECT_EQ(seen_inputs, inputs) << "an input flag listed here is not in the table";
  }
}

// The rule above on a table of its own: an unmarked flag whose value names a file is caught.
TEST(ToolFlagTables, AnUnmarkedFileFlagIsCaughtByThePlaceholderRule) {
  for (const char* placeholder : {"FILE", "PATH", "DIR", "OUT", "FILE.json", "S0.hlo,S1.hlo"}) {
    EXPECT_TRUE(NamesAFile(placeholder)) << placeholder;
  }
  for (const char* placeholder : {"N", "NAME", "A,B,...", "text|json|csv|html", "RE", "FMT"}) {
    EXPECT_FALSE(NamesAFile(placeholder)) << placeholder;
  }
}

TEST_F(ToolFlagsTest, HelpAndParserComeFromOneTable) {
  for (const Tool& tool : Tools()) {
    SCOPED_TRACE(tool.name);
    std::shared_ptr<void> keep;
    const FlagTable table = tool.table(keep);
    const testing::ToolResult help = RunTool(tool.path, "--help");
    ASSERT_EQ(help.code, 0) << help.err;
    // The binary prints the table's rows.
    const std::string rows = table.Help();
    EXPECT_NE(help.out.find(rows), std::string::npos) << help.out;

    std::set<std::string> names;
    for (const Flag& flag : table.flags()) names.insert(flag.names.begin(), flag.names.end());
    // Every flag a row's label names is one the table parses; every flag the table parses is
    // named on the first line of a row (its label, or the text of the row it shares).
    std::set<std::string> in_labels, in_rows;
    std::istringstream lines(rows);
    for (std::string line; std::getline(lines, line);) {
      if (!line.starts_with("  -")) continue;
      const size_t gap = line.find("  ", 2);
      for (const std::string& t : FlagTokens(line.substr(0, gap))) in_labels.insert(t);
      for (const std::string& t : FlagTokens(line)) in_rows.insert(t);
    }
    for (const std::string& t : in_labels) EXPECT_TRUE(names.contains(t)) << t << " in --help";
    for (const std::string& n : names) EXPECT_TRUE(in_rows.contains(n)) << n << " not in --help";

    // Each flag parses alone: a switch bare, a value as `--x=V` and as `--x V`.
    for (const Flag& flag : table.flags()) {
      for (const std::string& name : flag.names) {
        SCOPED_TRACE(name);
        std::vector<std::vector<std::string>> forms;
        if (flag.value == FlagValue::kRequired) {
          auto sample = kSamples.find(name);
          if (sample == kSamples.end()) {
            ADD_FAILURE() << "add a valid value for " << name << " to kSamples";
            continue;
          }
          forms = {{name + "=" + sample->second}, {name, sample->second}};
        } else {
          forms = {{name}};
        }
        for (const std::vector<std::string>& args : forms) {
          std::shared_ptr<void> fresh;
          const FlagTable parser = tool.table(fresh);
          absl::Status s = ParseArgs(parser, args);
          EXPECT_TRUE(s.ok()) << StatusText(s);
        }
      }
    }
  }
}

TEST_F(ToolFlagsTest, UnknownFlagSuggestsTheNearest) {
  testing::ToolResult r = RunTool(HLO_OPT_PATH, "--memroy-report x.hlo");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            "hlo-opt: error: unknown option '--memroy-report'; did you mean '--memory-report'?\n"
            "Run 'hlo-opt --help' for usage.\n");
}

TEST_F(ToolFlagsTest, HloOptTakesSubFlagValuesAsNextArgument) {
  HloOptFlags flags;
  std::vector<const char*> argv = {"hlo-opt", "--stage-by", "module", "--memory-report",
                                   "a.hlo",   "b.hlo",      "--top",  "3"};
  ASSERT_TRUE(
      ParseHloOptFlags(static_cast<int>(argv.size()), const_cast<char**>(argv.data()), &flags)
          .ok());
  EXPECT_TRUE(flags.memory.enabled);
  EXPECT_EQ(flags.memory.output, "-");  // an optional value is never the next argument
  EXPECT_EQ(flags.memory.options.top_buffers, 3);
  EXPECT_EQ(flags.input, "a.hlo");
  EXPECT_EQ(flags.more_inputs, std::vector<std::string>{"b.hlo"});
}

// hlo-gen took its values only after '=' before its flags were a table.
TEST(HloGenFlags, TakeValuesAsNextArgument) {
  std::vector<std::string> args = {"hlo-gen",  "--layers", "4",  "--stages", "2",
                                   "--layout", "mpmd",     "-o", "out"};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  gen::Options o;
  EXPECT_EQ(gen::ParseOptions(static_cast<int>(argv.size()), argv.data(), &o), "");
  EXPECT_EQ(o.layers, 4);
  EXPECT_EQ(o.stages, 2);
  EXPECT_EQ(o.layout, gen::Layout::kMpmd);
  EXPECT_EQ(o.output, "out");
}

// Library errors name an option as the API spells it and hlo-opt prints its flag instead
// (tools/hlo-opt/hlo_opt_option_flags.h): every flag named there is one hlo-opt parses, and the
// text put in the option's place names it.
TEST(HloOptOptionFlags, EveryOptionIsSpelledAsAFlagHloOptParses) {
  HloOptFlags flags;
  const FlagTable table = HloOptFlagTable(flags);
  std::set<std::string> parsed;
  for (const Flag& flag : table.flags()) parsed.insert(flag.names.begin(), flag.names.end());
  for (const OptionFlag& row : HloOptOptionFlags()) {
    SCOPED_TRACE(std::string(row.option));
    EXPECT_TRUE(parsed.contains(std::string(row.flag)));
    EXPECT_NE(row.text.find(row.flag), std::string_view::npos);
    const absl::Status error = InvalidOptionError("bad ", row.option, " here");
    EXPECT_EQ(StatusText(WithHloOptFlag(error)), fmt::format("bad {} here", row.text));
  }
  // An option hlo-opt has no flag for, and an error naming none, stay as they are.
  EXPECT_EQ(StatusText(WithHloOptFlag(InvalidOptionError("", "count_tuple_tables", " x"))),
            "count_tuple_tables x");
  EXPECT_EQ(StatusText(WithHloOptFlag(absl::InvalidArgumentError("dim_value"))), "dim_value");
}

// hlo-pipeline took its values only after '=' before its flags were a table.
TEST(HloPipelineFlags, TakeValuesAsNextArgument) {
  const char* argv[] = {"hlo-pipeline",   "--schedule", "1f1b",           "--ranks", "4",
                        "--microbatches", "8",          "--forward-time", "1,2"};
  absl::StatusOr<pipeline::PipelineFlags> f = pipeline::ParsePipelineFlags(9, argv);
  ASSERT_TRUE(f.ok()) << StatusText(f.status());
  EXPECT_EQ(f->schedule, "1f1b");
  EXPECT_EQ(f->ranks, 4);
  EXPECT_EQ(f->microbatches, 8);
  EXPECT_EQ(f->forward_time, (std::vector<double>{1, 2}));
  // Its own wording is kept: "--NAME: why", a suggestion when a name is near.
  const char* typo[] = {"hlo-pipeline", "--rank=4"};
  EXPECT_EQ(StatusText(pipeline::ParsePipelineFlags(2, typo).status()),
            "unknown flag '--rank'; did you mean '--ranks'?");
  const char* missing[] = {"hlo-pipeline", "--ranks"};
  EXPECT_EQ(StatusText(pipeline::ParsePipelineFlags(2, missing).status()),
            "--ranks: needs a value (--name=value)");
}

}  // namespace
}  // namespace hloscope
