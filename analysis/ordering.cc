#include "analysis/ordering.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/container/inlined_vector.h"
#include "analysis/dataflow_call_sites.h"
#include "fmt/format.h"
#include "hlo/computation.h"

namespace hloscope {

namespace {

// Operands and control predecessors in the same computation: what must run before `instr`.
template <typename Fn>
void ForEachPredecessor(const Instruction& instr, Fn&& fn) {
  for (const Instruction* op : instr.operands()) {
    if (op->parent() == instr.parent()) fn(op);
  }
  for (const Instruction* pred : instr.control_predecessors()) {
    if (pred->parent() == instr.parent()) fn(pred);
  }
}

// Numbers the instructions of `c` so that predecessors come first (iterative DFS, so deep
// chains do not exhaust the stack). Fails on a cycle.
absl::Status NumberTopologically(const Computation& c, std::vector<int64_t>& position) {
  enum : uint8_t { kNew, kOpen, kDone };
  absl::flat_hash_map<const Instruction*, uint8_t> state;
  state.reserve(c.instructions().size());
  int64_t next = 0;
  std::vector<std::pair<const Instruction*, bool>> stack;  // (instr, predecessors pushed)
  for (const Instruction* root : c.instructions()) {
    if (state[root] != kNew) continue;
    stack.push_back({root, false});
    while (!stack.empty()) {
      auto [instr, expanded] = stack.back();
      stack.pop_back();
      uint8_t& s = state[instr];
      if (expanded) {
        if (s == kOpen) {
          s = kDone;
          position[instr->unique_id()] = next++;
        }
        continue;
      }
      if (s == kDone) continue;
      if (s == kOpen) {
        return absl::InvalidArgumentError(fmt::format(
            "computation '{}': instruction '{}' is on a cycle", c.name(), instr->name()));
      }
      s = kOpen;
      stack.push_back({instr, true});
      ForEachPredecessor(*instr, [&](const Instruction* p) {
        auto it = state.find(p);
        if (it == state.end() || it->second == kNew) {
          stack.push_back({p, false});
        } else if (it->second == kOpen) {
          // Reached again while still open: a cycle (reported when popped as new).
          stack.push_back({p, false});
        }
      });
    }
  }
  return absl::OkStatus();
}

// The first branch slots of `conditional` that run `a` and `b`, when both are branches and
// differ (one computation in two slots is not exclusive with itself).
std::optional<std::pair<size_t, size_t>> BranchSlots(const Instruction& conditional,
                                                     const Computation* a, const Computation* b) {
  if (a == nullptr || b == nullptr || a == b) return std::nullopt;
  const std::vector<Computation*> branches = conditional.branch_computations();
  auto slot = [&](const Computation* c) {
    return static_cast<size_t>(std::find(branches.begin(), branches.end(), c) - branches.begin());
  };
  const size_t sa = slot(a), sb = slot(b);
  if (sa == branches.size() || sb == branches.size()) return std::nullopt;
  return std::pair{sa, sb};
}

struct Ancestry {
  const Computation* computation;
  const Instruction* instr;  // the ancestor in `computation`
  const Computation* child;  // the callee it was reached from (nullptr for the start)
};

}  // namespace

absl::StatusOr<std::unique_ptr<ExecutionOrdering>> ExecutionOrdering::Run(const Module& module) {
  std::unique_ptr<ExecutionOrdering> o(new ExecutionOrdering());
  o->sequential_ = module.is_scheduled();
  uint32_t max_id = 0;
  for (const Computation* c : module.computations()) {
    for (const Instruction* i : c->instructions()) max_id = std::max(max_id, i->unique_id());
  }
  o->position_.assign(static_cast<size_t>(max_id) + 1, 0);
  o->stamp_.assign(static_cast<size_t>(max_id) + 1, 0);
  absl::flat_hash_map<const Computation*, int> callers;
  for (const Computation* c : module.computations()) {
    int64_t index = 0;
    for (const Instruction* i : c->instructions()) {
      if (o->sequential_) o->position_[i->unique_id()] = index++;
      // async-update and async-done name their start's computation without running it.
      if (CallContextOf(*i) == CallContext::kNone) continue;
      for (const Computation* callee : i->called_computations()) {
        if (++callers[callee] == 1) {
          o->caller_[callee] = i;
        } else {
          o->caller_[callee] = nullptr;
        }
      }
    }
    if (!o->sequential_) {
      if (absl::Status s = NumberTopologically(*c, o->position_); !s.ok()) return s;
    }
  }
  return o;
}

const Instruction* ExecutionOrdering::CallerOf(const Computation& c) const {
  auto it = caller_.find(&c);
  return it == caller_.end() ? nullptr : it->second;
}

bool ExecutionOrdering::IsNestedIn(const Instruction& instr, const Computation& c) const {
  const Instruction* at = &instr;
  for (int guard = 0; at != nullptr && guard < 64; ++guard) {
    if (at->parent() == &c) return true;
    at = CallerOf(*at->parent());
  }
  return false;
}

bool ExecutionOrdering::Reaches(const Instruction& a, const Instruction& b) const {
  const int64_t pa = Position(a), pb = Position(b);
  if (pa >= pb) return false;
  const Computation* c = b.parent();
  if (c->instruction_count() <= kBitsetLimit) {
    auto [it, inserted] = ancestors_.try_emplace(c);
    std::vector<uint64_t>& bits = it->second.bits;
    size_t& words = it->second.words;
    if (inserted) {
      // Rows are indexed by position (a removed instruction leaves an unused row).
      std::vector<const Instruction*> by_position(c->instructions().begin(),
                                                  c->instructions().end());
      std::sort(
          by_position.begin(), by_position.end(),
          [&](const Instruction* x, const Instruction* y) { return Position(*x) < Position(*y); });
      const size_t rows =
          by_position.empty() ? 0 : static_cast<size_t>(Position(*by_position.back())) + 1;
      words = (rows + 63) / 64;
      bits.assign(rows * words, 0);
      for (const Instruction* instr : by_position) {
        uint64_t* row = &bits[static_cast<size_t>(Position(*instr)) * words];
        ForEachPredecessor(*instr, [&](const Instruction* p) {
          const auto pp = static_cast<size_t>(Position(*p));
          const uint64_t* prow = &bits[pp * words];
          for (size_t w = 0; w < words; ++w) row[w] |= prow[w];
          row[pp / 64] |= uint64_t{1} << (pp % 64);
        });
      }
    }
    const auto ua = static_cast<size_t>(pa), ub = static_cast<size_t>(pb);
    if (ub * words + ua / 64 >= bits.size()) return false;
    return (bits[ub * words + ua / 64] >> (ua % 64)) & 1;
  }
  // Large computation: search backwards from b, never below a's position.
  if (++generation_ == 0) {
    std::fill(stamp_.begin(), stamp_.end(), 0);
    generation_ = 1;
  }
  stack_.clear();
  stack_.push_back(&b);
  stamp_[b.unique_id()] = generation_;
  while (!stack_.empty()) {
    const Instruction* at = stack_.back();
    stack_.pop_back();
    bool found = false;
    ForEachPredecessor(*at, [&](const Instruction* p) {
      if (found) return;
      if (p == &a) {
        found = true;
        return;
      }
      if (Position(*p) <= pa || stamp_[p->unique_id()] == generation_) return;
      stamp_[p->unique_id()] = generation_;
      stack_.push_back(p);
    });
    if (found) return true;
  }
  return false;
}

bool ExecutionOrdering::BeforeInComputation(const Instruction& a, const Instruction& b) const {
  if (&a == &b) return false;
  const bool a_param = a.opcode() == Opcode::kParameter;
  const bool b_param = b.opcode() == Opcode::kParameter;
  if (a_param || b_param) return a_param && !b_param;
  if (sequential_) return Position(a) < Position(b);
  return Reaches(a, b);
}

ExecutionOrdering::Meeting ExecutionOrdering::Meet(const Instruction& a,
                                                   const Instruction& b) const {
  auto chain = [&](const Instruction& start) {
    absl::InlinedVector<Ancestry, 6> out;
    const Instruction* at = &start;
    const Computation* child = nullptr;
    while (at != nullptr && out.size() < 64) {
      out.push_back({at->parent(), at, child});
      child = at->parent();
      at = CallerOf(*at->parent());
    }
    return out;
  };
  const auto ca = chain(a);
  const auto cb = chain(b);
  for (const Ancestry& x : ca) {
    for (const Ancestry& y : cb) {
      if (x.computation == y.computation) return {x.instr, y.instr, x.child, y.child};
    }
  }
  return {};
}

bool ExecutionOrdering::MutuallyExclusive(const Instruction& a, const Instruction& b) const {
  if (&a == &b || a.parent() == b.parent()) return false;
  const Meeting m = Meet(a, b);
  return m.a != nullptr && m.a == m.b && m.a->opcode() == Opcode::kConditional &&
         BranchSlots(*m.a, m.a_callee, m.b_callee).has_value();
}

bool ExecutionOrdering::ExecutesBefore(const Instruction& a, const Instruction& b) const {
  if (&a == &b) return false;
  if (a.parent() == b.parent()) return BeforeInComputation(a, b);
  const Meeting m = Meet(a, b);
  if (m.a == nullptr) return false;
  if (m.a != m.b) return BeforeInComputation(*m.a, *m.b);
  // Both inside the same calling instruction. A while runs its condition before its body. A
  // conditional runs one branch only, so its branches never overlap: as in XLA's ordering, an
  // earlier branch counts as before a later one.
  const Instruction& call = *m.a;
  if (call.opcode() == Opcode::kConditional) {
    const auto slots = BranchSlots(call, m.a_callee, m.b_callee);
    return slots && slots->first < slots->second;
  }
  return call.opcode() == Opcode::kWhile && m.a_callee != nullptr && m.b_callee != nullptr &&
         m.a_callee == call.while_condition() && m.b_callee == call.while_body();
}

}  // namespace hloscope
