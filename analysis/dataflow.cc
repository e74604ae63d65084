#include "analysis/dataflow.h"

#include <algorithm>
#include <deque>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "analysis/dataflow_rules.h"
#include "fmt/format.h"
#include "hlo/computation.h"

namespace hloscope {

std::string HloValue::ToString() const {
  return fmt::format("{}{}{}", instruction ? instruction->name() : "?", ShapeIndexToString(index),
                     is_phi ? " (phi)" : "");
}

// Builds a DataflowAnalysis in three steps:
//  1. rules and positions: one InstructionRule per instruction, value ids for every position
//     no rule forwards into (in SSA form also one phi per position of a merge instruction);
//  2. a worklist fixed point: a position's set is its defined value, or the union of the sets
//     its rule forwards from; an instruction is recomputed when one of its sources changed;
//  3. (SSA form) phi resolution: a phi whose inputs, followed through other phis, reach only
//     one value is replaced by it everywhere; the rest stay, and values are renumbered.
class DataflowBuilder {
 public:
  DataflowBuilder(DataflowAnalysis& df) : df_(df) {}

  absl::Status Build() {
    absl::StatusOr<CallSites> sites = FindCallSites(df_.module_);
    if (!sites.ok()) return sites.status();
    df_.call_sites_ = *std::move(sites);
    if (absl::Status s = Layout(); !s.ok()) return s;
    Propagate();
    if (df_.options_.ssa_form) ResolvePhis();
    Renumber();
    return absl::OkStatus();
  }

 private:
  using ValueSet = DataflowAnalysis::ValueSet;

  int64_t SlotOf(const Instruction* i) const { return slot_of_[i->unique_id()]; }

  // Computations callers-first (so operands usually settle before the callees read them),
  // then instructions in text order.
  std::vector<const Computation*> ComputationOrder() const {
    std::vector<const Computation*> post;
    absl::flat_hash_set<const Computation*> seen;
    std::vector<std::pair<const Computation*, size_t>> stack;
    auto visit = [&](const Computation* root) {
      if (root == nullptr || !seen.insert(root).second) return;
      stack.push_back({root, 0});
      while (!stack.empty()) {
        auto& [c, next] = stack.back();
        // Flattened list of callees: walk instructions, then their callees.
        bool pushed = false;
        const auto instrs = c->instructions();
        while (next < instrs.size() && !pushed) {
          for (const Computation* callee : instrs[next]->called_computations()) {
            if (callee != nullptr && seen.insert(callee).second) {
              stack.push_back({callee, 0});
              pushed = true;
              break;
            }
          }
          if (!pushed) ++next;
        }
        if (!pushed) {
          post.push_back(stack.back().first);
          stack.pop_back();
        }
      }
    };
    visit(df_.module_.entry());
    for (const Computation* c : df_.module_.computations()) visit(c);
    std::reverse(post.begin(), post.end());
    return post;
  }

  absl::Status Layout() {
    uint32_t max_id = 0;
    for (const Computation* c : df_.module_.computations()) {
      for (const Instruction* i : c->instructions()) max_id = std::max(max_id, i->unique_id());
    }
    slot_of_.assign(static_cast<size_t>(max_id) + 1, -1);
    df_.base_.assign(static_cast<size_t>(max_id) + 1, -1);
    size_t instructions = 0;
    for (const Computation* c : df_.module_.computations())
      instructions += c->instructions().size();
    instrs_.reserve(instructions);
    // Positions and defined values follow module order, so value ids do too.
    int64_t next = 0;
    for (const Computation* c : df_.module_.computations()) {
      for (const Instruction* i : c->instructions()) {
        slot_of_[i->unique_id()] = static_cast<int64_t>(instrs_.size());
        instrs_.push_back(i);
        df_.base_[i->unique_id()] = next;
        next += df_.positions_.Count(i->shape());
      }
    }
    df_.sets_.resize(static_cast<size_t>(next));
    df_.values_.reserve(static_cast<size_t>(next));  // at most one value per position
    df_.defined_.assign(static_cast<size_t>(next), kNoValue);
    rules_.resize(instrs_.size());
    // (source slot, reader slot) for every forward range: turned into the dependents table below.
    std::vector<std::pair<uint32_t, uint32_t>> edges;
    edges.reserve(instrs_.size());
    std::vector<bool> covered;
    for (size_t slot = 0; slot < instrs_.size(); ++slot) {
      const Instruction& instr = *instrs_[slot];
      InstructionRule& rule = rules_[slot];
      if (absl::Status s = BuildRule(instr, df_.call_sites_, df_.options_, df_.positions_, rule);
          !s.ok()) {
        return s;
      }
      const int32_t count = df_.positions_.Count(instr.shape());
      covered.assign(static_cast<size_t>(count), false);
      for (const ForwardRange& r : rule.ranges) {
        if (SlotOf(r.src) < 0) {
          return absl::InvalidArgumentError(
              fmt::format("instruction '{}' reads '{}', which is not in the module", instr.name(),
                          r.src->name()));
        }
        edges.emplace_back(static_cast<uint32_t>(SlotOf(r.src)), static_cast<uint32_t>(slot));
        if (!rule.phi) std::fill_n(covered.begin() + r.dst, r.count, true);
      }
      const int64_t base = df_.base_[instr.unique_id()];
      for (int32_t p = 0; p < count; ++p) {
        if (covered[static_cast<size_t>(p)]) continue;
        const auto id = static_cast<ValueId>(df_.values_.size());
        df_.values_.push_back(HloValue{id, &instr, df_.positions_.IndexAt(instr.shape(), p),
                                       df_.positions_.SubshapeAt(instr.shape(), p), rule.phi});
        df_.defined_[static_cast<size_t>(base + p)] = id;
        df_.sets_[static_cast<size_t>(base + p)] = {id};
      }
    }
    BuildDependents(edges);
    return absl::OkStatus();
  }

  // The readers of each slot as one flat table (a counting sort of `edges` by source, each row
  // sorted and without repeats): a million small vectors would scatter the worklist's reads
  // over the heap.
  void BuildDependents(const std::vector<std::pair<uint32_t, uint32_t>>& edges) {
    const size_t n = instrs_.size();
    std::vector<uint32_t> start(n + 1, 0);
    for (const auto& [src, dst] : edges) ++start[src + 1];
    for (size_t i = 0; i < n; ++i) start[i + 1] += start[i];
    std::vector<uint32_t> list(edges.size());
    std::vector<uint32_t> fill(start.begin(), start.end() - 1);
    for (const auto& [src, dst] : edges) list[fill[src]++] = dst;
    dependents_start_.assign(n + 1, 0);
    dependents_.clear();
    dependents_.reserve(list.size());
    for (size_t i = 0; i < n; ++i) {
      auto begin = list.begin() + start[i];
      auto end = list.begin() + start[i + 1];
      std::sort(begin, end);
      dependents_.insert(dependents_.end(), begin, std::unique(begin, end));
      dependents_start_[i + 1] = static_cast<uint32_t>(dependents_.size());
    }
  }

  // Recomputes the forwarded positions of one instruction; true when a set changed.
  bool Update(int64_t slot) {
    const InstructionRule& rule = rules_[static_cast<size_t>(slot)];
    if (rule.phi || rule.ranges.empty()) return false;
    const Instruction& instr = *instrs_[static_cast<size_t>(slot)];
    const int64_t base = df_.base_[instr.unique_id()];
    const int32_t count = df_.positions_.Count(instr.shape());
    scratch_.assign(static_cast<size_t>(count), ValueSet());
    for (const ForwardRange& r : rule.ranges) {
      const int64_t src = df_.base_[r.src->unique_id()] + r.src_pos;
      for (int32_t k = 0; k < r.count; ++k) {
        ValueSet& dst = scratch_[static_cast<size_t>(r.dst + k)];
        const ValueSet& from = df_.sets_[static_cast<size_t>(src + k)];
        if (dst.empty()) {
          dst = from;
        } else {
          ValueSet merged;
          std::set_union(dst.begin(), dst.end(), from.begin(), from.end(),
                         std::back_inserter(merged));
          dst = std::move(merged);
        }
      }
    }
    bool changed = false;
    for (int32_t p = 0; p < count; ++p) {
      auto& cur = df_.sets_[static_cast<size_t>(base + p)];
      if (df_.defined_[static_cast<size_t>(base + p)] != kNoValue) continue;
      if (cur != scratch_[static_cast<size_t>(p)]) {
        cur = std::move(scratch_[static_cast<size_t>(p)]);
        changed = true;
      }
    }
    return changed;
  }

  void Propagate() {
    std::deque<int64_t> queue;
    std::vector<bool> queued(instrs_.size(), false);
    for (const Computation* c : ComputationOrder()) {
      for (const Instruction* i : c->instructions()) {
        queue.push_back(SlotOf(i));
        queued[static_cast<size_t>(SlotOf(i))] = true;
      }
    }
    while (!queue.empty()) {
      const int64_t slot = queue.front();
      queue.pop_front();
      queued[static_cast<size_t>(slot)] = false;
      if (!Update(slot)) continue;
      for (uint32_t k = dependents_start_[static_cast<size_t>(slot)];
           k < dependents_start_[static_cast<size_t>(slot) + 1]; ++k) {
        const uint32_t d = dependents_[k];
        if (!queued[static_cast<size_t>(d)]) {
          queued[static_cast<size_t>(d)] = true;
          queue.push_back(d);
        }
      }
    }
  }

  // --- phi resolution ---

  ValueId Resolved(ValueId v) const { return resolved_[v]; }

  // Inputs of every phi value: the union of the sets its ranges read.
  void CollectPhiInputs() {
    phi_inputs_.assign(df_.values_.size(), {});
    for (size_t slot = 0; slot < instrs_.size(); ++slot) {
      const InstructionRule& rule = rules_[slot];
      if (!rule.phi) continue;
      const int64_t base = df_.base_[instrs_[slot]->unique_id()];
      for (const ForwardRange& r : rule.ranges) {
        const int64_t src = df_.base_[r.src->unique_id()] + r.src_pos;
        for (int32_t k = 0; k < r.count; ++k) {
          const ValueId phi = df_.defined_[static_cast<size_t>(base + r.dst + k)];
          auto& in = phi_inputs_[phi];
          for (ValueId v : df_.sets_[static_cast<size_t>(src + k)]) in.push_back(v);
        }
      }
    }
    for (auto& in : phi_inputs_) {
      std::sort(in.begin(), in.end());
      in.erase(std::unique(in.begin(), in.end()), in.end());
    }
  }

  // Resolves the phis in `group` (all unresolved; every input outside the group is
  // resolved). Tarjan's algorithm, iterative, emits strongly connected components sinks
  // first, so when a component is handled everything it reads from outside is resolved.
  void ResolveGroup(const std::vector<ValueId>& group, int depth) {
    for (ValueId v : group) group_mark_[v] = group_id_;
    const uint32_t my_group = group_id_++;
    std::vector<ValueId> tarjan_stack;
    std::vector<std::pair<ValueId, size_t>> call_stack;
    std::vector<std::vector<ValueId>> components;
    for (ValueId start : group) {
      if (index_[start] != kNoValue) continue;
      call_stack.push_back({start, 0});
      index_[start] = low_[start] = next_index_++;
      tarjan_stack.push_back(start);
      on_stack_[start] = true;
      while (!call_stack.empty()) {
        auto& [v, edge] = call_stack.back();
        const auto& in = phi_inputs_[v];
        if (edge < in.size()) {
          const ValueId w = in[edge++];
          if (group_mark_[w] != my_group || resolved_[w] != kNoValue) continue;
          if (index_[w] == kNoValue) {
            index_[w] = low_[w] = next_index_++;
            tarjan_stack.push_back(w);
            on_stack_[w] = true;
            call_stack.push_back({w, 0});
          } else if (on_stack_[w]) {
            low_[v] = std::min(low_[v], index_[w]);
          }
          continue;
        }
        const ValueId done = v;
        call_stack.pop_back();
        if (!call_stack.empty()) {
          const ValueId parent = call_stack.back().first;
          low_[parent] = std::min(low_[parent], low_[done]);
        }
        if (low_[done] == index_[done]) {
          std::vector<ValueId> component;
          ValueId w;
          do {
            w = tarjan_stack.back();
            tarjan_stack.pop_back();
            on_stack_[w] = false;
            component.push_back(w);
          } while (w != done);
          ResolveComponent(component, depth);
        }
      }
    }
  }

  void ResolveComponent(const std::vector<ValueId>& component, int depth) {
    for (ValueId v : component) component_mark_[v] = component_id_;
    const uint32_t mine = component_id_++;
    // What flows in from outside the component, resolved.
    std::vector<ValueId> external;
    std::vector<bool> has_external(component.size(), false);
    for (size_t k = 0; k < component.size(); ++k) {
      for (ValueId w : phi_inputs_[component[k]]) {
        if (component_mark_[w] == mine) continue;
        external.push_back(Resolved(w));
        has_external[k] = true;
      }
    }
    std::sort(external.begin(), external.end());
    external.erase(std::unique(external.begin(), external.end()), external.end());
    if (external.size() == 1) {
      for (ValueId v : component) resolved_[v] = external[0];
      return;
    }
    // Several values enter: each member that receives one from outside merges it with what
    // circulates from the others, so it is a real phi. The others may still all equal one
    // of those; resolve them again on their own.
    std::vector<ValueId> rest;
    for (size_t k = 0; k < component.size(); ++k) {
      if (external.empty() || has_external[k] || depth > 1000) {
        resolved_[component[k]] = component[k];
      } else {
        rest.push_back(component[k]);
      }
    }
    for (ValueId v : rest) index_[v] = kNoValue;
    if (!rest.empty()) ResolveGroup(rest, depth + 1);
  }

  void ResolvePhis() {
    const size_t n = df_.values_.size();
    resolved_.assign(n, kNoValue);
    std::vector<ValueId> phis;
    for (const HloValue& v : df_.values_) {
      if (v.is_phi) {
        phis.push_back(v.id);
      } else {
        resolved_[v.id] = v.id;
      }
    }
    if (phis.empty()) return;
    CollectPhiInputs();
    index_.assign(n, kNoValue);
    low_.assign(n, kNoValue);
    on_stack_.assign(n, false);
    group_mark_.assign(n, 0);
    component_mark_.assign(n, 0);
    ResolveGroup(phis, 0);
    // Replace resolved phis in every set.
    for (size_t p = 0; p < df_.sets_.size(); ++p) {
      ValueSet& set = df_.sets_[p];
      bool any = false;
      for (ValueId& v : set) {
        if (resolved_[v] != v) {
          v = resolved_[v];
          any = true;
        }
      }
      if (any) {
        std::sort(set.begin(), set.end());
        set.erase(std::unique(set.begin(), set.end()), set.end());
      }
      ValueId& d = df_.defined_[p];
      if (d != kNoValue && resolved_[d] != d) d = kNoValue;
    }
  }

  // Drops resolved phis and renumbers the remaining values densely, keeping their order.
  void Renumber() {
    if (resolved_.empty()) return;
    std::vector<ValueId> new_id(df_.values_.size(), kNoValue);
    std::vector<HloValue> kept;
    for (const HloValue& v : df_.values_) {
      if (resolved_[v.id] != v.id) continue;
      new_id[v.id] = static_cast<ValueId>(kept.size());
      kept.push_back(v);
      kept.back().id = new_id[v.id];
    }
    df_.values_ = std::move(kept);
    for (ValueSet& set : df_.sets_) {
      for (ValueId& v : set) v = new_id[v];
    }
    for (ValueId& d : df_.defined_) {
      if (d != kNoValue) d = new_id[d];
    }
  }

  DataflowAnalysis& df_;
  std::vector<const Instruction*> instrs_;
  std::vector<int64_t> slot_of_;
  std::vector<InstructionRule> rules_;
  // The slots that read slot i are dependents_[dependents_start_[i] .. dependents_start_[i+1]).
  std::vector<uint32_t> dependents_start_;
  std::vector<uint32_t> dependents_;
  std::vector<ValueSet> scratch_;
  // Phi resolution state, indexed by value id.
  std::vector<std::vector<ValueId>> phi_inputs_;
  std::vector<ValueId> resolved_;
  std::vector<ValueId> index_, low_;
  std::vector<bool> on_stack_;
  std::vector<uint32_t> group_mark_, component_mark_;
  uint32_t group_id_ = 1, component_id_ = 1;
  ValueId next_index_ = 0;
};

absl::StatusOr<std::unique_ptr<DataflowAnalysis>> DataflowAnalysis::Run(const Module& module,
                                                                        const Options& options) {
  if (module.entry() == nullptr) return absl::InvalidArgumentError("module has no entry");
  std::unique_ptr<DataflowAnalysis> df(new DataflowAnalysis(module, options));
  DataflowBuilder builder(*df);
  if (absl::Status s = builder.Build(); !s.ok()) return s;
  return df;
}

int64_t DataflowAnalysis::Base(const Instruction& instr) const {
  if (instr.unique_id() >= base_.size()) return -1;
  const int64_t base = base_[instr.unique_id()];
  if (base < 0 || instr.parent() == nullptr || instr.module() != &module_) return -1;
  return base;
}

absl::Span<const ValueId> DataflowAnalysis::ValuesAt(const Instruction& instr,
                                                     const ShapeIndex& index) const {
  const int64_t base = Base(instr);
  if (base < 0) return {};
  std::optional<int32_t> pos = positions_.Offset(instr.shape(), index);
  if (!pos) return {};
  return sets_[static_cast<size_t>(base + *pos)];
}

ValueId DataflowAnalysis::ValueDefinedAt(const Instruction& instr, const ShapeIndex& index) const {
  const int64_t base = Base(instr);
  if (base < 0) return kNoValue;
  std::optional<int32_t> pos = positions_.Offset(instr.shape(), index);
  if (!pos) return kNoValue;
  return defined_[static_cast<size_t>(base + *pos)];
}

int32_t DataflowAnalysis::PositionCount(const Instruction& instr) const {
  return Base(instr) < 0 ? 0 : positions_.Count(instr.shape());
}

ShapeIndex DataflowAnalysis::IndexAt(const Instruction& instr, int32_t position) const {
  return positions_.IndexAt(instr.shape(), position);
}

absl::Span<const ValueId> DataflowAnalysis::ValuesAtPosition(const Instruction& instr,
                                                             int32_t position) const {
  const int64_t base = Base(instr);
  if (base < 0 || position < 0 || position >= positions_.Count(instr.shape())) return {};
  return sets_[static_cast<size_t>(base + position)];
}

std::vector<DataflowAnalysis::Position> DataflowAnalysis::PositionsOf(ValueId id) const {
  std::vector<Position> out;
  for (const Computation* c : module_.computations()) {
    for (const Instruction* i : c->instructions()) {
      const int32_t count = PositionCount(*i);
      for (int32_t p = 0; p < count; ++p) {
        const auto set = ValuesAtPosition(*i, p);
        if (std::find(set.begin(), set.end(), id) != set.end()) {
          out.push_back({i, IndexAt(*i, p)});
        }
      }
    }
  }
  return out;
}

}  // namespace hloscope
