#include "analysis/live_range.h"

#include <algorithm>
#include <utility>

#include "hlo/computation.h"

namespace hloscope {

namespace {

// Whether `user` only passes on what it reads as operand `k` at `index` (the value then sits
// at one of the user's own positions, whose readers are its uses), rather than reading it.
// Users that forward every position they read, whatever the index (see OnlyForwards).
bool AlwaysForwards(Opcode op) {
  return op == Opcode::kTuple || op == Opcode::kGetTupleElement || op == Opcode::kDomain ||
         op == Opcode::kOptBarrier;
}

bool OnlyForwards(const Instruction& user, int64_t k, const ShapeIndex& index,
                  bool bitcast_defines_value) {
  if (AlwaysForwards(user.opcode())) return true;  // get-tuple-element: other elements unread
  switch (user.opcode()) {
    case Opcode::kBitcast:
      return !bitcast_defines_value && index.empty();
    case Opcode::kCopy:
      return !index.empty();  // a copy defines only its top-level buffer
    case Opcode::kAddDependency:
      return k == 0;
    default:
      return false;
  }
}

// Instructions that hand their operands to a computation they run: a value they read is read
// before that computation defines anything (the async ops too, as XLA's ordering does for an
// async call: the wrapped computation runs between start and done, on what the start passed).
bool IsCallingOp(Opcode op) {
  return op == Opcode::kWhile || op == Opcode::kConditional || op == Opcode::kCall ||
         op == Opcode::kAsyncStart || op == Opcode::kAsyncUpdate || op == Opcode::kAsyncDone;
}

}  // namespace

ValueLiveness::ValueLiveness(const DataflowAnalysis& flow, const ExecutionOrdering& ordering)
    : flow_(flow), ordering_(ordering), in_place_(flow.options()) {
  const size_t n = flow.values().size();
  uses_.resize(n);
  live_out_.assign(n, false);
  roots_of_.resize(n);
  naming_.assign(n, nullptr);
  for (const HloValue& v : flow.values()) {
    if (v.index.empty()) naming_[v.id] = v.instruction;
  }
  const bool bitcast_defines = flow.options().bitcast_defines_value;
  std::vector<std::pair<const Instruction*, int64_t>> reads;
  for (const Computation* c : flow.module().computations()) {
    const bool entry = c == flow.module().entry();
    for (const Instruction* instr : c->instructions()) {
      const bool root = c->root() == instr;
      // The (user, operand) pairs that may read a position of `instr`. Users that forward
      // whatever they read (tuple, get-tuple-element, ...) never do; leaving them out here
      // keeps a wide loop state linear: its while has one position and one get-tuple-element
      // user per element.
      reads.clear();
      for (const Instruction* user : instr->users()) {
        if (AlwaysForwards(user->opcode())) continue;
        for (int64_t k = 0; k < user->operand_count(); ++k) {
          if (user->operand(k) == instr) reads.push_back({user, k});
        }
      }
      const int32_t positions = flow.PositionCount(*instr);
      for (int32_t p = 0; p < positions; ++p) {
        absl::Span<const ValueId> values = flow.ValuesAtPosition(*instr, p);
        if (values.empty()) continue;
        ShapeIndex index;
        if (p != 0) index = flow.IndexAt(*instr, p);
        for (ValueId v : values) {
          if (root) {
            if (entry) live_out_[v] = true;
            if (std::find(roots_of_[v].begin(), roots_of_[v].end(), c) == roots_of_[v].end()) {
              roots_of_[v].push_back(c);
            }
          }
          if (p == 0 && naming_[v] == nullptr && instr->opcode() == Opcode::kGetTupleElement) {
            naming_[v] = instr;
          }
          for (const auto& [user, k] : reads) {
            if (!OnlyForwards(*user, k, index, bitcast_defines)) {
              uses_[v].push_back({user, k, index});
            }
          }
        }
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
  // loop passes it through unchanged and so reads it on every iteration.
  if (IsCallingOp(u.opcode())) {
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
