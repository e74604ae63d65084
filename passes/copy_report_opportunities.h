// The copy report's opportunities (issue 33): what `hlo-opt --passes=copy-elision --report`
// and the Python package's run_passes() say after a pipeline ran, built on the opportunities
// both reports share (passes/copy_opportunities.h).
//
//   std::optional<CopyOpportunities> found = FindCopyReportOpportunities(&pipeline, module,
//   reparse); if (found) {
//     text += CopyReportOpportunitiesText(module.name(), *found, /*list=*/false);  // the hint
//     AddCopyReportOpportunities(module.name(), *found, document);                 // JSON
//   }
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "hlo/module.h"
#include "passes/copy_opportunities.h"
#include "passes/pass_pipeline.h"

namespace hloscope {

namespace report {
class CopyElisionReport;  // passes/copy_elision_report.proto
}  // namespace report

// A fresh copy of the module as the pipeline got it (parsed again, with any assumed donation
// applied), or an error.
using ModuleAsGiven = std::function<absl::StatusOr<std::unique_ptr<Module>>()>;

// After `pipeline` ran on `module`: the opportunities its last copy-elision pass leaves
// (nullopt without one). The donation what-if is read from that pass's report; the
// bitcast-hidden copies need copy-elision run twice on the module as given (`as_given`), which
// happens only when `module` has a bitcast and the run removed a copy or kept one for a
// bitcast (otherwise there can be none), and not at all when `as_given` is empty or fails.
std::optional<CopyOpportunities> FindCopyReportOpportunities(const PassPipeline* pipeline,
                                                             const Module& module,
                                                             const ModuleAsGiven& as_given);

// The text after a module's copy list: with `list`, "opportunities in M:" and one line each;
// without, the one-line hint. Lines end in '\n'; "" when there are none. `option_spelling`
// (support/option_spelling.h): how the caller names the options the lines point at
// ("passes", "assume_donated", "opportunities"), e.g. as its flags.
std::string CopyReportOpportunitiesText(std::string_view module, const CopyOpportunities& found,
                                        bool list, const OptionSpelling& option_spelling = {});

// Adds them to the JSON document's `opportunities` (their text spelled as the caller's).
void AddCopyReportOpportunities(std::string_view module, const CopyOpportunities& found,
                                report::CopyElisionReport& document,
                                const OptionSpelling& option_spelling = {});

}  // namespace hloscope
