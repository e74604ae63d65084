// Flatten the call graph (`flatten-call-graph`): give every control-flow call site (while
// body/condition, conditional branch, call, async-start's wrapped computation: the contexts of
// analysis/call_graph.h) its own copy of the computation it calls, so each such computation
// has exactly one caller. The dataflow analysis needs that to
// attribute a callee's parameters to one caller (see analysis/dataflow.h).
//
// The first call site keeps the original; every other site gets a clone named
// `<name>.clone`, `<name>.clone.1`, ... Clones copy everything (attributes, metadata, control
// edges, callees); a clone's callees thereby gain call sites and are cloned in turn, until no
// control-flow callee is shared. A computation that is called both as control flow and as an
// embedded computation (fusion, to_apply of reduce, ...) is cloned for its control-flow sites.
// Embedded-only computations are left shared: their parameters define values anyway.
//
// A call graph that fans out (each level calling the next from two sites) flattens into
// exponentially many clones, so the pass first counts what it would create and refuses
// (ResourceExhausted, module unchanged) past kMaxFlattenedInstructions.
#pragma once

#include <cstdint>

#include "passes/pass.h"

namespace hloscope {

// The most instructions a flattened module may hold (originals and clones together).
inline constexpr int64_t kMaxFlattenedInstructions = 20'000'000;

class FlattenCallGraph : public Pass {
 public:
  std::string_view name() const override { return "flatten-call-graph"; }
  std::string_view description() const override {
    return "Clones computations so each while/conditional/call/async site has its own callee.";
  }
  absl::StatusOr<bool> RunOnModule(Module& module, AnalysisCache& analyses) override;
};

}  // namespace hloscope
