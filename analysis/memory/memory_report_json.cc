// The memory report as JSON: the one place the report's C++ struct (memory_profile.h) is mapped
// onto its schema (memory_report.proto, beside it), printed by protobuf's JSON printer. A new
// field goes in the struct, the schema and here; tests/analysis/memory_report_printers_test.cc
// fails while some schema field is left at its default for a report that has them all.
#include <string>

#include "analysis/memory/memory_limit.h"
#include "analysis/memory/memory_report.pb.h"
#include "analysis/memory/memory_report_internal.h"
#include "analysis/memory/memory_report_printers.h"
#include "analysis/memory/xla_comparison_printers_internal.h"
#include "support/bytes.h"
#include "support/proto_json.h"
#include "support/str_util.h"

namespace hloscope {

using memory_report_internal::DynamicSizes;
using memory_report_internal::ForEachStagePair;
using memory_report_internal::SavingPercent;

namespace {

void FillPipelineFiguresProto(const PipelineFigures& f, report::PipelineFigures* p) {
  p->set_schedule(f.schedule);
  p->set_ranks(f.ranks);
  p->set_microbatches(f.microbatches);
  for (const StagePipelineRow& s : f.stages) {
    report::PipelineStage* o = p->add_stages();
    o->set_stage(s.stage);
    o->set_rank(s.rank);
    o->set_activation_bytes_per_microbatch(s.activation_bytes_per_microbatch);
  }
  for (const RankPipelineRow& r : f.ranks_peak) {
    report::PipelineRank* o = p->add_ranks_peak();
    o->set_rank(r.rank);
    o->set_peak_in_flight(r.peak_in_flight);
    o->set_peak_activation_bytes(r.peak_activation_bytes);
  }
  p->set_hlo_pipeline_command(f.hlo_pipeline_command);
}

void FillMemoryReportProto(const MemoryReport& r, report::MemoryReport* p) {
  const auto fill_buffer = memory_report_internal::LiveBufferToProto;
  p->set_peak_bytes(r.peak_bytes);
  p->set_peak_instruction(r.peak_instruction);
  p->set_peak_op_name(r.peak_op_name);
  p->set_peak_module(r.peak_module);
  for (const LiveBuffer& b : r.top_buffers) fill_buffer(b, p->add_top_buffers());
  for (const StageMemory& s : r.stages) {
    report::StageMemory* o = p->add_stages();
    o->set_stage(s.stage);
    o->set_module(s.module);
    o->set_peak_bytes(s.peak_bytes);
    o->set_peak_instruction(s.peak_instruction);
    o->set_activation_bytes_per_microbatch(s.activation_bytes_per_microbatch);
    o->set_peak_activation_bytes(s.peak_activation_bytes);
    o->set_microbatch_slots(s.microbatch_slots);
    o->set_stash_buffers(s.stash_buffers);
    o->set_activation_source(s.activation_source);
    o->set_device_peak_bytes(s.device_peak_bytes);
    o->set_device_peak_instruction(s.device_peak_instruction);
    o->set_host_peak_bytes(s.host_peak_bytes);
    o->set_host_peak_instruction(s.host_peak_instruction);
  }
  for (const ModuleMemory& m : r.modules) {
    report::ModuleMemory* o = p->add_modules();
    o->set_module(m.module);
    o->set_scheduled(m.scheduled);
    o->set_peak_bytes(m.peak_bytes);
    o->set_peak_instruction(m.peak_instruction);
    o->set_peak_op_name(m.peak_op_name);
    o->set_instructions(m.instructions);
    o->set_saturated(m.saturated);
    o->set_memory_model(m.model);
    o->set_has_modeled_xla_peak(m.modeled_xla_peak_bytes.has_value());
    o->set_modeled_xla_peak_bytes(m.modeled_xla_peak_bytes.value_or(0));
    o->set_modeled_xla_peak_static_bytes(m.modeled_xla_peak_static_bytes);
    o->set_modeled_xla_peak_unknown(m.modeled_xla_peak_unknown);
    o->set_schedule(m.schedule);
    for (const MemorySpacePeak& sp : m.memory_spaces) {
      report::MemorySpacePeak* q = o->add_memory_spaces();
      q->set_space(sp.space);
      q->set_peak_bytes(sp.peak_bytes);
      q->set_peak_instruction(sp.peak_instruction);
    }
    for (const CalleePeak& c : m.callee_peaks) {
      report::CalleePeak* q = o->add_callee_peaks();
      q->set_computation(c.computation);
      q->set_caller(c.caller);
      q->set_peak_bytes(c.peak_bytes);
      q->set_human_bytes(HumanBytes(c.peak_bytes));
      q->set_peak_instruction(c.peak_instruction);
      for (const LiveBuffer& b : c.top_buffers) fill_buffer(b, q->add_top_buffers());
    }
    o->set_device_peak_bytes(m.device_peak_bytes);
    o->set_device_peak_instruction(m.device_peak_instruction);
    o->set_host_peak_bytes(m.host_peak_bytes);
    o->set_host_peak_instruction(m.host_peak_instruction);
    o->set_heap_bytes(m.heap_bytes);
    for (const HeapSlot& h : m.peak_layout) {
      report::HeapSlot* slot = o->add_peak_layout();
      slot->set_offset(h.offset);
      slot->set_bytes(h.bytes);
      slot->set_name(h.name);
    }
    report::AllocationSummary* a = o->mutable_allocations();
    a->set_parameter_bytes(m.allocations.parameter_bytes);
    a->set_constant_bytes(m.allocations.constant_bytes);
    a->set_maybe_live_out_bytes(m.allocations.maybe_live_out_bytes);
    a->set_preallocated_temp_bytes(m.allocations.temp_bytes);
    a->set_total_bytes(m.allocations.total_bytes);
    for (const LiveBuffer& b : m.top_buffers) fill_buffer(b, o->add_top_buffers());
    for (const PeakGroup& g : m.peak_groups) {
      report::PeakGroup* q = o->add_peak_groups();
      q->set_category(g.category);
      q->set_scope(g.scope);
      q->set_bytes(g.bytes);
      q->set_buffers(g.buffers);
      q->set_opcode(g.opcode);
      q->set_shape(g.shape);
      q->set_human_bytes(HumanBytes(g.bytes));
      for (const LiveBuffer& b : g.largest) fill_buffer(b, q->add_largest());
    }
  }
  p->set_has_dynamic_dims(r.has_dynamic_dims);
  p->set_dynamic_sizes(DynamicSizes(r));
  p->set_saturated(r.saturated);
}

}  // namespace

namespace {

report::MemoryLimitVerdict* FillLimitVerdict(int64_t peak, int64_t limit,
                                             report::MemoryLimitVerdict* v) {
  v->set_peak_bytes(peak);
  // Both are non-negative int64, so either difference fits.
  const int64_t margin = peak > limit ? peak - limit : limit - peak;
  v->set_verdict(peak > limit ? "over" : "fits");
  v->set_margin_bytes(margin);
  v->set_human_margin(HumanBytes(margin));
  v->set_text(LimitVerdict(peak, limit));
  return v;
}

// The --memory-limit block of the text report (memory_limit.h), as fields.
void FillMemoryLimitProto(const MemoryReport& r, int64_t limit, report::MemoryLimit* p) {
  p->set_bytes(limit);
  p->set_human_bytes(HumanBytes(limit));
  for (const ModuleMemory& m : r.modules) {
    FillLimitVerdict(DevicePeakBytes(m), limit, p->add_modules())->set_module(m.module);
  }
  if (!memory_report_internal::HasPipelineStages(r)) return;
  for (const StageMemory& s : r.stages) {
    FillLimitVerdict(DevicePeakBytes(s), limit, p->add_stages())->set_stage(s.stage);
  }
}

}  // namespace

absl::StatusOr<std::string> MemoryReportJson(const MemoryReport& report, const MemoryReport* after,
                                             std::string_view passes,
                                             const PipelineFigures* pipeline,
                                             const XlaComparisons* xla,
                                             std::optional<int64_t> memory_limit,
                                             std::span<const std::string> warnings) {
  report::MemoryReport before_proto;
  FillMemoryReportProto(report, &before_proto);
  if (memory_limit)
    FillMemoryLimitProto(report, *memory_limit, before_proto.mutable_memory_limit());
  for (const std::string& w : warnings) before_proto.add_warnings(w);
  // XLA's assignment is of the modules as given: beside each of them by name.
  for (const XlaAssignmentComparison& c : xla ? *xla : XlaComparisons()) {
    for (report::ModuleMemory& m : *before_proto.mutable_modules()) {
      if (m.module() == c.module) {
        FillXlaComparisonProto(c, m.mutable_xla_buffer_assignment());
        break;
      }
    }
  }
  if (pipeline != nullptr) FillPipelineFiguresProto(*pipeline, before_proto.mutable_pipeline());
  if (after == nullptr) return ProtoToJson(before_proto);
  {
    report::MemoryComparison c;
    c.set_passes(std::string(passes));
    *c.mutable_before() = before_proto;
    FillMemoryReportProto(*after, c.mutable_after());
    if (memory_limit) {
      FillMemoryLimitProto(*after, *memory_limit, c.mutable_after()->mutable_memory_limit());
    }
    for (const std::string& w : warnings) c.add_warnings(w);
    c.set_saving_bytes(report.peak_bytes - after->peak_bytes);
    c.set_saving_percent(SavingPercent(report.peak_bytes - after->peak_bytes, report.peak_bytes));
    ForEachStagePair(report, *after, [&](const StageMemory& b, const StageMemory& a) {
      report::StageSaving* s = c.add_stages();
      s->set_stage(b.stage);
      s->set_before_peak_bytes(b.peak_bytes);
      s->set_after_peak_bytes(a.peak_bytes);
      s->set_saving_bytes(b.peak_bytes - a.peak_bytes);
      s->set_saving_percent(SavingPercent(b.peak_bytes - a.peak_bytes, b.peak_bytes));
    });
    return ProtoToJson(c);
  }
}

}  // namespace hloscope

namespace hloscope::memory_report_internal {

void LiveBufferToProto(const LiveBuffer& b, report::MemoryLiveBuffer* o) {
  o->set_bytes(b.bytes);
  o->set_instruction(b.instruction);
  o->set_op_name(b.op_name);
  o->set_shape(b.shape);
  o->set_stage(b.stage);
  o->set_kind(std::string(LiveBufferKindName(b.kind)));
  o->set_category(b.category);
  o->set_opcode(b.opcode);
  o->set_source(b.source);
  o->set_human_bytes(HumanBytes(b.bytes));
  o->set_start(b.start);
  o->set_end(b.end);
}

}  // namespace hloscope::memory_report_internal
