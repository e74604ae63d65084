// Helpers shared by the hlo/ unit tests.
#pragma once

#include <memory>
#include <string_view>

#include "gtest/gtest.h"
#include "hlo/module.h"
#include "hlo/parser.h"

namespace hloscope::testing {

// Parses `text` or fails the current test with the parser's message.
inline std::unique_ptr<Module> ParseOrDie(std::string_view text) {
  auto m = ParseModule(text, {.filename = "test.hlo"});
  EXPECT_TRUE(m.ok()) << m.status().message();
  if (!m.ok()) return nullptr;
  return std::move(*m);
}

inline Instruction* Find(const Module& m, std::string_view name) {
  for (Computation* c : m.computations()) {
    for (Instruction* i : c->instructions()) {
      if (i->name() == name) return i;
    }
  }
  return nullptr;
}

}  // namespace hloscope::testing
