// Tuple simplification (`tuple-simplify`): get-tuple-element(tuple(a0, a1, ...)), index=i
// becomes a_i. Every use of the get-tuple-element (and the root slot, when it is the root) is
// redirected to a_i; the get-tuple-element and tuple are left for `dce` to remove.
//
// Only rewrites when a_i's shape is compatible with the get-tuple-element's (Shape::Compatible:
// equal ignoring layout), so the result never changes a consumer's input shape. Chains of
// nested tuples fold completely in one run.
#pragma once

#include "passes/pass.h"

namespace hloscope {

class TupleSimplify : public Pass {
 public:
  std::string_view name() const override { return "tuple-simplify"; }
  std::string_view description() const override {
    return "Replaces get-tuple-element of a tuple with the tuple's operand.";
  }
  absl::StatusOr<bool> RunOnModule(Module& module, AnalysisCache& analyses) override;
};

}  // namespace hloscope
