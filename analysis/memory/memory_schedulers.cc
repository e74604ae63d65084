#include "analysis/memory/memory_schedulers.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "analysis/memory/instruction_sequence.h"

namespace hloscope {
namespace {

// Bytes of the index tables of a tuple-shaped result (8 bytes per element, at every level), as
// XLA's size functions count them.
int64_t TableBytes(const Shape& s) {
  if (!s.IsTuple()) return 0;
  int64_t bytes = 8 * static_cast<int64_t>(s.tuple_elements.size());
  for (const Shape* e : s.tuple_elements) bytes += TableBytes(*e);
  return bytes;
}

// Bytes of the new storage an instruction writes: a tuple writes its table only, other
// forwarding instructions nothing; a send's result holds its operand's data ({0}), which is
// not new.
int64_t DefinedBytes(const Instruction& in) {
  if (in.opcode() == Opcode::kTuple) return TableBytes(in.shape());
  if (WritesNoStorage(in.opcode())) return 0;
  if (in.opcode() == Opcode::kSend && in.shape().IsTuple() && !in.shape().tuple_elements.empty()) {
    int64_t bytes = TableBytes(in.shape());
    for (size_t i = 1; i < in.shape().tuple_elements.size(); ++i) {
      bytes += in.shape().tuple_elements[i]->TotalArrayBytes();
    }
    return bytes;
  }
  return in.shape().TotalArrayBytes() + TableBytes(in.shape());
}

// The instruction whose storage is the top level of `in`'s result (XLA's ComputeBuffersAt(in,
// {})): through bitcasts, domains, optimization barriers and add-dependency to their operand,
// through a get-tuple-element to the element of the tuple (or send) it reads.
const Instruction* TopOwner(const Instruction* in) {
  for (int guard = 0; guard < 64; ++guard) {
    switch (in->opcode()) {
      case Opcode::kBitcast:
      case Opcode::kDomain:
      case Opcode::kOptBarrier:
      case Opcode::kAddDependency:
        if (in->operand_count() == 0) return in;
        in = in->operand(0);
        continue;
      case Opcode::kGetTupleElement: {
        const Instruction* tuple = in->operand_count() > 0 ? in->operand(0) : nullptr;
        const int64_t k = in->tuple_index();
        if (tuple != nullptr && tuple->opcode() == Opcode::kTuple && k < tuple->operand_count()) {
          in = tuple->operand(k);
          continue;
        }
        if (tuple != nullptr && tuple->opcode() == Opcode::kSend && k == 0 &&
            tuple->operand_count() > 0) {
          in = tuple->operand(0);
          continue;
        }
        return tuple != nullptr ? tuple : in;
      }
      default:
        return in;
    }
  }
  return in;
}

bool ScheduledFirst(const Instruction& in) {
  return in.opcode() == Opcode::kParameter || in.opcode() == Opcode::kConstant;
}

std::vector<const Instruction*> Predecessors(const Instruction& in) {
  std::vector<const Instruction*> out(in.operands().begin(), in.operands().end());
  for (const Instruction* p : in.control_predecessors()) out.push_back(p);
  return out;
}

// Post-order from `roots`, each instruction's predecessors in the order `order_of` gives.
template <typename OrderOf>
std::vector<const Instruction*> PostOrderFrom(const Computation& c,
                                              const std::vector<const Instruction*>& roots,
                                              OrderOf order_of) {
  std::vector<const Instruction*> out;
  out.reserve(c.instructions().size());
  absl::flat_hash_set<const Instruction*> seen;
  struct Frame {
    const Instruction* in;
    std::vector<const Instruction*> preds;
    size_t next = 0;
  };
  std::vector<Frame> stack;
  for (const Instruction* root : roots) {
    if (!seen.insert(root).second) continue;
    stack.push_back({root, order_of(*root)});
    while (!stack.empty()) {
      Frame& f = stack.back();
      if (f.next < f.preds.size()) {
        const Instruction* p = f.preds[f.next++];
        if (p->parent() != &c || !seen.insert(p).second) continue;
        stack.push_back({p, order_of(*p)});
        continue;
      }
      out.push_back(f.in);
      stack.pop_back();
    }
  }
  return out;
}

std::vector<const Instruction*> Unused(const Computation& c, const Instruction* first) {
  std::vector<const Instruction*> roots;
  if (first != nullptr) roots.push_back(first);
  for (const Instruction* in : c.instructions()) {
    if (in->users().empty() && in->control_successors().empty()) roots.push_back(in);
  }
  // Anything else (only reachable through users): every instruction is a root of last resort.
  for (const Instruction* in : c.instructions()) roots.push_back(in);
  return roots;
}

std::vector<const Instruction*> PostOrder(const Computation& c) {
  return PostOrderFrom(c, Unused(c, nullptr), Predecessors);
}

std::vector<const Instruction*> Dfs(const Computation& c) {
  struct Stats {
    int64_t extra_users = 0;
    int64_t total_bytes = 0;
  };
  absl::flat_hash_map<const Instruction*, Stats> stats;
  const int64_t count = static_cast<int64_t>(c.instructions().size());
  int64_t cumulative = 0;
  for (const Instruction* in : PostOrder(c)) {
    Stats& s = stats[in];
    if (ScheduledFirst(*in)) continue;
    s.extra_users = in->users().empty() ? 0 : static_cast<int64_t>(in->users().size()) - 1;
    s.total_bytes = DefinedBytes(*in);
    cumulative += s.total_bytes;
    absl::flat_hash_set<const Instruction*> unique(in->operands().begin(), in->operands().end());
    for (const Instruction* op : unique) {
      auto it = stats.find(op);
      if (it == stats.end()) continue;
      s.extra_users += it->second.extra_users;
      s.total_bytes += it->second.total_bytes;
    }
    // Shared subtrees are counted once per path: keep the sums within what exists.
    s.total_bytes = std::min(s.total_bytes, cumulative);
    s.extra_users = std::min(s.extra_users, count);
  }
  auto order_of = [&](const Instruction& in) {
    std::vector<const Instruction*> ops(in.operands().begin(), in.operands().end());
    std::stable_sort(ops.begin(), ops.end(), [&](const Instruction* a, const Instruction* b) {
      const Stats& x = stats[a];
      const Stats& y = stats[b];
      if (x.extra_users != y.extra_users) return x.extra_users > y.extra_users;
      if (x.total_bytes != y.total_bytes) return x.total_bytes > y.total_bytes;
      return a->name() < b->name();
    });
    for (const Instruction* p : in.control_predecessors()) ops.push_back(p);
    return ops;
  };
  return PostOrderFrom(c, Unused(c, c.root()), order_of);
}

// XLA's list scheduler, accounting per storage owner (a tuple frees nothing: whoever reads
// its elements later still holds their storage).
std::vector<const Instruction*> List(const Computation& c) {
  absl::Span<Instruction* const> instrs = c.instructions();
  absl::flat_hash_map<const Instruction*, int64_t> position, waiting, unscheduled_readers;
  for (size_t i = 0; i < instrs.size(); ++i) position[instrs[i]] = static_cast<int64_t>(i);
  auto unique_operands = [](const Instruction& in) {
    std::vector<const Instruction*> ops(in.operands().begin(), in.operands().end());
    std::sort(ops.begin(), ops.end());
    ops.erase(std::unique(ops.begin(), ops.end()), ops.end());
    return ops;
  };
  // The storage each instruction reads: the top-level owner of each operand.
  absl::flat_hash_map<const Instruction*, std::vector<const Instruction*>> reads;
  for (const Instruction* in : instrs) {
    std::vector<const Instruction*>& r = reads[in];
    for (const Instruction* op : in->operands()) r.push_back(TopOwner(op));
    std::sort(r.begin(), r.end());
    r.erase(std::unique(r.begin(), r.end()), r.end());
    for (const Instruction* owner : r) ++unscheduled_readers[owner];
  }
  std::vector<const Instruction*> ready;
  for (const Instruction* in : instrs) {
    int64_t preds = 0;
    for (const Instruction* op : unique_operands(*in)) preds += position.contains(op) ? 1 : 0;
    for (const Instruction* p : in->control_predecessors()) preds += position.contains(p);
    waiting[in] = preds;
    if (preds == 0) ready.push_back(in);
  }
  // XLA's priority: effective scalars first (to keep them together), then bytes freed minus
  // bytes defined (parameters' and constants' storage counts neither way), then more users; on
  // a tie the instruction that became ready last.
  auto priority = [&](const Instruction& in) {
    constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
    const Shape& shape = in.shape();
    if (shape.IsArray() && !shape.IsDynamic() && shape.ElementCount() == 1) {
      return std::make_pair(kMax, kMax);
    }
    int64_t freed = 0;
    for (const Instruction* owner : reads[&in]) {
      if (position.contains(owner) && !ScheduledFirst(*owner) && unscheduled_readers[owner] == 1) {
        freed += DefinedBytes(*owner);
      }
    }
    const int64_t defined = ScheduledFirst(in) ? 0 : DefinedBytes(in);
    return std::make_pair(freed - defined, in.user_count());
  };
  std::vector<const Instruction*> out;
  out.reserve(instrs.size());
  while (!ready.empty()) {
    size_t best = 0;
    auto best_priority = priority(*ready[0]);
    for (size_t i = 1; i < ready.size(); ++i) {
      auto p = priority(*ready[i]);
      if (p >= best_priority) {
        best = i;
        best_priority = p;
      }
    }
    const Instruction* in = ready[best];
    ready.erase(ready.begin() + static_cast<std::ptrdiff_t>(best));
    out.push_back(in);
    for (const Instruction* owner : reads[in]) --unscheduled_readers[owner];
    auto release = [&](const Instruction* next) {
      auto it = waiting.find(next);
      if (it != waiting.end() && --it->second == 0) ready.push_back(next);
    };
    // Released in program position order, never in hash order: the tie-break above favors the
    // instruction that became ready last, so the release order decides the schedule, and a
    // pointer-keyed set would change it from run to run. A user that is also a control
    // successor waits on both edges, so it is released once per list.
    auto by_position = [&](absl::Span<Instruction* const> list) {
      std::vector<const Instruction*> sorted(list.begin(), list.end());
      auto pos = [&](const Instruction* x) {
        auto it = position.find(x);
        return it == position.end() ? std::numeric_limits<int64_t>::max() : it->second;
      };
      std::stable_sort(sorted.begin(), sorted.end(),
                       [&](const Instruction* a, const Instruction* b) { return pos(a) < pos(b); });
      sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
      return sorted;
    };
    for (const Instruction* u : by_position(in->users())) release(u);
    for (const Instruction* s : by_position(in->control_successors())) release(s);
  }
  return out;
}

}  // namespace

std::vector<const Instruction*> ScheduleWith(const Computation& computation, ScheduleKind kind) {
  switch (kind) {
    case ScheduleKind::kDfs:
      return Dfs(computation);
    case ScheduleKind::kList:
      return List(computation);
    case ScheduleKind::kPostOrder:
      return PostOrder(computation);
    case ScheduleKind::kText:
    case ScheduleKind::kMin:
      break;
  }
  return InstructionSequence(computation, /*scheduled=*/false);
}

std::string_view ScheduleKindName(ScheduleKind kind) {
  switch (kind) {
    case ScheduleKind::kText:
      return "text";
    case ScheduleKind::kDfs:
      return "dfs";
    case ScheduleKind::kList:
      return "list";
    case ScheduleKind::kPostOrder:
      return "post-order";
    case ScheduleKind::kMin:
      return "min";
  }
  return "text";
}

std::optional<ScheduleKind> ParseScheduleKind(std::string_view name) {
  for (ScheduleKind k : {ScheduleKind::kText, ScheduleKind::kDfs, ScheduleKind::kList,
                         ScheduleKind::kPostOrder, ScheduleKind::kMin}) {
    if (ScheduleKindName(k) == name) return k;
  }
  return std::nullopt;
}

}  // namespace hloscope
