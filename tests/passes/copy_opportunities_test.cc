// The copy opportunities both reports print (passes/copy_opportunities.h, issue 33): reading
// the parameter out of copy-elision's reason, grouping the not-donated copies into one
// what-if, "at least" when a trip count is unknown, and sums that saturate.
#include "passes/copy_opportunities.h"

#include <limits>

#include "gtest/gtest.h"
#include "passes/copy_report_opportunities.h"

namespace hloscope {
namespace {

CopyDecision Kept(std::string name, std::string reason, int64_t bytes, int64_t runs = 1,
                  bool known = true) {
  CopyDecision d;
  d.name = std::move(name);
  d.computation = "main";
  d.reason = std::move(reason);
  d.bytes = bytes;
  d.executions_per_step = runs;
  d.executions_known = known;
  return d;
}

std::string NotDonated(int64_t parameter) {
  return "source %p is read-only (entry parameter " + std::to_string(parameter) +
         ", not donated), and the destination is live out of the entry";
}

TEST(CopyOpportunities, ReadsTheParameterOutOfTheReason) {
  EXPECT_EQ(NotDonatedParameter(NotDonated(8)), 8);
  EXPECT_EQ(NotDonatedParameter("(entry parameter 12, not donated)"), 12);
  EXPECT_EQ(NotDonatedParameter("source %c is read-only (a constant)"), std::nullopt);
  EXPECT_EQ(NotDonatedParameter("entry parameter , not donated"), std::nullopt);
  EXPECT_EQ(NotDonatedParameter("entry parameter 3 is donated"), std::nullopt);
  // Past int64: no number, so no opportunity (never a wrapped one).
  EXPECT_EQ(NotDonatedParameter("entry parameter 99999999999999999999, not donated"), std::nullopt);
}

TEST(CopyOpportunities, GroupsTheNotDonatedCopiesIntoOneWhatIf) {
  CopyElisionReport report;
  report.copies.push_back(Kept("c8", NotDonated(8), 100));
  report.copies.push_back(Kept("k", "source %k is read-only (a constant)", 1000));
  report.copies.push_back(Kept("c3", NotDonated(3), 10, 4));
  report.copies.push_back(Kept("c3b", NotDonated(3), 1));
  CopyDecision removed = Kept("gone", NotDonated(5), 7);
  removed.removed = true;
  report.copies.push_back(removed);
  std::optional<DonationOpportunity> d = FindDonationOpportunity(report);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->parameters, (std::vector<int64_t>{3, 8}));
  EXPECT_EQ(d->copies, (std::vector<std::string>{"c8", "c3", "c3b"}));
  EXPECT_EQ(d->bytes_per_step, 100 + 40 + 1);
  EXPECT_TRUE(d->known);
  EXPECT_EQ(DonationOpportunityText(*d, "."),
            "3 copies kept because entry parameters 3,8 are not donated: 141 bytes (141 B) of "
            "copies per step; donating them (JAX: donate_argnums / donate_argnames for the "
            "arguments they come from; PyTorch/XLA: buffer donation) lets copy-elision remove "
            "them.");
  CopyOpportunities all{.donation = d, .bitcast_hidden = {}};
  EXPECT_EQ(all.count(), 1);
  EXPECT_EQ(all.bytes_per_step(), 141);
}

TEST(CopyOpportunities, OneCopyOfOneParameterReadsInTheSingular) {
  CopyElisionReport report;
  report.copies.push_back(Kept("c", NotDonated(0), 4));
  std::optional<DonationOpportunity> d = FindDonationOpportunity(report);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(DonationOpportunityText(*d, ""),
            "1 copy kept because entry parameter 0 is not donated: 4 bytes (4 B) of copies per "
            "step; donating it (JAX: donate_argnums / donate_argnames for the arguments it comes "
            "from; PyTorch/XLA: buffer donation) lets copy-elision remove it");
}

TEST(CopyOpportunities, AnUnknownTripCountMakesTheSavingAFloor) {
  CopyElisionReport report;
  report.copies.push_back(Kept("in_loop", NotDonated(2), 64, 1, /*known=*/false));
  std::optional<DonationOpportunity> d = FindDonationOpportunity(report);
  ASSERT_TRUE(d.has_value());
  EXPECT_FALSE(d->known);
  EXPECT_NE(DonationOpportunityText(*d, "").find("not donated: at least 64 bytes (64 B)"),
            std::string::npos);
  BitcastHiddenCopy hidden{Kept("stash", "", 16, 1, /*known=*/false), "%b defines a new value", 16};
  EXPECT_NE(BitcastHiddenCopyText(hidden).find("(16 bytes (16 B) x at least 1 per step)"),
            std::string::npos);
  EXPECT_NE(BitcastHiddenCopyText(hidden).find("saving at least 16 bytes"), std::string::npos);
  CopyOpportunities all{.donation = d, .bitcast_hidden = {hidden}};
  EXPECT_EQ(all.count(), 2);
  EXPECT_FALSE(all.known());
  EXPECT_EQ(all.bytes_per_step(), 80);
}

// The hints name the options as the API does unless the caller spells them (issue 31):
// hlo-opt's flags, Python's keywords.
TEST(CopyOpportunities, TheCallerSpellsTheOptionsTheHintsNameTheirWay) {
  CopyElisionReport report;
  report.copies.push_back(Kept("c", NotDonated(0), 4, 1, /*known=*/true));
  std::optional<DonationOpportunity> d = FindDonationOpportunity(report);
  ASSERT_TRUE(d.has_value());
  BitcastHiddenCopy hidden{Kept("stash", "", 16, 1, /*known=*/true), "%b defines a new value", 16};
  const CopyOpportunities all{.donation = d, .bitcast_hidden = {hidden}};
  EXPECT_NE(OpportunitiesHintText(all).find("): opportunities lists them"), std::string::npos)
      << OpportunitiesHintText(all);
  EXPECT_NE(BitcastHiddenCopyText(hidden).find("and passes=copy-elision removes it"),
            std::string::npos);
  const OptionSpelling as_flags = [](std::string_view option) -> std::string {
    if (option == "opportunities") return "--opportunities";
    if (option == "passes") return "--passes";
    return "";
  };
  EXPECT_NE(OpportunitiesHintText(all, as_flags).find("): --opportunities lists them"),
            std::string::npos);
  EXPECT_NE(BitcastHiddenCopyText(hidden, as_flags).find("and --passes=copy-elision removes it"),
            std::string::npos);
  // An option the caller has no spelling for keeps the API's name.
  const std::string listed = CopyReportOpportunitiesText("m", all, /*list=*/true, as_flags);
  EXPECT_NE(listed.find("(assume_donated=0 --passes=copy-elision does it)"), std::string::npos)
      << listed;
  EXPECT_EQ(CopyReportOpportunitiesText("m", all, /*list=*/false, as_flags),
            "  2 opportunities (20 B of copies per step): --opportunities lists them\n");
}

TEST(CopyOpportunities, SumsSaturate) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  CopyElisionReport report;
  report.copies.push_back(Kept("a", NotDonated(0), kMax / 2, 3));
  report.copies.push_back(Kept("b", NotDonated(1), 1));
  std::optional<DonationOpportunity> d = FindDonationOpportunity(report);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->bytes_per_step, kMax);
}

TEST(CopyOpportunities, NoneWithoutNotDonatedCopies) {
  CopyElisionReport report;
  report.copies.push_back(Kept("k", "source %k is read-only (a constant)", 8));
  EXPECT_FALSE(FindDonationOpportunity(report).has_value());
  EXPECT_EQ(CopyOpportunities{}.count(), 0);
  EXPECT_TRUE(CopyOpportunities{}.known());
}

}  // namespace
}  // namespace hloscope
