// Passes that are wrong on purpose, for tests only: proof that the differential harness can
// fail, one for each property it checks.
//  - `remove-all-copies` makes every copy's users read the copy's operand and removes the
//    copy, whether or not buffer sharing needed it: caught where a needed copy changes the
//    results, and where a copy kept two entry outputs (or a parameter and an output) apart.
//  - `remove-copies-of-bitcasts` removes every copy of a bitcast, as a copy-elision that took
//    "a bitcast defines a new value" for the storage at run time would: run as copy-elision's
//    bitcast variant, it removes copies that copy-elision keeps.
//  - `remove-sole-use-copies` removes a copy when it is its operand's only user (locally
//    nothing else reads the source) without first checking that the module is buffer-safe:
//    it changes modules that already overwrite a live value in place.
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
  absl::StatusOr<bool> RunOnModule(Module& module, AnalysisCache& analyses) override;
};

class RemoveCopiesOfBitcasts : public Pass {
 public:
  std::string_view name() const override { return "remove-copies-of-bitcasts"; }
  std::string_view description() const override {
    return "Removes every copy of a bitcast (wrong on purpose: at run time a bitcast shares its "
           "operand's bytes).";
  }
  absl::StatusOr<bool> RunOnModule(Module& module, AnalysisCache& analyses) override;
};

class RemoveSoleUseCopies : public Pass {
 public:
  std::string_view name() const override { return "remove-sole-use-copies"; }
  std::string_view description() const override {
    return "Removes copies that are their operand's only user, without checking that the "
           "module is buffer-safe first (wrong on purpose).";
  }
  absl::StatusOr<bool> RunOnModule(Module& module, AnalysisCache& analyses) override;
};

}  // namespace hloscope::differential
