#include "analysis/dataflow_report.h"

#include "analysis/alias.h"
#include "analysis/dataflow.h"
#include "analysis/dataflow_report.pb.h"
#include "fmt/format.h"
#include "hlo/computation.h"
#include "support/proto_json.h"

namespace hloscope {

namespace {

std::string ValueText(const HloValue& v) { return v.ToString(); }

void FillValue(const HloValue& v, report::Value* out) {
  out->set_id(v.id);
  out->set_instruction(std::string(v.instruction->name()));
  for (int64_t i : v.index) out->add_index(i);
  out->set_is_phi(v.is_phi);
}

}  // namespace

absl::StatusOr<std::string> PrintDataflow(const Module& module,
                                          const AnalysisPrintOptions& options) {
  absl::StatusOr<std::unique_ptr<DataflowAnalysis>> df =
      DataflowAnalysis::Run(module, options.dataflow);
  if (!df.ok()) return df.status();
  return PrintDataflow(**df, options);
}

absl::StatusOr<std::string> PrintDataflow(const DataflowAnalysis& flow,
                                          const AnalysisPrintOptions& options) {
  const Module& module = flow.module();
  if (options.format == ReportFormat::kJson) {
    report::DataflowReport r;
    r.set_module(std::string(module.name()));
    r.set_bitcast_defines_value(options.dataflow.bitcast_defines_value);
    r.set_ssa_form(flow.options().ssa_form);
    r.set_value_count(static_cast<uint32_t>(flow.values().size()));
    for (const Computation* c : module.computations()) {
      report::Computation* rc = r.add_computations();
      rc->set_name(std::string(c->name()));
      for (const Instruction* i : c->instructions()) {
        for (int32_t p = 0; p < flow.PositionCount(*i); ++p) {
          report::Position* pos = rc->add_positions();
          pos->set_instruction(std::string(i->name()));
          for (int64_t k : flow.IndexAt(*i, p)) pos->add_index(k);
          for (ValueId v : flow.ValuesAtPosition(*i, p))
            FillValue(flow.value(v), pos->add_values());
        }
      }
    }
    return ProtoToJson(r);
  }
  std::string out;
  for (const Computation* c : module.computations()) {
    out += fmt::format("computation {}\n", c->name());
    for (const Instruction* i : c->instructions()) {
      for (int32_t p = 0; p < flow.PositionCount(*i); ++p) {
        out += fmt::format("  {}{}:", i->name(), ShapeIndexToString(flow.IndexAt(*i, p)));
        const char* sep = " ";
        for (ValueId v : flow.ValuesAtPosition(*i, p)) {
          out += sep;
          out += ValueText(flow.value(v));
          sep = ", ";
        }
        out += '\n';
      }
    }
  }
  return out;
}

absl::StatusOr<std::string> PrintBuffers(const Module& module,
                                         const AnalysisPrintOptions& options) {
  absl::StatusOr<std::unique_ptr<AliasAnalysis>> aa = AliasAnalysis::Run(module, options.dataflow);
  if (!aa.ok()) return aa.status();
  return PrintBuffers(**aa, options);
}

absl::StatusOr<std::string> PrintBuffers(const AliasAnalysis& alias,
                                         const AnalysisPrintOptions& options) {
  const DataflowAnalysis& flow = alias.dataflow();
  const Module& module = flow.module();
  int64_t total = 0, live_out = 0;
  for (const HloBuffer& b : alias.buffers()) {
    total += b.bytes;
    if (b.live_out) live_out += b.bytes;
  }
  if (options.format == ReportFormat::kJson) {
    report::BufferReport r;
    r.set_module(std::string(module.name()));
    r.set_bitcast_defines_value(options.dataflow.bitcast_defines_value);
    r.set_total_bytes(total);
    r.set_live_out_bytes(live_out);
    for (const HloBuffer& b : alias.buffers()) {
      report::Buffer* rb = r.add_buffers();
      rb->set_id(b.id);
      rb->set_bytes(b.bytes);
      rb->set_live_out(b.live_out);
      for (ValueId v : b.values) FillValue(flow.value(v), rb->add_values());
    }
    return ProtoToJson(r);
  }
  std::string out = fmt::format("{} buffers, {} bytes, {} bytes live-out\n", alias.buffers().size(),
                                total, live_out);
  for (const HloBuffer& b : alias.buffers()) {
    out += fmt::format("buffer {}: {} bytes{}:", b.id, b.bytes, b.live_out ? ", live-out" : "");
    const char* sep = " ";
    for (ValueId v : b.values) {
      out += sep;
      out += ValueText(flow.value(v));
      sep = ", ";
    }
    out += '\n';
  }
  return out;
}

}  // namespace hloscope
