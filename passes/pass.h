// The pass interface: a named transformation of a module that reports whether it changed
// anything.
//
//   class MyPass : public Pass {
//     std::string_view name() const override { return "my-pass"; }
//     std::string_view description() const override { return "Does one thing."; }
//     absl::StatusOr<bool> RunOnModule(Module& module, AnalysisCache& analyses) override;
//   };
//
// Analyses: a pass takes the ones it needs from `analyses` (analysis/analysis_cache.h), which
// the pipeline shares between its passes and the reports after it, before its own edits. A
// pass reports every change it made: Run then drops the cached analyses (also when the pass
// fails, since it may have changed the module first); a pass that changed nothing leaves them
// for the next one. A pass that asks again after an edit of its own calls Invalidate() first.
//
// Options: a pass declares them in its constructor (pass_options.h) and the pipeline string
// sets them (`my-pass{keep-tuples=true}`). A pass that reports what it did (copy-elision's
// decisions) returns the report of its last run from LastReport() (pass_report.h), so tools
// print reports without knowing the pass's type.
//
// A pass leaves a module it was given valid (VerifyModule passes) or returns an error; the
// pipeline can check that after every pass (PipelineOptions::verify_each). A pass may leave
// dead instructions behind for `dce` to remove.
#pragma once

#include <memory>
#include <string_view>

#include "absl/status/statusor.h"
#include "hlo/module.h"
#include "passes/pass_options.h"

namespace hloscope {

class AnalysisCache;
class PassReport;

class Pass {
 public:
  virtual ~Pass();
  // The name used on the command line (`--passes=name`): lower case words joined by '-'.
  virtual std::string_view name() const = 0;
  // One sentence for `hlo-opt --list-passes`.
  virtual std::string_view description() const = 0;
  // Transforms `module`; true when it changed anything. With analyses of its own, built for
  // this run only.
  absl::StatusOr<bool> Run(Module& module);
  // The same with the analyses of `analyses`, which must be bound to `module`
  // (InvalidArgument otherwise); they are invalidated when the pass changed the module or
  // failed.
  absl::StatusOr<bool> Run(Module& module, AnalysisCache& analyses);

  // The options this pass declared (none unless its constructor adds some).
  const PassOptions& pass_options() const { return pass_options_; }
  PassOptions& mutable_pass_options() { return pass_options_; }

  // True for a pass whose decisions assume the module is buffer-safe as given (no value of a
  // buffer overwritten while another is live: analysis/buffer_consistency.h) and which leaves a
  // module that is not unchanged (copy-elision). The differential harness holds it to that.
  virtual bool LeavesUnsafeModulesAlone() const { return false; }

  // What the last Run did, for `hlo-opt --report`; null for a pass that reports nothing. The
  // report reads the pass's own record: it is valid while the pass lives, until its next Run.
  virtual std::unique_ptr<PassReport> LastReport() const;

 protected:
  // The pass itself (Run adds the cache's bookkeeping).
  virtual absl::StatusOr<bool> RunOnModule(Module& module, AnalysisCache& analyses) = 0;
  // True for a pass that keeps `analyses` true to the module itself, as the pipeline does
  // after each of its passes: Run then keeps what the last ones built on the final module.
  virtual bool KeepsAnalysesCurrent() const { return false; }

 private:
  PassOptions pass_options_;
};

}  // namespace hloscope
