#include "analysis/dataflow_call_sites.h"

#include <string>

#include "fmt/format.h"

namespace hloscope {

CallContext CallContextOf(const Instruction& caller, const Computation& callee) {
  bool calls = false;
  for (const Computation* c : caller.called_computations()) calls = calls || c == &callee;
  if (!calls) return CallContext::kNone;
  return CallContextOf(caller);
}

CallContext CallContextOf(const Instruction& caller) {
  // `<op>-start`: the named computations are the wrapped op's (async-update and -done name
  // them again without running them).
  if (caller.async_wrapped_opcode() != Opcode::kOpcodeCount) {
    if (caller.opcode() != Opcode::kAsyncStart) return CallContext::kNone;
    return caller.async_wrapped_opcode() == Opcode::kCall ? CallContext::kControlFlow
                                                          : CallContext::kEmbedded;
  }
  return CallContextOf(caller.opcode());
}

CallContext CallContextOf(Opcode caller_opcode) {
  switch (caller_opcode) {
    case Opcode::kWhile:
    case Opcode::kConditional:
    case Opcode::kCall:
    case Opcode::kAsyncStart:
      return CallContext::kControlFlow;
    case Opcode::kAsyncUpdate:
    case Opcode::kAsyncDone:
      // They name the same wrapped computation as their async-start; they do not run it
      // again, so they are not call sites.
      return CallContext::kNone;
    default:
      return CallContext::kEmbedded;
  }
}

namespace {

std::string SiteName(const Instruction& i) {
  return fmt::format("'{}' in '{}'", i.name(), i.parent() ? i.parent()->name() : "");
}

}  // namespace

absl::flat_hash_map<const Computation*, std::vector<Instruction*>> ControlFlowCallers(
    const Module& module) {
  absl::flat_hash_map<const Computation*, std::vector<Instruction*>> out;
  for (const Computation* c : module.computations()) {
    for (Instruction* i : c->instructions()) {
      const auto called = i->called_computations();
      for (size_t k = 0; k < called.size(); ++k) {
        // A while whose body and condition are one computation is two sites of it.
        if (CallContextOf(*i) == CallContext::kControlFlow) {
          out[called[k]].push_back(i);
        }
      }
    }
  }
  return out;
}

absl::StatusOr<CallSites> FindCallSites(const Module& module) {
  std::vector<CallEdge> calls;
  for (const Computation* c : module.computations()) {
    for (const Instruction* i : c->instructions()) {
      for (const Computation* callee : i->called_computations()) {
        calls.push_back({i, callee, CallContextOf(*i)});
      }
    }
  }
  return CallSitesOf(calls);
}

absl::StatusOr<CallSites> CallSitesOf(absl::Span<const CallEdge> calls) {
  CallSites sites;
  sites.embedded_count.reserve(calls.size());
  std::vector<CallEdge> control_flow;  // in module order
  for (const auto& [i, callee, context] : calls) {
    if (callee == nullptr) continue;
    if (context == CallContext::kEmbedded) {
      ++sites.embedded_count[callee];
      continue;
    }
    if (context != CallContext::kControlFlow) continue;
    control_flow.push_back({i, callee, context});
    sites.control_flow[callee].push_back(CallSite{i, context});
  }
  // The first control-flow call, in module order, whose callee is also embedded somewhere.
  for (const auto& [i, callee, unused] : control_flow) {
    if (!sites.embedded_count.contains(callee)) continue;
    return absl::InvalidArgumentError(fmt::format(
        "computation '{}' is called both as control flow ({}) and embedded; its parameters "
        "cannot both receive their caller's values and define their own (XLA's dataflow "
        "rejects this too): run --passes=flatten-call-graph first",
        callee->name(), SiteName(*i)));
  }
  return sites;
}

}  // namespace hloscope
