// The analyses of one module, built when first asked for and kept until the module changes, so
// that the passes of a pipeline and the reports printed after it share one dataflow, one alias
// analysis and one ordering instead of each building its own.
//
//   AnalysisCache analyses(module);
//   absl::StatusOr<const AliasAnalysis*> alias = analyses.Alias(options);  // built here
//   analyses.Alias(options);  // the same object, not built again; Invalidate() after an edit
//
// Contract (as MLIR's AnalysisManager, with "preserve all" or "preserve none" only):
//  - Bound to one module, which must outlive the cache. An analysis answers for the module as
//    it was when the analysis was built: whoever changes the module calls Invalidate() before
//    anyone asks again (Pass::Run does that for every pass that reports a change, or fails).
//    A pass takes its analyses before its own edits; an analysis it keeps using while editing
//    is its own business, as before (copy-elision tracks its removals on top of it).
//  - One call graph (Calls()), which every dataflow and alias analysis of the cache shares:
//    built by the first of them in its own walk, or on its own when asked for first.
//  - Keyed by the options: Dataflow() by the whole DataflowOptions, Alias() by
//    bitcast_defines_value only (the alias analysis always uses the SSA form). A dataflow
//    asked for in SSA form is the alias analysis's own when that one exists already.
//  - A failure is returned and not kept: the next call builds again. Failures end the pass
//    that asked and the pipeline with it, so keeping them would save nothing.
//  - The pointers returned stay valid until Invalidate() or the cache's destruction.
//  - Not thread-safe: one cache per module, used by one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "analysis/alias.h"
#include "analysis/call_graph.h"
#include "analysis/dataflow.h"
#include "analysis/dataflow_options.h"
#include "analysis/ordering.h"
#include "hlo/module.h"

namespace hloscope {

class AnalysisCache {
 public:
  explicit AnalysisCache(const Module& module) : module_(module) {}
  AnalysisCache(const AnalysisCache&) = delete;
  AnalysisCache& operator=(const AnalysisCache&) = delete;

  const Module& module() const { return module_; }

  absl::StatusOr<const DataflowAnalysis*> Dataflow(const DataflowOptions& options);
  absl::StatusOr<const AliasAnalysis*> Alias(const DataflowOptions& options);
  absl::StatusOr<const ExecutionOrdering*> Ordering();
  const CallGraph& Calls();

  // Drops every analysis: the module changed.
  void Invalidate();

  // How many analyses of each kind this cache has built since it was made (not reset by
  // Invalidate): what the tests count to see that an analysis was shared, or rebuilt.
  struct BuildCounts {
    int64_t dataflow = 0;  // standalone dataflows (an alias analysis's own is not counted)
    int64_t alias = 0;
    int64_t ordering = 0;
    int64_t call_graph = 0;  // standalone call graphs (one a dataflow built is not counted)
  };
  const BuildCounts& builds() const { return builds_; }

 private:
  const Module& module_;
  // A handful at most (one per option set asked for): a list searched in order.
  std::vector<std::pair<DataflowOptions, std::unique_ptr<DataflowAnalysis>>> dataflows_;
  std::vector<std::pair<bool, std::unique_ptr<AliasAnalysis>>> aliases_;  // by bitcast option
  std::unique_ptr<ExecutionOrdering> ordering_;
  std::shared_ptr<const CallGraph> call_graph_;
  BuildCounts builds_;
};

}  // namespace hloscope
