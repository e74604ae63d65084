// Runs passes in order, optionally verifying the module after each one so that a pass that
// breaks the module is named in the error instead of surfacing later as a confusing failure.
//
//   absl::StatusOr<std::unique_ptr<PassPipeline>> p =
//       BuildPipeline("dce,tuple-simplify", PassRegistry::Global(), {.verify_each = true});
//   absl::StatusOr<bool> changed = (*p)->Run(*module);
//
// A pass list names passes separated by commas; each may carry options in braces, as in MLIR:
//   copy-insertion,copy-elision{bitcast-defines-value=true},dce
// An option is KEY=VALUE (a bool may be just KEY, meaning true); a VALUE holding ',' or '}' is
// written in double quotes. The options a pass accepts are the ones it declares
// (pass_options.h; `hlo-opt --list-passes` shows them).
//
// The pipeline does not verify its input: callers verify after parsing (hlo-opt does).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hlo/verifier.h"
#include "passes/pass.h"
#include "passes/pass_registry.h"

namespace hloscope {

struct PipelineOptions {
  // Run VerifyModule after every pass; the first failure stops the pipeline with
  //   "pass 'NAME' left an invalid module: <verifier message>" (status Internal: the pass,
  //   not the input, is at fault).
  bool verify_each = false;
  VerifierOptions verifier;
  // Tool-wide option values (name, value): set on every pass that declares the option unless
  // the pass list set it for that pass. hlo-opt's --bitcast-defines-value is
  // {"bitcast-defines-value", "true"}: `copy-elision{bitcast-defines-value=false}` still wins.
  std::vector<std::pair<std::string, std::string>> option_defaults;
};

// What one pass did in the last Run.
struct PassRunRecord {
  std::string_view name;
  bool changed = false;
  double seconds = 0;
};

class PassPipeline : public Pass {
 public:
  explicit PassPipeline(PipelineOptions options = {}) : options_(options) {}

  void AddPass(std::unique_ptr<Pass> pass) { passes_.push_back(std::move(pass)); }
  size_t size() const { return passes_.size(); }
  // The i-th pass (i < size()), e.g. for a tool to configure or read back a pass it added.
  Pass* pass(size_t i) const { return passes_[i].get(); }

  std::string_view name() const override { return "pipeline"; }
  std::string_view description() const override { return "Runs a list of passes in order."; }
  // True when any pass changed the module. A failing pass stops the pipeline with
  //   "pass 'NAME' failed: <its message>" (the pass's status code is kept).
  absl::StatusOr<bool> RunOnModule(Module& module, AnalysisCache& analyses) override;

  // One record per pass that ran in the last Run (including the one that failed).
  absl::Span<const PassRunRecord> records() const { return records_; }

 protected:
  // Each pass's Run invalidates the analyses after it changed the module.
  bool KeepsAnalysesCurrent() const override { return true; }

 private:
  PipelineOptions options_;
  std::vector<std::unique_ptr<Pass>> passes_;
  std::vector<PassRunRecord> records_;
};

// A pipeline of the registered passes named in `pass_list`, comma-separated ("dce,dce" runs
// dce twice; spaces around names, options and values are ignored), each configured by its
// options in braces and then by options.option_defaults. Errors: an unknown name (NotFound,
// listing the known passes); InvalidArgument for an empty name, an option the pass does not
// declare (listing the ones it does), a value that does not parse, an option set twice,
// braces or quotes that do not close, or text between a '}' and the next ','.
absl::StatusOr<std::unique_ptr<PassPipeline>> BuildPipeline(std::string_view pass_list,
                                                            const PassRegistry& registry,
                                                            PipelineOptions options = {});

// One pass of a pass list, with its options: CreatePass("copy-elision{bitcast-defines-value=
// true}", registry). The same errors as BuildPipeline; a ',' outside braces is one too.
absl::StatusOr<std::unique_ptr<Pass>> CreatePass(
    std::string_view spec, const PassRegistry& registry,
    absl::Span<const std::pair<std::string, std::string>> option_defaults = {});

}  // namespace hloscope
