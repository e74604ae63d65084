// The pass interface: a named transformation of a module that reports whether it changed
// anything.
//
//   class MyPass : public Pass {
//     std::string_view name() const override { return "my-pass"; }
//     std::string_view description() const override { return "Does one thing."; }
//     absl::StatusOr<bool> Run(Module& module) override;
//   };
//
// A pass leaves a module it was given valid (VerifyModule passes) or returns an error; the
// pipeline can check that after every pass (PipelineOptions::verify_each). A pass may leave
// dead instructions behind for `dce` to remove.
#pragma once

#include <string_view>

#include "absl/status/statusor.h"
#include "hlo/module.h"

namespace hloscope {

class Pass {
 public:
  virtual ~Pass();
  // The name used on the command line (`--passes=name`): lower case words joined by '-'.
  virtual std::string_view name() const = 0;
  // One sentence for `hlo-opt --list-passes`.
  virtual std::string_view description() const = 0;
  // Transforms `module`; true when it changed anything.
  virtual absl::StatusOr<bool> Run(Module& module) = 0;
};

}  // namespace hloscope
