#include "analysis/value_liveness.h"

#include <algorithm>
#include <utility>

#include "analysis/async_chain_runs_at.h"
#include "hlo/async_chain.h"
#include "hlo/computation.h"

namespace hloscope {

namespace {

// The async-start an async-update or async-done reads through its chain of updates; nullptr
// when the chain does not reach one (a value carried through a loop).
const Instruction* AsyncChainStart(const Instruction& op) {
  const Instruction* at = &op;
  for (int steps = 0; at != nullptr && steps < 1 << 20; ++steps) {
    if (at->opcode() == Opcode::kAsyncStart) return at;
    if (at->opcode() != Opcode::kAsyncUpdate && at->opcode() != Opcode::kAsyncDone) return nullptr;
    if (at->operand_count() == 0) return nullptr;
    at = at->operand(0);
  }
  return nullptr;
}

}  // namespace

ValueLiveness::ValueLiveness(const DataflowAnalysis& flow, const ExecutionOrdering& ordering)
    : flow_(flow), ordering_(ordering), in_place_(flow.options()) {
  const size_t n = flow.values().size();
  uses_ = ComputeValueUses(flow, UseNotion::kValueRead);
  live_out_.assign(n, false);
  roots_of_.resize(n);
  naming_.assign(n, nullptr);
  for (const HloValue& v : flow.values()) {
    if (v.index.empty()) naming_[v.id] = v.instruction;
  }
  for (const Computation* c : flow.module().computations()) {
    const Instruction* root = c->root();
    if (root == nullptr) continue;
    const bool entry = c == flow.module().entry();
    for (int32_t p = 0; p < flow.PositionCount(*root); ++p) {
      for (ValueId v : flow.ValuesAtPosition(*root, p)) {
        if (entry) live_out_[v] = true;
        if (std::find(roots_of_[v].begin(), roots_of_[v].end(), c) == roots_of_[v].end()) {
          roots_of_[v].push_back(c);
        }
      }
    }
    for (const Instruction* instr : c->instructions()) {
      if (instr->opcode() != Opcode::kGetTupleElement || flow.PositionCount(*instr) == 0) continue;
      for (ValueId v : flow.ValuesAtPosition(*instr, 0)) {
        if (naming_[v] == nullptr) naming_[v] = instr;
      }
    }
  }
}

bool ValueLiveness::DefinedBefore(const HloValue& a, const HloValue& b) const {
  const Instruction& d = *b.instruction;
  if (b.is_phi && (d.opcode() == Opcode::kWhile || d.opcode() == Opcode::kConditional)) {
    for (const Computation* callee : d.called_computations()) {
      if (ordering_.IsNestedIn(*a.instruction, *callee)) return true;
    }
  }
  return ordering_.ExecutesBefore(*a.instruction, d);
}

bool ValueLiveness::UseBefore(const HloValue& a, const ValueUse& use, const HloValue& b,
                              LiveRangeOrder& out) const {
  const Instruction& u = *use.instruction;
  const Instruction& d = *b.instruction;
  if (&u == &d) {
    // A while or conditional reads its operand before its result (a phi) exists.
    if (b.is_phi) return true;
    const Instruction& operand = *u.operand(use.operand_number);
    if (CanShareOperandBufferWithUser(operand, use.operand_index, u, b.index, in_place_)) {
      return true;
    }
    // The root of an async chain's wrapped computation writes in place where the chain's
    // start aliases the result with the parameter it reads.
    if (const Instruction* caller = ordering_.CallerOf(*u.parent())) {
      const Instruction* start = AsyncChainStart(*caller);
      if (start != nullptr &&
          WrappedRootWritesInPlace(*start, u, use.operand_number, use.operand_index, b.index)) {
        return true;
      }
    }
    out = {LiveRangeRule::kNotInPlace, &use, nullptr, nullptr};
    return false;
  }
  // A phi at a while or conditional result is defined when the callee has finished.
  if (b.is_phi && (d.opcode() == Opcode::kWhile || d.opcode() == Opcode::kConditional)) {
    for (const Computation* callee : d.called_computations()) {
      if (ordering_.IsNestedIn(u, *callee)) return true;
    }
  }
  // An operand handed to a callee is read before the callee defines anything, unless the
  // loop passes it through unchanged and so reads it on every iteration. The async wrappers
  // count too, as XLA's ordering does for an async call: the wrapped computation runs between
  // start and done, on what the start passed.
  if (RunsCallees(u.opcode())) {
    for (const Computation* callee : u.called_computations()) {
      if (!ordering_.IsNestedIn(d, *callee)) continue;
      if (u.opcode() == Opcode::kWhile) {
        const Computation* cond = u.while_condition();
        if (callee == cond && &d != cond->parameter(0)) break;  // ordinary comparison below
        const Computation* body = u.while_body();
        if (body != nullptr && body->parameter_count() == 1) {
          absl::Span<const ValueId> in_body =
              flow_.ValuesAt(*body->parameter(0), use.operand_index);
          if (std::find(in_body.begin(), in_body.end(), a.id) != in_body.end()) {
            out = {LiveRangeRule::kEveryIteration, &use, nullptr, &u};
            return false;
          }
        }
      }
      return true;
    }
  }
  // XLA's ordering: a use at an async-update or async-done comes before every value the
  // chain's wrapped op defines (in the wrapped computation, or the result of the short
  // `<op>-start` form, which the start defines itself). Such a use only keeps the operands
  // alive while the op runs; an op that writes its result into one of them
  // (output_to_operand_aliasing) does so itself, as its start's in-place pair says. The same
  // holds for the context elements the start defines ({2}, ...): one aliased to an operand
  // (a barrier's context handed through) is that op's own write too.
  if (u.opcode() == Opcode::kAsyncUpdate || u.opcode() == Opcode::kAsyncDone) {
    const Computation* wrapped = AsyncChainComputation(u);
    if (wrapped != nullptr && ordering_.IsNestedIn(d, *wrapped)) return true;
    if (d.opcode() == Opcode::kAsyncStart && !b.index.empty() && b.index[0] >= 1 &&
        AsyncChainStart(u) == &d) {
      return true;
    }
  }
  // Read inside a loop that does not define `a`: on every iteration, so after anything the
  // loop defines. Only loops holding both the use and b's definition matter: from the
  // innermost instruction calling into both, outwards, until a while whose callee holding the
  // use does not hold `a` (the rule applies) or a callee that holds `a` (then every one
  // further out does too). Walking from the use to the entry instead cost the nesting depth
  // per use.
  auto [caller, c] = ordering_.InnermostCommonCaller(u, d);
  while (caller != nullptr && !ordering_.IsNestedIn(*a.instruction, *c)) {
    if (caller->opcode() == Opcode::kWhile) {
      out = {LiveRangeRule::kEveryIteration, &use, nullptr, caller};
      return false;
    }
    c = caller->parent();
    caller = ordering_.CallerOf(*c);
  }
  // XLA's kRunExclusiveAfter: a read in one branch of a conditional and a definition in
  // another never happen in the same run of it, and the walk above has already ruled out a
  // loop around the conditional that would carry one instance of `a` from one run to the
  // next (`a` is defined inside every loop that holds both). So the read comes first.
  if (ordering_.MutuallyExclusive(u, d)) return true;
  if (ordering_.ExecutesBefore(u, d)) return true;
  out = {LiveRangeRule::kReadAfter, &use, nullptr, nullptr};
  return false;
}

LiveRangeOrder ValueLiveness::StrictlyBefore(ValueId a_id, ValueId b_id) const {
  const HloValue& a = flow_.value(a_id);
  const HloValue& b = flow_.value(b_id);
  LiveRangeOrder out;
  if (a_id == b_id) {
    out.rule = LiveRangeRule::kDefinedAfter;
    return out;
  }
  if (live_out_[a_id]) {
    out.rule = LiveRangeRule::kLiveOut;
    return out;
  }
  for (const ValueUse& use : uses_[a_id]) {
    if (!UseBefore(a, use, b, out)) return out;
  }
  for (const Computation* c : roots_of_[a_id]) {
    if (ordering_.IsNestedIn(*b.instruction, *c)) {
      out.rule = LiveRangeRule::kComputationRoot;
      out.computation = c;
      return out;
    }
  }
  if (uses_[a_id].empty() && !DefinedBefore(a, b)) out.rule = LiveRangeRule::kDefinedAfter;
  return out;
}

void ValueLiveness::ForwardUses(ValueId from, ValueId into, const Instruction* dropped) {
  std::vector<ValueUse>& target = uses_[into];
  target.erase(std::remove_if(target.begin(), target.end(),
                              [&](const ValueUse& u) { return u.instruction == dropped; }),
               target.end());
  for (const ValueUse& u : uses_[from]) target.push_back(u);
  uses_[from].clear();
  if (live_out_[from]) live_out_[into] = true;
  for (const Computation* c : roots_of_[from]) {
    if (std::find(roots_of_[into].begin(), roots_of_[into].end(), c) == roots_of_[into].end()) {
      roots_of_[into].push_back(c);
    }
  }
}

void ValueLiveness::Restore(SavedValue saved) {
  uses_[saved.id] = std::move(saved.uses);
  live_out_[saved.id] = saved.live_out;
  roots_of_[saved.id] = std::move(saved.roots_of);
}

}  // namespace hloscope
