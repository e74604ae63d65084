// Helpers of the interpreter tests: run HLO text on arguments written as literal text and show
// the result as FormatLiteral prints it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "eval/evaluator.h"
#include "hlo/verifier.h"
#include "support/status_text.h"
#include "tests/test_util.h"

namespace hloscope::eval::testing {

using ::hloscope::testing::Parse;

// Arguments parsed against the entry parameters' shapes; fails the test on a parse error.
inline std::vector<Literal> Args(const Module& m, const std::vector<std::string>& texts) {
  std::vector<Literal> args;
  for (size_t i = 0; i < texts.size(); ++i) {
    absl::StatusOr<Literal> lit =
        ParseLiteral(texts[i], m.entry()->parameter(static_cast<int64_t>(i))->shape());
    EXPECT_TRUE(lit.ok()) << StatusText(lit.status());
    if (lit.ok()) args.push_back(std::move(*lit));
  }
  return args;
}

// Runs `text` and returns the printed outputs (FormatLiteral with every element), without the
// final newline; or "error: <message>".
inline std::string RunText(std::string_view text, const std::vector<std::string>& args = {},
                           EvalMode mode = EvalMode::kValue) {
  std::unique_ptr<Module> m = Parse(text);
  if (m == nullptr) return "parse error";
  absl::Status v = VerifyModule(*m);
  EXPECT_TRUE(v.ok()) << StatusText(v);
  EvalOptions options;
  options.mode = mode;
  absl::StatusOr<Literal> out = Evaluate(*m, Args(*m, args), options);
  if (!out.ok()) return "error: " + std::string(StatusText(out.status()));
  std::string s = FormatLiteral(*out, /*print_all=*/true);
  if (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

// Runs in both modes and expects the same text; returns it.
inline std::string RunBoth(std::string_view text, const std::vector<std::string>& args = {}) {
  std::string value = RunText(text, args, EvalMode::kValue);
  std::string buffer = RunText(text, args, EvalMode::kBuffer);
  EXPECT_EQ(value, buffer) << "value and buffer mode disagree";
  return value;
}

}  // namespace hloscope::eval::testing
