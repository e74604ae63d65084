#include "analysis/memory/call_graph.h"

#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "fmt/format.h"
#include "hlo/computation.h"

namespace hloscope {

std::vector<const Computation*> CalleesFirst(const Computation& entry) {
  std::vector<const Computation*> order;
  absl::flat_hash_set<const Computation*> seen = {&entry};
  std::vector<std::pair<const Computation*, size_t>> stack = {{&entry, 0}};
  std::vector<std::vector<const Computation*>> callees_of = {{}};
  auto callees = [](const Computation* c) {
    std::vector<const Computation*> out;
    for (const Instruction* in : c->instructions()) {
      if (IsControlFlow(in->opcode())) {
        for (const Computation* callee : in->called_computations()) out.push_back(callee);
      }
    }
    return out;
  };
  callees_of.back() = callees(&entry);
  while (!stack.empty()) {
    auto& [c, next] = stack.back();
    std::vector<const Computation*>& list = callees_of.back();
    if (next < list.size()) {
      const Computation* callee = list[next++];
      if (seen.insert(callee).second) {
        stack.push_back({callee, 0});
        callees_of.push_back(callees(callee));
      }
      continue;
    }
    order.push_back(c);
    stack.pop_back();
    callees_of.pop_back();
  }
  return order;
}

absl::Status CheckOneCallSitePerCallee(const Module& module) {
  if (module.entry() == nullptr) return absl::OkStatus();
  absl::flat_hash_map<const Computation*, int> sites;
  // Call sites in the computations the profiler walks; unreachable ones run never.
  for (const Computation* c : CalleesFirst(*module.entry())) {
    for (const Instruction* in : c->instructions()) {
      if (!IsControlFlow(in->opcode())) continue;
      for (const Computation* callee : in->called_computations()) {
        if (++sites[callee] == 2) {
          return absl::InvalidArgumentError(fmt::format(
              "module '{}': computation '{}' has more than one call site; the memory profiler "
              "needs one per control-flow callee: run --passes=flatten-call-graph first",
              module.name(), callee->name()));
        }
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace hloscope
