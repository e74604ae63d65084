#include "tools/hlo_opt_copy_report.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "copy_elision_report.pb.h"
#include "fmt/format.h"
#include "google/protobuf/util/json_util.h"
#include "hlo/checked_int.h"
#include "tools/file_io.h"
#include "tools/report_util.h"

namespace hloscope {

namespace {}  // namespace

struct CopyReportCollector::State {
  report::CopyElisionReport all;
};

const char kCopyReportFlagsHelp[] =
    "  --report[=FILE.json]   With copy-elision in --passes: what happened to every copy.\n"
    "                         '--report' prints a summary to stderr; '--report=FILE.json'\n"
    "                         writes each copy's decision, reason, bytes and executions per\n"
    "                         step (schema passes/copy_elision_report.proto). copy-elision\n"
    "                         reads --bitcast-defines-value too. With copy-insertion: the\n"
    "                         copies it added, each with its rule (decision 'inserted').\n";

CopyReportFlagResult ParseCopyReportFlag(std::string_view name,
                                         std::optional<std::string_view> value,
                                         CopyReportFlags& flags, std::string* error) {
  if (name != "--report") return CopyReportFlagResult::kNotCopyReportFlag;
  if (value && value->empty()) {
    *error = "option '--report=' needs a file name (or use '--report' for a summary)";
    return CopyReportFlagResult::kBadValue;
  }
  flags.report = true;
  flags.file = value ? std::string(*value) : std::string();
  return CopyReportFlagResult::kTaken;
}

std::string ConfigureCopyElision(PassPipeline* pipeline, bool bitcast_defines_value,
                                 const CopyReportFlags& flags) {
  bool found = false;
  for (size_t i = 0; pipeline != nullptr && i < pipeline->size(); ++i) {
    if (dynamic_cast<CopyInsertion*>(pipeline->pass(i)) != nullptr) found = true;
    if (auto* pass = dynamic_cast<CopyElision*>(pipeline->pass(i))) {
      CopyElisionOptions options = pass->options();
      options.bitcast_defines_value = bitcast_defines_value;
      pass->set_options(options);
      found = true;
    }
  }
  if (flags.report && !found) {
    return "option '--report' needs the copy-elision or copy-insertion pass in --passes (e.g. "
           "--passes=copy-elision)";
  }
  return "";
}

namespace {

// Counts and byte sums saturate at kInt64Max when they do not fit (copy_elision.h).
std::string BytesOrOverflow(int64_t bytes) {
  return bytes == kInt64Max ? std::string("overflow") : HumanBytes(bytes);
}

std::string CountOrOverflow(int64_t n) {
  return n == kInt64Max ? std::string("overflow") : fmt::format("{}", n);
}

}  // namespace

std::string NotBufferSafeLine(const CopyElisionReport& r, std::string_view module) {
  return fmt::format(
      "copy-elision left {} unchanged: the module is not buffer-safe as given ({}); no copy "
      "was removed and no savings are claimed. Run --passes=copy-insertion,copy-elision to add "
      "the copies it needs first\n",
      module, r.not_buffer_safe);
}

std::string CopyReportSummary(const CopyElisionReport& r, std::string_view module) {
  if (!r.buffer_safe) return NotBufferSafeLine(r, module);
  std::string out = fmt::format(
      "copy-elision on {}: {} of {} copies removed, {} of copy traffic saved per step "
      "({} left){}\n",
      module, r.removed, r.removed + r.kept, BytesOrOverflow(r.bytes_saved_per_step),
      BytesOrOverflow(r.bytes_kept_per_step),
      r.bitcast_defines_value ? " [bitcasts define values]" : "");
  for (const CopyDecision& d : r.copies) {
    out += fmt::format("  {:<7} %{} in {}: {} x {}{}", d.removed ? "removed" : "kept", d.name,
                       d.computation, HumanBytes(d.bytes), CountOrOverflow(d.executions_per_step),
                       d.executions_per_step == kInt64Max ? " (the trip counts' product overflows)"
                       : d.executions_known               ? ""
                                                          : " (some trip count unknown)");
    if (!d.removed) out += fmt::format(": {}", d.reason);
    out += '\n';
  }
  return out;
}

std::string CopyInsertionSummary(const CopyInsertionReport& r, std::string_view module) {
  std::string out =
      fmt::format("copy-insertion on {}: {} copies inserted\n", module, r.copies.size());
  for (const InsertedCopy& c : r.copies) {
    out += fmt::format("  inserted %{} in {}: {}: {} ({})\n", c.name, c.computation,
                       HumanBytes(c.bytes), CopyRuleName(c.rule), c.detail);
  }
  return out;
}

void CopyReportCollector::CollectInsertion(const CopyInsertionReport& r, const Module& module) {
  if (flags_.file.empty()) {
    fmt::print(stderr, "{}", CopyInsertionSummary(r, module.name()));
    return;
  }
  report::CopyElisionReport& all = state_->all;
  for (const InsertedCopy& c : r.copies) {
    report::CopyDecision* out = all.add_copies();
    out->set_module(std::string(module.name()));
    out->set_name(c.name);
    out->set_computation(c.computation);
    out->set_decision("inserted");
    out->set_rule(std::string(CopyRuleName(c.rule)));
    out->set_reason(c.detail);
    out->set_bytes(c.bytes);
  }
  all.set_inserted(all.inserted() + static_cast<int64_t>(r.copies.size()));
}

CopyReportCollector::CopyReportCollector(const CopyReportFlags& flags)
    : flags_(flags), state_(std::make_unique<State>()) {}

CopyReportCollector::~CopyReportCollector() = default;

void CopyReportCollector::Collect(const PassPipeline* pipeline, const Module& module) {
  if (pipeline == nullptr) return;
  for (size_t i = 0; i < pipeline->size(); ++i) {
    if (const auto* ins = dynamic_cast<const CopyInsertion*>(pipeline->pass(i))) {
      if (flags_.report) CollectInsertion(ins->report(), module);
      continue;
    }
    const auto* pass = dynamic_cast<const CopyElision*>(pipeline->pass(i));
    if (pass == nullptr) continue;
    const CopyElisionReport& r = pass->report();
    // Said whether or not a report was asked for: the pass did nothing, and the reason is
    // something to fix in the input.
    if (!r.buffer_safe && !(flags_.report && flags_.file.empty())) {
      fmt::print(stderr, "hlo-opt: warning: {}", NotBufferSafeLine(r, module.name()));
    }
    if (!flags_.report) continue;
    if (flags_.file.empty()) {
      fmt::print(stderr, "{}", CopyReportSummary(r, module.name()));
      continue;
    }
    report::CopyElisionReport& all = state_->all;
    all.set_bitcast_defines_value(r.bitcast_defines_value);
    if (!r.buffer_safe) {
      report::NotBufferSafe* n = all.add_not_buffer_safe();
      n->set_module(std::string(module.name()));
      n->set_conflict(r.not_buffer_safe);
    }
    for (const CopyDecision& d : r.copies) {
      report::CopyDecision* out = all.add_copies();
      out->set_module(std::string(module.name()));
      out->set_name(d.name);
      out->set_computation(d.computation);
      out->set_decision(d.removed ? "removed" : "kept");
      out->set_reason(d.reason);
      out->set_bytes(d.bytes);
      out->set_executions_per_step(d.executions_per_step);
      out->set_executions_known(d.executions_known);
      out->set_bytes_per_step(SaturatingMul(d.bytes, d.executions_per_step));
    }
    all.set_removed(all.removed() + r.removed);
    all.set_kept(all.kept() + r.kept);
    all.set_bytes_saved_per_step(SaturatingAdd(all.bytes_saved_per_step(), r.bytes_saved_per_step));
    all.set_bytes_kept_per_step(SaturatingAdd(all.bytes_kept_per_step(), r.bytes_kept_per_step));
  }
}

absl::Status CopyReportCollector::Finish() {
  if (!flags_.report || flags_.file.empty()) return absl::OkStatus();
  absl::StatusOr<std::string> json = ProtoToJson(state_->all);
  if (!json.ok()) return json.status();
  std::string error;
  if (!WriteOutput(flags_.file, *json, &error)) return absl::InvalidArgumentError(error);
  return absl::OkStatus();
}

}  // namespace hloscope
