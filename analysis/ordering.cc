#include "analysis/ordering.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/container/inlined_vector.h"
#include "analysis/async_chain_runs_at.h"
#include "analysis/call_graph.h"
#include "fmt/format.h"
#include "hlo/async_chain.h"
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

// The branch slot of `conditional` that runs `c`, or -1 (c is nullptr, or not a branch).
int BranchSlot(const Instruction& conditional, const Computation* c) {
  if (c == nullptr) return -1;
  const std::vector<Computation*> branches = conditional.branch_computations();
  const auto it = std::find(branches.begin(), branches.end(), c);
  return it == branches.end() ? -1 : static_cast<int>(it - branches.begin());
}

}  // namespace

const char* ExecutionConstraintName(ExecutionConstraint c) {
  switch (c) {
    case ExecutionConstraint::kIsSame:
      return "is-same";
    case ExecutionConstraint::kRunBeforeStart:
      return "run-before-start";
    case ExecutionConstraint::kRunBeforeEnd:
      return "run-before-end";
    case ExecutionConstraint::kRunExclusiveBefore:
      return "run-exclusive-before";
    case ExecutionConstraint::kRunExclusiveAfter:
      return "run-exclusive-after";
    case ExecutionConstraint::kRunAfter:
      return "run-after";
    case ExecutionConstraint::kUnordered:
      return "unordered";
  }
  return "unordered";
}

const Instruction* ExecutionOrdering::AsyncWrappedInstruction(const Instruction& op) {
  const Instruction* at = &op;
  // A chain is short; the bound only guards against a malformed cycle of updates.
  for (int steps = 0; steps < 1 << 20; ++steps) {
    if (at->opcode() == Opcode::kAsyncStart) break;
    if (at->opcode() != Opcode::kAsyncUpdate && at->opcode() != Opcode::kAsyncDone) return nullptr;
    if (at->operand_count() == 0) return nullptr;
    at = at->operand(0);
  }
  // The short forms (`fusion-start`, `call-start`, ...) stand for the op themselves: XLA's
  // wrapped instruction has no instruction of its own here.
  if (at->opcode() != Opcode::kAsyncStart || at->async_wrapped_opcode() != Opcode::kOpcodeCount) {
    return nullptr;
  }
  const Computation* wrapped = AsyncChainComputation(*at);
  return wrapped == nullptr ? nullptr : wrapped->root();
}

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
      // A late-bound chain runs its computation where it has bound everything (XLA's live
      // range flattens it there, and its evaluator runs it there): an operand bound by an
      // update is written before the body reads it. The async op stays is-same with the
      // wrapped root (Constraint).
      const Instruction* runs_at = AsyncChainRunsAt(*i);
      if (runs_at == nullptr || runs_at->parent() != i->parent()) runs_at = i;
      for (const Computation* callee : i->called_computations()) {
        if (++callers[callee] == 1) {
          o->caller_[callee] = runs_at;
        } else {
          o->caller_[callee] = nullptr;
        }
      }
    }
    if (!o->sequential_) {
      if (absl::Status s = NumberTopologically(*c, o->position_); !s.ok()) return s;
    }
  }
  o->BuildCallerForest(module);
  return o;
}

const Instruction* ExecutionOrdering::CallerOf(const Computation& c) const {
  auto it = caller_.find(&c);
  return it == caller_.end() ? nullptr : it->second;
}

void ExecutionOrdering::BuildCallerForest(const Module& module) {
  const auto computations = module.computations();
  const int32_t n = static_cast<int32_t>(computations.size());
  computations_.assign(computations.begin(), computations.end());
  for (int32_t k = 0; k < n; ++k) node_[computations[k]] = k;
  std::vector<int32_t> parent(n, -1);
  std::vector<std::vector<int32_t>> children(n);
  for (int32_t k = 0; k < n; ++k) {
    if (const Instruction* caller = CallerOf(*computations[k])) {
      auto it = node_.find(caller->parent());
      if (it != node_.end() && it->second != k) {
        parent[k] = it->second;
        children[it->second].push_back(k);
      }
    }
  }
  // Pre/post numbers and depths by an explicit-stack walk (a chain may be 100,000 loops deep).
  // A cycle of callers (not a valid module) is cut where the walk meets a visited node.
  depth_.assign(n, 0);
  pre_.assign(n, -1);
  post_.assign(n, -1);
  int32_t clock = 0, max_depth = 0;
  std::vector<std::pair<int32_t, size_t>> stack;
  auto walk = [&](int32_t root) {
    pre_[root] = clock++;
    stack.push_back({root, 0});
    while (!stack.empty()) {
      auto& [v, next] = stack.back();
      if (next < children[v].size()) {
        const int32_t w = children[v][next++];
        if (pre_[w] >= 0) continue;
        depth_[w] = depth_[v] + 1;
        max_depth = std::max(max_depth, depth_[w]);
        pre_[w] = clock++;
        stack.push_back({w, 0});
        continue;
      }
      post_[v] = clock++;
      stack.pop_back();
    }
  };
  for (int32_t k = 0; k < n; ++k)
    if (parent[k] < 0) walk(k);
  for (int32_t k = 0; k < n; ++k)
    if (pre_[k] < 0) {  // only on a cycle of callers
      parent[k] = -1;
      walk(k);
    }
  // up_[j][k]: the ancestor 2^j levels above k (-1 past the root), for climbs in O(log depth).
  up_.assign(1, parent);
  for (int32_t reach = 1; reach < max_depth; reach *= 2) {
    const std::vector<int32_t>& prev = up_.back();
    std::vector<int32_t> next(n, -1);
    for (int32_t k = 0; k < n; ++k) next[k] = prev[k] < 0 ? -1 : prev[prev[k]];
    up_.push_back(std::move(next));
  }
}

int32_t ExecutionOrdering::NodeOf(const Computation& c) const {
  auto it = node_.find(&c);
  return it == node_.end() ? -1 : it->second;
}

int32_t ExecutionOrdering::Ancestor(int32_t node, int32_t levels) const {
  for (size_t j = 0; node >= 0 && levels > 0; ++j, levels >>= 1) {
    if (levels & 1) node = j < up_.size() ? up_[j][node] : -1;
  }
  return node;
}

bool ExecutionOrdering::IsNestedIn(const Instruction& instr, const Computation& c) const {
  if (instr.parent() == &c) return true;
  const int32_t p = NodeOf(*instr.parent()), q = NodeOf(c);
  if (p < 0 || q < 0) return false;
  // In the caller forest, c is an ancestor of instr's computation: its interval holds p's.
  return pre_[q] < pre_[p] && post_[p] < post_[q];
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
  // A computation's root lives to the computation's end, so it is not before what the schedule
  // lists after it (XLA's SequentialHloOrdering says the same).
  if (sequential_) return a.parent()->root() != &a && Position(a) < Position(b);
  return Reaches(a, b);
}

ExecutionOrdering::Meeting ExecutionOrdering::Meet(const Instruction& a,
                                                   const Instruction& b) const {
  if (a.parent() == b.parent()) return {&a, &b, nullptr, nullptr};
  const int32_t x = NodeOf(*a.parent()), y = NodeOf(*b.parent());
  if (x < 0 || y < 0) return {};
  // The innermost common ancestor in the caller forest: lift the deeper node to the other's
  // depth, then both by decreasing powers of two while they stay apart.
  int32_t u = Ancestor(x, depth_[x] - std::min(depth_[x], depth_[y]));
  int32_t v = Ancestor(y, depth_[y] - std::min(depth_[x], depth_[y]));
  if (u != v) {
    for (size_t j = up_.size(); j-- > 0;) {
      if (up_[j][u] != up_[j][v]) {
        u = up_[j][u];
        v = up_[j][v];
      }
    }
    u = up_[0][u];
    v = up_[0][v];
    if (u < 0 || u != v) return {};  // different roots: the entry and a shared callee, say
  }
  const int32_t meet = u;
  // Each side's ancestor in the meeting computation: the instruction itself, or the caller
  // of its chain's computation one level below the meeting one.
  auto side = [&](const Instruction& i,
                  int32_t node) -> std::pair<const Instruction*, const Computation*> {
    if (node == meet) return {&i, nullptr};
    const Computation* below = computations_[Ancestor(node, depth_[node] - depth_[meet] - 1)];
    return {CallerOf(*below), below};
  };
  const auto [ia, ca] = side(a, x);
  const auto [ib, cb] = side(b, y);
  return {ia, ib, ca, cb};
}

ExecutionOrdering::CommonCaller ExecutionOrdering::InnermostCommonCaller(
    const Instruction& a, const Instruction& b) const {
  const Meeting m = Meet(a, b);
  if (m.a == nullptr) return {};
  // Both reached through one instruction's callees: that instruction holds both.
  if (m.a == m.b && m.a_callee != nullptr && m.b_callee != nullptr) return {m.a, m.a_callee};
  // Otherwise they meet as different instructions of one computation: its caller holds both.
  const Computation* meeting = m.a->parent();
  return {CallerOf(*meeting), meeting};
}

bool ExecutionOrdering::MutuallyExclusive(const Instruction& a, const Instruction& b) const {
  if (&a == &b || a.parent() == b.parent()) return false;
  const Meeting m = Meet(a, b);
  return m.a != nullptr && m.a == m.b && m.a->opcode() == Opcode::kConditional &&
         BranchSlots(*m.a, m.a_callee, m.b_callee).has_value();
}

bool ExecutionOrdering::ExecutesBefore(const Instruction& a, const Instruction& b) const {
  switch (Constraint(a, b)) {
    case ExecutionConstraint::kRunBeforeStart:
    case ExecutionConstraint::kRunExclusiveBefore:
      return true;
    case ExecutionConstraint::kRunBeforeEnd:
      // XLA says true for an instruction of a branch and its conditional too; ours stays false
      // there, as it was when copy-elision's region analysis was held against XLA's copy
      // insertion tests (which ask the conditional case themselves): answering true changes
      // which copies of ConditionalBranchRootReplicatedBuffers it removes.
      return b.opcode() != Opcode::kConditional || a.parent() == b.parent() ||
             !std::any_of(b.called_computations().begin(), b.called_computations().end(),
                          [&](const Computation* branch) { return IsNestedIn(a, *branch); });
    case ExecutionConstraint::kIsSame:
    case ExecutionConstraint::kRunExclusiveAfter:
    case ExecutionConstraint::kRunAfter:
    case ExecutionConstraint::kUnordered:
      return false;
  }
  return false;
}

ExecutionConstraint ExecutionOrdering::Constraint(const Instruction& a,
                                                  const Instruction& b) const {
  // An async op and the op it wraps are one operation (XLA asks the same of both).
  if (&a == &b || AsyncWrappedInstruction(a) == &b || AsyncWrappedInstruction(b) == &a) {
    return ExecutionConstraint::kIsSame;
  }
  const Instruction* x = &a;
  const Instruction* y = &b;
  if (a.parent() != b.parent()) {
    const Meeting m = Meet(a, b);
    if (m.a == nullptr) return ExecutionConstraint::kUnordered;
    if (m.a == m.b) {
      // Both inside the same calling instruction. A while runs its condition before its
      // body's end (one iteration's view).
      const Instruction& call = *m.a;
      if (call.opcode() == Opcode::kWhile && m.a_callee != nullptr &&
          m.a_callee == call.while_condition() && m.b_callee != nullptr &&
          m.b_callee == call.while_body()) {
        return ExecutionConstraint::kRunBeforeEnd;
      }
      // A conditional runs one branch only, so its branches never overlap: as in XLA, an
      // earlier branch counts as before a later one; and a branch ends before its conditional.
      if (call.opcode() == Opcode::kConditional) {
        const int sa = BranchSlot(call, m.a_callee), sb = BranchSlot(call, m.b_callee);
        if (sa >= 0 && sb < 0 && m.b_callee == nullptr) {
          return ExecutionConstraint::kRunBeforeEnd;
        }
        if (sb >= 0 && sa < 0 && m.a_callee == nullptr) return ExecutionConstraint::kRunAfter;
        if (sa >= 0 && sb >= 0 && sa != sb) {
          return sa < sb ? ExecutionConstraint::kRunExclusiveBefore
                         : ExecutionConstraint::kRunExclusiveAfter;
        }
      }
    }
    x = m.a;
    y = m.b;
  }
  if (BeforeInComputation(*x, *y)) return ExecutionConstraint::kRunBeforeStart;
  if (BeforeInComputation(*y, *x)) return ExecutionConstraint::kRunAfter;
  return ExecutionConstraint::kUnordered;
}

}  // namespace hloscope
