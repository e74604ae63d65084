// Delta debugging by instruction removal: shrinks a module while a predicate ("it still
// fails") holds.
//
//   ReduceResult r = ReduceModule(text, [](const std::string& t) { return StillFails(t); });
//   fmt::print("{}", r.text);   // 1-minimal: removing any one more instruction loses it
//
// One step takes an instruction (not a parameter) and tries, in order, to replace it with
//  1. one of its operands of the same shape (its users read the operand instead),
//  2. a parameter of its computation of the same shape,
//  3. zeros of its shape (a constant, broadcast for arrays),
// then removes dead code (the `dce` pass) and keeps the result when it parses, verifies and
// the predicate still holds. Sweeps over all instructions repeat until one keeps nothing, so
// the result is 1-minimal with respect to these steps (unless `max_tries` ran out).
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace hloscope::differential {

using StillFails = std::function<bool(const std::string& module_text)>;

struct ReduceOptions {
  // Upper bound on predicate calls.
  int max_tries = 5000;
};

struct ReduceResult {
  std::string text;  // the reduced module (canonical print), or the input when nothing applied
  int instructions_before = 0;
  int instructions_after = 0;
  int tries = 0;  // predicate calls
};

ReduceResult ReduceModule(std::string_view text, const StillFails& still_fails,
                          const ReduceOptions& options = {});

}  // namespace hloscope::differential
