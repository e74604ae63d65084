#include "analysis/memory/xla_model_json.h"

#include <algorithm>

#include "analysis/memory/memory_report.pb.h"
#include "support/proto_json.h"
#include "fmt/format.h"
#include "google/protobuf/util/json_util.h"

namespace hloscope {
namespace {

void Fill(const XlaModelListing& listing, report::XlaModelAssignment* p) {
  const XlaModelAssignment& a = listing.assignment;
  p->set_alignment(listing.alignment);
  for (const XlaModelAllocation& x : a.allocations) {
    report::XlaModelAllocation* o = p->add_allocations();
    o->set_index(x.index);
    o->set_size(x.size);
    o->set_color(x.memory_space);
    o->set_parameter(x.parameter);
    o->set_parameter_number(x.parameter_number);
    if (x.parameter) o->set_parameter_index(ShapeIndexToString(x.parameter_index));
    o->set_parameter_shape(x.parameter_shape);
    o->set_parameter_aliased(x.parameter_aliased);
    o->set_output_shape(x.output_shape);
    o->set_constant(x.constant);
    o->set_thread_local_(x.thread_local_);
    o->set_maybe_live_out(x.maybe_live_out);
    o->set_preallocated_temp(x.preallocated_temp);
    o->set_tuple(x.tuple);
    // By id, as XLA's listing orders them.
    std::vector<const XlaModelValue*> values;
    for (const XlaModelValue& v : x.values) values.push_back(&v);
    std::sort(values.begin(), values.end(),
              [](const XlaModelValue* l, const XlaModelValue* r) { return l->id < r->id; });
    for (const XlaModelValue* v : values) {
      report::XlaModelValue* ov = o->add_values();
      ov->set_id(v->id);
      ov->set_name(v->name);
      ov->set_offset(v->offset);
      ov->set_size(v->size);
      ov->set_shape(v->shape);
      ov->set_phi(v->phi);
    }
    for (const std::string& name : x.peak_values) o->add_peak_buffers(name);
    o->set_peak_bytes(x.peak_bytes);
    o->set_peak_instruction(x.peak_instruction);
    o->set_peak_computation(x.peak_computation);
  }
  const XlaModelTotals& t = a.totals;
  p->set_parameter_bytes(t.parameter_bytes);
  p->set_constant_bytes(t.constant_bytes);
  p->set_maybe_live_out_bytes(t.maybe_live_out_bytes);
  p->set_thread_local_bytes(t.thread_local_bytes);
  p->set_preallocated_temp_bytes(t.preallocated_temp_bytes);
  p->set_total_bytes(t.total_bytes);
  p->set_preallocated_temp_fragmentation_bytes(t.temp_fragmentation_bytes);
  p->set_total_fragmentation_bytes(t.total_fragmentation_bytes);
  p->set_ideal_temp_bytes(t.ideal_temp_bytes);
}

void AddTo(report::MemoryReport& r, const std::vector<XlaModelListing>& listings) {
  for (const XlaModelListing& l : listings) {
    for (report::ModuleMemory& m : *r.mutable_modules()) {
      if (m.module() == l.module) {
        Fill(l, m.mutable_xla_model_assignment());
        break;
      }
    }
  }
}

template <typename Message>
absl::StatusOr<Message> Parse(std::string_view json) {
  Message m;
  const auto status = google::protobuf::util::JsonStringToMessage(
      std::string(json), &m, google::protobuf::util::JsonParseOptions());
  if (!status.ok()) {
    return absl::InternalError(fmt::format("the memory report's JSON does not read back: {}",
                                           std::string(status.message())));
  }
  return m;
}

}  // namespace

absl::StatusOr<std::string> AddXlaModelsToJson(std::string_view json, bool comparison,
                                               const std::vector<XlaModelListing>& before,
                                               const std::vector<XlaModelListing>& after) {
  // The report's printer is left as it is (other issues change it); its JSON is read back into
  // the schema, the listings added, and printed again the same way.
  if (comparison) {
    absl::StatusOr<report::MemoryComparison> c = Parse<report::MemoryComparison>(json);
    if (!c.ok()) return c.status();
    AddTo(*c->mutable_before(), before);
    AddTo(*c->mutable_after(), after);
    return ProtoToJson(*c);
  }
  absl::StatusOr<report::MemoryReport> r = Parse<report::MemoryReport>(json);
  if (!r.ok()) return r.status();
  AddTo(*r, before);
  return ProtoToJson(*r);
}

}  // namespace hloscope
