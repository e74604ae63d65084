#include "analysis/dataflow.h"

#include <algorithm>
#include <limits>
#include <tuple>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "analysis/dataflow_rules.h"
#include "fmt/format.h"
#include "hlo/computation.h"

namespace hloscope {

namespace {
std::optional<size_t> phi_refinement_budget_override;

// Enough for every module we have met to refine to the end (real nesting is a few loops
// deep); an adversarial nesting of thousands of loops stops after a linear amount of work.
size_t PhiRefinementBudget(size_t phi_graph_size) {
  if (phi_refinement_budget_override) return *phi_refinement_budget_override;
  constexpr size_t kPerNode = 4, kSlack = size_t{1} << 16;
  return kPerNode * phi_graph_size + kSlack;
}
}  // namespace

void SetPhiRefinementBudgetForTesting(std::optional<size_t> budget) {
  phi_refinement_budget_override = budget;
}

std::string HloValue::ToString() const {
  return fmt::format("{}{}{}", instruction ? instruction->name() : "?", ShapeIndexToString(index),
                     is_phi ? " (phi)" : "");
}

// At a million instructions the module is far larger than the caches, and most computations
// are small (a fusion's): the walk asks for the memory it is about to read ahead of itself,
// across computation boundaries. A cursor runs kDistance instructions ahead, prefetching each
// instruction's cache lines; when it enters a computation, it prefetches the next ones' objects
// and instruction lists, which it reads later.
class WalkPrefetcher {
 public:
  explicit WalkPrefetcher(absl::Span<Computation* const> computations)
      : computations_(computations) {
    for (size_t c = 0; c < 2 && c < computations_.size(); ++c) __builtin_prefetch(computations_[c]);
    Enter(0);
    for (size_t k = 0; k < kDistance; ++k) Next();
  }

  // Moves the cursor one instruction on, prefetching the one it reaches.
  void Next() {
    while (computation_ < computations_.size() && next_ == instructions_.size())
      Enter(computation_ + 1);
    if (computation_ == computations_.size()) return;
    const char* instr = reinterpret_cast<const char*>(instructions_[next_++]);
    for (size_t offset = 0; offset < sizeof(Instruction); offset += 64) {
      __builtin_prefetch(instr + offset);
    }
    __builtin_prefetch(instr + sizeof(Instruction) - 1);
  }

 private:
  static constexpr size_t kDistance = 8;

  void Enter(size_t c) {
    computation_ = c;
    next_ = 0;
    instructions_ = {};
    if (c >= computations_.size()) return;
    instructions_ = computations_[c]->instructions();
    // The next computation's instruction list, and the object after it.
    if (c + 1 < computations_.size())
      __builtin_prefetch(computations_[c + 1]->instructions().data());
    if (c + 2 < computations_.size()) __builtin_prefetch(computations_[c + 2]);
  }

  absl::Span<Computation* const> computations_;
  size_t computation_ = 0;
  absl::Span<Instruction* const> instructions_;
  size_t next_ = 0;
};

// Builds a DataflowAnalysis in these steps:
//  1. Walk: the one pass over every instruction of the module, in module order. Each gets its
//     first position (base_), its rule (dataflow_rules.h) and a value at every position no
//     rule range covers (in SSA form a phi at every position of a merge instruction). Only
//     instructions with ranges are remembered (rules_). A forwarder whose sources are settled
//     (laid out before it, with final sets: nearly always) gets its sets right away and is
//     settled too. Parameters define their values for now: whether one receives its caller's
//     values is known once every call is seen.
//  2. Call sites, from the calls the walk collected; then the parameters of control-flow
//     callees get their rules: a while body/condition parameter's values become phis (SSA
//     form), a parameter that forwards (call, conditional branch, ...) loses its values, and
//     then every forwarder is unsettled again (the walk may have read those values).
//  3. A worklist fixed point over the unsettled forwarders: a position's set is the union of
//     the sets its ranges read; a forwarder is recomputed when one of its sources changed.
//  4. (SSA form) phi resolution: a phi whose inputs, followed through other phis, reach only
//     one value is replaced by it everywhere; the rest stay.
//  5. Values removed in 2 or 4 are dropped and the rest renumbered, keeping their order.
// Everything after the walk reads the flat arrays it filled, not the module: at a million
// instructions the module is larger than the caches, and a second walk would cost as much as
// all the rest.
class DataflowBuilder {
 public:
  using Visitor = DataflowAnalysis::InstructionVisitor;

  DataflowBuilder(DataflowAnalysis& df, const Visitor* visit)
      : df_(df), visit_(visit), collect_calls_(df.call_graph_ == nullptr) {}

  absl::Status Build() {
    if (absl::Status s = Walk(); !s.ok()) return s;
    CalleeParameters();
    // A call-site error comes first, then the first rule error in module order.
    if (!rule_error_.ok()) return rule_error_;
    if (absl::Status s = ResolveSources(); !s.ok()) return s;
    if (removed_ > 0) UnsettleAll();
    BuildDependents();
    Propagate();
    if (df_.options_.ssa_form) ResolvePhis();
    Renumber();
    return absl::OkStatus();
  }

 private:
  static constexpr uint32_t kEmptySet = DataflowAnalysis::kEmptySet;
  static constexpr uint32_t kMultiSet = DataflowAnalysis::kMultiSet;
  static constexpr uint32_t kNoBase = DataflowAnalysis::kNoBase;
  // Scratch words (Update) use a second tag bit for sets in scratch_sets_.
  static constexpr uint32_t kScratchSet = kMultiSet | (uint32_t{1} << 30);
  // Value ids must stay below both tag bits.
  static constexpr size_t kMaxPositions = size_t{1} << 30;

  // A range of one instruction's positions that receives another instruction's values.
  struct Range {
    uint32_t dst;    // absolute position of the first receiving position
    uint32_t count;  // number of positions
    uint32_t src;    // absolute position of the first source position (see pending_)
  };
  // An instruction with ranges: a forwarder, or (phi) a merge whose ranges are its phi inputs.
  struct Rule {
    uint32_t base;   // first position
    uint32_t count;  // positions
    uint32_t first_range;
    uint32_t end_range;
    bool phi;
    bool settled;  // its sets are final (computed in the walk)
  };

  // --- 1. the walk -------------------------------------------------------------------------

  absl::Status Walk() {
    const Module& module = df_.module_;
    // Ids are about as many as instructions (counting those would read every computation).
    const size_t instructions = module.instruction_id_bound();
    df_.base_.assign(instructions, kNoBase);
    // Positions are one per instruction but for tuples, values fewer (forwarded positions
    // define none): the vectors grow past this if need be.
    const size_t guess = instructions + instructions / 8 + 16;
    df_.sets_.reserve(guess);
    df_.defines_.reserve(guess);
    unsettled_.reserve(guess);
    df_.values_.reserve(instructions + 16);
    WalkPrefetcher prefetch(module.computations());
    for (const Computation* c : module.computations()) {
      computation_first_position_.push_back(static_cast<uint32_t>(df_.sets_.size()));
      for (const Instruction* instr : c->instructions()) {
        prefetch.Next();
        if (visit_ != nullptr) (*visit_)(*instr);
        const size_t base = df_.sets_.size();
        const int32_t count = df_.positions_.Count(instr->shape());
        if (base + static_cast<size_t>(count) >= kMaxPositions) {
          return absl::InvalidArgumentError(
              fmt::format("module '{}' has more than {} positions (instruction, shape index)",
                          module.name(), kMaxPositions));
        }
        // Ids come from the module; one from elsewhere would only make the table larger.
        if (instr->unique_id() >= df_.base_.size())
          df_.base_.resize(instr->unique_id() + 1, kNoBase);
        df_.base_[instr->unique_id()] = static_cast<uint32_t>(base);
        if (collect_calls_ && !instr->called_computations().empty()) {
          CallGraph::AppendCallsOf(*instr, calls_);
        }
        if (instr->opcode() == Opcode::kParameter || !rule_error_.ok()) {
          Define(*instr, 0, count, /*phi=*/false);
          continue;
        }
        rule_.Clear();
        if (absl::Status s =
                BuildRule(*instr, df_.call_graph_.get(), df_.options_, df_.positions_, rule_);
            !s.ok()) {
          // Reported after the call sites (see Build).
          RuleError(base, std::move(s));
          Define(*instr, 0, count, /*phi=*/false);
          continue;
        }
        AddRule(*instr, base, count);
      }
    }
    computation_first_position_.push_back(static_cast<uint32_t>(df_.sets_.size()));
    if (collect_calls_) df_.call_graph_ = CallGraph::FromCalls(module, std::move(calls_));
    return df_.call_graph_->CheckNoMixedContext();
  }

  // Keeps the error of the instruction with the first position.
  void RuleError(size_t base, absl::Status error) {
    if (!rule_error_.ok() && rule_error_base_ <= base) return;
    rule_error_ = std::move(error);
    rule_error_base_ = base;
  }

  // Appends `count` positions of `instr` (the next ones); defines a value at each.
  void Define(const Instruction& instr, int32_t first, int32_t count, bool phi) {
    for (int32_t p = first; p < first + count; ++p) {
      const auto id = static_cast<ValueId>(df_.values_.size());
      if (p == 0) {
        df_.values_.push_back(HloValue{id, phi, &instr, {}, &instr.shape()});
      } else {
        df_.values_.push_back(HloValue{id, phi, &instr,
                                       df_.positions_.IndexViewAt(instr.shape(), p),
                                       df_.positions_.SubshapeAt(instr.shape(), p)});
      }
      df_.sets_.push_back(id);
      df_.defines_.push_back(true);
      unsettled_.push_back(false);
    }
  }

  // Appends `instr`'s positions for rule_: the ones a (non-phi) range covers receive values,
  // every other one defines a value. When every source position is settled (laid out before,
  // with its final set: the common case, operands come first) the received sets are computed
  // right here, final too; otherwise the rule waits for the fixed point.
  void AddRule(const Instruction& instr, size_t base, int32_t count) {
    if (!rule_.phi && rule_.ranges.empty()) {
      Define(instr, 0, count, /*phi=*/false);
      return;
    }
    const auto first_range = static_cast<uint32_t>(ranges_.size());
    covered_.assign(static_cast<size_t>(count), false);
    bool settled = !rule_.phi;
    for (const ForwardRange& r : rule_.ranges) {
      const bool known = AddRange(base + static_cast<size_t>(r.dst), r);
      if (rule_.phi) continue;
      std::fill_n(covered_.begin() + r.dst, r.count, true);
      const Range& range = ranges_.back();
      settled =
          settled && known && range.src + range.count <= base &&
          std::none_of(unsettled_.begin() + range.src, unsettled_.begin() + range.src + range.count,
                       [](bool b) { return b; });
    }
    rules_.push_back(Rule{static_cast<uint32_t>(base), static_cast<uint32_t>(count), first_range,
                          static_cast<uint32_t>(ranges_.size()), rule_.phi, settled});
    for (int32_t p = 0; p < count;) {
      if (covered_[static_cast<size_t>(p)]) {
        df_.sets_.push_back(kEmptySet);
        df_.defines_.push_back(false);
        unsettled_.push_back(!settled);
        ++p;
        continue;
      }
      int32_t end = p;
      while (end < count && !covered_[static_cast<size_t>(end)]) ++end;
      Define(instr, p, end - p, rule_.phi);
      p = end;
    }
    if (settled) Update(rules_.size() - 1);
  }

  // The source's base is known when it was laid out before (operands usually are; then
  // true); otherwise the range waits in pending_ for the end of the walk.
  bool AddRange(size_t dst, const ForwardRange& r) {
    Range range{static_cast<uint32_t>(dst), static_cast<uint32_t>(r.count), 0};
    const uint32_t id = r.src->unique_id();
    const uint32_t src_base = id < df_.base_.size() ? df_.base_[id] : kNoBase;
    const bool known = src_base != kNoBase;
    if (known) {
      range.src = src_base + static_cast<uint32_t>(r.src_pos);
    } else {
      pending_.push_back({static_cast<uint32_t>(ranges_.size()), r.src, r.src_pos});
    }
    ranges_.push_back(range);
    return known;
  }

  // --- 2. parameters of control-flow callees ------------------------------------------------

  void CalleeParameters() {
    const CallGraph& graph = *df_.call_graph_;
    if (!graph.HasControlFlowSites()) return;
    // In the order of the callees' first positions, so errors and rules do not depend on the
    // order the call graph lists them in.
    std::vector<std::pair<uint32_t, const Computation*>> callees;
    for (const Computation* callee : df_.module_.computations()) {
      if (graph.ControlFlowSites(callee).empty()) continue;
      uint32_t first = kNoBase;
      for (const Instruction* param : callee->parameters()) {
        if (param != nullptr) first = std::min(first, df_.base_[param->unique_id()]);
      }
      if (first != kNoBase) callees.push_back({first, callee});
    }
    std::sort(callees.begin(), callees.end());
    for (const auto& [unused, callee] : callees) {
      for (const Instruction* param : callee->parameters()) {
        if (param == nullptr) continue;
        const uint32_t base = df_.base_[param->unique_id()];
        if (base == kNoBase) continue;  // not in the computation's list: never walked
        rule_.Clear();
        if (absl::Status s =
                BuildRule(*param, df_.call_graph_.get(), df_.options_, df_.positions_, rule_);
            !s.ok()) {
          RuleError(base, std::move(s));
          continue;
        }
        if (!rule_.phi && rule_.ranges.empty()) continue;
        const int32_t count = df_.positions_.Count(param->shape());
        const auto first_range = static_cast<uint32_t>(ranges_.size());
        for (const ForwardRange& r : rule_.ranges) {
          AddRange(base + static_cast<size_t>(r.dst), r);
          for (int32_t k = 0; k < r.count && !rule_.phi; ++k) {
            // The parameter receives its caller's values here instead of defining its own.
            const size_t p = base + static_cast<size_t>(r.dst + k);
            if (!df_.defines_[p]) continue;
            df_.values_[df_.sets_[p]].id = kNoValue;
            ++removed_;
            df_.sets_[p] = kEmptySet;
            df_.defines_[p] = false;
          }
        }
        if (rule_.phi) {
          for (int32_t p = 0; p < count; ++p) df_.values_[df_.sets_[base + p]].is_phi = true;
        }
        rules_.push_back(Rule{base, static_cast<uint32_t>(count), first_range,
                              static_cast<uint32_t>(ranges_.size()), rule_.phi, false});
        rules_sorted_ = false;
      }
    }
  }

  // Ranges whose source came later in the walk; fails for a source not in the module.
  absl::Status ResolveSources() {
    for (const Pending& p : pending_) {
      const uint32_t id = p.src->unique_id();
      const uint32_t base = id < df_.base_.size() ? df_.base_[id] : kNoBase;
      if (base == kNoBase) {
        const Rule& reader = *std::find_if(rules_.begin(), rules_.end(), [&](const Rule& r) {
          return r.first_range <= p.range && p.range < r.end_range;
        });
        const Instruction* instr = InstructionAt(reader.base);
        return absl::InvalidArgumentError(
            fmt::format("instruction '{}' reads '{}', which is not in the module",
                        instr != nullptr ? instr->name() : "?", p.src->name()));
      }
      ranges_[p.range].src = base + static_cast<uint32_t>(p.src_pos);
    }
    if (!rules_sorted_) {
      std::sort(rules_.begin(), rules_.end(),
                [](const Rule& a, const Rule& b) { return a.base < b.base; });
    }
    return absl::OkStatus();
  }

  // The instruction whose first position is `base` (error messages only: a linear search).
  const Instruction* InstructionAt(uint32_t base) const {
    for (const Computation* c : df_.module_.computations()) {
      for (const Instruction* i : c->instructions()) {
        if (df_.base_[i->unique_id()] == base) return i;
      }
    }
    return nullptr;
  }

  // Parameters that received their caller's values stopped defining the values the walk
  // read from them: start the fixed point over for every forwarder.
  void UnsettleAll() {
    df_.multi_.clear();
    for (Rule& rule : rules_) {
      if (rule.phi) continue;
      rule.settled = false;
      for (uint32_t k = rule.first_range; k < rule.end_range; ++k) {
        std::fill_n(df_.sets_.begin() + ranges_[k].dst, ranges_[k].count, kEmptySet);
      }
    }
  }

  // --- 3. the fixed point ------------------------------------------------------------------

  // The unsettled rule holding absolute position `p`, or -1 (rules_ is sorted by base).
  int64_t UnsettledRuleAt(uint32_t p) const {
    auto it = std::upper_bound(unsettled_rules_.begin(), unsettled_rules_.end(), p,
                               [&](uint32_t pos, uint32_t r) { return pos < rules_[r].base; });
    if (it == unsettled_rules_.begin()) return -1;
    const Rule& rule = rules_[*--it];
    return p < rule.base + rule.count ? static_cast<int64_t>(*it) : -1;
  }

  // The forwarders that read each unsettled forwarder, as one flat table (a counting sort by
  // source). Settled and phi rules never change during the fixed point: nobody's source.
  void BuildDependents() {
    const size_t n = rules_.size();
    for (size_t f = 0; f < n; ++f) {
      if (!rules_[f].phi && !rules_[f].settled)
        unsettled_rules_.push_back(static_cast<uint32_t>(f));
    }
    if (unsettled_rules_.empty()) return;
    std::vector<std::pair<uint32_t, uint32_t>> edges;
    for (uint32_t g : unsettled_rules_) {
      for (uint32_t k = rules_[g].first_range; k < rules_[g].end_range; ++k) {
        // A range lies inside one source's positions, so its first position names the source.
        const int64_t f = UnsettledRuleAt(ranges_[k].src);
        if (f >= 0) edges.emplace_back(static_cast<uint32_t>(f), g);
      }
    }
    dependents_start_.assign(n + 1, 0);
    for (const auto& [src, dst] : edges) ++dependents_start_[src + 1];
    for (size_t i = 0; i < n; ++i) dependents_start_[i + 1] += dependents_start_[i];
    dependents_.resize(edges.size());
    std::vector<uint32_t> fill(dependents_start_.begin(), dependents_start_.end() - 1);
    for (const auto& [src, dst] : edges) dependents_[fill[src]++] = dst;
  }

  absl::Span<const ValueId> SetOf(uint32_t word) const {
    if (word == kEmptySet) return {};
    if ((word & kScratchSet) == kScratchSet) return scratch_sets_[word & ~kScratchSet];
    return df_.multi_[word & ~kMultiSet];
  }

  // A scratch set holding `values` (sorted), reusing the vectors of earlier updates.
  uint32_t NewScratchSet(absl::Span<const ValueId> values) {
    if (scratch_used_ == scratch_sets_.size()) scratch_sets_.emplace_back();
    scratch_sets_[scratch_used_].assign(values.begin(), values.end());
    return kScratchSet | static_cast<uint32_t>(scratch_used_++);
  }

  // dst ∪= src, on words (dst may be a scratch word, src is a word of sets_).
  void Merge(uint32_t& dst, uint32_t src) {
    if (src == kEmptySet || dst == src) return;
    if (dst == kEmptySet) {
      dst = (src & kMultiSet) ? NewScratchSet(SetOf(src)) : src;
      return;
    }
    const ValueId single_dst[1] = {dst};
    const ValueId single_src[1] = {src};
    const absl::Span<const ValueId> a = (dst & kMultiSet) ? SetOf(dst) : single_dst;
    const absl::Span<const ValueId> b = (src & kMultiSet) ? SetOf(src) : single_src;
    merged_.clear();
    std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(merged_));
    if ((dst & kScratchSet) == kScratchSet) {
      scratch_sets_[dst & ~kScratchSet].swap(merged_);
    } else {
      dst = NewScratchSet(merged_);
    }
  }

  // Recomputes the positions rule f forwards into; true when a set changed.
  bool Update(size_t f) {
    const Rule& rule = rules_[f];
    scratch_.assign(rule.count, kEmptySet);
    scratch_used_ = 0;
    for (uint32_t k = rule.first_range; k < rule.end_range; ++k) {
      const Range& r = ranges_[k];
      for (uint32_t j = 0; j < r.count; ++j) {
        Merge(scratch_[r.dst - rule.base + j], df_.sets_[r.src + j]);
      }
    }
    bool changed = false;
    for (uint32_t p = 0; p < rule.count; ++p) {
      const uint32_t word = scratch_[p];
      if (word == kEmptySet) continue;  // defined here, or nothing reached it yet
      uint32_t& cur = df_.sets_[rule.base + p];
      if (!(word & kMultiSet)) {
        if (cur != word) {
          cur = word;
          changed = true;
        }
        continue;
      }
      const absl::Span<const ValueId> next = SetOf(word);
      const ValueId single_cur[1] = {cur};
      const absl::Span<const ValueId> now = (cur & kMultiSet)  ? SetOf(cur)
                                            : cur == kEmptySet ? absl::Span<const ValueId>()
                                                               : single_cur;
      if (std::equal(next.begin(), next.end(), now.begin(), now.end())) continue;
      if (cur != kEmptySet && (cur & kMultiSet)) {
        df_.multi_[cur & ~kMultiSet].assign(next.begin(), next.end());
      } else {
        cur = kMultiSet | static_cast<uint32_t>(df_.multi_.size());
        df_.multi_.emplace_back(next.begin(), next.end());
      }
      changed = true;
    }
    return changed;
  }

  // Computations callers-first along control-flow calls (so a callee's parameters usually
  // settle before it is visited), else in module order; their forwarders in position order.
  std::vector<uint32_t> InitialOrder() const {
    std::vector<uint32_t> order;
    order.reserve(rules_.size());
    auto add_range = [&](uint32_t begin, uint32_t end) {
      auto it = std::lower_bound(rules_.begin(), rules_.end(), begin,
                                 [](const Rule& r, uint32_t pos) { return r.base < pos; });
      for (; it != rules_.end() && it->base < end; ++it) {
        if (!it->phi && !it->settled) order.push_back(static_cast<uint32_t>(it - rules_.begin()));
      }
    };
    if (!df_.call_graph_->HasControlFlowSites()) {
      add_range(0, static_cast<uint32_t>(df_.sets_.size()));
      return order;
    }
    for (uint32_t c : ComputationOrder()) {
      add_range(computation_first_position_[c], computation_first_position_[c + 1]);
    }
    return order;
  }

  // Computation indices (module order), callers before their control-flow callees.
  std::vector<uint32_t> ComputationOrder() const {
    const auto computations = df_.module_.computations();
    absl::flat_hash_map<const Computation*, uint32_t> index;
    index.reserve(computations.size());
    for (size_t i = 0; i < computations.size(); ++i) {
      index.emplace(computations[i], static_cast<uint32_t>(i));
    }
    // (caller computation, caller position, callee computation), sorted: callees in the
    // order their callers appear.
    std::vector<std::tuple<uint32_t, uint32_t, uint32_t>> edges;
    for (const Computation* callee : computations) {
      auto to = index.find(callee);
      if (to == index.end()) continue;
      for (const CallSite& site : df_.call_graph_->ControlFlowSites(callee)) {
        auto from = index.find(site.caller->parent());
        if (from == index.end()) continue;
        edges.emplace_back(from->second, df_.base_[site.caller->unique_id()], to->second);
      }
    }
    std::sort(edges.begin(), edges.end());
    std::vector<uint32_t> first_edge(computations.size() + 1, 0);
    for (const auto& e : edges) ++first_edge[std::get<0>(e) + 1];
    for (size_t i = 0; i < computations.size(); ++i) first_edge[i + 1] += first_edge[i];
    std::vector<uint32_t> post;
    std::vector<bool> seen(computations.size(), false);
    std::vector<std::pair<uint32_t, uint32_t>> stack;  // (computation, next edge)
    auto visit = [&](uint32_t root) {
      if (seen[root]) return;
      seen[root] = true;
      stack.push_back({root, first_edge[root]});
      while (!stack.empty()) {
        auto& [c, next] = stack.back();
        if (next < first_edge[c + 1]) {
          const uint32_t callee = std::get<2>(edges[next++]);
          if (!seen[callee]) {
            seen[callee] = true;
            stack.push_back({callee, first_edge[callee]});
          }
          continue;
        }
        post.push_back(c);
        stack.pop_back();
      }
    };
    if (auto it = index.find(df_.module_.entry()); it != index.end()) visit(it->second);
    for (uint32_t c = 0; c < computations.size(); ++c) visit(c);
    std::reverse(post.begin(), post.end());
    return post;
  }

  void Propagate() {
    if (unsettled_rules_.empty()) return;
    // A ring of rule indices: each rule is queued at most once at a time.
    const std::vector<uint32_t> order = InitialOrder();
    if (order.empty()) return;
    std::vector<uint32_t> ring(rules_.size());
    std::vector<bool> queued(rules_.size(), false);
    size_t head = 0, size = 0;
    for (uint32_t f : order) {
      ring[size++] = f;
      queued[f] = true;
    }
    while (size > 0) {
      const uint32_t f = ring[head];
      head = head + 1 == ring.size() ? 0 : head + 1;
      --size;
      queued[f] = false;
      if (!Update(f)) continue;
      for (uint32_t k = dependents_start_[f]; k < dependents_start_[f + 1]; ++k) {
        const uint32_t d = dependents_[k];
        if (queued[d]) continue;
        queued[d] = true;
        size_t tail = head + size;
        if (tail >= ring.size()) tail -= ring.size();
        ring[tail] = d;
        ++size;
      }
    }
  }

  // --- 4. phi resolution -------------------------------------------------------------------
  // Phis are numbered densely (phi_of_[value]); the rest of this section works on those
  // numbers, so its tables are as large as the phis, not the values.

  static constexpr uint32_t kNotPhi = std::numeric_limits<uint32_t>::max();

  bool IsPhi(ValueId v) const { return phi_of_[v] != kNotPhi; }
  // What `v` stands for once resolved (itself for values that are not phis).
  ValueId Resolved(ValueId v) const { return IsPhi(v) ? resolved_[phi_of_[v]] : v; }

  // Inputs of every phi: the union of the sets its ranges read.
  void CollectPhiInputs() {
    phi_inputs_.assign(phi_value_.size(), {});
    for (const Rule& rule : rules_) {
      if (!rule.phi) continue;
      for (uint32_t k = rule.first_range; k < rule.end_range; ++k) {
        const Range& r = ranges_[k];
        for (uint32_t j = 0; j < r.count; ++j) {
          const ValueId phi = df_.sets_[r.dst + j];
          auto& in = phi_inputs_[phi_of_[phi]];
          for (ValueId v : df_.SetAt(r.src + j)) in.push_back(v);
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
  void ResolveGroup(const std::vector<uint32_t>& group, int depth) {
    for (uint32_t h : group) group_mark_[h] = group_id_;
    const uint32_t my_group = group_id_++;
    std::vector<uint32_t> tarjan_stack;
    std::vector<std::pair<uint32_t, size_t>> call_stack;
    for (uint32_t start : group) {
      if (index_[start] != kNotPhi) continue;
      call_stack.push_back({start, 0});
      index_[start] = low_[start] = next_index_++;
      tarjan_stack.push_back(start);
      on_stack_[start] = true;
      while (!call_stack.empty()) {
        auto& [v, edge] = call_stack.back();
        const auto& in = phi_inputs_[v];
        if (edge < in.size()) {
          const ValueId input = in[edge++];
          if (!IsPhi(input)) continue;
          const uint32_t w = phi_of_[input];
          if (group_mark_[w] != my_group || resolved_[w] != kNoValue) continue;
          if (index_[w] == kNotPhi) {
            index_[w] = low_[w] = next_index_++;
            tarjan_stack.push_back(w);
            on_stack_[w] = true;
            call_stack.push_back({w, 0});
          } else if (on_stack_[w]) {
            low_[v] = std::min(low_[v], index_[w]);
          }
          continue;
        }
        const uint32_t done = v;
        call_stack.pop_back();
        if (!call_stack.empty()) {
          const uint32_t parent = call_stack.back().first;
          low_[parent] = std::min(low_[parent], low_[done]);
        }
        if (low_[done] == index_[done]) {
          std::vector<uint32_t> component;
          uint32_t w;
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

  void ResolveComponent(const std::vector<uint32_t>& component, int depth) {
    for (uint32_t h : component) component_mark_[h] = component_id_;
    const uint32_t mine = component_id_++;
    // What flows in from outside the component, resolved.
    std::vector<ValueId> external;
    std::vector<bool> has_external(component.size(), false);
    for (size_t k = 0; k < component.size(); ++k) {
      for (ValueId w : phi_inputs_[component[k]]) {
        if (IsPhi(w) && component_mark_[phi_of_[w]] == mine) continue;
        external.push_back(Resolved(w));
        has_external[k] = true;
      }
    }
    std::sort(external.begin(), external.end());
    external.erase(std::unique(external.begin(), external.end()), external.end());
    if (external.size() == 1) {
      for (uint32_t h : component) resolved_[h] = external[0];
      return;
    }
    // Several values enter: each member that receives one from outside merges it with what
    // circulates from the others, so it is a real phi. The others may still all equal one
    // of those; resolve them again on their own.
    std::vector<uint32_t> rest;
    size_t rest_work = 0;
    for (size_t k = 0; k < component.size(); ++k) {
      if (external.empty() || has_external[k]) {
        resolved_[component[k]] = phi_value_[component[k]];
      } else {
        rest.push_back(component[k]);
        rest_work += 1 + phi_inputs_[component[k]].size();
      }
    }
    if (rest.empty()) return;
    // Each round peels at least one member off, so nested loops that all carry a changing
    // value (phi(outer, inner) chains) would cost the square of their depth. Past a budget
    // linear in the phi graph (or a nesting the stack must not exceed), the rest stay phis
    // of their own: a coarser answer of the kind XLA's phi graph gives, never a wrong one.
    refine_work_ += rest_work;
    if (refine_work_ > refine_budget_ || depth >= kMaxRefineDepth) {
      for (uint32_t h : rest) resolved_[h] = phi_value_[h];
      return;
    }
    for (uint32_t h : rest) index_[h] = kNotPhi;
    ResolveGroup(rest, depth + 1);
  }

  void ResolvePhis() {
    // The phis are the values at the positions of phi rules (rules_ is in position order, as
    // value ids are).
    for (const Rule& rule : rules_) {
      if (!rule.phi) continue;
      for (uint32_t p = rule.base; p < rule.base + rule.count; ++p) {
        phi_value_.push_back(df_.sets_[p]);
      }
    }
    if (phi_value_.empty()) return;
    const size_t h = phi_value_.size();
    phi_of_.assign(df_.values_.size(), kNotPhi);
    for (size_t k = 0; k < h; ++k) phi_of_[phi_value_[k]] = static_cast<uint32_t>(k);
    CollectPhiInputs();
    resolved_.assign(h, kNoValue);
    index_.assign(h, kNotPhi);
    low_.assign(h, kNotPhi);
    on_stack_.assign(h, false);
    group_mark_.assign(h, 0);
    component_mark_.assign(h, 0);
    std::vector<uint32_t> all(h);
    for (size_t k = 0; k < h; ++k) all[k] = static_cast<uint32_t>(k);
    size_t edges = 0;
    for (const auto& in : phi_inputs_) edges += in.size();
    refine_budget_ = PhiRefinementBudget(h + edges);
    refine_work_ = 0;
    ResolveGroup(all, 0);
    // Replace resolved phis in every set; a phi replaced by another value is removed.
    for (size_t p = 0; p < df_.sets_.size(); ++p) {
      uint32_t& word = df_.sets_[p];
      if (word == kEmptySet) continue;
      if (!(word & kMultiSet)) {
        const ValueId r = Resolved(word);
        if (r != word) {
          word = r;
          df_.defines_[p] = false;
        }
        continue;
      }
      std::vector<ValueId>& set = df_.multi_[word & ~kMultiSet];
      bool any = false;
      for (ValueId& v : set) {
        const ValueId r = Resolved(v);
        any = any || r != v;
        v = r;
      }
      if (any) {
        std::sort(set.begin(), set.end());
        set.erase(std::unique(set.begin(), set.end()), set.end());
      }
    }
    for (size_t k = 0; k < h; ++k) {
      if (resolved_[k] != phi_value_[k]) {
        df_.values_[phi_value_[k]].id = kNoValue;
        ++removed_;
      }
    }
  }

  // --- 5. renumbering ------------------------------------------------------------------------

  // Drops the values marked removed (id kNoValue) and renumbers the rest densely, in order.
  void Renumber() {
    if (removed_ == 0) return;
    std::vector<ValueId> new_id(df_.values_.size(), kNoValue);
    size_t kept = 0;
    for (size_t v = 0; v < df_.values_.size(); ++v) {
      if (df_.values_[v].id == kNoValue) continue;
      new_id[v] = static_cast<ValueId>(kept);
      if (kept != v) df_.values_[kept] = std::move(df_.values_[v]);
      df_.values_[kept].id = static_cast<ValueId>(kept);
      ++kept;
    }
    df_.values_.resize(kept);
    for (uint32_t& word : df_.sets_) {
      if (word == kEmptySet) continue;
      if (!(word & kMultiSet)) {
        word = new_id[word];
        continue;
      }
      for (ValueId& v : df_.multi_[word & ~kMultiSet]) v = new_id[v];
    }
  }

  struct Pending {
    uint32_t range;
    const Instruction* src;
    int32_t src_pos;
  };

  DataflowAnalysis& df_;
  const Visitor* visit_;
  bool collect_calls_;       // no call graph was given: the walk collects the calls
  InstructionRule rule_;     // the rule of the instruction being walked
  absl::Status rule_error_;  // the first rule error (by position)
  size_t rule_error_base_ = 0;
  std::vector<bool> covered_;                         // its positions that a range covers
  std::vector<CallSite> calls_;                       // every call site, in module order
  std::vector<uint32_t> computation_first_position_;  // by computation index, and the end
  std::vector<Rule> rules_;                           // sorted by base (after ResolveSources)
  std::vector<uint32_t> unsettled_rules_;  // rules_ indices for the fixed point, in order
  std::vector<bool> unsettled_;            // per position: covered by a rule not settled
  bool rules_sorted_ = true;
  std::vector<Range> ranges_;
  std::vector<Pending> pending_;
  // The rules that read rule i are dependents_[dependents_start_[i] .. dependents_start_[i+1]).
  std::vector<uint32_t> dependents_start_;
  std::vector<uint32_t> dependents_;
  // Update's scratch: one word per position, sets of several values in scratch_sets_.
  std::vector<uint32_t> scratch_;
  std::vector<std::vector<ValueId>> scratch_sets_;
  size_t scratch_used_ = 0;
  std::vector<ValueId> merged_;
  size_t removed_ = 0;  // values marked removed (id kNoValue)
  // Phi resolution state, by phi number.
  std::vector<ValueId> phi_value_;
  std::vector<uint32_t> phi_of_;  // by value id
  std::vector<std::vector<ValueId>> phi_inputs_;
  std::vector<ValueId> resolved_;
  std::vector<uint32_t> index_, low_;
  std::vector<bool> on_stack_;
  std::vector<uint32_t> group_mark_, component_mark_;
  uint32_t group_id_ = 1, component_id_ = 1;
  uint32_t next_index_ = 0;
  // Members re-resolved after a component's first round (see ResolveComponent).
  static constexpr int kMaxRefineDepth = 1000;
  size_t refine_work_ = 0, refine_budget_ = 0;
};

absl::StatusOr<std::unique_ptr<DataflowAnalysis>> DataflowAnalysis::Run(const Module& module,
                                                                        const Options& options) {
  return Run(module, options, nullptr, nullptr);
}

absl::StatusOr<std::unique_ptr<DataflowAnalysis>> DataflowAnalysis::Run(const Module& module,
                                                                        const Options& options,
                                                                        InstructionVisitor visit) {
  return Run(module, options, nullptr, &visit);
}

absl::StatusOr<std::unique_ptr<DataflowAnalysis>> DataflowAnalysis::Run(
    const Module& module, const Options& options, std::shared_ptr<const CallGraph> calls,
    const InstructionVisitor* visit) {
  if (module.entry() == nullptr) return absl::InvalidArgumentError("module has no entry");
  std::unique_ptr<DataflowAnalysis> df(new DataflowAnalysis(module, options));
  df->call_graph_ = std::move(calls);
  DataflowBuilder builder(*df, visit);
  if (absl::Status s = builder.Build(); !s.ok()) return s;
  return df;
}

int64_t DataflowAnalysis::Base(const Instruction& instr) const {
  if (instr.unique_id() >= base_.size()) return -1;
  const uint32_t base = base_[instr.unique_id()];
  if (base == kNoBase || instr.parent() == nullptr || instr.module() != &module_) return -1;
  return base;
}

absl::Span<const ValueId> DataflowAnalysis::SetAt(size_t position) const {
  const uint32_t& word = sets_[position];
  if (word == kEmptySet) return {};
  if (word & kMultiSet) return multi_[word & ~kMultiSet];
  return absl::Span<const ValueId>(&word, 1);
}

absl::Span<const ValueId> DataflowAnalysis::ValuesAt(const Instruction& instr,
                                                     const ShapeIndex& index) const {
  const int64_t base = Base(instr);
  if (base < 0) return {};
  std::optional<int32_t> pos = positions_.Offset(instr.shape(), index);
  if (!pos) return {};
  return SetAt(static_cast<size_t>(base + *pos));
}

ValueId DataflowAnalysis::ValueDefinedAt(const Instruction& instr, const ShapeIndex& index) const {
  const int64_t base = Base(instr);
  if (base < 0) return kNoValue;
  std::optional<int32_t> pos = positions_.Offset(instr.shape(), index);
  if (!pos) return kNoValue;
  const auto p = static_cast<size_t>(base + *pos);
  return defines_[p] ? sets_[p] : kNoValue;
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
  return SetAt(static_cast<size_t>(base + position));
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
