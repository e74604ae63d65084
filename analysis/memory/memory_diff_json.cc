// The memory diff as JSON: the one place memory_diff.h's structs are mapped onto their schema
// (memory_diff.proto, beside it), printed by protobuf's JSON printer. A new field goes in the
// struct, the schema and here; tests/analysis/memory_diff_test.cc fails while some schema field is
// left at its default for a diff that has them all.
#include <string>

#include "analysis/memory/memory_diff.pb.h"
#include "analysis/memory/memory_diff_internal.h"
#include "analysis/memory/memory_report_internal.h"
#include "support/bytes.h"
#include "support/proto_json.h"
#include "support/str_util.h"

namespace hloscope::memory_diff_internal {
namespace {

void FillSide(std::string_view label, const MemoryReport& r, int64_t peak_buffers, int64_t copies,
              int64_t instructions, report::MemoryDiffSide* o) {
  o->set_file(std::string(label));
  o->set_peak_bytes(r.peak_bytes);
  o->set_peak_instruction(r.peak_instruction);
  o->set_peak_op_name(r.peak_op_name);
  o->set_peak_buffers(peak_buffers);
  o->set_copies(copies);
  o->set_instructions(instructions);
  o->set_saturated(r.saturated);
  if (!r.modules.empty()) {
    o->set_module(r.modules.front().module);
    o->set_schedule(r.modules.front().schedule);
  }
}

void FillChanges(const std::vector<PeakBufferDiff>& list, const PeakChangeTotal& total,
                 google::protobuf::RepeatedPtrField<report::PeakBufferChange>* out,
                 report::PeakChangeTotal* out_total) {
  for (const PeakBufferDiff& d : list) {
    report::PeakBufferChange* o = out->Add();
    o->set_change(std::string(PeakBufferChangeName(d.change)));
    if (d.change != PeakBufferChange::kNew)
      memory_report_internal::LiveBufferToProto(d.before, o->mutable_before());
    if (d.change != PeakBufferChange::kGone)
      memory_report_internal::LiveBufferToProto(d.after, o->mutable_after());
    o->set_delta_bytes(d.delta_bytes());
    o->set_matched_by(d.matched_by);
  }
  out_total->set_buffers(total.buffers);
  out_total->set_delta_bytes(total.delta_bytes);
}

void FillCopies(const std::vector<CopyChange>& copies, const CopyChangeTotal& total,
                google::protobuf::RepeatedPtrField<report::CopyChange>* out,
                report::CopyChangeTotal* out_total) {
  out_total->set_copies(total.copies);
  out_total->set_bytes(total.bytes);
  for (const CopyChange& c : copies) {
    report::CopyChange* o = out->Add();
    o->set_instruction(c.instruction);
    o->set_computation(c.computation);
    o->set_shape(c.shape);
    o->set_op_name(c.op_name);
    o->set_bytes(c.bytes);
    o->set_in_loop(c.in_loop);
  }
}

}  // namespace

absl::StatusOr<std::string> MemoryDiffJson(const MemoryDiff& d,
                                           const MemoryDiffPrintOptions& options) {
  report::MemoryDiff p;
  FillSide(options.before_label, d.before, d.peak_buffers_before, d.copies_before,
           d.instructions_before, p.mutable_before());
  FillSide(options.after_label, d.after, d.peak_buffers_after, d.copies_after, d.instructions_after,
           p.mutable_after());
  p.set_peak_delta_bytes(d.peak_delta_bytes());
  p.set_peak_delta_percent(
      memory_report_internal::SavingPercent(d.peak_delta_bytes(), d.before.peak_bytes));
  if (!d.before.modules.empty()) p.set_memory_model(d.before.modules.front().model);
  FillChanges(d.new_buffers, d.new_total, p.mutable_new_buffers(), p.mutable_new_total());
  FillChanges(d.gone_buffers, d.gone_total, p.mutable_gone_buffers(), p.mutable_gone_total());
  FillChanges(d.grown_buffers, d.grown_total, p.mutable_grown_buffers(), p.mutable_grown_total());
  FillChanges(d.shrunk_buffers, d.shrunk_total, p.mutable_shrunk_buffers(),
              p.mutable_shrunk_total());
  p.set_unchanged_buffers(d.unchanged_buffers);
  FillCopies(d.copies_added, d.copies_added_total, p.mutable_copies_added(),
             p.mutable_copies_added_total());
  FillCopies(d.copies_removed, d.copies_removed_total, p.mutable_copies_removed(),
             p.mutable_copies_removed_total());
  for (const OpcodeCountChange& c : d.opcodes) {
    report::OpcodeCountChange* o = p.add_opcodes();
    o->set_opcode(c.opcode);
    o->set_before(c.before);
    o->set_after(c.after);
    o->set_delta(c.after - c.before);
  }
  p.set_saturated(d.saturated());
  return ProtoToJson(p);
}

}  // namespace hloscope::memory_diff_internal
