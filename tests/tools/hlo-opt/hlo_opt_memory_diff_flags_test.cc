// hlo-opt's --memory-diff flag (tools/hlo-opt/hlo_opt_memory_diff.h), in-process: parsing, the checks
// against the other flags (also the --xla-dump=DIR form, which a dump directory's reader
// resolves), and LoadModuleFile's two kinds of error. The command line's messages and exit
// codes are testdata/analysis/memory/memory_diff_errors.test.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "gtest/gtest.h"
#include "support/status_text.h"
#include "tests/test_util.h"
#include "tests/tools/flag_test_util.h"
#include "tools/hlo-opt/hlo_opt_memory_diff.h"

namespace hloscope {
namespace {

// `--memory-diff` (value nullopt) or `--memory-diff=VALUE` through a table of the flag alone.
absl::Status Parse(MemoryDiffFlags& f, std::optional<std::string_view> value,
                   std::string_view name = "--memory-diff") {
  FlagTable table = testing::HloOptWordedTable();
  AddMemoryDiffFlags(table, f);
  return testing::ParseFlag(table, name, value);
}

TEST(MemoryDiffFlag, ParsesBothForms) {
  MemoryDiffFlags f;
  EXPECT_FALSE(Parse(f, std::nullopt, "--memory-report").ok());  // not this group's
  EXPECT_FALSE(f.enabled);
  EXPECT_TRUE(Parse(f, std::nullopt).ok());
  EXPECT_TRUE(f.enabled);
  EXPECT_TRUE(f.dump_modules.empty());
  EXPECT_TRUE(Parse(f, "3,module_0007.jit_step").ok());
  ASSERT_EQ(f.dump_modules.size(), 2u);
  EXPECT_EQ(f.dump_modules[0], "3");
  EXPECT_EQ(f.dump_modules[1], "module_0007.jit_step");
}

TEST(MemoryDiffFlag, RefusesValuesThatAreNotTwoIds) {
  for (std::string_view value : {"", "1", ",2", "1,", "1,2,3"}) {
    MemoryDiffFlags f;
    EXPECT_EQ(StatusText(Parse(f, value)),
              "option '--memory-diff=' needs two modules of a dump directory as ID1,ID2, "
              "not '" +
                  std::string(value) + "' (to compare two files: --memory-diff A B)")
        << value;
  }
}

MemoryDiffContext TwoFiles() {
  MemoryDiffContext c;
  c.files = {"a.hlo", "b.hlo"};
  return c;
}

TEST(MemoryDiffFlag, Checks) {
  MemoryDiffFlags f;
  f.enabled = true;
  MemoryFlags memory;
  EXPECT_EQ(CheckMemoryDiffFlags(f, memory, TwoFiles()), "");
  // Off: nothing to check.
  EXPECT_EQ(CheckMemoryDiffFlags(MemoryDiffFlags{}, memory, MemoryDiffContext{}), "");

  MemoryDiffContext c = TwoFiles();
  c.other_mode_flag = "--stats";
  EXPECT_EQ(CheckMemoryDiffFlags(f, memory, c), "--memory-diff cannot be combined with --stats");

  MemoryFlags html;
  html.format = MemoryFormat::kHtml;
  EXPECT_EQ(CheckMemoryDiffFlags(f, html, TwoFiles()), "");
  MemoryFlags csv;
  csv.format = MemoryFormat::kCsv;
  EXPECT_EQ(CheckMemoryDiffFlags(f, csv, TwoFiles()),
            "--memory-diff prints text, json or html, not csv");

  MemoryFlags to_file;
  to_file.output = "diff.txt";
  EXPECT_EQ(CheckMemoryDiffFlags(f, to_file, TwoFiles()), "");
  c = TwoFiles();
  c.output = "other.txt";
  EXPECT_EQ(CheckMemoryDiffFlags(f, to_file, c),
            "--memory-diff writes one output: give -o FILE or --memory-report=FILE, not both");

  c = TwoFiles();
  c.files.push_back("c.hlo");
  EXPECT_EQ(CheckMemoryDiffFlags(f, memory, c),
            "--memory-diff compares two files; a third was given: 'c.hlo'");
  c.files = {"a.hlo"};
  EXPECT_EQ(CheckMemoryDiffFlags(f, memory, c),
            "--memory-diff needs two module files: hlo-opt --memory-diff A B");
  c.files = {"-", "b.hlo"};
  EXPECT_EQ(CheckMemoryDiffFlags(f, memory, c), "");
  c.files = {"-", "-"};
  EXPECT_EQ(CheckMemoryDiffFlags(f, memory, c),
            "--memory-diff: only one of A and B can be standard input ('-')");
}

// --xla-dump=DIR --memory-diff=ID1,ID2: no files; either without the other is refused.
TEST(MemoryDiffFlag, ChecksTheDumpDirectoryForm) {
  MemoryDiffFlags ids;
  ids.enabled = true;
  ids.dump_modules = {"1", "2"};
  MemoryFlags memory;
  MemoryDiffContext dump;
  dump.xla_dump = true;
  EXPECT_EQ(CheckMemoryDiffFlags(ids, memory, dump), "");
  EXPECT_EQ(CheckMemoryDiffFlags(ids, memory, MemoryDiffContext{}),
            "--memory-diff=ID1,ID2 names two modules of a dump directory and needs "
            "--xla-dump=DIR (to compare two files: --memory-diff A B)");
  MemoryDiffContext dump_and_file = dump;
  dump_and_file.files = {"a.hlo"};
  EXPECT_EQ(CheckMemoryDiffFlags(ids, memory, dump_and_file),
            "--memory-diff=ID1,ID2 reads its modules from --xla-dump=DIR, not from 'a.hlo'");
  MemoryDiffFlags files;
  files.enabled = true;
  EXPECT_EQ(CheckMemoryDiffFlags(files, memory, dump),
            "--memory-diff with --xla-dump=DIR needs the two modules as --memory-diff=ID1,ID2");
}

std::string WriteTemp(std::string_view name, std::string_view text) {
  const std::string path =
      (std::filesystem::temp_directory_path() /
       (std::string("hloscope_memdiff_") + std::to_string(::getpid()) + "_" + std::string(name)))
          .string();
  std::ofstream(path) << text;
  return path;
}

TEST(LoadModuleFile, ReadsParsesAndFlattens) {
  // `body` is called by two whiles: flattening gives each its own.
  const std::string path = WriteTemp("two_sites.hlo", R"(
HloModule two_sites
cond {
  cp = s32[] parameter(0)
  n = s32[] constant(3)
  ROOT lt = pred[] compare(cp, n), direction=LT
}
body {
  bp = s32[] parameter(0)
  one = s32[] constant(1)
  ROOT next = s32[] add(bp, one)
}
ENTRY e {
  zero = s32[] constant(0)
  w1 = s32[] while(zero), condition=cond, body=body
  ROOT w2 = s32[] while(w1), condition=cond, body=body
}
)");
  absl::StatusOr<DiffInput> m = LoadModuleFile(path);
  ASSERT_TRUE(m.ok()) << StatusText(m.status());
  EXPECT_EQ(m->label, path);
  EXPECT_EQ(m->module->name(), "two_sites");
  EXPECT_EQ(m->module->computations().size(), 5u);  // entry, 2 x (cond, body)
  std::remove(path.c_str());
}

TEST(LoadModuleFile, UnreadableIsNotFoundAndBadTextIsNot) {
  absl::StatusOr<DiffInput> missing = LoadModuleFile("/nonexistent/dir/a.hlo");
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(absl::IsNotFound(missing.status()));
  EXPECT_EQ(StatusText(missing.status()),
            "cannot open '/nonexistent/dir/a.hlo': No such file or directory");

  const std::string path =
      WriteTemp("bad.hlo", "HloModule bad\nENTRY e {\n  ROOT x = f32[2] negate(y)\n}\n");
  absl::StatusOr<DiffInput> bad = LoadModuleFile(path);
  ASSERT_FALSE(bad.ok());
  EXPECT_FALSE(absl::IsNotFound(bad.status()));
  EXPECT_TRUE(StatusText(bad.status()).starts_with(path + ":3:"));
  std::remove(path.c_str());
}

}  // namespace
}  // namespace hloscope
