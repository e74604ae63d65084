#include "analysis/pipeline/trace_json.h"

#include <cstdint>
#include <string>
#include <string_view>

#include "analysis/pipeline/chrome_trace.pb.h"
#include "analysis/pipeline/proto_json.h"
#include "fmt/format.h"

namespace hloscope::pipeline {
namespace {

constexpr int kComputeTid = 0;
constexpr int kCommTid = 1;

std::string_view Category(ActionKind kind) {
  switch (kind) {
    case ActionKind::kForward:
      return "forward";
    case ActionKind::kBackward:
    case ActionKind::kBackwardInput:
    case ActionKind::kBackwardWeight:
      return "backward";
    case ActionKind::kUnshard:
    case ActionKind::kReshard:
    case ActionKind::kReduceGrad:
      return "fsdp";
    default:
      return "p2p";
  }
}

// The flow id of the transfer a SEND or RECV belongs to: both ends name the same data, the
// forward output of stage s (SEND_F s, RECV_F s+1) or the input gradient of stage s (SEND_B s,
// RECV_B s-1), for one microbatch.
uint64_t FlowId(const Action& a, int32_t microbatches) {
  int64_t producer = a.stage;
  if (a.kind == ActionKind::kRecvForward) producer = a.stage - 1;
  if (a.kind == ActionKind::kRecvBackward) producer = a.stage + 1;
  const bool backward = a.kind == ActionKind::kSendBackward || a.kind == ActionKind::kRecvBackward;
  return static_cast<uint64_t>((producer * microbatches + a.microbatch) * 2 + backward) + 1;
}

}  // namespace

std::string ChromeTraceJson(const Schedule& s, const Simulation& sim, const TraceOptions& o) {
  trace::Trace out;
  out.set_display_time_unit("ms");
  auto event = [&](std::string_view ph, std::string_view name, int32_t pid) {
    trace::Event* e = out.add_trace_events();
    e->set_ph(std::string(ph));
    e->set_name(std::string(name));
    e->set_pid(pid);
    return e;
  };
  for (int32_t r = 0; r < s.num_ranks(); ++r) {
    event("M", "process_name", r)->mutable_args()->set_name(fmt::format("rank {}", r));
    event("M", "process_sort_index", r)->mutable_args()->set_sort_index(r);
    trace::Event* compute = event("M", "thread_name", r);
    compute->set_tid(kComputeTid);
    compute->mutable_args()->set_name("compute");
    trace::Event* comm = event("M", "thread_name", r);
    comm->set_tid(kCommTid);
    comm->mutable_args()->set_name("send/recv");
  }
  auto set_size = [&](trace::Args* args, double value) {
    if (o.sizes_in_bytes) {
      args->set_bytes(value);
    } else {
      args->set_stage_equivalents(value);
    }
  };
  for (int32_t r = 0; r < s.num_ranks(); ++r) {
    const auto& row = s.rows[r];
    for (size_t k = 0; k < row.size(); ++k) {
      const Action& a = row[k];
      if (a.is_idle()) continue;
      const ActionTiming& t = sim.timing[r][k];
      trace::Event* e = event("X", ToString(a), r);
      e->set_cat(std::string(Category(a.kind)));
      e->set_tid(IsCompute(a.kind) ? kComputeTid : kCommTid);
      e->set_ts(t.start);
      e->set_dur(t.end - t.start);
      if (IsSend(a.kind)) {
        e->set_bind_id(static_cast<double>(FlowId(a, s.num_microbatches)));
        e->set_flow_out(true);
      } else if (IsRecv(a.kind)) {
        e->set_bind_id(static_cast<double>(FlowId(a, s.num_microbatches)));
        e->set_flow_in(true);
      }
      e->mutable_args()->set_stage(a.stage);
      e->mutable_args()->set_microbatch(a.microbatch);
      e->mutable_args()->set_kind(std::string(KindWords(a.kind)));
    }
    // Counter samples; several changes at one instant keep the last, which is the state after.
    trace::Event* zero = event("C", "activations", r);
    zero->set_tid(kComputeTid);
    zero->set_ts(0);
    set_size(zero->mutable_args(), 0);
    for (const MemoryPoint& p : sim.memory[r]) {
      trace::Event* c = event("C", "activations", r);
      c->set_tid(kComputeTid);
      c->set_ts(p.time);
      set_size(c->mutable_args(), p.bytes);
    }
  }
  trace::OtherData* other = out.mutable_other_data();
  other->set_schedule(s.name);
  other->set_ranks(s.num_ranks());
  other->set_stages(s.num_stages);
  other->set_microbatches(s.num_microbatches);
  other->set_makespan_us(sim.makespan);
  return ProtoJsonLine(out, JsonFieldNames::kJson);
}

}  // namespace hloscope::pipeline
