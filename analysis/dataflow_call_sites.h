// Who calls each computation, and how. The dataflow analysis needs this to know where a
// computation's parameters get their values:
//  - control flow (while body/condition, conditional branch, call, async-start's wrapped
//    computation): parameters hold the caller's operand values, and the root's values flow
//    back to the caller;
//  - embedded (fusion, to_apply of reduce/map/sort/scatter/all-reduce, custom-call callees,
//    ...): the callee runs as part of one instruction, its parameters define fresh values.
// A computation may have several control-flow call sites (a while body shared by two loops, a
// computation called by several `call`s): its parameters then hold the union over the sites,
// as in XLA's dataflow. Only a computation called both as control flow and embedded is
// rejected (XLA's dataflow rejects it too: its parameters would both define values and receive
// them); FindCallSites names it and points at `--passes=flatten-call-graph`.
//
// The short asynchronous form `<op>-start` (custom-call-start, reduce-scatter-start, ...) has no
// wrapped computation of its own: the computations it names belong to the wrapped op, in that
// op's context (a reduce-scatter's reducer is embedded; a call-start's callee is control flow).
#pragma once

#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hlo/module.h"

namespace hloscope {

enum class CallContext : uint8_t { kNone, kControlFlow, kEmbedded };

struct CallSite {
  const Instruction* caller = nullptr;
  CallContext context = CallContext::kNone;
};

struct CallSites {
  // Per computation: its control-flow call sites in module order (absent when it has none),
  // and how many embedded call sites it has.
  absl::flat_hash_map<const Computation*, std::vector<CallSite>> control_flow;
  absl::flat_hash_map<const Computation*, int64_t> embedded_count;

  absl::Span<const CallSite> ControlFlowSites(const Computation* c) const {
    auto it = control_flow.find(c);
    if (it == control_flow.end()) return {};
    return it->second;
  }
};

// The context in which `caller` runs its `callee` (kNone when it does not call it).
CallContext CallContextOf(const Instruction& caller, const Computation& callee);
// The context in which `caller` runs the computations it names (the same for all of them).
CallContext CallContextOf(const Instruction& caller);
// The context in which an instruction with this opcode runs the computations it calls (for the
// short asynchronous form, pass the wrapped opcode).
CallContext CallContextOf(Opcode caller_opcode);

// All call sites of the module. Fails when a computation is called both as control flow and
// embedded.
absl::StatusOr<CallSites> FindCallSites(const Module& module);

// One (instruction, computation it names) pair.
struct CallEdge {
  const Instruction* caller = nullptr;
  const Computation* callee = nullptr;
  CallContext context = CallContext::kNone;  // CallContextOf(*caller)
};

// FindCallSites over pairs already collected, in module order (the first violation in that
// order is the one reported): the dataflow analysis collects them in its own walk of the
// module instead of walking it once more.
absl::StatusOr<CallSites> CallSitesOf(absl::Span<const CallEdge> calls);

// Control-flow call sites per computation, without the check (for the flatten-call-graph pass,
// which gives every computation one call site).
absl::flat_hash_map<const Computation*, std::vector<Instruction*>> ControlFlowCallers(
    const Module& module);

}  // namespace hloscope
