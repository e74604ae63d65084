#include "analysis/alias.h"

#include <algorithm>
#include <numeric>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "analysis/async_chain_pairs.h"
#include "analysis/in_place_pairs.h"
#include "fmt/format.h"
#include "hlo/computation.h"
#include "hlo/input_output_alias.h"

namespace hloscope {

namespace {

// Union-find over value ids, with path halving.
class DisjointSets {
 public:
  explicit DisjointSets(size_t n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), 0); }
  ValueId Find(ValueId v) {
    while (parent_[v] != v) {
      parent_[v] = parent_[parent_[v]];
      v = parent_[v];
    }
    return v;
  }
  void Union(ValueId a, ValueId b) {
    a = Find(a);
    b = Find(b);
    // The smaller id becomes the representative, so buffers keep their first value's order.
    if (a < b) parent_[b] = a;
    if (b < a) parent_[a] = b;
  }
  // The parent table, emptied here. Every parent is <= its child.
  std::vector<ValueId> TakeParents() { return std::move(parent_); }

 private:
  std::vector<ValueId> parent_;
};

class Joiner {
 public:
  Joiner(const DataflowAnalysis& df, DisjointSets& sets) : df_(df), sets_(sets) {}

  // Joins every value at every position of the listed (instruction, base index) subtrees,
  // position by position. All subtrees have the structure of the first one.
  void JoinSubtrees(std::initializer_list<std::pair<const Instruction*, ShapeIndex>> items) {
    const Instruction* first = items.begin()->first;
    if (first == nullptr) return;
    const Shape* shape = Subshape(first->shape(), items.begin()->second);
    if (shape == nullptr) return;
    ForEachSubshape(*shape, [&](const Shape&, const ShapeIndex& rel) {
      ValueId anchor = kNoValue;
      for (const auto& [instr, base] : items) {
        if (instr == nullptr) continue;
        ShapeIndex index = base;
        index.insert(index.end(), rel.begin(), rel.end());
        for (ValueId v : df_.ValuesAt(*instr, index)) {
          if (anchor == kNoValue) anchor = v;
          sets_.Union(anchor, v);
        }
      }
    });
  }

  void JoinPositions(const Instruction& a, const ShapeIndex& ai, const Instruction& b,
                     const ShapeIndex& bi) {
    ValueId anchor = kNoValue;
    for (ValueId v : df_.ValuesAt(a, ai)) {
      if (anchor == kNoValue) anchor = v;
      sets_.Union(anchor, v);
    }
    for (ValueId v : df_.ValuesAt(b, bi)) {
      if (anchor == kNoValue) anchor = v;
      sets_.Union(anchor, v);
    }
  }

 private:
  const DataflowAnalysis& df_;
  DisjointSets& sets_;
};

// Notes, during the dataflow analysis's walk, the instructions that join buffers: loops and
// conditionals (joined later through their computations), and the instructions with in-place
// pairs, with the pairs, computed while the instruction is in cache. A fusion's pairs come
// mostly from its fused computation, which the walk met long before (at a million
// instructions, far away in memory): each computation is summarized when the walk leaves it.
// Fusions usually name their computations in the order the computations are written (a
// printer writes callees in the order of their first use), so the summary a fusion needs is
// looked for just after the last one found before a table keyed by computation is built: a
// table of every computation would be read in random order, one cache miss per fusion.
class JoinCollector {
 public:
  struct JoinSite {
    const Instruction* instr;
    std::vector<InPlacePair> pairs;  // empty for loops and conditionals
  };

  JoinCollector(const Module& module, const DataflowOptions& options) : options_(options) {
    summaries_.reserve(module.computations().size());
  }

  void Visit(const Instruction& i) {
    if (i.parent() != current_) {
      Summarize();
      current_ = i.parent();
    }
    const Opcode op = i.opcode();
    if (op == Opcode::kWhile || op == Opcode::kConditional) {
      sites_.push_back({&i, {}});
      return;
    }
    if (!MayHaveInPlacePairs(op)) return;
    if ((op == Opcode::kAsyncStart || op == Opcode::kAsyncUpdate) && status_.ok()) {
      // The pairs leave out the entries XLA CHECK-fails on; the analysis reports them.
      std::vector<InPlacePair> unused;
      status_ = AppendAsyncChainPairs(i, unused);
    }
    std::vector<InPlacePair> pairs =
        op == Opcode::kFusion ? FusionPairs(i) : GetInPlaceInputOutputPairs(i, options_);
    if (!pairs.empty()) sites_.push_back({&i, std::move(pairs)});
  }

  // The first error of an async-start's aliasing along its chain.
  const absl::Status& status() const { return status_; }

  const std::vector<JoinSite>& Finish() {
    Summarize();
    current_ = nullptr;
    return sites_;
  }

 private:
  struct Summary {
    const Computation* computation;
    const Shape* root_shape;
    uint32_t pairs;  // 1 + index into fused_pairs_, or 0: none
  };
  static constexpr size_t kLookAhead = 16;

  void Summarize() {
    if (current_ == nullptr || current_->root() == nullptr) return;
    std::vector<InPlacePair> pairs = FusedComputationInPlacePairs(*current_, options_);
    uint32_t index = 0;
    if (!pairs.empty()) {
      fused_pairs_.push_back(std::move(pairs));
      index = static_cast<uint32_t>(fused_pairs_.size());
    }
    summaries_.push_back(Summary{current_, current_->root()->shape_ptr(), index});
    if (indexed_) by_computation_.try_emplace(current_, summaries_.size() - 1);
  }

  // The summary of `c`, or nullptr when the walk has not left it yet.
  const Summary* Find(const Computation* c) {
    const size_t end = std::min(summaries_.size(), next_ + kLookAhead);
    for (size_t k = next_; k < end; ++k) {
      if (summaries_[k].computation != c) continue;
      next_ = k + 1;
      return &summaries_[k];
    }
    if (!indexed_) {
      indexed_ = true;
      by_computation_.reserve(summaries_.capacity());
      for (size_t k = 0; k < summaries_.size(); ++k) {
        by_computation_.try_emplace(summaries_[k].computation, k);
      }
    }
    auto it = by_computation_.find(c);
    return it == by_computation_.end() ? nullptr : &summaries_[it->second];
  }

  std::vector<InPlacePair> FusionPairs(const Instruction& fusion) {
    // The fused computation is the fusion's one called computation; reading which attribute
    // names it would cost another cache miss per fusion, so it is checked only where it
    // matters: if the fusion has no fused computation at all, it has no fused pairs either,
    // just as when its computation has none.
    const auto called = fusion.called_computations();
    const Summary* summary = called.size() == 1 ? Find(called[0]) : nullptr;
    // Not met yet, or a fusion whose leaves are not its root's: ask for the whole answer.
    if (summary == nullptr || !SameTupleStructure(*summary->root_shape, fusion.shape())) {
      return GetInPlaceInputOutputPairs(fusion, options_);
    }
    const uint32_t k = summary->pairs;
    if (k == 0) {
      if (fusion.output_to_operand_aliasing().empty()) return {};
      return FusionInPlacePairs(fusion, {});
    }
    if (fusion.fused_computation() != called[0])
      return GetInPlaceInputOutputPairs(fusion, options_);
    return FusionInPlacePairs(fusion, fused_pairs_[k - 1]);
  }

  DataflowOptions options_;
  const Computation* current_ = nullptr;
  std::vector<Summary> summaries_;  // in walk order
  size_t next_ = 0;                 // where Find looks first
  bool indexed_ = false;            // by_computation_ is built (and kept up to date)
  absl::flat_hash_map<const Computation*, size_t> by_computation_;
  std::vector<std::vector<InPlacePair>> fused_pairs_;
  std::vector<JoinSite> sites_;
  absl::Status status_;
};

const Instruction* Root(const Computation* c) { return c == nullptr ? nullptr : c->root(); }
// Every value at `index` of `instr` or below it, into `out`.
void CollectValuesBelow(const DataflowAnalysis& flow, const Instruction& instr, ShapeIndex index,
                        absl::flat_hash_set<ValueId>& out) {
  const Shape* shape = Subshape(instr.shape(), index);
  if (shape == nullptr) return;
  for (ValueId v : flow.ValuesAt(instr, index)) out.insert(v);
  for (size_t k = 0; shape->IsTuple() && k < shape->tuple_elements.size(); ++k) {
    index.push_back(static_cast<int64_t>(k));
    CollectValuesBelow(flow, instr, index, out);
    index.pop_back();
  }
}

// An async-done's pair from its chain's aliasing (analysis/async_chain_pairs.h) gives result r
// the buffer of bound operand p. When the wrapped computation returns another bound operand q
// unchanged at r, the dataflow gives r q's value, and the join would put p and q, which the
// wrapped op reads side by side, into one buffer: no assignment can honour that (two entry
// parameters would share memory), and copies cannot separate them, since an update's or done's
// operand 0 is never copied. XLA's alias analysis joins them all the same; ours refuses
// (found by the differential check on TuplePointsToAnalysisTest's
// LateBindingAsync_InputAliased_OutputBoundLate module).
absl::Status RefuseForwardedBoundOperand(const DataflowAnalysis& flow, const Instruction& done,
                                         const InPlacePair& pair) {
  const ShapeIndex& in = pair.input.operand_index;
  const Instruction& chain = *done.operand(0);
  const Shape* bound = Subshape(chain.shape(), {0});
  if (bound == nullptr || !bound->IsTuple()) return absl::OkStatus();
  absl::flat_hash_set<ValueId> result;
  CollectValuesBelow(flow, done, pair.output_index, result);
  for (size_t q = 0; q < bound->tuple_elements.size(); ++q) {
    if (static_cast<int64_t>(q) == in[1]) continue;
    absl::flat_hash_set<ValueId> operand;
    CollectValuesBelow(flow, chain, {0, static_cast<int64_t>(q)}, operand);
    for (ValueId v : operand) {
      if (!result.contains(v)) continue;
      return absl::InvalidArgumentError(fmt::format(
          "async-done %{}: its chain's output_to_operand_aliasing gives result {} the buffer "
          "of bound operand {}, but the wrapped computation returns bound operand {} there "
          "unchanged; joining them would put two operands the wrapped op reads into one "
          "buffer, which no buffer assignment can honour, so the alias analysis refuses this "
          "chain (XLA's joins them)",
          done.name(), ShapeIndexToString(pair.output_index), in[1], q));
    }
  }
  return absl::OkStatus();
}

const Instruction* Param0(const Computation* c) {
  return c == nullptr || c->parameter_count() == 0 ? nullptr : c->parameter(0);
}

}  // namespace

int64_t AliasAnalysis::ValueBytes(const HloValue& value) {
  const Shape& s = *value.shape;
  if (s.IsTuple()) return 8 * static_cast<int64_t>(s.tuple_elements.size());
  return s.ByteSize();
}

absl::StatusOr<std::unique_ptr<AliasAnalysis>> AliasAnalysis::Run(
    const Module& module, const DataflowAnalysis::Options& options) {
  return Run(module, options, nullptr);
}

absl::StatusOr<std::unique_ptr<AliasAnalysis>> AliasAnalysis::Run(
    const Module& module, const DataflowAnalysis::Options& options,
    std::shared_ptr<const CallGraph> calls) {
  DataflowAnalysis::Options df_options = options;
  df_options.ssa_form = true;
  // Noted during the dataflow analysis's walk of the module rather than in a second one.
  JoinCollector collector(module, options);
  auto note = [&collector](const Instruction& i) { collector.Visit(i); };
  const DataflowAnalysis::InstructionVisitor visit = note;
  absl::StatusOr<std::unique_ptr<DataflowAnalysis>> df =
      DataflowAnalysis::Run(module, df_options, std::move(calls), &visit);
  if (!df.ok()) return df.status();
  if (!collector.status().ok()) return collector.status();
  std::unique_ptr<AliasAnalysis> aa(new AliasAnalysis());
  aa->dataflow_ = *std::move(df);
  const DataflowAnalysis& flow = *aa->dataflow_;
  DisjointSets sets(flow.values().size());
  Joiner join(flow, sets);

  for (const auto& [i, pairs] : collector.Finish()) {
    if (i->opcode() == Opcode::kWhile && i->operand_count() == 1) {
      join.JoinSubtrees({{i, {}},
                         {i->operand(0), {}},
                         {Param0(i->while_body()), {}},
                         {Root(i->while_body()), {}},
                         {Param0(i->while_condition()), {}}});
    } else if (i->opcode() == Opcode::kConditional) {
      for (const Computation* branch : i->branch_computations()) {
        join.JoinSubtrees({{i, {}}, {Root(branch), {}}});
      }
    }
    for (const InPlacePair& p : pairs) {
      if (p.input.operand_number < 0 || p.input.operand_number >= i->operand_count()) continue;
      if (i->opcode() == Opcode::kAsyncDone && p.input.operand_number == 0 &&
          p.input.operand_index.size() >= 2 && p.input.operand_index[0] == 0) {
        if (absl::Status s = RefuseForwardedBoundOperand(flow, *i, p); !s.ok()) return s;
      }
      join.JoinPositions(*i->operand(p.input.operand_number), p.input.operand_index, *i,
                         p.output_index);
    }
  }

  const Computation* entry = module.entry();
  {
    // The verifier checks each alias against the entry (verifier_alias_rule.cc); an analysis
    // of a module nobody verified still refuses one that names what the entry does not have.
    for (const InputOutputAlias& a : module.input_output_aliases()) {
      if (a.parameter < 0 || a.parameter >= entry->parameter_count() ||
          Subshape(entry->parameter(a.parameter)->shape(), a.parameter_index) == nullptr ||
          entry->root() == nullptr || Subshape(entry->root()->shape(), a.output_index) == nullptr) {
        return absl::InvalidArgumentError(fmt::format(
            "module '{}': input_output_alias names output {} and parameter {} index {}, which "
            "the entry does not have",
            module.name(), ShapeIndexToString(a.output_index), a.parameter,
            ShapeIndexToString(a.parameter_index)));
      }
      join.JoinPositions(*entry->parameter(a.parameter), a.parameter_index, *entry->root(),
                         a.output_index);
    }
  }

  // Buffers in order of their smallest value id, which is each set's representative. The
  // union-find table becomes buffer_of_ in place: parents are smaller than their children, so
  // when value v is reached its parent p < v already holds its buffer (each value's buffer is
  // its parent's, or a new one for a representative).
  const size_t n = flow.values().size();
  aa->buffer_of_ = sets.TakeParents();
  std::vector<BufferId>& buffer_of = aa->buffer_of_;
  aa->value_ids_.resize(n);
  std::iota(aa->value_ids_.begin(), aa->value_ids_.end(), 0);
  size_t roots = 0;
  for (ValueId v = 0; v < n; ++v) roots += buffer_of[v] == v ? 1 : 0;
  aa->buffers_.reserve(roots);
  std::vector<BufferId> joined;    // buffers of several values, in order
  std::vector<ValueId> followers;  // their values but the first, in order
  for (ValueId v = 0; v < n; ++v) {
    const ValueId parent = buffer_of[v];
    const int64_t bytes = ValueBytes(flow.value(v));
    if (parent == v) {
      buffer_of[v] = static_cast<BufferId>(aa->buffers_.size());
      aa->buffers_.push_back(HloBuffer{{&aa->value_ids_[v], 1}, bytes, buffer_of[v], false});
      continue;
    }
    buffer_of[v] = buffer_of[parent];
    HloBuffer& b = aa->buffers_[buffer_of[v]];
    if (b.values.size() == 1) joined.push_back(b.id);
    b.values = {b.values.data(), b.values.size() + 1};  // the size for now
    b.bytes = std::max(b.bytes, bytes);
    followers.push_back(v);
  }
  // Each joined buffer's list, in buffer order: its first value, then its followers in order.
  std::sort(joined.begin(), joined.end());
  aa->joined_values_.resize(joined.size() + followers.size());
  std::vector<size_t> next(joined.size());
  size_t offset = 0;
  for (size_t k = 0; k < joined.size(); ++k) {
    HloBuffer& b = aa->buffers_[joined[k]];
    aa->joined_values_[offset] = b.values.front();
    b.values = {&aa->joined_values_[offset], b.values.size()};
    next[k] = offset + 1;
    offset += b.values.size();
  }
  for (ValueId v : followers) {
    const size_t k = static_cast<size_t>(
        std::lower_bound(joined.begin(), joined.end(), buffer_of[v]) - joined.begin());
    aa->joined_values_[next[k]++] = v;
  }
  if (entry != nullptr && entry->root() != nullptr) {
    const Instruction& root = *entry->root();
    for (int32_t p = 0; p < flow.PositionCount(root); ++p) {
      for (ValueId v : flow.ValuesAtPosition(root, p))
        aa->buffers_[aa->buffer_of_[v]].live_out = true;
    }
  }
  return aa;
}

std::vector<BufferId> AliasAnalysis::BuffersAt(const Instruction& instr,
                                               const ShapeIndex& index) const {
  std::vector<BufferId> out;
  for (ValueId v : dataflow_->ValuesAt(instr, index)) out.push_back(buffer_of_[v]);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<BufferId> AliasAnalysis::LiveOutBuffers() const {
  std::vector<BufferId> out;
  for (const HloBuffer& b : buffers_) {
    if (b.live_out) out.push_back(b.id);
  }
  return out;
}

bool AliasAnalysis::MayShareBuffer(const Instruction& a, const ShapeIndex& a_index,
                                   const Instruction& b, const ShapeIndex& b_index) const {
  const std::vector<BufferId> x = BuffersAt(a, a_index);
  const std::vector<BufferId> y = BuffersAt(b, b_index);
  std::vector<BufferId> common;
  std::set_intersection(x.begin(), x.end(), y.begin(), y.end(), std::back_inserter(common));
  return !common.empty();
}

}  // namespace hloscope
