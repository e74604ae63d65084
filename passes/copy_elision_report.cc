#include "passes/copy_elision_report.h"

#include "fmt/format.h"
#include "passes/copy_elision_report.pb.h"
#include "support/bytes.h"
#include "support/checked_int.h"
#include "support/str_util.h"

namespace hloscope {

namespace {

std::string NotBufferSafeLine(const CopyElisionReport& r, std::string_view module) {
  return fmt::format(
      "copy-elision left {} unchanged: the module is not buffer-safe as given ({}); no copy "
      "was removed and no savings are claimed. Run the copy-insertion pass before copy-elision "
      "to add the copies it needs first\n",
      module, r.not_buffer_safe);
}

}  // namespace

std::string CopyReportSummary(const CopyElisionReport& r, std::string_view module) {
  if (!r.buffer_safe) return NotBufferSafeLine(r, module);
  std::string out = fmt::format(
      "copy-elision on {}: {} of {} copies removed, {} of copy traffic saved per step "
      "({} left){}\n",
      module, r.removed, r.removed + r.kept, HumanBytesOrOverflow(r.bytes_saved_per_step),
      HumanBytesOrOverflow(r.bytes_kept_per_step),
      r.bitcast_defines_value ? " [bitcasts define values]" : "");
  for (const CopyDecision& d : r.copies) {
    out += fmt::format("  {:<7} %{} in {}: {} x {}{}", d.removed ? "removed" : "kept", d.name,
                       d.computation, HumanBytes(d.bytes), FormatCount(d.executions_per_step),
                       d.executions_per_step == kInt64Max ? " (the trip counts' product overflows)"
                       : d.executions_known               ? ""
                                                          : " (some trip count unknown)");
    if (!d.removed) out += fmt::format(": {}", d.reason);
    out += '\n';
  }
  for (const std::string& e : r.added_edges) out += fmt::format("  control edge {}\n", e);
  return out;
}

std::string CopyInsertionSummary(const CopyInsertionReport& r, std::string_view module) {
  std::string out =
      fmt::format("copy-insertion on {}: {} copies inserted\n", module, r.copies.size());
  for (const InsertedCopy& c : r.copies) {
    out += fmt::format("  inserted %{} in {}: {}: {} ({})\n", c.name, c.computation,
                       HumanBytes(c.bytes), CopyRuleName(c.rule), c.detail);
  }
  for (const AddedControlEdge& e : r.control_edges) {
    out += fmt::format("  control edge %{} -> %{} in {}: {}\n", e.predecessor, e.successor,
                       e.computation, e.detail);
  }
  return out;
}

std::string CopyElisionPassReport::Summary(std::string_view module) const {
  return CopyReportSummary(report_, module);
}

std::string CopyElisionPassReport::Warning(std::string_view module) const {
  return report_.buffer_safe ? std::string() : NotBufferSafeLine(report_, module);
}

void CopyElisionPassReport::AddTo(std::string_view module,
                                  report::CopyElisionReport& document) const {
  const CopyElisionReport& r = report_;
  document.set_bitcast_defines_value(r.bitcast_defines_value);
  if (!r.buffer_safe) {
    report::NotBufferSafe* n = document.add_not_buffer_safe();
    n->set_module(std::string(module));
    n->set_conflict(r.not_buffer_safe);
  }
  for (const CopyDecision& d : r.copies) {
    report::CopyDecision* out = document.add_copies();
    out->set_module(std::string(module));
    out->set_name(d.name);
    out->set_computation(d.computation);
    out->set_decision(d.removed ? "removed" : "kept");
    out->set_reason(d.reason);
    out->set_bytes(d.bytes);
    out->set_executions_per_step(d.executions_per_step);
    out->set_executions_known(d.executions_known);
    out->set_bytes_per_step(SaturatingMul(d.bytes, d.executions_per_step));
  }
  for (size_t i = 0; i < r.added_edge_names.size(); ++i) {
    report::ControlEdge* e = document.add_control_edges();
    e->set_module(std::string(module));
    e->set_pass("copy-elision");
    e->set_computation(r.added_edge_names[i].computation);
    e->set_predecessor(r.added_edge_names[i].predecessor);
    e->set_successor(r.added_edge_names[i].successor);
    if (i < r.added_edges.size()) e->set_detail(r.added_edges[i]);
  }
  document.set_removed(document.removed() + r.removed);
  document.set_kept(document.kept() + r.kept);
  document.set_bytes_saved_per_step(
      SaturatingAdd(document.bytes_saved_per_step(), r.bytes_saved_per_step));
  document.set_bytes_kept_per_step(
      SaturatingAdd(document.bytes_kept_per_step(), r.bytes_kept_per_step));
}

std::string CopyInsertionPassReport::Summary(std::string_view module) const {
  return CopyInsertionSummary(report_, module);
}

void CopyInsertionPassReport::AddTo(std::string_view module,
                                    report::CopyElisionReport& document) const {
  for (const InsertedCopy& c : report_.copies) {
    report::CopyDecision* out = document.add_copies();
    out->set_module(std::string(module));
    out->set_name(c.name);
    out->set_computation(c.computation);
    out->set_decision("inserted");
    out->set_rule(std::string(CopyRuleName(c.rule)));
    out->set_reason(c.detail);
    out->set_bytes(c.bytes);
  }
  for (const AddedControlEdge& edge : report_.control_edges) {
    report::ControlEdge* e = document.add_control_edges();
    e->set_module(std::string(module));
    e->set_pass("copy-insertion");
    e->set_computation(edge.computation);
    e->set_predecessor(edge.predecessor);
    e->set_successor(edge.successor);
    e->set_detail(edge.detail);
  }
  document.set_inserted(document.inserted() + static_cast<int64_t>(report_.copies.size()));
}

}  // namespace hloscope
