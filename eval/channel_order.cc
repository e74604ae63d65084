#include "eval/channel_order.h"

#include <functional>
#include <queue>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "hlo/attribute_values.h"

namespace hloscope::eval {
namespace {

// Whether `from` is `target` or depends on it through operands and control predecessors.
bool DependsOn(const Instruction* from, const Instruction* target) {
  absl::flat_hash_set<const Instruction*> seen;
  std::vector<const Instruction*> stack = {from};
  while (!stack.empty()) {
    const Instruction* i = stack.back();
    stack.pop_back();
    if (i == target) return true;
    if (!seen.insert(i).second) continue;
    for (const Instruction* o : i->operands()) stack.push_back(o);
    for (const Instruction* p : i->control_predecessors()) stack.push_back(p);
  }
  return false;
}

}  // namespace

std::vector<const Instruction*> OrderSendsBeforeRecvs(std::vector<const Instruction*> order) {
  absl::flat_hash_map<int64_t, std::vector<const Instruction*>> sends;
  std::vector<const Instruction*> recvs;
  for (const Instruction* i : order) {
    if (i->opcode() == Opcode::kSend)
      sends[IntAttribute(*i, "channel_id").value_or(-1)].push_back(i);
    if (i->opcode() == Opcode::kRecv) recvs.push_back(i);
  }
  if (sends.empty() || recvs.empty()) return order;
  // Extra edges: recv after every send of its channel that does not depend on it.
  absl::flat_hash_map<const Instruction*, std::vector<const Instruction*>> after;
  bool any = false;
  for (const Instruction* r : recvs) {
    auto it = sends.find(IntAttribute(*r, "channel_id").value_or(-1));
    if (it == sends.end()) continue;
    for (const Instruction* s : it->second) {
      if (DependsOn(s, r)) continue;
      after[r].push_back(s);
      any = true;
    }
  }
  if (!any) return order;
  // Kahn's algorithm, the earliest position first among the ready ones.
  absl::flat_hash_map<const Instruction*, size_t> position;
  for (size_t k = 0; k < order.size(); ++k) position[order[k]] = k;
  absl::flat_hash_map<const Instruction*, int64_t> waiting;
  absl::flat_hash_map<const Instruction*, std::vector<const Instruction*>> users;
  auto edge = [&](const Instruction* before, const Instruction* i) {
    if (!position.contains(before)) return;  // outside this order (another computation)
    ++waiting[i];
    users[before].push_back(i);
  };
  for (const Instruction* i : order) {
    for (const Instruction* o : i->operands()) edge(o, i);
    for (const Instruction* p : i->control_predecessors()) edge(p, i);
    if (auto it = after.find(i); it != after.end()) {
      for (const Instruction* s : it->second) edge(s, i);
    }
  }
  std::priority_queue<size_t, std::vector<size_t>, std::greater<>> ready;
  for (size_t k = 0; k < order.size(); ++k) {
    if (waiting[order[k]] == 0) ready.push(k);
  }
  std::vector<const Instruction*> out;
  while (!ready.empty()) {
    const Instruction* i = order[ready.top()];
    ready.pop();
    out.push_back(i);
    for (const Instruction* u : users[i]) {
      if (--waiting[u] == 0) ready.push(position[u]);
    }
  }
  // A cycle (not possible without one in the module itself) keeps the given order.
  return out.size() == order.size() ? out : order;
}

}  // namespace hloscope::eval
