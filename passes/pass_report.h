// What a pass says about its last run, for tools to print without knowing the pass's type:
// `hlo-opt --report` prints Summary() per module, `--report=FILE.json` collects AddTo() of every
// module into one document, and Warning() is printed even without --report.
//
//   for (size_t i = 0; i < pipeline.size(); ++i) {
//     if (std::unique_ptr<PassReport> r = pipeline.pass(i)->LastReport()) {
//       fmt::print(stderr, "{}", r->Summary(module.name()));
//     }
//   }
//
// The document is the copy report (passes/copy_elision_report.proto): the passes that report
// today decide about copies (copy-elision removes or keeps them, copy-insertion adds them). A
// pass whose report is of another kind adds its message to that schema.
#pragma once

#include <string>
#include <string_view>

namespace hloscope {

namespace report {
class CopyElisionReport;  // passes/copy_elision_report.proto
}  // namespace report

class PassReport {
 public:
  virtual ~PassReport();
  // For a person: what the pass did to `module`, lines ending in '\n'.
  virtual std::string Summary(std::string_view module) const = 0;
  // One line ending in '\n' about something to fix in the input, said even when no report was
  // asked for (the summary says it too); empty when there is none.
  virtual std::string Warning(std::string_view module) const;
  // Adds what the pass decided about `module` to the JSON document.
  virtual void AddTo(std::string_view module, report::CopyElisionReport& document) const = 0;
};

}  // namespace hloscope
