// The template-instance table reader and the substitution the corpus test applies with it.
#include "tests/corpus/template_instances.h"

#include <string>

#include "gtest/gtest.h"
#include "support/status_text.h"

namespace hloscope {
namespace {

std::vector<TemplateSubstitution> Subs(
    std::initializer_list<std::pair<std::string, std::string>> pairs) {
  std::vector<TemplateSubstitution> out;
  for (const auto& [p, v] : pairs) out.push_back({p, v, "test", 0, 0});
  return out;
}

TEST(InstantiateTemplate, ReplacesEveryOccurrence) {
  EXPECT_EQ(InstantiateTemplate("p = $dtype[2] parameter(0)\nq = $dtype[] constant(1)",
                                Subs({{"$dtype", "f32"}})),
            "p = f32[2] parameter(0)\nq = f32[] constant(1)");
}

TEST(InstantiateTemplate, LongestPlaceholderWinsAtAPosition) {
  // `$d0` is a prefix of `$d0_x`; whichever order the table gives, the longer one is used.
  auto subs = Subs({{"$d0", "8"}, {"$d0_x", "16"}});
  EXPECT_EQ(InstantiateTemplate("f32[$d0,$d0_x]", subs), "f32[8,16]");
  auto reversed = Subs({{"$d0_x", "16"}, {"$d0", "8"}});
  EXPECT_EQ(InstantiateTemplate("f32[$d0,$d0_x]", reversed), "f32[8,16]");
}

TEST(InstantiateTemplate, InsertedTextIsNotScannedAgain) {
  // A value that contains a placeholder stays as written (one pass, as absl::StrReplaceAll).
  EXPECT_EQ(InstantiateTemplate("A B", Subs({{"A", "B"}, {"B", "C"}})), "B C");
  EXPECT_EQ(InstantiateTemplate("$$0 $0", Subs({{"$$", "$"}, {"$0", "f32"}})), "$0 f32");
}

TEST(InstantiateTemplate, NumberedOccurrences) {
  // StrFormat's sequential %s: each occurrence its own value; an unnumbered row covers the rest.
  std::vector<TemplateSubstitution> subs = Subs({{"%s", "f32"}, {"%s", "s8"}, {"%s", "add"}});
  subs[1].occurrence = 2;
  subs[2].occurrence = 4;
  EXPECT_EQ(InstantiateTemplate("%s %s %s %s %s", subs), "f32 s8 f32 add f32");
  subs.erase(subs.begin());
  EXPECT_EQ(InstantiateTemplate("%s %s %s %s", subs), "%s s8 %s add");
  // A longer placeholder at a position is not an occurrence of the shorter one.
  std::vector<TemplateSubstitution> two = Subs({{"%s", "a"}, {"%sx", "b"}});
  two[0].occurrence = 2;
  EXPECT_EQ(InstantiateTemplate("%s %sx %s", two), "%s b a");
}

TEST(InstantiateTemplate, EmptyValuesAndNoPlaceholders) {
  EXPECT_EQ(InstantiateTemplate("dot(a, b)$attrs", Subs({{"$attrs", ""}})), "dot(a, b)");
  EXPECT_EQ(InstantiateTemplate("unchanged", Subs({})), "unchanged");
  EXPECT_EQ(InstantiateTemplate("", Subs({{"x", "y"}})), "");
  EXPECT_EQ(InstantiateTemplate("abc", Subs({{"", "never"}})), "abc");
}

TEST(ParseTemplateInstances, ReadsRowsCommentsAndEscapes) {
  absl::StatusOr<TemplateInstanceTable> table = ParseTemplateInstances(
      "# comment\n"
      "\n"
      "a.hlo\t$dtype\tf32\tthe test's first type\n"
      "a.hlo\t$body\tx\\ny\\t\\\\\tbuilt by a loop\r\n"
      "b.hlo\t$empty\t\tempty on purpose\n",
      "t.tsv");
  ASSERT_TRUE(table.ok()) << table.status();
  ASSERT_EQ(table->size(), 2u);
  const auto& a = table->at("a.hlo");
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0].placeholder, "$dtype");
  EXPECT_EQ(a[0].value, "f32");
  EXPECT_EQ(a[0].source, "the test's first type");
  EXPECT_EQ(a[0].line, 3);
  EXPECT_EQ(a[1].value, "x\ny\t\\");
  EXPECT_EQ(a[1].line, 4);
  EXPECT_EQ(table->at("b.hlo")[0].value, "");
}

TEST(ParseTemplateInstances, NumberedOccurrences) {
  absl::StatusOr<TemplateInstanceTable> table = ParseTemplateInstances(
      "a.hlo\t%s#2\ts8\tsecond argument\n"
      "a.hlo\t%s\tf32\tthe others\n"
      "a.hlo\t#x\tv\tno number\n"
      "a.hlo\t$x#y\tv\tnot a number\n",
      "t.tsv");
  ASSERT_TRUE(table.ok()) << table.status();
  const auto& a = table->at("a.hlo");
  ASSERT_EQ(a.size(), 4u);
  EXPECT_EQ(a[0].placeholder, "%s");
  EXPECT_EQ(a[0].occurrence, 2);
  EXPECT_EQ(a[1].placeholder, "%s");
  EXPECT_EQ(a[1].occurrence, 0);
  EXPECT_EQ(a[2].placeholder, "#x");
  EXPECT_EQ(a[3].placeholder, "$x#y");
}

TEST(ParseTemplateInstances, Errors) {
  auto message = [](std::string_view text) {
    absl::StatusOr<TemplateInstanceTable> t = ParseTemplateInstances(text, "t.tsv");
    return t.ok() ? std::string("<ok>") : StatusText(t.status());
  };
  EXPECT_EQ(message("# c\na.hlo\t$x\tf32\n"),
            "t.tsv:2: error: expected 4 tab-separated columns (file, placeholder, value, "
            "source), found 3");
  EXPECT_EQ(message("a\tb\tc\td\te\n"),
            "t.tsv:1: error: expected 4 tab-separated columns (file, placeholder, value, "
            "source), found 5");
  EXPECT_EQ(message("\t$x\tf32\tsrc\n"), "t.tsv:1: error: empty file name");
  EXPECT_EQ(message("a.hlo\t\tf32\tsrc\n"), "t.tsv:1: error: empty placeholder");
  EXPECT_EQ(message("a.hlo\t$x\tf32\t\n"),
            "t.tsv:1: error: empty source: say where the value was read");
  EXPECT_EQ(message("a.hlo\t$x\tf32\tsrc\nb.hlo\t$x\tf16\tsrc\na.hlo\t$x\tf16\tsrc\n"),
            "t.tsv:3: error: placeholder '$x' of a.hlo is already given on line 1");
  EXPECT_EQ(message("a.hlo\t%s#3\tf32\tsrc\na.hlo\t%s#3\tf16\tsrc\n"),
            "t.tsv:2: error: placeholder '%s#3' of a.hlo is already given on line 1");
  EXPECT_EQ(message("a.hlo\t%s#0\tf32\tsrc\n"),
            "t.tsv:1: error: placeholder '%s#0': occurrences count from #1");
}

}  // namespace
}  // namespace hloscope
