// Who calls each computation, and how. The dataflow analysis needs this to know where a
// computation's parameters get their values:
//  - control flow (while body/condition, conditional branch, call, async-start's wrapped
//    computation): parameters hold the caller's operand values, and the root's values flow
//    back to the caller;
//  - embedded (fusion, to_apply of reduce/map/sort/scatter/all-reduce, custom-call callees,
//    ...): the callee runs as part of one instruction, its parameters define fresh values.
// A computation must have at most one control-flow call site (and then no embedded one) for
// values to be attributed to one caller; FindCallSites reports the first violation, naming the
// computation and pointing at `--passes=flatten-call-graph`.
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
  // Per computation: its control-flow call site (caller nullptr when it has none), and whether
  // it is also called embedded.
  absl::flat_hash_map<const Computation*, CallSite> control_flow;
  absl::flat_hash_map<const Computation*, int64_t> embedded_count;

  const Instruction* ControlFlowCaller(const Computation* c) const {
    auto it = control_flow.find(c);
    return it == control_flow.end() ? nullptr : it->second.caller;
  }
};

// The context in which `caller` runs its `callee` (kNone when it does not call it).
CallContext CallContextOf(const Instruction& caller, const Computation& callee);
// The context in which an instruction with this opcode runs the computations it calls.
CallContext CallContextOf(Opcode caller_opcode);

// All call sites of the module. Fails when a computation is called by more than one
// control-flow site, or both as control flow and embedded.
absl::StatusOr<CallSites> FindCallSites(const Module& module);

// One (instruction, computation it names) pair.
struct CallEdge {
  const Instruction* caller = nullptr;
  const Computation* callee = nullptr;
  CallContext context = CallContext::kNone;  // CallContextOf(caller->opcode())
};

// FindCallSites over pairs already collected, in module order (the first violation in that
// order is the one reported): the dataflow analysis collects them in its own walk of the
// module instead of walking it once more.
absl::StatusOr<CallSites> CallSitesOf(absl::Span<const CallEdge> calls);

// Control-flow call sites per computation, without the one-site check (for the
// flatten-call-graph pass, which fixes exactly what FindCallSites rejects).
absl::flat_hash_map<const Computation*, std::vector<Instruction*>> ControlFlowCallers(
    const Module& module);

}  // namespace hloscope
