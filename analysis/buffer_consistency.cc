#include "analysis/buffer_consistency.h"

#include <algorithm>
#include <vector>

#include "fmt/format.h"
#include "hlo/computation.h"

namespace hloscope {

namespace {

bool IsLoopOrBranch(const Instruction& i) {
  return i.opcode() == Opcode::kWhile || i.opcode() == Opcode::kConditional;
}

// b's definition comes after a's (a phi at a while or conditional result is defined when its
// callees have finished).
bool DefinedBefore(const HloValue& a, const HloValue& b, const ExecutionOrdering& ordering) {
  const Instruction& d = *b.instruction;
  if (b.is_phi && IsLoopOrBranch(d)) {
    for (const Computation* callee : d.called_computations()) {
      if (ordering.IsNestedIn(*a.instruction, *callee)) return true;
    }
  }
  return ordering.ExecutesBefore(*a.instruction, d);
}

class ConflictFinder {
 public:
  ConflictFinder(const AliasAnalysis& alias, const ValueLiveness& live,
                 absl::Span<const InputOutputAlias> donated)
      : flow_(alias.dataflow()), live_(live), donated_(donated) {
    // Text positions, for reads that dependencies leave unordered with a write.
    uint32_t max_id = 0;
    for (const Computation* c : flow_.module().computations()) {
      for (const Instruction* i : c->instructions()) max_id = std::max(max_id, i->unique_id());
    }
    text_index_.assign(size_t{max_id} + 1, -1);
    for (const Computation* c : flow_.module().computations()) {
      int64_t k = 0;
      for (const Instruction* i : c->instructions()) text_index_[i->unique_id()] = k++;
    }
  }

  std::optional<BufferConflict> InBuffer(const HloBuffer& buffer);

  bool ReadOnly(ValueId v) const {
    return IsReadOnlyValue(flow_.value(v), flow_.module(), donated_);
  }

 private:
  std::string Name(ValueId v) const {
    if (const Instruction* i = live_.NamingInstruction(v)) return fmt::format("%{}", i->name());
    const HloValue& hv = flow_.value(v);
    return fmt::format("%{}{}", hv.instruction->name(), ShapeIndexToString(hv.index));
  }
  std::optional<BufferConflict> Pair(ValueId a, ValueId b) const;
  // Whether the ordering forces a's live range past b's definition, given why it is not
  // before: always, but for reads merely unordered with b in dependency order.
  bool Forced(ValueId a, ValueId b, const LiveRangeOrder& why) const;
  BufferConflict Explain(ValueId live, ValueId overwrite, const LiveRangeOrder& why) const;
  // Merge sort by definition: safe whatever the ordering answers (a partial order with ties
  // broken by id is not always a strict weak order, which std::sort would need).
  void SortByDefinition(std::vector<ValueId>& values) const;

  const DataflowAnalysis& flow_;
  const ValueLiveness& live_;
  absl::Span<const InputOutputAlias> donated_;
  std::vector<int64_t> text_index_;  // by unique id: position in its computation's text
};

BufferConflict ConflictFinder::Explain(ValueId live, ValueId overwrite,
                                       const LiveRangeOrder& why) const {
  const HloValue& w = flow_.value(overwrite);
  const std::string writer =
      w.is_phi ? fmt::format("the loop or branch result {}", Name(overwrite)) : Name(overwrite);
  std::string message;
  switch (why.rule) {
    case LiveRangeRule::kReadAfter:
      message = fmt::format("{} takes over the buffer of {}, but %{} reads {} after it", writer,
                            Name(live), why.use->instruction->name(), Name(live));
      break;
    case LiveRangeRule::kNotInPlace:
      message = fmt::format(
          "{} shares the buffer of {} (its operand {}), but %{} cannot write it in place", writer,
          Name(live), why.use->operand_number, why.use->instruction->name());
      break;
    case LiveRangeRule::kEveryIteration:
      message = fmt::format(
          "{} takes over the buffer of {}, but %{} reads {} on every iteration of %{}", writer,
          Name(live), why.use->instruction->name(), Name(live), why.loop->name());
      break;
    case LiveRangeRule::kLiveOut:
      message = fmt::format("{} is in the entry's result, but {} overwrites its buffer", Name(live),
                            writer);
      break;
    case LiveRangeRule::kComputationRoot:
      message = fmt::format("{} lives to the end of %{} (its root), but {} overwrites its buffer",
                            Name(live), why.computation->name(), writer);
      break;
    case LiveRangeRule::kDefinedAfter:
    case LiveRangeRule::kBefore:
      message = fmt::format("{} and {} share one buffer and may be live at the same time",
                            Name(live), writer);
      break;
  }
  return {live, overwrite, std::move(message)};
}

bool ConflictFinder::Forced(ValueId a, ValueId b, const LiveRangeOrder& why) const {
  const ExecutionOrdering& ordering = live_.ordering();
  if (why.rule != LiveRangeRule::kReadAfter || ordering.sequential()) return true;
  const Instruction& def = *flow_.value(b).instruction;
  for (const ValueUse& use : live_.uses(a)) {
    const Instruction& u = *use.instruction;
    if (&u == &def) continue;
    if (ordering.ExecutesBefore(def, u)) return true;
    // Unordered in one computation: the text order (the interpreter's, and the schedule a
    // module without one usually gets) decides.
    if (u.parent() == def.parent() && !ordering.ExecutesBefore(u, def) &&
        text_index_[u.unique_id()] > text_index_[def.unique_id()]) {
      return true;
    }
  }
  return false;
}

std::optional<BufferConflict> ConflictFinder::Pair(ValueId a, ValueId b) const {
  const LiveRangeOrder ab = live_.StrictlyBefore(a, b);
  if (ab.before()) return std::nullopt;
  const LiveRangeOrder ba = live_.StrictlyBefore(b, a);
  if (ba.before()) return std::nullopt;
  if (!Forced(a, b, ab) || !Forced(b, a, ba)) return std::nullopt;
  // Name the later definition as the one that overwrites.
  const ExecutionOrdering& ordering = live_.ordering();
  if (DefinedBefore(flow_.value(b), flow_.value(a), ordering)) return Explain(b, a, ba);
  return Explain(a, b, ab);
}

void ConflictFinder::SortByDefinition(std::vector<ValueId>& values) const {
  const ExecutionOrdering& ordering = live_.ordering();
  auto less = [&](ValueId a, ValueId b) {
    const HloValue& va = flow_.value(a);
    const HloValue& vb = flow_.value(b);
    if (DefinedBefore(va, vb, ordering)) return true;
    if (DefinedBefore(vb, va, ordering)) return false;
    return a < b;
  };
  std::vector<ValueId> scratch(values.size());
  for (size_t width = 1; width < values.size(); width *= 2) {
    for (size_t lo = 0; lo < values.size(); lo += 2 * width) {
      const size_t mid = std::min(lo + width, values.size());
      const size_t hi = std::min(lo + 2 * width, values.size());
      size_t i = lo, j = mid, k = lo;
      while (i < mid && j < hi)
        scratch[k++] = less(values[j], values[i]) ? values[j++] : values[i++];
      while (i < mid) scratch[k++] = values[i++];
      while (j < hi) scratch[k++] = values[j++];
    }
    values.swap(scratch);
  }
}

std::optional<BufferConflict> ConflictFinder::InBuffer(const HloBuffer& buffer) {
  if (buffer.values.size() < 2) return std::nullopt;
  const Shape& shape = *flow_.value(buffer.values.front()).shape;
  if (shape.IsToken() || shape.IsTuple()) return std::nullopt;
  // Read-only values keep their bytes (the header comment): they conflict with nothing.
  std::vector<ValueId> values;
  for (ValueId v : buffer.values) {
    if (!ReadOnly(v)) values.push_back(v);
  }
  if (values.size() <= kPairwiseLimit) {
    for (size_t i = 0; i < values.size(); ++i) {
      for (size_t j = i + 1; j < values.size(); ++j) {
        if (auto c = Pair(values[i], values[j])) return c;
      }
    }
    return std::nullopt;
  }
  SortByDefinition(values);
  for (size_t i = 1; i < values.size(); ++i) {
    if (auto c = Pair(values[i - 1], values[i])) return c;
  }
  return std::nullopt;
}

}  // namespace

bool IsReadOnlyValue(const HloValue& v, const Module& module,
                     absl::Span<const InputOutputAlias> donated) {
  if (v.is_phi) return false;
  const Instruction& def = *v.instruction;
  if (def.opcode() == Opcode::kConstant) return true;
  if (def.opcode() != Opcode::kParameter || def.parent() != module.entry()) return false;
  for (const InputOutputAlias& a : donated) {
    if (a.parameter != def.parameter_number() || a.parameter_index.size() > v.index.size()) {
      continue;
    }
    if (std::equal(a.parameter_index.begin(), a.parameter_index.end(), v.index.begin())) {
      return false;
    }
  }
  return true;
}

std::optional<BufferConflict> FindBufferConflict(const AliasAnalysis& alias,
                                                 const ValueLiveness& live,
                                                 absl::Span<const InputOutputAlias> donated) {
  ConflictFinder finder(alias, live, donated);
  for (const HloBuffer& buffer : alias.buffers()) {
    if (auto c = finder.InBuffer(buffer)) return c;
  }
  return std::nullopt;
}

}  // namespace hloscope
