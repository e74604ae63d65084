#include "hlo/async_chain_start.h"

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "hlo/computation.h"
#include "hlo/module.h"

namespace hloscope {

namespace {

// The search recurses once per step (as XLA's does), so the budget bounds both its stack depth
// and the backtracking of a search through many nested loops and tuples. A chain crosses a
// loop in a handful of steps; a search past the budget finds nothing, which is what every
// loop-crossing chain found before this search (the done then has no pairs).
constexpr int64_t kMaxSearchSteps = 1 << 12;

bool IsProducer(const Instruction& i) {
  return i.opcode() == Opcode::kAsyncStart || i.opcode() == Opcode::kAsyncUpdate;
}

// For each computation, the one while calling it when that while calls it as its body and
// no other while calls it (XLA: caller_instructions(kWhile) has one element and it is the
// body); nullptr for the others.
absl::flat_hash_map<const Computation*, const Instruction*> OnlyWhileWithBody(const Module& m) {
  absl::flat_hash_map<const Computation*, const Instruction*> loop;
  absl::flat_hash_map<const Computation*, int> whiles;
  for (const Computation* comp : m.computations()) {
    for (const Instruction* i : comp->instructions()) {
      if (i->opcode() != Opcode::kWhile) continue;
      for (const Computation* callee : {i->while_body(), i->while_condition()}) {
        if (callee == nullptr) continue;
        ++whiles[callee];
        loop[callee] = callee == i->while_body() ? i : nullptr;
      }
    }
  }
  for (auto& [c, n] : whiles) {
    if (n != 1) loop[c] = nullptr;
  }
  return loop;
}

class ProducerSearch {
 public:
  const Instruction* Find(const Instruction* at, std::vector<int64_t> index) {
    if (at == nullptr || ++steps_ > kMaxSearchSteps || !on_path_.insert(at).second) {
      return nullptr;
    }
    const Instruction* found = Step(*at, std::move(index));
    on_path_.erase(at);  // XLA's revert_step: another path may pass here again
    return found;
  }

 private:
  const Instruction* Step(const Instruction& at, std::vector<int64_t> index) {
    if (IsProducer(at)) return &at;
    switch (at.opcode()) {
      case Opcode::kGetTupleElement:
        if (at.operand_count() == 0) return nullptr;
        index.push_back(at.tuple_index());
        return Find(at.operand(0), std::move(index));
      case Opcode::kOptBarrier:
      case Opcode::kTuple: {
        if (at.opcode() == Opcode::kOptBarrier && at.operand_count() == 1) {
          return Find(at.operand(0), std::move(index));
        }
        if (index.empty()) {
          for (const Instruction* operand : at.operands()) {
            if (const Instruction* found = Find(operand, index)) return found;
          }
          return nullptr;
        }
        const int64_t k = index.back();
        index.pop_back();
        if (k < 0 || k >= at.operand_count()) return nullptr;
        return Find(at.operand(k), std::move(index));
      }
      case Opcode::kCopy:
        return at.operand_count() == 0 ? nullptr : Find(at.operand(0), std::move(index));
      case Opcode::kParameter: {
        if (at.parent() == nullptr) return nullptr;
        if (!loops_.has_value()) loops_ = OnlyWhileWithBody(*at.parent()->module());
        auto it = loops_->find(at.parent());
        const Instruction* loop = it == loops_->end() ? nullptr : it->second;
        if (loop == nullptr || loop->operand_count() == 0) return nullptr;
        if (const Instruction* found = Find(loop->operand(0), index)) return found;
        return Find(at.parent()->root(), std::move(index));
      }
      case Opcode::kWhile: {
        if (at.while_body() != nullptr && at.while_body()->root() != nullptr) {
          if (const Instruction* found = Find(at.while_body()->root(), index)) return found;
        }
        return at.operand_count() == 0 ? nullptr : Find(at.operand(0), std::move(index));
      }
      default:
        return nullptr;
    }
  }

  absl::flat_hash_set<const Instruction*> on_path_;
  int64_t steps_ = 0;
  std::optional<absl::flat_hash_map<const Computation*, const Instruction*>> loops_;
};

// XLA's FindAsyncChainProducer: `at` itself when it is an async-start or -update, else the
// first one its dataflow leads to.
const Instruction* Producer(const Instruction* at) {
  if (at == nullptr) return nullptr;
  if (IsProducer(*at)) return at;
  return ProducerSearch().Find(at, {});
}

// Operand-0 links only (hlo/async_chain.h's reading of a chain).
const Instruction* DirectStart(const Instruction& op) {
  const Instruction* at = &op;
  for (int steps = 0; at != nullptr && steps < 1 << 20; ++steps) {
    if (at->opcode() == Opcode::kAsyncStart) return at;
    if (at->opcode() != Opcode::kAsyncUpdate && at->opcode() != Opcode::kAsyncDone) return nullptr;
    if (at->operand_count() == 0) return nullptr;
    at = at->operand(0);
  }
  return nullptr;
}

}  // namespace

const Instruction* FindAsyncChainStartAcrossLoops(const Instruction& op) {
  const Instruction* at = &op;
  switch (op.opcode()) {
    case Opcode::kAsyncStart:
      return &op;
    case Opcode::kAsyncDone:
      if (op.operand_count() == 0) return nullptr;
      at = op.operand(0);
      break;
    case Opcode::kAsyncUpdate:
      break;
    default:
      return nullptr;
  }
  const Instruction* producer = Producer(at);
  // A chain is short; the bound only guards against a malformed cycle of updates.
  for (int steps = 0; producer != nullptr && producer->opcode() == Opcode::kAsyncUpdate; ++steps) {
    if (steps >= 1 << 20 || producer->operand_count() == 0) return nullptr;
    producer = Producer(producer->operand(0));
  }
  return producer;
}

bool AsyncChainCrossesLoop(const Instruction& op) {
  return DirectStart(op) == nullptr && FindAsyncChainStartAcrossLoops(op) != nullptr;
}

}  // namespace hloscope
