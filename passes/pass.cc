#include "passes/pass.h"

#include "analysis/analysis_cache.h"
#include "passes/pass_report.h"
#include "support/str_util.h"

namespace hloscope {

// Defined out of line so the vtable is emitted once, in this library.
Pass::~Pass() = default;

std::unique_ptr<PassReport> Pass::LastReport() const { return nullptr; }

absl::StatusOr<bool> Pass::Run(Module& module) {
  AnalysisCache analyses(module);
  return Run(module, analyses);
}

absl::StatusOr<bool> Pass::Run(Module& module, AnalysisCache& analyses) {
  if (&analyses.module() != &module) {
    return absl::InvalidArgumentError(
        StrCat("pass '", name(), "' was given the analyses of another module"));
  }
  absl::StatusOr<bool> changed = RunOnModule(module, analyses);
  // A failing pass may have edited the module before it failed.
  if ((!changed.ok() || *changed) && !KeepsAnalysesCurrent()) analyses.Invalidate();
  return changed;
}

PassReport::~PassReport() = default;

std::string PassReport::Warning(std::string_view) const { return ""; }

}  // namespace hloscope
