// A pass that is wrong on purpose, for tests only: `remove-all-copies` makes every copy's
// users read the copy's operand and removes the copy, whether or not buffer sharing needed it.
// The differential harness must catch it on modules where a copy is needed (proof that the
// harness can fail).
#pragma once

#include "passes/pass.h"

namespace hloscope::differential {

class RemoveAllCopies : public Pass {
 public:
  std::string_view name() const override { return "remove-all-copies"; }
  std::string_view description() const override {
    return "Removes every copy (wrong on purpose: a test pass the differential harness must "
           "catch).";
  }
  absl::StatusOr<bool> Run(Module& module) override;
};

}  // namespace hloscope::differential
