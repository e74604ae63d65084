#include "analysis/buffer_consistency.h"

#include <algorithm>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "analysis/call_graph.h"
#include "fmt/format.h"
#include "hlo/computation.h"

namespace hloscope {

namespace {

bool IsLoopOrBranch(const Instruction& i) {
  return i.opcode() == Opcode::kWhile || i.opcode() == Opcode::kConditional;
}

// The instruction of `c` that `instr` runs as part of: itself, or the instruction that calls
// (through unique callers) the computation holding it; nullptr when there is none.
const Instruction* LiftTo(const Instruction& instr, const Computation& c,
                          const ExecutionOrdering& ordering) {
  const Instruction* at = &instr;
  while (at != nullptr && at->parent() != &c) at = ordering.CallerOf(*at->parent());
  return at;
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

// The computations whose values are storage: the entry and what it runs as control flow
// (while, conditional, call, async wrapped computations), transitively. A fusion's or a
// reducer's instructions run inside one instruction: XLA assigns them no buffers and its copy
// insertion adds no copies there, and the interpreter runs them by value. Whether a fusion may
// write an output into an operand it also reads elsewhere is its emitter's question
// (`hlo-opt --check-in-place`), not one of the module's buffers.
absl::flat_hash_set<const Computation*> StorageComputations(const Module& module) {
  absl::flat_hash_set<const Computation*> out;
  if (module.entry() == nullptr) return out;
  std::vector<const Computation*> work = {module.entry()};
  out.insert(module.entry());
  while (!work.empty()) {
    const Computation* c = work.back();
    work.pop_back();
    for (const Instruction* i : c->instructions()) {
      for (const Computation* callee : i->called_computations()) {
        if (CallContextOf(*i, *callee) == CallContext::kControlFlow && out.insert(callee).second) {
          work.push_back(callee);
        }
      }
    }
  }
  return out;
}

class ConflictFinder {
 public:
  ConflictFinder(const AliasAnalysis& alias, const ValueLiveness& live,
                 absl::Span<const InputOutputAlias> donated)
      : flow_(alias.dataflow()),
        live_(live),
        donated_(donated),
        storage_(StorageComputations(flow_.module())) {
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
  // Defined where instructions get no storage of their own (StorageComputations).
  bool Embedded(ValueId v) const {
    return !storage_.contains(flow_.value(v).instruction->parent());
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
  // Sorts by a linear extension of "defined before" (NumberDefinitions), ties by id.
  void SortByDefinition(std::vector<ValueId>& values);
  // Numbers every instruction: computations from the entry, each in ordering position order,
  // the control-flow callees of an instruction before it (a loop's or branch's result is
  // defined when its callees are done), so that a definition that executes before another
  // gets the smaller number.
  void NumberDefinitions();

  const DataflowAnalysis& flow_;
  const ValueLiveness& live_;
  absl::Span<const InputOutputAlias> donated_;
  std::vector<int64_t> text_index_;      // by unique id: position in its computation's text
  std::vector<int64_t> definition_key_;  // by unique id, built for the first large buffer
  absl::flat_hash_set<const Computation*> storage_;
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
    // Different branches of one conditional: only one of them runs.
    if (ordering.MutuallyExclusive(def, u)) continue;
    if (ordering.ExecutesBefore(def, u)) return true;
    // Unordered in one computation: the text order (the interpreter's, and the schedule a
    // module without one usually gets) decides. A write or read inside a callee happens when
    // its calling instruction in the other's computation runs, so the two are compared there
    // (a call that updates a donated parameter in place, read by the caller after the call).
    const Instruction* w = &def;
    const Instruction* r = &u;
    if (r->parent() != w->parent()) {
      if (ordering.IsNestedIn(*w, *r->parent())) {
        w = LiftTo(*w, *r->parent(), ordering);
      } else if (ordering.IsNestedIn(*r, *w->parent())) {
        r = LiftTo(*r, *w->parent(), ordering);
      }
    }
    if (w != nullptr && r != nullptr && w != r && r->parent() == w->parent() &&
        !ordering.ExecutesBefore(*r, *w) &&
        text_index_[r->unique_id()] > text_index_[w->unique_id()]) {
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

void ConflictFinder::NumberDefinitions() {
  const Module& module = flow_.module();
  const ExecutionOrdering& ordering = live_.ordering();
  definition_key_.assign(text_index_.size(), -1);
  int64_t next = 0;
  // An explicit stack: loops nest 100,000 deep in hostile inputs.
  struct Frame {
    std::vector<const Instruction*> order;
    size_t at = 0;
    bool expanded = false;
  };
  std::vector<Frame> stack;
  auto push = [&](const Computation& c) {
    Frame f;
    f.order.assign(c.instructions().begin(), c.instructions().end());
    std::sort(f.order.begin(), f.order.end(), [&](const Instruction* a, const Instruction* b) {
      return ordering.Position(*a) < ordering.Position(*b);
    });
    stack.push_back(std::move(f));
  };
  auto numbered = [&](const Computation& c) {
    return definition_key_[c.instructions().front()->unique_id()] >= 0;
  };
  auto walk = [&](const Computation& start) {
    push(start);
    while (!stack.empty()) {
      Frame& f = stack.back();
      if (f.at == f.order.size()) {
        stack.pop_back();
        continue;
      }
      const Instruction* i = f.order[f.at];
      if (!f.expanded) {
        f.expanded = true;  // `f` is not used after the pushes below
        absl::Span<Computation* const> callees = i->called_computations();
        for (auto it = callees.rbegin(); it != callees.rend(); ++it) {
          if (ordering.CallerOf(**it) == i && !(*it)->instructions().empty() && !numbered(**it)) {
            push(**it);
          }
        }
        continue;
      }
      definition_key_[i->unique_id()] = next++;
      ++f.at;
      f.expanded = false;
    }
  };
  if (module.entry() != nullptr) walk(*module.entry());
  for (const Computation* c : module.computations()) {
    if (!c->instructions().empty() && !numbered(*c)) walk(*c);  // shared or never called
  }
}

void ConflictFinder::SortByDefinition(std::vector<ValueId>& values) {
  if (definition_key_.empty()) NumberDefinitions();
  auto key = [&](ValueId v) { return definition_key_[flow_.value(v).instruction->unique_id()]; };
  std::sort(values.begin(), values.end(), [&](ValueId a, ValueId b) {
    const int64_t ka = key(a), kb = key(b);
    return ka != kb ? ka < kb : a < b;
  });
}

std::optional<BufferConflict> ConflictFinder::InBuffer(const HloBuffer& buffer) {
  if (buffer.values.size() < 2) return std::nullopt;
  const Shape& shape = *flow_.value(buffer.values.front()).shape;
  if (shape.IsToken() || shape.IsTuple()) return std::nullopt;
  // Read-only values keep their bytes (the header comment): they conflict with nothing; nor
  // do values inside a fusion or reducer (StorageComputations).
  std::vector<ValueId> values;
  for (ValueId v : buffer.values) {
    if (!ReadOnly(v) && !Embedded(v)) values.push_back(v);
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
