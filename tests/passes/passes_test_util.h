// Helpers shared by the pass tests: parse HLO text, find instructions and computations by
// name, verify (tests/hlo/test_util.h) and list a computation's instructions.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "gtest/gtest.h"
#include "hlo/module.h"
#include "hlo/parser.h"
#include "hlo/printer.h"
#include "hlo/verifier.h"
#include "tests/hlo/test_util.h"
#include "tests/test_util.h"

namespace hloscope::passes_testing {

using testing::Find;
using testing::Parse;
using testing::Verify;      // tests/hlo/test_util.h
using testing::VerifyText;  // tests/hlo/test_util.h

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
