// Helpers every test folder uses: parse HLO text, find instructions by name. Folder-specific
// helpers (tests/passes/passes_test_util.h,
// tests/analysis/analysis_test_util.h) build on these.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "gtest/gtest.h"
#include "hlo/module.h"
#include "hlo/parser.h"
#include "support/status_text.h"

namespace hloscope::testing {

// The one status-text helper (support/status_text.h), also as testing::StatusText.
using ::hloscope::StatusText;

// Parses `text` (as "test.hlo") or fails the current test with the parser's message and
// returns nullptr.
inline std::unique_ptr<Module> Parse(std::string_view text) {
  auto m = ParseModule(text, {.filename = "test.hlo"});
  EXPECT_TRUE(m.ok()) << StatusText(m.status());
  if (!m.ok()) return nullptr;
  return std::move(*m);
}

// The instruction called `name` in computation `comp`, or nullptr.
inline Instruction* Find(const Module& m, std::string_view comp, std::string_view name) {
  const Computation* c = m.FindComputation(comp);
  if (c == nullptr) return nullptr;
  for (Instruction* i : c->instructions()) {
    if (i->name() == name) return i;
  }
  return nullptr;
}

// The first instruction called `name` in any computation, or nullptr.
inline Instruction* Find(const Module& m, std::string_view name) {
  for (Computation* c : m.computations()) {
    for (Instruction* i : c->instructions()) {
      if (i->name() == name) return i;
    }
  }
  return nullptr;
}

}  // namespace hloscope::testing
