// Step 5 of the verifier: the module-wide async rules of XLA's verifier
// (xla/service/hlo_verifier.cc at ROCm/xla 183fa00cb5d82384463a1a7aed1ab06bc9026974):
//  - one computation per chain (HandleAsyncUpdate, HandleAsyncDone): an async-update or -done
//    that names its wrapped computation names one equal to its producer's (ignoring names);
//  - pairing (VerifyAsynchronousInstructionPairs): every async-done traces back, through
//    async-updates and the values that carry an async value (get-tuple-element, tuple,
//    opt-barrier, copy, a few metadata custom-calls, while loops), to one async-start; no start
//    has two dones, no update is in two chains; a start or update without a done must be
//    carried across a while loop (the done is in a later iteration);
//  - trivial wrapped computations (VerifyAsyncComputation): a computation an async op calls on
//    the main thread holds only parameters and its root, unless its start is marked as a
//    collectives group (frontend attribute _collectives_group) or it only unpacks tuples
//    (parameters, get-tuple-elements and the root: an async barrier), or it holds only
//    send, recv, bitcast, parameters and tuples. That last exception is XLA's until mid 2026
//    (openxla/xla 2c731115, HloComputation::OnlyContainsSendRecv), dropped by 183fa00cb5 in
//    favour of the mark; kept here so that dumps of the older XLA, which carry no mark, load.
// Only the generic async-start / -update / -done are paired, as in XLA (a collective's own
// -done is only checked against the shape of what it reads), and only the plain `async-start`
// form's computation is checked for triviality: the sugar forms (`custom-call-start`) wrap one
// op. The shape rules (step 3) ran first, so the first problem a module has keeps its message.
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "hlo/async_chain.h"
#include "hlo/attribute_values.h"
#include "hlo/verifier_internal.h"
#include "support/str_util.h"

namespace hloscope::verifier_internal {
namespace {

using CallerMap = absl::flat_hash_map<const Computation*, std::vector<const Instruction*>>;

CallerMap Callers(const Module& module) {
  CallerMap callers;
  for (const Computation* c : module.computations()) {
    for (const Instruction* i : c->instructions()) {
      for (const Computation* callee : i->called_computations()) callers[callee].push_back(i);
    }
  }
  return callers;
}

bool IsAsyncProducer(const Instruction& i) {
  switch (i.opcode()) {
    case Opcode::kAsyncStart:
    case Opcode::kAsyncUpdate:
    case Opcode::kAllGatherStart:
    case Opcode::kAllReduceStart:
    case Opcode::kCollectivePermuteStart:
      return true;
    default:
      return false;
  }
}

// Custom-calls that only annotate a value (sharding metadata): XLA traces an async value
// through them (HloInstruction::IsAllowedAsyncIntermediaryCustomCall).
bool IsMetadataCustomCall(const Instruction& i) {
  static constexpr std::string_view kTargets[] = {"Sharding",
                                                  "LocalToGlobalShape",
                                                  "GlobalToLocalShape",
                                                  "xla.sdy.LocalToGlobalShape",
                                                  "xla.sdy.GlobalToLocalShape",
                                                  "xla.sdy.FuncResultSharding"};
  for (std::string_view t : kTargets) {
    if (i.custom_call_target() == t) return true;
  }
  return false;
}

// The async producer (start or update) whose value `at` carries, following tuple indices
// back through the carriers; nullptr when none. XLA's TraceAsyncDataflow.
class ProducerTracer {
 public:
  explicit ProducerTracer(const CallerMap& callers) : callers_(callers) {}

  const Instruction* Find(const Instruction* at) {
    visited_.clear();
    return Trace(at, {});
  }

 private:
  const Instruction* Trace(const Instruction* at, std::vector<int64_t> index) {
    if (at == nullptr || !visited_.insert(at).second) return nullptr;
    if (IsAsyncProducer(*at)) return at;
    const Instruction* found = TraceCarrier(*at, std::move(index));
    if (found == nullptr) visited_.erase(at);
    return found;
  }

  const Instruction* TraceCarrier(const Instruction& at, std::vector<int64_t> index) {
    switch (at.opcode()) {
      case Opcode::kGetTupleElement:
        index.push_back(at.tuple_index());
        return Trace(at.operand(0), std::move(index));
      case Opcode::kOptBarrier:
        if (at.operand_count() == 1) return Trace(at.operand(0), std::move(index));
        [[fallthrough]];
      case Opcode::kTuple: {
        if (index.empty()) {
          for (const Instruction* op : at.operands()) {
            if (const Instruction* found = Trace(op, index)) return found;
          }
          return nullptr;
        }
        const int64_t k = index.back();
        index.pop_back();
        if (k < 0 || k >= at.operand_count()) return nullptr;
        return Trace(at.operand(k), std::move(index));
      }
      case Opcode::kCustomCall:
        if (!IsMetadataCustomCall(at)) return nullptr;
        [[fallthrough]];
      case Opcode::kCopy:
        return at.operand_count() > 0 ? Trace(at.operand(0), std::move(index)) : nullptr;
      case Opcode::kParameter:
        return TraceLoopParameter(at, std::move(index));
      case Opcode::kWhile: {
        if (const Computation* body = at.while_body(); body != nullptr && body->root()) {
          if (const Instruction* found = Trace(body->root(), index)) return found;
        }
        return at.operand_count() > 0 ? Trace(at.operand(0), std::move(index)) : nullptr;
      }
      default:
        return nullptr;
    }
  }

  // A while body's parameter carries the loop's operand on the first iteration and the body's
  // root on the next ones.
  const Instruction* TraceLoopParameter(const Instruction& param, std::vector<int64_t> index) {
    const Computation* body = param.parent();
    auto it = callers_.find(body);
    if (it == callers_.end()) return nullptr;
    std::vector<const Instruction*> loops;
    for (const Instruction* caller : it->second) {
      if (caller->opcode() == Opcode::kWhile) loops.push_back(caller);
    }
    if (loops.size() != 1 || loops[0]->while_body() != body) return nullptr;
    if (loops[0]->operand_count() > 0) {
      if (const Instruction* found = Trace(loops[0]->operand(0), index)) return found;
    }
    return body->root() != nullptr ? Trace(body->root(), std::move(index)) : nullptr;
  }

  const CallerMap& callers_;
  absl::flat_hash_set<const Instruction*> visited_;
};

// Whether an async value without a done in its own iteration reaches a while loop (as its
// operand, or as the root of a loop body), where a later iteration or the loop's user finishes
// it. XLA's IsCarriedAcrossWhileLoop.
bool IsCarriedAcrossWhileLoop(const Instruction& op, const CallerMap& callers) {
  absl::flat_hash_set<const Instruction*> visited;
  std::vector<const Instruction*> work = {&op};
  while (!work.empty()) {
    const Instruction* at = work.back();
    work.pop_back();
    if (!visited.insert(at).second) continue;
    const Computation* comp = at->parent();
    if (comp != nullptr && comp->root() == at) {
      auto it = callers.find(comp);
      for (const Instruction* caller :
           it == callers.end() ? std::vector<const Instruction*>{} : it->second) {
        if (caller->opcode() == Opcode::kWhile && caller->while_body() == comp) return true;
        if (caller->opcode() == Opcode::kCall || caller->opcode() == Opcode::kConditional) {
          work.push_back(caller);
        }
      }
    }
    for (const Instruction* user : at->users()) {
      switch (user->opcode()) {
        case Opcode::kWhile:
          return true;
        case Opcode::kAsyncUpdate:
        case Opcode::kTuple:
        case Opcode::kGetTupleElement:
        case Opcode::kOptBarrier:
        case Opcode::kDomain:
        case Opcode::kCall:
        case Opcode::kConditional:
          work.push_back(user);
          break;
        default:
          break;
      }
    }
  }
  return false;
}

// Whether two wrapped computations compute the same thing: XLA compares an async op's wrapped
// computation with its producer's by HloComputation::operator==, which walks both from the
// root and ignores names. Layouts are ignored, as everywhere in this verifier.
bool SameInstruction(const Instruction& a, const Instruction& b,
                     absl::flat_hash_map<const Instruction*, const Instruction*>& matched) {
  auto [it, inserted] = matched.emplace(&a, &b);
  if (!inserted) return it->second == &b;
  if (a.opcode() != b.opcode() || a.async_wrapped_opcode() != b.async_wrapped_opcode() ||
      !a.shape().Compatible(b.shape()) || a.operand_count() != b.operand_count() ||
      a.called_computations() != b.called_computations() ||
      a.attributes().size() != b.attributes().size() || a.literal() != b.literal()) {
    return false;
  }
  if (a.opcode() == Opcode::kParameter && a.parameter_number() != b.parameter_number()) {
    return false;
  }
  if (a.opcode() == Opcode::kGetTupleElement && a.tuple_index() != b.tuple_index()) return false;
  const Module* am = a.module();
  const Module* bm = b.module();
  for (size_t k = 0; k < a.attributes().size(); ++k) {
    const Attribute& x = a.attributes()[k];
    const Attribute& y = b.attributes()[k];
    if (x.key == kAttrMetadata) continue;  // op_name and source lines name nothing computed
    if (am == nullptr || bm == nullptr || am->AttrKeyName(x.key) != bm->AttrKeyName(y.key) ||
        x.value != y.value) {
      return false;
    }
  }
  for (int64_t i = 0; i < a.operand_count(); ++i) {
    if (!SameInstruction(*a.operand(i), *b.operand(i), matched)) return false;
  }
  return true;
}

bool SameComputation(const Computation& a, const Computation& b) {
  if (&a == &b) return true;
  if (a.instruction_count() != b.instruction_count() ||
      a.parameter_count() != b.parameter_count() || a.root() == nullptr || b.root() == nullptr) {
    return false;
  }
  absl::flat_hash_map<const Instruction*, const Instruction*> matched;
  return SameInstruction(*a.root(), *b.root(), matched);
}

// The computation an async-start or -update names with calls=, or the one its chain started
// with; nullptr for sugar forms.
const Computation* WrappedBy(const Instruction& op) {
  if (const Computation* c = op.fused_computation(); c != nullptr) return c;
  return AsyncChainComputation(op);
}

// An async-update or -done that names its wrapped computation (calls=) names the one its
// producer runs (XLA's HandleAsyncUpdate / HandleAsyncDone).
absl::Status CheckSameWrapped(const Instruction& op, const Instruction& producer) {
  const Computation* own = op.fused_computation();
  const Computation* theirs = WrappedBy(producer);
  if (own == nullptr || theirs == nullptr || SameComputation(*own, *theirs)) {
    return absl::OkStatus();
  }
  return InstrError(op, StrCat(op.PrintedOpcode(), " wraps computation '", own->name(),
                               "', but its async value comes from ", producer.PrintedOpcode(), " '",
                               producer.name(), "', which wraps '", theirs->name(),
                               "', a different computation"));
}

absl::Status CheckPairing(const Module& module, const CallerMap& callers) {
  std::vector<const Instruction*> starts, updates, dones;
  for (const Computation* c : module.computations()) {
    for (const Instruction* i : c->instructions()) {
      if (i->opcode() == Opcode::kAsyncStart) starts.push_back(i);
      if (i->opcode() == Opcode::kAsyncUpdate) updates.push_back(i);
      if (i->opcode() == Opcode::kAsyncDone) dones.push_back(i);
    }
  }
  ProducerTracer tracer(callers);
  absl::flat_hash_map<const Instruction*, const Instruction*> done_of_start;
  absl::flat_hash_set<const Instruction*> chained_updates;
  for (const Instruction* done : dones) {
    const std::string kind(done->PrintedOpcode());
    const Instruction* producer = tracer.Find(done->operand(0));
    if (producer != nullptr) {
      if (absl::Status s = CheckSameWrapped(*done, *producer); !s.ok()) return s;
    }
    while (producer != nullptr && producer->opcode() == Opcode::kAsyncUpdate) {
      if (!chained_updates.insert(producer).second) {
        return InstrError(*producer, StrCat(producer->PrintedOpcode(),
                                            " is part of two async chains or of a cycle (", kind,
                                            " '", done->name(), "' reaches it again)"));
      }
      const Instruction* update = producer;
      producer = tracer.Find(update->operand(0));
      if (producer != nullptr) {
        if (absl::Status s = CheckSameWrapped(*update, *producer); !s.ok()) return s;
      }
    }
    if (producer == nullptr) {
      return InstrError(*done, StrCat(kind, " does not trace back to an async-start"));
    }
    if (producer->opcode() != Opcode::kAsyncStart) {
      return InstrError(*done, StrCat(kind, " traces back to ", producer->PrintedOpcode(), " '",
                                      producer->name(), "', not an async-start"));
    }
    auto [it, inserted] = done_of_start.emplace(producer, done);
    if (!inserted) {
      return InstrError(*producer,
                        StrCat(producer->PrintedOpcode(), " is matched by two async dones: '",
                               it->second->name(), "' and '", done->name(), "'"));
    }
  }
  for (const Instruction* start : starts) {
    if (done_of_start.contains(start) || IsCarriedAcrossWhileLoop(*start, callers)) continue;
    return InstrError(*start, StrCat(start->PrintedOpcode(),
                                     " has no matching async done (and is not carried across "
                                     "a while loop)"));
  }
  for (const Instruction* update : updates) {
    if (chained_updates.contains(update) || IsCarriedAcrossWhileLoop(*update, callers)) continue;
    return InstrError(*update, StrCat(update->PrintedOpcode(),
                                      " is in no chain from an async-start to an async done "
                                      "(and is not carried across a while loop)"));
  }
  return absl::OkStatus();
}

std::string_view AsyncExecutionThread(const Instruction& start) {
  std::string_view v = RawAttribute(start, "async_execution_thread").value_or("");
  if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
  return v;
}

bool OnMainThread(const Computation& wrapped, const Instruction& start) {
  std::string_view thread = wrapped.execution_thread();
  if (thread.empty()) thread = AsyncExecutionThread(start);
  return thread.empty() || thread == "main";
}

absl::Status CheckTrivialWrapped(const Module& module) {
  absl::flat_hash_set<const Computation*> checked;
  for (const Computation* c : module.computations()) {
    for (const Instruction* start : c->instructions()) {
      // The plain form only: `<op>-start` sugar wraps one op in a computation XLA builds.
      if (start->opcode() != Opcode::kAsyncStart ||
          start->async_wrapped_opcode() != Opcode::kOpcodeCount) {
        continue;
      }
      const Computation* wrapped = start->fused_computation();
      if (wrapped == nullptr || !checked.insert(wrapped).second) continue;
      if (!OnMainThread(*wrapped, *start) || start->FrontendAttribute("_collectives_group")) {
        continue;
      }
      bool only_unpacks = true, only_send_recv = true;
      const Instruction* extra = nullptr;
      for (const Instruction* i : wrapped->instructions()) {
        const Opcode op = i->opcode();
        if (op != Opcode::kSend && op != Opcode::kRecv && op != Opcode::kBitcast &&
            op != Opcode::kParameter && op != Opcode::kTuple) {
          only_send_recv = false;
        }
        if (i == wrapped->root() || op == Opcode::kParameter) continue;
        if (extra == nullptr) extra = i;
        if (op != Opcode::kGetTupleElement) only_unpacks = false;
      }
      if (extra == nullptr || only_unpacks || only_send_recv) continue;
      return InstrError(
          *extra, StrCat("computation '", wrapped->name(), "', wrapped by ", start->PrintedOpcode(),
                         " '", start->name(),
                         "' on the main thread, may hold only parameters and its root (it is not "
                         "marked _collectives_group)"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckAsyncPairRules(const Module& module) {
  // Most modules have no generic async op: skip the caller map (the verifier runs after every
  // parse).
  bool any_async = false;
  for (const Computation* c : module.computations()) {
    for (const Instruction* i : c->instructions()) {
      const Opcode op = i->opcode();
      any_async |=
          op == Opcode::kAsyncStart || op == Opcode::kAsyncUpdate || op == Opcode::kAsyncDone;
    }
  }
  if (!any_async) return absl::OkStatus();
  const CallerMap callers = Callers(module);
  if (absl::Status s = CheckPairing(module, callers); !s.ok()) return s;
  return CheckTrivialWrapped(module);
}

}  // namespace hloscope::verifier_internal
