// Helpers for the hlo/ unit tests (the shared ones live in tests/test_util.h).
#pragma once

#include <memory>
#include <string_view>

#include "tests/test_util.h"

namespace hloscope::testing {

inline std::unique_ptr<Module> ParseOrDie(std::string_view text) { return Parse(text); }

}  // namespace hloscope::testing
