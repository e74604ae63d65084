// The module's call graph: which instruction calls which computation, and in what context
// (model: XLA's xla/service/call_graph.h). It is the one place that classifies calls; the
// dataflow, the ordering, flatten-call-graph, copy-insertion, copy-elision and the memory
// profiler all read it instead of switching on opcodes of their own.
//
//   std::unique_ptr<CallGraph> graph = CallGraph::Build(module);
//   for (const CallSite& site : graph->ControlFlowSites(body)) ...   // who runs `body`
//   for (const Computation* c : graph->CalleesFirst(*module.entry(), CallGraph::kSynchronous))
//
// Contexts of one call site, by the calling instruction:
//  - control flow: while (body, condition), conditional (branches), call, and async-start's
//    wrapped computation (XLA's GetInstructionCallContext says the same). The callee's
//    parameters receive the caller's operands and its root flows back. An async-start's callee
//    runs beside its caller, from the start to the done (`CallSite::async`); the others run
//    within the calling instruction.
//  - embedded: every other instruction that names a computation (fusion, the to_apply of
//    reduce, map, sort, scatter, all-reduce, select-and-scatter, custom-call callees, ...): the
//    callee runs as part of one instruction and its parameters define values of their own.
//  - the short asynchronous form `<op>-start` (reduce-scatter-start, custom-call-start, ...)
//    has no wrapped computation: the computations it names are its wrapped op's, in that op's
//    context (a reduce-scatter's reducer is embedded, a call-start's callee control flow).
//  - async-update and async-done name their start's computation again without running it:
//    they are no call sites (XLA lists them as control flow and then exempts async
//    computations from its one-caller rule, which comes to the same).
//
// A computation's context is XLA's too: computations nothing calls (the entry, unreachable
// ones) are control flow; a control-flow callee inherits its caller's context, an embedded one
// is embedded, and one reached both ways is kBoth. SiteContext() is the union over its own call
// sites only, which is what the dataflow checks: a computation called directly both as control
// flow and embedded cannot both receive and define its parameters' values.
//
// Built in one walk over the module (or from the calls the dataflow's own walk collected, so a
// large module is not walked twice); every query after reads flat arrays. It holds pointers
// into the module, which must outlive it and must not change meanwhile.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/types/span.h"
#include "hlo/module.h"

namespace hloscope {

enum class CallContext : uint8_t { kNone, kControlFlow, kEmbedded, kBoth };

// "control flow", "embedded", "both" or "none".
const char* CallContextName(CallContext context);

// The context in which `caller` runs the computations it names (the same for all of them);
// kNone for async-update/-done and for instructions that call nothing.
CallContext CallContextOf(const Instruction& caller);
// The same for one callee: kNone when `caller` does not name it.
CallContext CallContextOf(const Instruction& caller, const Computation& callee);
// The context of an opcode's calls (for the short asynchronous form, pass the wrapped opcode).
CallContext CallContextOf(Opcode caller_opcode);

// One call: `caller` names `callee` in slot `slot` of its called computations (a while whose
// body and condition are one computation is two sites of it).
struct CallSite {
  const Instruction* caller = nullptr;
  const Computation* callee = nullptr;
  int32_t slot = 0;
  CallContext context = CallContext::kNone;  // kControlFlow or kEmbedded
  bool async = false;  // control flow that runs beside the caller (async-start)
};

class CallGraph {
 public:
  // Which call sites CalleesFirst follows.
  enum Follow : uint8_t {
    kSynchronous,  // control flow run within the calling instruction: while, conditional, call
    kControlFlow,  // every control-flow site, async-start's included
    kAllCalls,     // embedded sites too
  };

  static std::unique_ptr<CallGraph> Build(const Module& module);
  // From calls already collected in module order (computations in module order, instructions
  // in order, slots in order), without walking the module again; `calls` holds every call
  // site the module has, kNone sites included or not (they are dropped).
  static std::unique_ptr<CallGraph> FromCalls(const Module& module, std::vector<CallSite> calls);
  // Appends the call sites `caller` makes (none when it runs no computation): what a walk of
  // its own collects for FromCalls.
  static void AppendCallsOf(const Instruction& caller, std::vector<CallSite>& out);

  const Module& module() const { return module_; }

  // Every call site, in module order.
  absl::Span<const CallSite> sites() const { return sites_; }
  // The calls the instructions of `c` make, in order.
  absl::Span<const CallSite> CallsIn(const Computation& c) const;
  // The sites that call `c`: its control-flow sites, then its embedded ones, each in module
  // order.
  absl::Span<const CallSite> CallersOf(const Computation& c) const;
  absl::Span<const CallSite> ControlFlowSites(const Computation* c) const;
  int64_t EmbeddedSiteCount(const Computation* c) const;
  bool IsEmbedded(const Computation* c) const { return EmbeddedSiteCount(c) > 0; }
  // Whether any computation has a control-flow call site.
  bool HasControlFlowSites() const { return has_control_flow_; }

  // XLA's context of `c` (see above), and the union over its own call sites.
  CallContext Context(const Computation& c) const;
  CallContext SiteContext(const Computation& c) const;
  // Whether the entry reaches `c` through any call.
  bool ReachableFromEntry(const Computation& c) const;

  // The computations `root` reaches through the sites `follow` allows, callees before their
  // callers (each once), `root` last: callers can read what their callees computed.
  std::vector<const Computation*> CalleesFirst(const Computation& root, Follow follow) const;
  // Every computation of the module, callees before callers (through every call), starting
  // from those nothing calls in module order: XLA's VisitNodes with unreachable nodes.
  std::vector<const Computation*> PostOrder() const;

  // The first control-flow site, in module order, whose callee also has embedded sites: its
  // parameters could not both receive their caller's values and define their own. OK when
  // there is none.
  absl::Status CheckNoMixedContext() const;
  // Whether every control-flow callee has one control-flow site and none is also embedded
  // (what flatten-call-graph makes).
  bool IsFlattened() const;

 private:
  explicit CallGraph(const Module& module) : module_(module) {}
  int32_t IndexOf(const Computation* c) const;  // -1 when not in the module
  void Index(std::vector<CallSite> calls);
  void SetContexts();

  const Module& module_;
  absl::flat_hash_map<const Computation*, int32_t> index_;  // module order
  std::vector<CallSite> sites_;                             // module order
  std::vector<int32_t> callee_index_;   // per site: its callee's index, -1 when not in the module
  std::vector<int32_t> calls_begin_;    // per computation (and the end): its calls in sites_
  std::vector<CallSite> callers_;       // grouped by callee: control flow first
  std::vector<int32_t> callers_begin_;  // per computation (and the end): its range in callers_
  std::vector<int32_t> control_flow_count_;  // per computation: its control-flow callers
  std::vector<CallContext> context_;
  std::vector<CallContext> site_context_;
  std::vector<bool> reachable_;
  bool has_control_flow_ = false;
};

}  // namespace hloscope
