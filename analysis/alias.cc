#include "analysis/alias.h"

#include <algorithm>
#include <numeric>
#include <string>

#include "analysis/alias_input_output.h"
#include "analysis/in_place_pairs.h"
#include "fmt/format.h"
#include "hlo/computation.h"

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

const Instruction* Root(const Computation* c) { return c == nullptr ? nullptr : c->root(); }
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
  DataflowAnalysis::Options df_options = options;
  df_options.ssa_form = true;
  absl::StatusOr<std::unique_ptr<DataflowAnalysis>> df = DataflowAnalysis::Run(module, df_options);
  if (!df.ok()) return df.status();
  std::unique_ptr<AliasAnalysis> aa(new AliasAnalysis());
  aa->dataflow_ = *std::move(df);
  const DataflowAnalysis& flow = *aa->dataflow_;
  DisjointSets sets(flow.values().size());
  Joiner join(flow, sets);
  InPlaceOptions in_place;
  in_place.bitcast_is_alias = !options.bitcast_defines_value;

  for (const Computation* c : module.computations()) {
    for (const Instruction* i : c->instructions()) {
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
      for (const InPlacePair& p : GetInPlaceInputOutputPairs(*i, in_place)) {
        if (p.input.operand_number < 0 || p.input.operand_number >= i->operand_count()) continue;
        join.JoinPositions(*i->operand(p.input.operand_number), p.input.operand_index, *i,
                           p.output_index);
      }
    }
  }

  const Computation* entry = module.entry();
  if (std::optional<std::string_view> text = module.FindAttribute("input_output_alias")) {
    absl::StatusOr<std::vector<InputOutputAlias>> aliases = ParseInputOutputAlias(*text);
    if (!aliases.ok()) {
      return absl::InvalidArgumentError(fmt::format(
          "module '{}': {}", module.name(),
          std::string_view(aliases.status().message().data(), aliases.status().message().size())));
    }
    for (const InputOutputAlias& a : *aliases) {
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

  // Buffers in order of their smallest value id (the representative).
  const size_t n = flow.values().size();
  aa->buffer_of_.assign(n, 0);
  std::vector<BufferId> of_root(n, static_cast<BufferId>(-1));
  size_t roots = 0;
  for (ValueId v = 0; v < n; ++v) roots += sets.Find(v) == v ? 1 : 0;
  aa->buffers_.reserve(roots);
  for (ValueId v = 0; v < n; ++v) {
    const ValueId root = sets.Find(v);
    if (of_root[root] == static_cast<BufferId>(-1)) {
      of_root[root] = static_cast<BufferId>(aa->buffers_.size());
      aa->buffers_.push_back(HloBuffer{of_root[root], {}, 0, false});
    }
    HloBuffer& b = aa->buffers_[of_root[root]];
    b.values.push_back(v);
    b.bytes = std::max(b.bytes, ValueBytes(flow.value(v)));
    aa->buffer_of_[v] = b.id;
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
