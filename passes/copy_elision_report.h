// The reports of copy-elision and copy-insertion as hlo-opt prints them: a summary for people
// (`--report`) and the copy report document (`--report=FILE.json`, schema
// passes/copy_elision_report.proto, which this library compiles). The passes return these from
// Pass::LastReport(); tools print the text and turn the document into JSON.
//
//   CopyElision pass;
//   pass.Run(module);
//   fmt::print("{}", CopyReportSummary(pass.report(), module.name()));
//   report::CopyElisionReport document;
//   pass.LastReport()->AddTo(module.name(), document);
#pragma once

#include <string>
#include <string_view>

#include "passes/copy_elision.h"
#include "passes/copy_insertion.h"
#include "passes/pass_report.h"

namespace hloscope {

// "copy-elision on M: 5 of 6 copies removed, 80.0 MiB of copy traffic saved per step" and one
// line per copy; for a module that is not buffer-safe as given, one line saying so, with the
// first conflict and the passes to run instead.
std::string CopyReportSummary(const CopyElisionReport& report, std::string_view module);
// "copy-insertion on M: 3 copies inserted" and one line per copy with its rule and why.
std::string CopyInsertionSummary(const CopyInsertionReport& report, std::string_view module);

// copy-elision's report of its last run, read in place (the pass must outlive it).
class CopyElisionPassReport : public PassReport {
 public:
  explicit CopyElisionPassReport(const CopyElisionReport& report) : report_(report) {}
  std::string Summary(std::string_view module) const override;
  // The not-buffer-safe line: the module was left unchanged, and the input is what to fix.
  std::string Warning(std::string_view module) const override;
  void AddTo(std::string_view module, report::CopyElisionReport& document) const override;

 private:
  const CopyElisionReport& report_;
};

// copy-insertion's report of its last run: the copies it added (decision "inserted").
class CopyInsertionPassReport : public PassReport {
 public:
  explicit CopyInsertionPassReport(const CopyInsertionReport& report) : report_(report) {}
  std::string Summary(std::string_view module) const override;
  void AddTo(std::string_view module, report::CopyElisionReport& document) const override;

 private:
  const CopyInsertionReport& report_;
};

}  // namespace hloscope
