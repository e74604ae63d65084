// Helpers shared by the verifier and pass tests: parse HLO text, find instructions by name, and
// reduce a verification to one comparable string.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "gtest/gtest.h"
#include "hlo/module.h"
#include "hlo/parser.h"
#include "hlo/printer.h"
#include "hlo/verifier.h"
#include "tests/test_util.h"

namespace hloscope::passes_testing {

using testing::Find;
using testing::MessageOf;
using testing::Parse;

// "OK" or the verifier's message, so tests can compare one string.
inline std::string Verify(const Module& module, const VerifierOptions& options = {}) {
  absl::Status s = VerifyModule(module, options);
  return s.ok() ? std::string("OK") : MessageOf(s);
}

// Parses and verifies; "PARSE ERROR: ..." when the text does not parse.
inline std::string VerifyText(std::string_view text, const VerifierOptions& options = {}) {
  ParseOptions parse_options;
  parse_options.filename = "test.hlo";
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(text, parse_options);
  if (!m.ok()) return "PARSE ERROR: " + MessageOf(m.status());
  return Verify(**m, options);
}

inline Computation* FindComputation(const Module& m, std::string_view name) {
  return m.FindComputation(name);
}

// Instruction names of a computation in order, space-separated.
inline std::string Names(const Computation& c) {
  std::string out;
  for (const Instruction* i : c.instructions()) {
    if (!out.empty()) out += ' ';
    out += i->name();
  }
  return out;
}

}  // namespace hloscope::passes_testing
