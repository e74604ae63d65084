#include "pipeline/trace_json.h"

#include <cstdint>

#include "fmt/format.h"
#include "pipeline/units.h"
#include "support/escapes.h"

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
  std::string out = "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
  bool first = true;
  auto emit = [&](const std::string& event) {
    if (!first) out += ",\n";
    first = false;
    out += event;
  };
  for (int32_t r = 0; r < s.num_ranks(); ++r) {
    emit(fmt::format(R"({{"ph":"M","name":"process_name","pid":{},"args":{{"name":"rank {}"}}}})",
                     r, r));
    emit(fmt::format(
        R"({{"ph":"M","name":"process_sort_index","pid":{},"args":{{"sort_index":{}}}}})", r, r));
    emit(fmt::format(
        R"({{"ph":"M","name":"thread_name","pid":{},"tid":{},"args":{{"name":"compute"}}}})", r,
        kComputeTid));
    emit(fmt::format(
        R"({{"ph":"M","name":"thread_name","pid":{},"tid":{},"args":{{"name":"send/recv"}}}})", r,
        kCommTid));
  }
  for (int32_t r = 0; r < s.num_ranks(); ++r) {
    const auto& row = s.rows[r];
    for (size_t k = 0; k < row.size(); ++k) {
      const Action& a = row[k];
      if (a.is_idle()) continue;
      const ActionTiming& t = sim.timing[r][k];
      std::string flow;
      if (IsSend(a.kind)) {
        flow = fmt::format(R"(,"bind_id":{},"flow_out":true)", FlowId(a, s.num_microbatches));
      } else if (IsRecv(a.kind)) {
        flow = fmt::format(R"(,"bind_id":{},"flow_in":true)", FlowId(a, s.num_microbatches));
      }
      emit(fmt::format(R"({{"ph":"X","name":"{}","cat":"{}","pid":{},"tid":{},"ts":{},"dur":{}{},)"
                       R"("args":{{"stage":{},"microbatch":{},"kind":"{}"}}}})",
                       ToString(a), Category(a.kind), r, IsCompute(a.kind) ? kComputeTid : kCommTid,
                       JsonNumber(t.start), JsonNumber(t.end - t.start), flow, a.stage,
                       a.microbatch, KindWords(a.kind)));
    }
    // Counter samples; several changes at one instant keep the last, which is the state after.
    const auto& mem = sim.memory[r];
    emit(fmt::format(R"({{"ph":"C","name":"activations","pid":{},"tid":{},"ts":0,)"
                     R"("args":{{"{}":0}}}})",
                     r, kComputeTid, o.size_unit));
    for (const MemoryPoint& p : mem) {
      emit(fmt::format(
          R"({{"ph":"C","name":"activations","pid":{},"tid":{},"ts":{},"args":{{"{}":{}}}}})", r,
          kComputeTid, JsonNumber(p.time), o.size_unit, JsonNumber(p.bytes)));
    }
  }
  out += "\n],\"otherData\":{";
  out += fmt::format(R"("schedule":{},"ranks":{},"stages":{},"microbatches":{},"makespan_us":{})",
                     JsonString(s.name), s.num_ranks(), s.num_stages, s.num_microbatches,
                     JsonNumber(sim.makespan));
  out += "}}\n";
  return out;
}

}  // namespace hloscope::pipeline
