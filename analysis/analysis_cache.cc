#include "analysis/analysis_cache.h"

namespace hloscope {

absl::StatusOr<const DataflowAnalysis*> AnalysisCache::Dataflow(const DataflowOptions& options) {
  for (const auto& [key, dataflow] : dataflows_) {
    if (key == options) return dataflow.get();
  }
  // The alias analysis runs the dataflow in SSA form with its bitcast option: the same answer.
  if (options.ssa_form) {
    for (const auto& [bitcast_defines_value, alias] : aliases_) {
      if (bitcast_defines_value == options.bitcast_defines_value) return &alias->dataflow();
    }
  }
  absl::StatusOr<std::unique_ptr<DataflowAnalysis>> built =
      DataflowAnalysis::Run(module_, options, call_graph_);
  if (!built.ok()) return built.status();
  ++builds_.dataflow;
  if (call_graph_ == nullptr) call_graph_ = (*built)->shared_call_graph();
  dataflows_.emplace_back(options, *std::move(built));
  return dataflows_.back().second.get();
}

absl::StatusOr<const AliasAnalysis*> AnalysisCache::Alias(const DataflowOptions& options) {
  for (const auto& [bitcast_defines_value, alias] : aliases_) {
    if (bitcast_defines_value == options.bitcast_defines_value) return alias.get();
  }
  absl::StatusOr<std::unique_ptr<AliasAnalysis>> built =
      AliasAnalysis::Run(module_, options, call_graph_);
  if (!built.ok()) return built.status();
  ++builds_.alias;
  if (call_graph_ == nullptr) call_graph_ = (*built)->dataflow().shared_call_graph();
  aliases_.emplace_back(options.bitcast_defines_value, *std::move(built));
  return aliases_.back().second.get();
}

absl::StatusOr<const ExecutionOrdering*> AnalysisCache::Ordering() {
  if (ordering_ == nullptr) {
    absl::StatusOr<std::unique_ptr<ExecutionOrdering>> built = ExecutionOrdering::Run(module_);
    if (!built.ok()) return built.status();
    ++builds_.ordering;
    ordering_ = *std::move(built);
  }
  return ordering_.get();
}

const CallGraph& AnalysisCache::Calls() {
  if (call_graph_ == nullptr) {
    call_graph_ = CallGraph::Build(module_);
    ++builds_.call_graph;
  }
  return *call_graph_;
}

void AnalysisCache::Invalidate() {
  dataflows_.clear();
  aliases_.clear();
  ordering_.reset();
  call_graph_.reset();
}

}  // namespace hloscope
