#include "hlo/verifier.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/cord.h"
#include "absl/strings/numbers.h"
#include "hlo/string_hash.h"
#include "hlo/text_cursor.h"
#include "hlo/verifier_internal.h"
#include "support/str_util.h"

namespace hloscope {
namespace verifier_internal {

std::string ShapeText(const Shape& s) { return s.ToString(/*print_layout=*/false); }

std::string Count(int64_t n, std::string_view singular, std::string_view plural) {
  return StrCat(n, " ", n == 1 ? singular : plural);
}

absl::Status ModuleError(const Module& m, std::string_view what) {
  return absl::InvalidArgumentError(StrCat("module '", m.name(), "': ", what));
}

absl::Status ComputationError(const Computation& c, std::string_view what) {
  return absl::InvalidArgumentError(StrCat("computation '", c.name(), "': ", what));
}

absl::Status InstrError(const Computation& c, const Instruction& instr, std::string_view what) {
  absl::Status s = absl::InvalidArgumentError(
      StrCat("computation '", c.name(), "': instruction '", instr.name(), "': ", what));
  // Which instruction failed, so that VerifyModule can point into the source text.
  s.SetPayload(kInstructionPayload, absl::Cord(StrCat(instr.unique_id())));
  return s;
}

absl::Status InstrError(const Instruction& instr, std::string_view what) {
  return InstrError(*instr.parent(), instr, what);
}

std::string OperandRef(const Instruction& instr, int64_t i) {
  return StrCat("operand ", i, " '", instr.operand(i)->name(), "'");
}

bool IsIntegerScalar(const Shape& s) {
  if (!s.IsArray() || s.rank() != 0) return false;
  const PrimitiveTypeInfo& info = GetPrimitiveTypeInfo(s.element_type);
  return info.is_signed_int || info.is_unsigned_int;
}

bool IsScalarOf(const Shape& s, PrimitiveType t) { return s.element_type == t && s.rank() == 0; }

}  // namespace verifier_internal

namespace {

using namespace verifier_internal;  // NOLINT(build/namespaces): the verifier's own helpers

template <typename T>
bool Contains(absl::Span<T* const> list, const T* x) {
  return std::find(list.begin(), list.end(), x) != list.end();
}

// Hash of one directed edge. Sums of these over both sides of a mirrored relation (operands vs
// users, predecessors vs successors) are equal exactly when the two sides list the same edges,
// up to a negligible collision chance; the exact and slower search runs only on a mismatch.
uint64_t EdgeHash(const void* from, const void* to) {
  uint64_t x = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(from)) * 0x9E3779B97F4A7C15ull;
  x ^= static_cast<uint64_t>(reinterpret_cast<uintptr_t>(to)) + 0x632BE59BD9B4E019ull;
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 31;
  return x;
}

// Fewest operands a variadic opcode needs before its shape rule can look at them.
int MinOperandCount(Opcode op) {
  switch (op) {
    case Opcode::kConditional:
    case Opcode::kDynamicSlice:
    case Opcode::kSort:
    case Opcode::kDynamicReshape:
    case Opcode::kAsyncUpdate:
      return 1;
    case Opcode::kDynamicUpdateSlice:
      return 2;
    default:
      return 0;
  }
}

// ---------------------------------------------------------------------------------------------
// Step 1 and 2: graph structure and the call graph.

class StructureChecker {
 public:
  StructureChecker(const Module& module, const VerifierOptions& options)
      : module_(module), options_(options) {}

  // Step 3, after Run succeeded: the first shape-rule failure in module order, or OK. Rules
  // that read only an instruction and its operands already ran during Run (see
  // RunOrDeferShapeRule); the deferred ones run now, as far as the first failure found then.
  absl::Status CheckShapes() const {
    for (const DeferredRule& d : deferred_rules_) {
      if (d.seq > first_shape_error_seq_) break;
      if (absl::Status s = ShapeRuleFor(d.instr->opcode())(*d.instr, options_); !s.ok()) return s;
    }
    return first_shape_error_;
  }

  absl::Status Run() {
    if (absl::Status s = CheckModule(); !s.ok()) return s;
    PrepareIndex();
    auto comps = module_.computations();
    for (size_t ci = 0; ci < comps.size(); ++ci) {
      if (absl::Status s = CheckComputation(static_cast<int32_t>(ci)); !s.ok()) return s;
    }
    if (operand_edges_ != user_edges_ || pred_edges_ != succ_edges_) return FindEdgeMismatch();
    call_begin_.push_back(call_edges_.size());
    return CheckCallGraph();
  }

 private:
  bool Indexed(const Instruction* i) const {
    return i->unique_id() < slots_.size() && slots_[i->unique_id()].instr == i;
  }
  bool InComputation(const Instruction* i, int32_t ci) const {
    return Indexed(i) && slots_[i->unique_id()].comp == ci;
  }
  // Why `other` is not usable from computation `ci`, for messages.
  std::string WhereIs(const Instruction* other) const {
    if (Indexed(other)) {
      return StrCat("it belongs to computation '",
                    module_.computations()[slots_[other->unique_id()].comp]->name(), "'");
    }
    // Computations after the current one are not indexed yet: look for it (error path only).
    for (const Computation* c : module_.computations()) {
      auto instrs = c->instructions();
      if (std::find(instrs.begin(), instrs.end(), other) != instrs.end()) {
        return StrCat("it belongs to computation '", c->name(), "'");
      }
    }
    return "it is not listed in any computation";
  }

  absl::Status CheckModule() {
    auto comps = module_.computations();
    comp_index_.reserve(comps.size());
    call_begin_.reserve(comps.size() + 1);
    StringViewMap<const Computation*> by_name;
    by_name.reserve(comps.size());
    for (size_t ci = 0; ci < comps.size(); ++ci) {
      const Computation* c = comps[ci];
      if (c == nullptr) return ModuleError(module_, StrCat("computation ", ci, " is null"));
      if (!comp_index_.emplace(c, static_cast<int32_t>(ci)).second) {
        return ComputationError(*c, "is listed more than once");
      }
      if (!by_name.emplace(c->name(), c).second) {
        return ComputationError(*c, "name is used by another computation");
      }
    }
    if (module_.entry() == nullptr) return ModuleError(module_, "has no entry computation");
    if (!comp_index_.contains(module_.entry())) {
      return ModuleError(module_, StrCat("entry computation '", module_.entry()->name(),
                                         "' is not in the module"));
    }
    return absl::OkStatus();
  }

  // Every listed instruction gets a slot by unique id, so the checks use arrays instead of hash
  // maps (the verifier runs after every parse and must stay cheap). Slots are filled as each
  // computation is checked, instruction by instruction, so the module is walked once; an
  // operand or control predecessor not indexed yet makes the rest of its computation indexed
  // first (IndexRest), which is all a forward reference needs.
  void PrepareIndex() {
    size_t total = 0;
    for (const Computation* c : module_.computations()) total += c->instructions().size();
    // Ids are dense (Module numbers instructions as it creates them), so `total` slots
    // usually suffice; removed instructions leave gaps, handled by growing.
    slots_.assign(total, Slot{});
    if (options_.check_module_unique_names) module_names_.reserve(total);
  }

  absl::Status IndexOne(const Computation& c, int32_t ci, size_t p) {
    const Instruction* instr = c.instructions()[p];
    if (instr == nullptr) {
      return ComputationError(c, StrCat("instruction list entry ", p, " is null"));
    }
    const uint32_t id = instr->unique_id();
    if (id >= slots_.size()) slots_.resize(std::max<size_t>(id + 1, slots_.size() * 2));
    Slot& slot = slots_[id];
    if (slot.instr == instr) {
      return InstrError(c, *instr,
                        StrCat("is listed twice (also in computation '",
                               module_.computations()[slot.comp]->name(), "')"));
    }
    if (slot.instr != nullptr) {
      return InstrError(
          c, *instr,
          StrCat("unique id ", id, " is also used by instruction '", slot.instr->name(), "'"));
    }
    slot.instr = instr;
    slot.comp = ci;
    slot.pos = static_cast<int32_t>(p);
    return absl::OkStatus();
  }

  // Indexes the rest of the computation being checked (no-op when it already is).
  absl::Status IndexRest(const Computation& c, int32_t ci) {
    for (; indexed_ < c.instructions().size(); ++indexed_) {
      if (absl::Status s = IndexOne(c, ci, indexed_); !s.ok()) return s;
    }
    return absl::OkStatus();
  }

  absl::Status CheckComputation(int32_t ci) {
    const Computation& c = *module_.computations()[ci];
    const Instruction* root = c.root();
    if (root == nullptr) return ComputationError(c, "has no root instruction");
    bool in_order = true;  // every operand and predecessor comes earlier in the list
    params_.clear();
    call_begin_.push_back(call_edges_.size());  // computations are checked in order
    auto instrs = c.instructions();
    indexed_ = 0;
    for (size_t p = 0; p < instrs.size(); ++p) {
      if (p == indexed_) {
        if (absl::Status s = IndexOne(c, ci, p); !s.ok()) return s;
        ++indexed_;
      }
      const Instruction& instr = *instrs[p];
      if (absl::Status s = CheckInstruction(c, ci, instr, static_cast<int32_t>(p), in_order);
          !s.ok()) {
        return s;
      }
      if (instr.opcode() == Opcode::kParameter) params_.push_back(&instr);
      if (options_.check_shapes) RunOrDeferShapeRule(instr);
    }
    if (!InComputation(root, ci)) {
      return ComputationError(c, StrCat("root instruction '", root->name(),
                                        "' is not in this computation (", WhereIs(root), ")"));
    }
    if (absl::Status s = CheckParameters(c, params_); !s.ok()) return s;
    if (!in_order) {
      if (absl::Status s = CheckScheduleOrder(c); !s.ok()) return s;
      return CheckAcyclic(c);
    }
    return absl::OkStatus();
  }

  // A scheduled module's text order is its schedule (XLA's parser builds the HloSchedule from
  // it), and analyses take it as the execution order: an instruction listed before one of its
  // operands or control predecessors is a schedule that cannot run, which XLA's schedule check
  // rejects. Fusion computations are not part of XLA's schedule and keep the plain rule (any
  // acyclic order). Called only when some edge of `c` points forward.
  absl::Status CheckScheduleOrder(const Computation& c) {
    if (!module_.is_scheduled() || IsFusionCallee(c)) return absl::OkStatus();
    auto instrs = c.instructions();
    for (size_t p = 0; p < instrs.size(); ++p) {
      const Instruction& instr = *instrs[p];
      for (int64_t i = 0; i < instr.operand_count(); ++i) {
        if (slots_[instr.operand(i)->unique_id()].pos >= static_cast<int32_t>(p)) {
          return InstrError(
              c, instr,
              StrCat("the module is scheduled (is_scheduled=true) but ", OperandRef(instr, i),
                     " comes later in the schedule (the computation's order)"));
        }
      }
      for (const Instruction* pred : instr.control_predecessors()) {
        if (slots_[pred->unique_id()].pos >= static_cast<int32_t>(p)) {
          return InstrError(
              c, instr,
              StrCat("the module is scheduled (is_scheduled=true) but control "
                     "predecessor '",
                     pred->name(), "' comes later in the schedule (the computation's order)"));
        }
      }
    }
    return absl::OkStatus();
  }

  bool IsFusionCallee(const Computation& c) const {
    for (const Computation* caller : module_.computations()) {
      for (const Instruction* i : caller->instructions()) {
        if (i->opcode() == Opcode::kFusion && i->fused_computation() == &c) return true;
      }
    }
    return false;
  }

  // Step 3's rule for `instr`, run now when it reads only the instruction and its operands
  // (checked by step 1 already, and in cache now: on large modules a second walk cost as much
  // as the rules). Its failure is kept, not returned: steps 1 and 2 report first, and a
  // deferred rule of an earlier instruction wins. Rules that read called computations wait
  // for the whole module, as does an instruction with an operand step 1 has not reached.
  void RunOrDeferShapeRule(const Instruction& instr) {
    const Opcode op = instr.opcode();
    ShapeRule rule = ShapeRuleFor(op);
    if (rule == nullptr) return;
    const uint64_t seq = shape_seq_++;
    if (seq > first_shape_error_seq_) return;  // only the first failure is reported
    bool local = !ShapeRuleReadsCallees(op);
    for (const Instruction* operand : instr.operands()) {
      local = local && operand->shape_ptr() != nullptr;
    }
    if (!local) {
      deferred_rules_.push_back({&instr, seq});
      return;
    }
    if (absl::Status s = rule(instr, options_); !s.ok()) {
      first_shape_error_ = std::move(s);
      first_shape_error_seq_ = seq;
    }
  }

  absl::Status CheckInstruction(const Computation& c, int32_t ci, const Instruction& instr,
                                int32_t p, bool& in_order) {
    if (instr.shape_ptr() == nullptr) return InstrError(c, instr, "has no shape");
    if (instr.parent() != &c) {
      return InstrError(c, instr,
                        instr.parent() == nullptr
                            ? std::string("has no parent computation (it was removed)")
                            : StrCat("parent is computation '", instr.parent()->name(), "'"));
    }
    if (options_.check_module_unique_names) {
      auto [it, inserted] = module_names_.emplace(instr.name(), &c);
      if (!inserted) {
        return InstrError(c, instr,
                          StrCat("name is already used in computation '", it->second->name(), "'"));
      }
    } else if (options_.check_unique_names && !module_.instruction_names_known_unique() &&
               !IsNewNameInComputation(c, instr, p)) {
      return InstrError(c, instr, StrCat("name is already used in computation '", c.name(), "'"));
    }
    const int arity = GetOpcodeInfo(instr.opcode()).arity;
    if (arity != kVariadic && instr.operand_count() != arity) {
      return InstrError(
          c, instr,
          StrCat(instr.PrintedOpcode(), " expects ", Count(arity, "operand", "operands"), ", has ",
                 instr.operand_count()));
    }
    if (int min = MinOperandCount(instr.opcode()); instr.operand_count() < min) {
      return InstrError(c, instr,
                        StrCat(instr.PrintedOpcode(), " expects at least ",
                               Count(min, "operand", "operands"), ", has ", instr.operand_count()));
    }
    // Operands: same computation, earlier in the list (else a cycle is possible), and each
    // distinct operand contributes one edge to the operand/user fingerprint.
    ++stamp_;
    for (int64_t i = 0; i < instr.operand_count(); ++i) {
      const Instruction* op = instr.operand(i);
      if (op == nullptr) return InstrError(c, instr, StrCat("operand ", i, " is null"));
      if (!InComputation(op, ci)) {
        // Not indexed yet: a forward reference within this computation, or an error.
        if (absl::Status s = IndexRest(c, ci); !s.ok()) return s;
      }
      if (!InComputation(op, ci)) {
        return InstrError(
            c, instr,
            StrCat(OperandRef(instr, i), " is not in this computation (", WhereIs(op), ")"));
      }
      Slot& slot = slots_[op->unique_id()];
      if (slot.pos >= p) in_order = false;
      if (slot.last_seen != stamp_) {
        slot.last_seen = stamp_;
        operand_edges_ += EdgeHash(op, &instr);
      }
    }
    for (const Instruction* user : instr.users()) {
      if (user == nullptr) return InstrError(c, instr, "user list has a null entry");
      user_edges_ += EdgeHash(&instr, user);
    }
    for (const Instruction* pred : instr.control_predecessors()) {
      if (pred == nullptr) return InstrError(c, instr, "control predecessor list has a null entry");
      if (!InComputation(pred, ci)) {
        if (absl::Status s = IndexRest(c, ci); !s.ok()) return s;
      }
      if (!InComputation(pred, ci)) {
        return InstrError(c, instr,
                          StrCat("control predecessor '", pred->name(),
                                 "' is not in this computation (", WhereIs(pred), ")"));
      }
      if (slots_[pred->unique_id()].pos >= p) in_order = false;
      pred_edges_ += EdgeHash(pred, &instr);
    }
    for (const Instruction* succ : instr.control_successors()) {
      if (succ == nullptr) return InstrError(c, instr, "control successor list has a null entry");
      succ_edges_ += EdgeHash(&instr, succ);
    }
    auto called = instr.called_computations();
    // Only opcodes that may call computations carry computation-valued attributes.
    if (called.empty() && !HasFlag(instr.opcode(), kOpCallsComputations)) {
      return absl::OkStatus();
    }
    for (size_t k = 0; k < called.size(); ++k) {
      if (called[k] == nullptr) {
        return InstrError(c, instr, StrCat("called computation ", k, " is null"));
      }
      auto callee = comp_index_.find(called[k]);
      if (callee == comp_index_.end()) {
        return InstrError(
            c, instr,
            StrCat("calls computation '", called[k]->name(), "', which is not in the module"));
      }
      call_edges_.push_back({callee->second, &instr});
    }
    for (const Attribute& a : instr.attributes()) {
      // The role accessors (while_body(), ...) index called_computations() with these.
      if (a.is_computation_ref && static_cast<size_t>(a.first) + a.count > called.size()) {
        return InstrError(
            c, instr,
            StrCat("attribute '", module_.AttrKeyName(a.key), "' refers to called computations ",
                   a.first, " to ", a.first + a.count - 1, " but the instruction calls ",
                   Count(static_cast<int64_t>(called.size()), "computation", "computations")));
      }
    }
    return absl::OkStatus();
  }

  // Whether no instruction before position p of `c` has instr's name. Most computations are a
  // handful of instructions (reducers), where comparing with the earlier ones beats hashing;
  // larger ones use a set of their own, which stays smaller than a module-wide one.
  bool IsNewNameInComputation(const Computation& c, const Instruction& instr, int32_t p) {
    auto instrs = c.instructions();
    if (instrs.size() <= kSmallComputation) {
      for (int32_t i = 0; i < p; ++i) {
        if (StringViewEq{}(instrs[i]->name(), instr.name())) return false;
      }
      return true;
    }
    if (p == 0) {
      local_names_.clear();
      local_names_.reserve(instrs.size());
    }
    return local_names_.insert(instr.name()).second;
  }
  static constexpr size_t kSmallComputation = 8;

  absl::Status CheckParameters(const Computation& c,
                               const std::vector<const Instruction*>& params) {
    const int64_t n = static_cast<int64_t>(params.size());
    std::vector<const Instruction*>& by_number = by_number_;
    by_number.assign(params.size(), nullptr);
    for (const Instruction* param : params) {
      int64_t k = param->parameter_number();
      if (k < 0 || k >= n) {
        return InstrError(c, *param,
                          StrCat("parameter number ", k, " is out of range: the computation has ",
                                 Count(n, "parameter", "parameters")));
      }
      if (by_number[k] != nullptr) {
        return InstrError(
            c, *param,
            StrCat("parameter number ", k, " is already used by '", by_number[k]->name(), "'"));
      }
      by_number[k] = param;
    }
    // The computation's parameter table (what parameter(i) returns) must agree.
    if (c.parameter_count() != n) {
      return ComputationError(
          c, StrCat("parameter table has ", c.parameter_count(),
                    " entries but the computation has ", Count(n, "parameter", "parameters")));
    }
    for (int64_t k = 0; k < n; ++k) {
      if (c.parameter(k) != by_number[k]) {
        return ComputationError(
            c, StrCat("parameter table entry ", k, " is ",
                      c.parameter(k) == nullptr ? std::string("empty")
                                                : StrCat("'", c.parameter(k)->name(), "'"),
                      ", expected '", by_number[k]->name(), "'"));
      }
    }
    return absl::OkStatus();
  }

  // Depth-first search over operands and control predecessors; runs only for computations
  // whose list order is not already a topological order.
  absl::Status CheckAcyclic(const Computation& c) {
    enum : uint8_t { kWhite = 0, kGray = 1, kBlack = 2 };
    std::vector<uint8_t> color(slots_.size(), kWhite);
    struct Frame {
      const Instruction* instr;
      size_t next_edge;
    };
    std::vector<Frame> stack;
    auto edge = [](const Instruction* i, size_t k) -> const Instruction* {
      size_t ops = i->operands().size();
      return k < ops ? i->operands()[k] : i->control_predecessors()[k - ops];
    };
    for (const Instruction* start : c.instructions()) {
      if (color[start->unique_id()] != kWhite) continue;
      stack.push_back({start, 0});
      color[start->unique_id()] = kGray;
      while (!stack.empty()) {
        Frame& f = stack.back();
        size_t edges = f.instr->operands().size() + f.instr->control_predecessors().size();
        if (f.next_edge == edges) {
          color[f.instr->unique_id()] = kBlack;
          stack.pop_back();
          continue;
        }
        const Instruction* next = edge(f.instr, f.next_edge++);
        uint8_t& col = color[next->unique_id()];
        if (col == kBlack) continue;
        if (col == kGray) {
          auto first = std::find_if(stack.begin(), stack.end(),
                                    [&](const Frame& fr) { return fr.instr == next; });
          std::vector<std::string_view> names;
          for (auto it = first; it != stack.end(); ++it) names.push_back(it->instr->name());
          names.push_back(next->name());
          return InstrError(c, *next, StrCat("is part of a cycle: ", StrJoin(names, " -> ")));
        }
        col = kGray;
        stack.push_back({next, 0});
      }
    }
    return absl::OkStatus();
  }

  // The exact search behind a fingerprint mismatch: finds the first edge listed on one side
  // only. Quadratic in the worst case, but it runs only when the module is already broken.
  absl::Status FindEdgeMismatch() {
    auto comps = module_.computations();
    for (size_t ci = 0; ci < comps.size(); ++ci) {
      const Computation& c = *comps[ci];
      for (const Instruction* instr : c.instructions()) {
        for (int64_t i = 0; i < instr->operand_count(); ++i) {
          if (!Contains(instr->operand(i)->users(), instr)) {
            return InstrError(c, *instr,
                              StrCat(OperandRef(*instr, i), " does not list it as a user"));
          }
        }
        auto users = instr->users();
        for (size_t u = 0; u < users.size(); ++u) {
          const Instruction* user = users[u];
          if (!InComputation(user, static_cast<int32_t>(ci))) {
            return InstrError(c, *instr,
                              StrCat("user '", user->name(), "' is not in this computation (",
                                     WhereIs(user), ")"));
          }
          if (!Contains(user->operands(), instr)) {
            return InstrError(c, *instr,
                              StrCat("user '", user->name(), "' does not have it as an operand"));
          }
          if (std::find(users.begin(), users.begin() + u, user) != users.begin() + u) {
            return InstrError(c, *instr, StrCat("user '", user->name(), "' is listed twice"));
          }
        }
        for (const Instruction* pred : instr->control_predecessors()) {
          if (!Contains(pred->control_successors(), instr)) {
            return InstrError(c, *instr,
                              StrCat("control predecessor '", pred->name(),
                                     "' does not list it as a control successor"));
          }
        }
        auto succs = instr->control_successors();
        for (size_t s = 0; s < succs.size(); ++s) {
          const Instruction* succ = succs[s];
          if (!InComputation(succ, static_cast<int32_t>(ci))) {
            return InstrError(c, *instr,
                              StrCat("control successor '", succ->name(),
                                     "' is not in this computation (", WhereIs(succ), ")"));
          }
          if (!Contains(succ->control_predecessors(), instr)) {
            return InstrError(c, *instr,
                              StrCat("control successor '", succ->name(),
                                     "' does not list it as a control predecessor"));
          }
          if (std::find(succs.begin(), succs.begin() + s, succ) != succs.begin() + s) {
            return InstrError(c, *instr,
                              StrCat("control successor '", succ->name(), "' is listed twice"));
          }
        }
        for (const Instruction* pred : instr->control_predecessors()) {
          if (std::count(instr->control_predecessors().begin(), instr->control_predecessors().end(),
                         pred) > 1) {
            return InstrError(c, *instr,
                              StrCat("control predecessor '", pred->name(), "' is listed twice"));
          }
        }
      }
    }
    // Unreachable unless two different edge sets hash to the same sum difference.
    return ModuleError(module_, "operand/user or control edge lists are inconsistent");
  }

  // No computation may reach itself through called computations (XLA has no recursion). The
  // call edges were collected by CheckInstruction, so this walks a compact list rather than
  // every instruction of the module a second time.
  absl::Status CheckCallGraph() {
    auto comps = module_.computations();
    enum : uint8_t { kWhite = 0, kGray = 1, kBlack = 2 };
    std::vector<uint8_t> color(comps.size(), kWhite);
    struct Frame {
      int32_t comp;
      size_t edge;  // next call edge of that computation to follow
    };
    std::vector<Frame> stack;
    for (size_t start = 0; start < comps.size(); ++start) {
      if (color[start] != kWhite) continue;
      stack.push_back({static_cast<int32_t>(start), call_begin_[start]});
      color[start] = kGray;
      while (!stack.empty()) {
        Frame& f = stack.back();
        if (f.edge == call_begin_[f.comp + 1]) {
          color[f.comp] = kBlack;
          stack.pop_back();
          continue;
        }
        const CallEdge& e = call_edges_[f.edge++];
        const int32_t next = e.callee;
        if (color[next] == kBlack) continue;
        if (color[next] == kGray) {
          auto first = std::find_if(stack.begin(), stack.end(),
                                    [&](const Frame& fr) { return fr.comp == next; });
          std::vector<std::string_view> names;
          for (auto it = first; it != stack.end(); ++it) names.push_back(comps[it->comp]->name());
          names.push_back(comps[next]->name());
          return InstrError(*comps[f.comp], *e.caller,
                            StrCat("call graph cycle: ", StrJoin(names, " -> ")));
        }
        color[next] = kGray;
        stack.push_back({next, call_begin_[next]});
      }
    }
    return absl::OkStatus();
  }

  const Module& module_;
  const VerifierOptions& options_;
  absl::flat_hash_map<const Computation*, int32_t> comp_index_;
  StringViewMap<const Computation*> module_names_;
  StringViewSet local_names_;
  // Indexed by unique id.
  // Per instruction, indexed by unique id: one struct so a lookup touches one cache line.
  struct Slot {
    const Instruction* instr = nullptr;
    int32_t comp = -1;       // index in module.computations()
    int32_t pos = -1;        // index in the computation's instruction list
    uint32_t last_seen = 0;  // stamp of the last user that counted this operand
  };
  std::vector<Slot> slots_;
  size_t indexed_ = 0;  // how many of the current computation's instructions have slots
  // Called computations, in instruction order: computation i's calls are
  // call_edges_[call_begin_[i], call_begin_[i + 1]).
  struct CallEdge {
    int32_t callee;  // index in module.computations()
    const Instruction* caller;
  };
  std::vector<CallEdge> call_edges_;
  std::vector<size_t> call_begin_;
  // Scratch space reused across computations (thousands of small ones in large modules).
  std::vector<const Instruction*> params_;
  std::vector<const Instruction*> by_number_;
  // Step 3 (RunOrDeferShapeRule): instructions numbered in module order among those with a
  // rule, the rules left for after step 1, and the first failure of the others.
  struct DeferredRule {
    const Instruction* instr;
    uint64_t seq;
  };
  std::vector<DeferredRule> deferred_rules_;
  uint64_t shape_seq_ = 0;
  uint64_t first_shape_error_seq_ = UINT64_MAX;
  absl::Status first_shape_error_;
  uint32_t stamp_ = 0;
  uint64_t operand_edges_ = 0, user_edges_ = 0, pred_edges_ = 0, succ_edges_ = 0;
};

}  // namespace

namespace {

// With the text the module was parsed from: the message as the parser formats its errors,
// `file:line:col: error: ...` with the instruction's line and a caret under its name.
absl::Status WithSourcePosition(const Module& module, absl::Status s, std::string_view text) {
  auto payload = s.GetPayload(verifier_internal::kInstructionPayload);
  if (!payload || text.empty()) return s;
  uint32_t id = 0;
  if (!absl::SimpleAtoi(std::string(*payload), &id)) return s;
  const Instruction* failed = nullptr;
  for (const Computation* c : module.computations()) {
    for (const Instruction* i : c->instructions()) {
      if (i->unique_id() == id) failed = i;
    }
  }
  if (failed == nullptr) return s;
  std::optional<size_t> offset = module.SourceOffset(*failed);
  if (!offset || *offset >= text.size()) return s;
  TextCursor cursor(text, module.source_filename(), module.source_first_line());
  std::string_view message(s.message().data(), s.message().size());
  return absl::InvalidArgumentError(cursor.FormatError(text.data() + *offset, message));
}

}  // namespace

absl::Status VerifyModule(const Module& module, const VerifierOptions& options) {
  StructureChecker structure(module, options);
  absl::Status s = structure.Run();
  if (s.ok() && options.check_shapes) s = structure.CheckShapes();
  if (s.ok()) s = verifier_internal::CheckInputOutputAliases(module);
  if (s.ok() && options.check_shapes) s = verifier_internal::CheckBufferRules(module);
  if (s.ok() && options.check_shapes) s = verifier_internal::CheckAsyncPairRules(module);
  if (!s.ok() && !options.source_text.empty()) {
    return WithSourcePosition(module, std::move(s), options.source_text);
  }
  return s;
}

}  // namespace hloscope
