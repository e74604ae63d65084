#include "analysis/call_graph.h"

#include <deque>
#include <string>
#include <utility>

#include "fmt/format.h"
#include "hlo/computation.h"

namespace hloscope {

const char* CallContextName(CallContext context) {
  switch (context) {
    case CallContext::kControlFlow:
      return "control flow";
    case CallContext::kEmbedded:
      return "embedded";
    case CallContext::kBoth:
      return "both";
    case CallContext::kNone:
      break;
  }
  return "none";
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
      // They name their start's computation without running it again.
      return CallContext::kNone;
    default:
      return CallContext::kEmbedded;
  }
}

CallContext CallContextOf(const Instruction& caller) {
  if (caller.called_computations().empty()) return CallContext::kNone;
  // `<op>-start`: the named computations are the wrapped op's (the short forms of update and
  // done name them again without running them).
  if (caller.async_wrapped_opcode() != Opcode::kOpcodeCount) {
    if (caller.opcode() != Opcode::kAsyncStart) return CallContext::kNone;
    return caller.async_wrapped_opcode() == Opcode::kCall ? CallContext::kControlFlow
                                                          : CallContext::kEmbedded;
  }
  return CallContextOf(caller.opcode());
}

CallContext CallContextOf(const Instruction& caller, const Computation& callee) {
  for (const Computation* c : caller.called_computations()) {
    if (c == &callee) return CallContextOf(caller);
  }
  return CallContext::kNone;
}

namespace {

CallContext Union(CallContext a, CallContext b) {
  if (a == CallContext::kNone) return b;
  if (b == CallContext::kNone || a == b) return a;
  return CallContext::kBoth;
}

}  // namespace

void CallGraph::AppendCallsOf(const Instruction& caller, std::vector<CallSite>& out) {
  const CallContext context = CallContextOf(caller);
  if (context == CallContext::kNone) return;
  const bool async = context == CallContext::kControlFlow && caller.opcode() == Opcode::kAsyncStart;
  const auto called = caller.called_computations();
  for (size_t k = 0; k < called.size(); ++k) {
    if (called[k] == nullptr) continue;
    out.push_back({&caller, called[k], static_cast<int32_t>(k), context, async});
  }
}

namespace {

bool Follows(const CallSite& site, CallGraph::Follow follow) {
  switch (follow) {
    case CallGraph::kSynchronous:
      return site.context == CallContext::kControlFlow && !site.async;
    case CallGraph::kControlFlow:
      return site.context == CallContext::kControlFlow;
    case CallGraph::kAllCalls:
      return true;
  }
  return false;
}

// Appends, callees first, the computations `start` reaches through the sites `follow` allows
// that `seen` does not hold yet (indices into the module's computations; `calls_begin` gives
// each one's range of `sites`, `callee_index` each site's callee or -1).
void WalkCalleesFirst(int32_t start, CallGraph::Follow follow, const Module& module,
                      absl::Span<const CallSite> sites, absl::Span<const int32_t> callee_index,
                      absl::Span<const int32_t> calls_begin, std::vector<bool>& seen,
                      std::vector<const Computation*>& order) {
  if (seen[start]) return;
  seen[start] = true;
  // (computation, next site of it to look at): a depth-first walk without recursion, so a deep
  // call chain cannot exhaust the stack.
  std::vector<std::pair<int32_t, int32_t>> stack = {{start, calls_begin[start]}};
  while (!stack.empty()) {
    auto& [k, next] = stack.back();
    if (next < calls_begin[k + 1]) {
      const int32_t to = callee_index[next];
      const CallSite& site = sites[next++];
      if (to >= 0 && !seen[to] && Follows(site, follow)) {
        seen[to] = true;
        stack.push_back({to, calls_begin[to]});
      }
      continue;
    }
    order.push_back(module.computations()[k]);
    stack.pop_back();
  }
}

}  // namespace

std::unique_ptr<CallGraph> CallGraph::Build(const Module& module) {
  std::vector<CallSite> calls;
  for (const Computation* c : module.computations()) {
    for (const Instruction* i : c->instructions()) {
      if (!i->called_computations().empty()) AppendCallsOf(*i, calls);
    }
  }
  std::unique_ptr<CallGraph> graph(new CallGraph(module));
  graph->Index(std::move(calls));
  return graph;
}

std::unique_ptr<CallGraph> CallGraph::FromCalls(const Module& module, std::vector<CallSite> calls) {
  std::unique_ptr<CallGraph> graph(new CallGraph(module));
  graph->Index(std::move(calls));
  return graph;
}

void CallGraph::Index(std::vector<CallSite> calls) {
  const auto computations = module_.computations();
  const auto n = static_cast<int32_t>(computations.size());
  index_.reserve(computations.size());
  for (int32_t k = 0; k < n; ++k) index_.emplace(computations[k], k);

  // Sites grouped by the caller's computation (stable: module order within each).
  // Each computation is looked up once per site here and never again: the queries below read
  // callee_index_. Consecutive sites mostly share their caller's computation.
  std::vector<int32_t> from(calls.size(), -1), to(calls.size(), -1);
  calls_begin_.assign(n + 1, 0);
  size_t kept = 0;
  const Computation* last_parent = nullptr;
  int32_t last_from = -1;
  for (size_t s = 0; s < calls.size(); ++s) {
    const CallSite& site = calls[s];
    if (site.context == CallContext::kNone || site.callee == nullptr || site.caller == nullptr) {
      continue;
    }
    if (site.caller->parent() != last_parent || last_parent == nullptr) {
      last_parent = site.caller->parent();
      last_from = IndexOf(last_parent);
    }
    from[s] = last_from;
    if (from[s] < 0) continue;
    to[s] = IndexOf(site.callee);
    ++calls_begin_[from[s] + 1];
    ++kept;
  }
  for (int32_t k = 0; k < n; ++k) calls_begin_[k + 1] += calls_begin_[k];
  sites_.resize(kept);
  callee_index_.resize(kept);
  {
    std::vector<int32_t> next(calls_begin_.begin(), calls_begin_.end() - 1);
    for (size_t s = 0; s < calls.size(); ++s) {
      if (from[s] < 0) continue;
      const int32_t at = next[from[s]]++;
      sites_[at] = calls[s];
      callee_index_[at] = to[s];
    }
  }

  // Callers grouped by callee: control-flow sites first, then embedded, each in module order.
  callers_begin_.assign(n + 1, 0);
  control_flow_count_.assign(n, 0);
  for (size_t s = 0; s < sites_.size(); ++s) {
    const int32_t callee = callee_index_[s];
    if (callee < 0) continue;
    ++callers_begin_[callee + 1];
    if (sites_[s].context == CallContext::kControlFlow) {
      ++control_flow_count_[callee];
      has_control_flow_ = true;
    }
  }
  for (int32_t k = 0; k < n; ++k) callers_begin_[k + 1] += callers_begin_[k];
  callers_.resize(callers_begin_[n]);
  std::vector<int32_t> next_control(n), next_embedded(n);
  for (int32_t k = 0; k < n; ++k) {
    next_control[k] = callers_begin_[k];
    next_embedded[k] = callers_begin_[k] + control_flow_count_[k];
  }
  site_context_.assign(n, CallContext::kNone);
  for (size_t s = 0; s < sites_.size(); ++s) {
    const CallSite& site = sites_[s];
    const int32_t callee = callee_index_[s];
    if (callee < 0) continue;
    const bool control = site.context == CallContext::kControlFlow;
    callers_[control ? next_control[callee]++ : next_embedded[callee]++] = site;
    site_context_[callee] = Union(site_context_[callee], site.context);
  }
  SetContexts();
}

void CallGraph::SetContexts() {
  const auto computations = module_.computations();
  const auto n = static_cast<int32_t>(computations.size());
  // XLA's propagation: computations nothing calls run as control flow; a context change is
  // passed on to the callees until nothing changes (at most three values per computation).
  context_.assign(n, CallContext::kNone);
  std::deque<int32_t> work;
  for (int32_t k = 0; k < n; ++k) {
    if (callers_begin_[k] == callers_begin_[k + 1]) {
      context_[k] = CallContext::kControlFlow;
      work.push_back(k);
    }
  }
  while (!work.empty()) {
    const int32_t k = work.front();
    work.pop_front();
    for (int32_t s = calls_begin_[k]; s < calls_begin_[k + 1]; ++s) {
      const CallSite& site = sites_[s];
      const int32_t to = callee_index_[s];
      if (to < 0) continue;
      const CallContext added =
          site.context == CallContext::kEmbedded ? CallContext::kEmbedded : context_[k];
      const CallContext merged = Union(context_[to], added);
      if (merged != context_[to]) {
        context_[to] = merged;
        work.push_back(to);
      }
    }
  }
  reachable_.assign(n, false);
  if (const int32_t entry = IndexOf(module_.entry()); entry >= 0) {
    std::vector<int32_t> stack = {entry};
    reachable_[entry] = true;
    while (!stack.empty()) {
      const int32_t k = stack.back();
      stack.pop_back();
      for (int32_t s = calls_begin_[k]; s < calls_begin_[k + 1]; ++s) {
        const int32_t to = callee_index_[s];
        if (to >= 0 && !reachable_[to]) {
          reachable_[to] = true;
          stack.push_back(to);
        }
      }
    }
  }
}

int32_t CallGraph::IndexOf(const Computation* c) const {
  auto it = index_.find(c);
  return it == index_.end() ? -1 : it->second;
}

absl::Span<const CallSite> CallGraph::CallsIn(const Computation& c) const {
  const int32_t k = IndexOf(&c);
  if (k < 0) return {};
  return absl::MakeConstSpan(sites_).subspan(calls_begin_[k],
                                             calls_begin_[k + 1] - calls_begin_[k]);
}

absl::Span<const CallSite> CallGraph::CallersOf(const Computation& c) const {
  const int32_t k = IndexOf(&c);
  if (k < 0) return {};
  return absl::MakeConstSpan(callers_).subspan(callers_begin_[k],
                                               callers_begin_[k + 1] - callers_begin_[k]);
}

absl::Span<const CallSite> CallGraph::ControlFlowSites(const Computation* c) const {
  const int32_t k = IndexOf(c);
  if (k < 0) return {};
  return absl::MakeConstSpan(callers_).subspan(callers_begin_[k], control_flow_count_[k]);
}

int64_t CallGraph::EmbeddedSiteCount(const Computation* c) const {
  const int32_t k = IndexOf(c);
  if (k < 0) return 0;
  return callers_begin_[k + 1] - callers_begin_[k] - control_flow_count_[k];
}

CallContext CallGraph::Context(const Computation& c) const {
  const int32_t k = IndexOf(&c);
  return k < 0 ? CallContext::kNone : context_[k];
}

CallContext CallGraph::SiteContext(const Computation& c) const {
  const int32_t k = IndexOf(&c);
  return k < 0 ? CallContext::kNone : site_context_[k];
}

bool CallGraph::ReachableFromEntry(const Computation& c) const {
  const int32_t k = IndexOf(&c);
  return k >= 0 && reachable_[k];
}

std::vector<const Computation*> CallGraph::CalleesFirst(const Computation& root,
                                                        Follow follow) const {
  const int32_t start = IndexOf(&root);
  if (start < 0) return {&root};
  std::vector<const Computation*> order;
  std::vector<bool> seen(index_.size(), false);
  WalkCalleesFirst(start, follow, module_, sites_, callee_index_, calls_begin_, seen, order);
  return order;
}

std::vector<const Computation*> CallGraph::PostOrder() const {
  const auto n = static_cast<int32_t>(index_.size());
  std::vector<const Computation*> order;
  std::vector<bool> seen(n, false);
  // One walk over every computation: from each root in module order, and then from whatever a
  // call cycle (which the verifier rejects) left unreached.
  for (int32_t k = 0; k < n; ++k) {
    if (callers_begin_[k] == callers_begin_[k + 1]) {
      WalkCalleesFirst(k, kAllCalls, module_, sites_, callee_index_, calls_begin_, seen, order);
    }
  }
  for (int32_t k = 0; k < n; ++k) {
    WalkCalleesFirst(k, kAllCalls, module_, sites_, callee_index_, calls_begin_, seen, order);
  }
  return order;
}

absl::Status CallGraph::CheckNoMixedContext() const {
  for (const CallSite& site : sites_) {
    if (site.context != CallContext::kControlFlow || !IsEmbedded(site.callee)) continue;
    const Instruction& i = *site.caller;
    return absl::InvalidArgumentError(fmt::format(
        "computation '{}' is called both as control flow ('{}' in '{}') and embedded; its "
        "parameters cannot both receive their caller's values and define their own (XLA's "
        "dataflow rejects this too): run the flatten-call-graph pass first",
        site.callee->name(), i.name(), i.parent() ? i.parent()->name() : ""));
  }
  return absl::OkStatus();
}

bool CallGraph::IsFlattened() const {
  for (size_t k = 0; k < control_flow_count_.size(); ++k) {
    if (site_context_[k] == CallContext::kBoth || control_flow_count_[k] > 1) return false;
  }
  return true;
}

}  // namespace hloscope
