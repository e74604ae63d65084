// Inputs that fuzz round 10 (tests/fuzz/ordering_fuzzer.cc, scripts/fuzz --fuzzer=ordering)
// found to get a wrong answer or a crash from the analyses, each at its smallest (issue 35).
// Labelled robustness: scripts/test runs it again under ASan+UBSan.
#include <memory>
#include <string>
#include <vector>

#include "analysis/analysis_cache.h"
#include "analysis/ordering_query.h"
#include "gtest/gtest.h"
#include "hlo/module.h"
#include "hlo/parser.h"
#include "support/status_text.h"

namespace hloscope {
namespace {

absl::StatusOr<std::string> Ask(std::string_view text, const std::vector<std::string>& lines) {
  absl::StatusOr<std::unique_ptr<Module>> module = ParseModule(text);
  if (!module.ok()) return module.status();
  std::vector<OrderingQuery> queries;
  for (const std::string& line : lines) {
    absl::StatusOr<OrderingQuery> query = ParseOrderingQuery(line);
    if (!query.ok()) return query.status();
    queries.push_back(*std::move(query));
  }
  AnalysisCache analyses(**module);
  absl::StatusOr<const DataflowAnalysis*> flow = analyses.Dataflow({});
  if (!flow.ok()) return flow.status();
  absl::StatusOr<const ExecutionOrdering*> ordering = analyses.Ordering();
  if (!ordering.ok()) return ordering.status();
  return AnswerOrderingQueries(**flow, **ordering, queries);
}

// Our parser scopes instruction names by computation, as XLA's parser does; XLA's module then
// names each instruction once (HloModule's name uniquer), so a query name is never ambiguous
// there. Here `update` is both the entry's async-update and the wrapped computation's root:
// the query answered for the one listed first (the wrapped computation's, which is nested in
// the start) and said start does not execute before update, while the start is the
// async-update's operand.
constexpr char kNameInTwoComputations[] = R"(
HloModule name_in_two_computations

wrapped {
  p = s32[4] parameter(0)
  ROOT update = s32[4] negate(p)
}, execution_thread="side"

ENTRY main {
  a = s32[4] parameter(0)
  start = ((s32[4]), s32[4], u32[]) async-start(a), calls=wrapped, async_execution_thread="side"
  update = ((s32[4]), s32[4], u32[]) async-update(start), calls=wrapped
  ROOT done = s32[4] async-done(update), calls=wrapped
}
)";

TEST(OrderingQueryFuzzRegressions, NameOfTwoComputationsIsRefused) {
  absl::StatusOr<std::string> answer =
      Ask(kNameInTwoComputations, {"executes-before:start,update"});
  ASSERT_FALSE(answer.ok()) << *answer;
  EXPECT_EQ(answer.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(StatusText(answer.status())
                .find("'update' names an instruction of computation wrapped and one of "
                      "computation main; rename one"),
            std::string::npos)
      << StatusText(answer.status());
}

TEST(OrderingQueryFuzzRegressions, UniqueNamesOfTheSameModuleAreAnswered) {
  // The names used once are still answered; `start` is the update's operand.
  absl::StatusOr<std::string> answer =
      Ask(kNameInTwoComputations, {"executes-before:start,done", "execution-constraint:a,start"});
  ASSERT_TRUE(answer.ok()) << StatusText(answer.status());
  EXPECT_EQ(*answer,
            "executes-before(start, done): true\n"
            "execution-constraint(a, start): run-before-start\n");
}

}  // namespace
}  // namespace hloscope
