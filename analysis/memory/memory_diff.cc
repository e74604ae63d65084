#include "analysis/memory/memory_diff.h"

#include <algorithm>
#include <deque>
#include <limits>
#include <map>
#include <string_view>
#include <tuple>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "analysis/memory/memory_diff_internal.h"
#include "fmt/format.h"
#include "support/checked_int.h"
#include "support/option_error.h"
#include "support/status_text.h"

namespace hloscope {
namespace {

// What the matching rules look at, for buffers and copies alike.
struct MatchView {
  int kind = 0;
  std::string_view op_name;
  std::string_view shape;
  std::string_view name;
};

struct Match {
  size_t before = 0;
  size_t after = 0;
  const char* rule = "";
};

// Pairs `before` with `after` one to one: first by (kind, op_name, shape) where the op_name is
// not empty, then the rest by (kind, name). Inside a group of equal keys, items of the same
// name pair first, then the others in their order (callers sort them largest first).
std::vector<Match> MatchItems(const std::vector<MatchView>& before,
                              const std::vector<MatchView>& after) {
  std::vector<Match> matches;
  std::vector<bool> before_used(before.size(), false), after_used(after.size(), false);
  auto pair = [&](size_t b, size_t a, const char* rule) {
    before_used[b] = after_used[a] = true;
    matches.push_back({b, a, rule});
  };

  using OpNameKey = std::tuple<int, std::string_view, std::string_view>;
  struct Group {
    std::vector<size_t> before, after;
  };
  absl::flat_hash_map<OpNameKey, Group> groups;
  std::vector<OpNameKey> order;  // groups in the order they first appear before: deterministic
  for (size_t i = 0; i < before.size(); ++i) {
    if (before[i].op_name.empty()) continue;
    OpNameKey key{before[i].kind, before[i].op_name, before[i].shape};
    auto [it, inserted] = groups.try_emplace(key);
    if (inserted) order.push_back(key);
    it->second.before.push_back(i);
  }
  for (size_t i = 0; i < after.size(); ++i) {
    if (after[i].op_name.empty()) continue;
    auto it = groups.find(OpNameKey{after[i].kind, after[i].op_name, after[i].shape});
    if (it != groups.end()) it->second.after.push_back(i);
  }
  for (const OpNameKey& key : order) {
    const Group& g = groups[key];
    if (g.after.empty()) continue;
    absl::flat_hash_map<std::string_view, std::deque<size_t>> after_by_name;
    for (size_t a : g.after) after_by_name[after[a].name].push_back(a);
    for (size_t b : g.before) {
      auto it = after_by_name.find(before[b].name);
      if (it == after_by_name.end() || it->second.empty()) continue;
      pair(b, it->second.front(), "op_name and shape");
      it->second.pop_front();
    }
    size_t next = 0;
    for (size_t b : g.before) {
      if (before_used[b]) continue;
      while (next < g.after.size() && after_used[g.after[next]]) ++next;
      if (next == g.after.size()) break;
      pair(b, g.after[next++], "op_name and shape");
    }
  }

  using NameKey = std::pair<int, std::string_view>;
  absl::flat_hash_map<NameKey, std::deque<size_t>> after_by_name;
  for (size_t a = 0; a < after.size(); ++a) {
    if (!after_used[a]) after_by_name[NameKey{after[a].kind, after[a].name}].push_back(a);
  }
  for (size_t b = 0; b < before.size(); ++b) {
    if (before_used[b]) continue;
    auto it = after_by_name.find(NameKey{before[b].kind, before[b].name});
    if (it == after_by_name.end() || it->second.empty()) continue;
    pair(b, it->second.front(), "name");
    it->second.pop_front();
  }
  return matches;
}

MatchView ViewOf(const LiveBuffer& b) {
  return {static_cast<int>(b.kind), b.op_name, b.shape, b.instruction};
}

MatchView ViewOf(const CopyChange& c) { return {0, c.op_name, c.shape, c.instruction}; }

// Largest first: by the size of the change, then by name, so equal changes print stably.
bool LargerChange(const PeakBufferDiff& x, const PeakBufferDiff& y) {
  const int64_t dx = x.delta_bytes() < 0 ? -x.delta_bytes() : x.delta_bytes();
  const int64_t dy = y.delta_bytes() < 0 ? -y.delta_bytes() : y.delta_bytes();
  if (dx != dy) return dx > dy;
  const std::string& nx = x.after.instruction.empty() ? x.before.instruction : x.after.instruction;
  const std::string& ny = y.after.instruction.empty() ? y.before.instruction : y.after.instruction;
  return nx < ny;
}

void Keep(std::vector<PeakBufferDiff>& list, int top) {
  std::stable_sort(list.begin(), list.end(), LargerChange);
  if (list.size() > static_cast<size_t>(std::max(top, 0))) {
    list.resize(static_cast<size_t>(std::max(top, 0)));
  }
}

std::string_view OpNameOf(const Instruction& in) {
  return in.metadata() != nullptr ? in.metadata()->op_name : std::string_view();
}

// The computations a while runs (bodies and conditions) and everything they call.
absl::flat_hash_set<const Computation*> LoopComputations(const Module& module) {
  absl::flat_hash_set<const Computation*> in_loop;
  std::vector<const Computation*> work;
  for (const Computation* c : module.computations()) {
    for (const Instruction* in : c->instructions()) {
      if (in->opcode() != Opcode::kWhile) continue;
      for (const Computation* callee : in->called_computations()) {
        if (in_loop.insert(callee).second) work.push_back(callee);
      }
    }
  }
  while (!work.empty()) {
    const Computation* c = work.back();
    work.pop_back();
    for (const Instruction* in : c->instructions()) {
      for (const Computation* callee : in->called_computations()) {
        if (in_loop.insert(callee).second) work.push_back(callee);
      }
    }
  }
  return in_loop;
}

struct ModuleCounts {
  std::vector<CopyChange> copies;  // largest first
  std::map<std::string, int64_t> per_opcode;
  int64_t instructions = 0;
};

ModuleCounts CountInstructions(const Module& module) {
  ModuleCounts out;
  // A copy inside a fusion is part of one kernel's work, not a buffer of its own.
  absl::flat_hash_set<const Computation*> fused;
  for (const Computation* c : module.computations()) {
    for (const Instruction* in : c->instructions()) {
      if (in->opcode() == Opcode::kFusion && in->fused_computation() != nullptr) {
        fused.insert(in->fused_computation());
      }
    }
  }
  const absl::flat_hash_set<const Computation*> in_loop = LoopComputations(module);
  for (const Computation* c : module.computations()) {
    for (const Instruction* in : c->instructions()) {
      ++out.per_opcode[in->PrintedOpcode()];
      ++out.instructions;
      if (in->opcode() != Opcode::kCopy || fused.contains(c)) continue;
      CopyChange& copy = out.copies.emplace_back();
      copy.instruction = std::string(in->name());
      copy.computation = std::string(c->name());
      copy.shape = in->shape().ToString();
      copy.op_name = std::string(OpNameOf(*in));
      copy.bytes = in->shape().TotalArrayBytes();
      copy.in_loop = in_loop.contains(c);
    }
  }
  std::stable_sort(out.copies.begin(), out.copies.end(),
                   [](const CopyChange& a, const CopyChange& b) { return a.bytes > b.bytes; });
  return out;
}

// `before` and `after` come largest first, so the lists do too.
void DiffCopies(const std::vector<CopyChange>& before, const std::vector<CopyChange>& after,
                int top, MemoryDiff* diff) {
  std::vector<MatchView> bv, av;
  for (const CopyChange& c : before) bv.push_back(ViewOf(c));
  for (const CopyChange& c : after) av.push_back(ViewOf(c));
  std::vector<bool> before_matched(before.size(), false), after_matched(after.size(), false);
  for (const Match& m : MatchItems(bv, av))
    before_matched[m.before] = after_matched[m.after] = true;
  auto add = [&](const CopyChange& c, std::vector<CopyChange>& list, CopyChangeTotal& total) {
    ++total.copies;
    total.bytes = ClampedAdd(total.bytes, c.bytes);
    if (list.size() < static_cast<size_t>(std::max(top, 0))) list.push_back(c);
  };
  for (size_t i = 0; i < before.size(); ++i) {
    if (!before_matched[i]) add(before[i], diff->copies_removed, diff->copies_removed_total);
  }
  for (size_t i = 0; i < after.size(); ++i) {
    if (!after_matched[i]) add(after[i], diff->copies_added, diff->copies_added_total);
  }
  diff->copies_before = static_cast<int64_t>(before.size());
  diff->copies_after = static_cast<int64_t>(after.size());
}

void DiffOpcodes(const ModuleCounts& before, const ModuleCounts& after, MemoryDiff* diff) {
  std::map<std::string, std::pair<int64_t, int64_t>> both;
  for (const auto& [opcode, n] : before.per_opcode) both[opcode].first = n;
  for (const auto& [opcode, n] : after.per_opcode) both[opcode].second = n;
  for (const auto& [opcode, n] : both) {
    if (n.first != n.second) diff->opcodes.push_back({opcode, n.first, n.second});
  }
  diff->instructions_before = before.instructions;
  diff->instructions_after = after.instructions;
}

// The buffers live at a module's peak: every one, since the profile was asked for all.
const std::vector<LiveBuffer>& PeakBuffers(const MemoryReport& r) {
  static const std::vector<LiveBuffer> kNone;
  return r.modules.empty() ? kNone : r.modules.front().top_buffers;
}

}  // namespace

std::string_view PeakBufferChangeName(PeakBufferChange change) {
  switch (change) {
    case PeakBufferChange::kNew:
      return "new";
    case PeakBufferChange::kGone:
      return "gone";
    case PeakBufferChange::kGrown:
      return "grown";
    case PeakBufferChange::kShrunk:
      return "shrunk";
  }
  return "?";
}

void DiffPeakBuffers(const std::vector<LiveBuffer>& before, const std::vector<LiveBuffer>& after,
                     int top, MemoryDiff* diff) {
  std::vector<MatchView> bv, av;
  for (const LiveBuffer& b : before) bv.push_back(ViewOf(b));
  for (const LiveBuffer& b : after) av.push_back(ViewOf(b));
  std::vector<bool> before_matched(before.size(), false), after_matched(after.size(), false);
  auto add = [](PeakChangeTotal& total, std::vector<PeakBufferDiff>& list, PeakBufferDiff d) {
    ++total.buffers;
    total.delta_bytes = ClampedAdd(total.delta_bytes, d.delta_bytes());
    list.push_back(std::move(d));
  };
  for (const Match& m : MatchItems(bv, av)) {
    before_matched[m.before] = after_matched[m.after] = true;
    const LiveBuffer& b = before[m.before];
    const LiveBuffer& a = after[m.after];
    if (a.bytes == b.bytes) {
      ++diff->unchanged_buffers;
      continue;
    }
    PeakBufferDiff d{a.bytes > b.bytes ? PeakBufferChange::kGrown : PeakBufferChange::kShrunk, b, a,
                     m.rule};
    if (d.change == PeakBufferChange::kGrown) {
      add(diff->grown_total, diff->grown_buffers, std::move(d));
    } else {
      add(diff->shrunk_total, diff->shrunk_buffers, std::move(d));
    }
  }
  for (size_t i = 0; i < before.size(); ++i) {
    if (before_matched[i]) continue;
    add(diff->gone_total, diff->gone_buffers, {PeakBufferChange::kGone, before[i], {}, ""});
  }
  for (size_t i = 0; i < after.size(); ++i) {
    if (after_matched[i]) continue;
    add(diff->new_total, diff->new_buffers, {PeakBufferChange::kNew, {}, after[i], ""});
  }
  for (auto* list :
       {&diff->new_buffers, &diff->gone_buffers, &diff->grown_buffers, &diff->shrunk_buffers}) {
    Keep(*list, top);
  }
  diff->peak_buffers_before = static_cast<int64_t>(before.size());
  diff->peak_buffers_after = static_cast<int64_t>(after.size());
}

absl::StatusOr<MemoryDiff> DiffModules(const Module& before, const Module& after,
                                       const MemoryOptions& options, std::string_view before_name,
                                       std::string_view after_name) {
  MemoryOptions all = options;
  // Matching needs every buffer at the peak; --top only bounds what the lists show.
  all.top_buffers = 1 << 30;
  all.heap = false;  // no heap is drawn or compared
  MemoryDiff diff;
  for (const auto& [module, report, side] : {std::tuple(&before, &diff.before, before_name),
                                             std::tuple(&after, &diff.after, after_name)}) {
    absl::StatusOr<MemoryReport> r = ProfileModule(*module, all);
    if (!r.ok()) {
      return PrefixError(r.status(), fmt::format("{}: ", side));
    }
    *report = *std::move(r);
  }
  DiffPeakBuffers(PeakBuffers(diff.before), PeakBuffers(diff.after), options.top_buffers, &diff);
  // The reports keep what --top asks for, as the memory report would.
  for (MemoryReport* r : {&diff.before, &diff.after}) {
    const size_t keep = static_cast<size_t>(std::max(options.top_buffers, 0));
    if (r->top_buffers.size() > keep) r->top_buffers.resize(keep);
    for (ModuleMemory& m : r->modules) {
      if (m.top_buffers.size() > keep) m.top_buffers.resize(keep);
    }
  }
  const ModuleCounts before_counts = CountInstructions(before);
  const ModuleCounts after_counts = CountInstructions(after);
  DiffCopies(before_counts.copies, after_counts.copies, options.top_buffers, &diff);
  DiffOpcodes(before_counts, after_counts, &diff);
  return diff;
}

absl::StatusOr<std::string> PrintMemoryDiff(const MemoryDiff& diff,
                                            const MemoryDiffPrintOptions& options) {
  switch (options.format) {
    case MemoryFormat::kText:
      return memory_diff_internal::MemoryDiffText(diff, options);
    case MemoryFormat::kJson:
      return memory_diff_internal::MemoryDiffJson(diff, options);
    case MemoryFormat::kHtml:
      return memory_diff_internal::MemoryDiffHtml(diff, options);
    case MemoryFormat::kCsv:
      break;
  }
  return absl::InvalidArgumentError("the memory diff is printed as text, JSON or HTML, not CSV");
}

}  // namespace hloscope
