// Helpers for the hlo/ unit tests (the shared ones live in tests/test_util.h).
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "hlo/parser.h"
#include "hlo/verifier.h"
#include "support/status_text.h"
#include "tests/test_util.h"

namespace hloscope::testing {

inline std::unique_ptr<Module> ParseOrDie(std::string_view text) { return Parse(text); }

// "OK" or the verifier's message, so tests can compare one string.
inline std::string Verify(const Module& module, const VerifierOptions& options = {}) {
  absl::Status s = VerifyModule(module, options);
  return s.ok() ? std::string("OK") : StatusText(s);
}

// Parses and verifies; "PARSE ERROR: ..." when the text does not parse.
inline std::string VerifyText(std::string_view text, const VerifierOptions& options = {}) {
  ParseOptions parse_options;
  parse_options.filename = "test.hlo";
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(text, parse_options);
  if (!m.ok()) return "PARSE ERROR: " + StatusText(m.status());
  return Verify(**m, options);
}

}  // namespace hloscope::testing
