#include "passes/copy_insertion.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/functional/function_ref.h"
#include "analysis/alias.h"
#include "analysis/analysis_cache.h"
#include "analysis/async_chain_pairs.h"
#include "analysis/buffer_consistency.h"
#include "analysis/call_graph.h"
#include "analysis/in_place_pairs.h"
#include "analysis/ordering.h"
#include "analysis/value_liveness.h"
#include "fmt/format.h"
#include "hlo/async_chain.h"
#include "hlo/computation.h"
#include "hlo/input_output_alias.h"
#include "passes/control_edges.h"
#include "passes/copy_elision_report.h"
#include "passes/dce.h"
#include "passes/flatten_call_graph.h"
#include "passes/in_flight_buffers.h"
#include "passes/schedule_order.h"
#include "passes/tuple_simplify.h"

namespace hloscope {

std::string_view CopyRuleName(CopyRule rule) {
  switch (rule) {
    case CopyRule::kInPlaceOperand:
      return "in-place-operand";
    case CopyRule::kWhileInit:
      return "while-init";
    case CopyRule::kWhileBodyParameter:
      return "while-body-parameter";
    case CopyRule::kWhileBodyRoot:
      return "while-body-root";
    case CopyRule::kConditionalBranchRoot:
      return "conditional-branch-root";
    case CopyRule::kInputOutputAlias:
      return "input-output-alias";
    case CopyRule::kEntryRootReadOnly:
      return "entry-root-read-only";
    case CopyRule::kEntryRootDuplicated:
      return "entry-root-duplicated";
    case CopyRule::kRootAmbiguous:
      return "root-ambiguous";
    case CopyRule::kInFlightTransition:
      return "in-flight-transition";
  }
  return "unknown";
}

namespace {

bool HasPrefix(const ShapeIndex& index, const ShapeIndex& prefix) {
  return index.size() >= prefix.size() && std::equal(prefix.begin(), prefix.end(), index.begin());
}

// The array leaves of a shape selected for copying, each with its rule and why. Lookups are
// hashed: a loop state of thousands of elements is common in generated modules.
struct Selection {
  struct Leaf {
    ShapeIndex index;
    CopyRule rule;
    std::string detail;
  };
  std::vector<Leaf> leaves;

  bool empty() const { return leaves.empty(); }
  // The first reason given for a leaf is the one reported.
  void Add(const ShapeIndex& index, CopyRule rule, std::string detail) {
    if (!position_.try_emplace(index, leaves.size()).second) return;
    leaves.push_back(Leaf{index, rule, std::move(detail)});
    ShapeIndex prefix;
    prefixes_.insert(prefix);
    for (int64_t k : index) {
      prefix.push_back(k);
      prefixes_.insert(prefix);
    }
  }
  // Whether a selected leaf is at or below `prefix`.
  bool AnyUnder(const ShapeIndex& prefix) const { return prefixes_.contains(prefix); }
  const Leaf* At(const ShapeIndex& index) const {
    auto it = position_.find(index);
    return it == position_.end() ? nullptr : &leaves[it->second];
  }

 private:
  absl::flat_hash_map<ShapeIndex, size_t> position_;
  absl::flat_hash_set<ShapeIndex> prefixes_;
};

std::string IndexText(const ShapeIndex& index) { return ShapeIndexToString(index); }

// Builds deep copies (get-tuple-element, copy, tuple, as XLA's DeepCopyInstruction does) and
// places every new instruction before `anchor` in its computation (at the end when null).
class DeepCopier {
 public:
  DeepCopier(Module& module, CopyInsertionReport& report) : module_(module), report_(report) {}

  // A deep copy of `source` that copies the selected leaves and forwards the rest; nullptr
  // when nothing is selected.
  Instruction* Copy(Instruction* source, const Selection& selection, Instruction* anchor) {
    if (selection.empty()) return nullptr;
    comp_ = source->parent();
    anchor_ = anchor;
    made_.clear();
    ShapeIndex at;
    return CopyAt(source, at, selection);
  }
  // The copy the last Copy made at `index`, or nullptr.
  Instruction* MadeAt(const ShapeIndex& index) const {
    for (const auto& [i, c] : made_) {
      if (i == index) return c;
    }
    return nullptr;
  }
  std::vector<std::pair<ShapeIndex, Instruction*>> made() const { return made_; }
  // Puts the instructions made so far where they belong in their computations' order, all at
  // once (one pass per computation, however many copies a large module gets).
  void Flush() {
    for (Computation* c : comps_) c->MoveAllBefore(moves_[c]);
    moves_.clear();
    comps_.clear();
  }

 private:
  Instruction* Place(Opcode opcode, const Shape* shape, std::string_view base) {
    Instruction* i =
        module_.CreateInstruction(opcode, shape, module_.UniqueInstructionName(base), comp_);
    comp_->AddInstruction(i);
    auto [it, inserted] = moves_.try_emplace(comp_);
    if (inserted) comps_.push_back(comp_);
    it->second.emplace_back(i, anchor_);
    return i;
  }

  // Element k of tuple-shaped x: a tuple's own operand, else a new get-tuple-element. Its
  // shape is the one x's existing get-tuple-element users have (`user_shapes`, by index), when
  // there is one: a tuple shape written without layouts has elements with explicit ones in
  // their users, and a copy must not look like a layout change to copy-elision once
  // tuple-simplify folds it in.
  Instruction* ElementOf(Instruction* x, int64_t k, const std::vector<const Shape*>& user_shapes) {
    if (x->opcode() == Opcode::kTuple) return x->operand(k);
    const Shape* shape = x->shape().tuple_elements[static_cast<size_t>(k)];
    const Shape* seen = user_shapes[static_cast<size_t>(k)];
    if (seen != nullptr && seen->Compatible(*shape)) shape = seen;
    Instruction* gte = Place(Opcode::kGetTupleElement, shape, "get-tuple-element");
    InstructionBuilder(gte).set_number(k);
    gte->SetAttribute(kAttrIndex, fmt::format("{}", k));
    gte->AppendOperand(x);
    return gte;
  }

  Instruction* CopyAt(Instruction* x, ShapeIndex& at, const Selection& selection) {
    if (!selection.AnyUnder(at)) return nullptr;
    const Shape& shape = x->shape();
    if (!shape.IsTuple()) {
      if (!shape.IsArray()) return nullptr;
      Instruction* copy = Place(Opcode::kCopy, x->shape_ptr(), "copy");
      copy->AppendOperand(x);
      made_.emplace_back(at, copy);
      const Selection::Leaf* leaf = selection.At(at);
      report_.copies.push_back(InsertedCopy{std::string(copy->name()), std::string(comp_->name()),
                                            leaf->rule, leaf->detail, shape.ByteSize()});
      return copy;
    }
    std::vector<const Shape*> user_shapes(shape.tuple_elements.size(), nullptr);
    for (const Instruction* user : x->users()) {
      const int64_t k = user->tuple_index();
      if (user->opcode() == Opcode::kGetTupleElement && k >= 0 &&
          k < static_cast<int64_t>(user_shapes.size()) && user_shapes[k] == nullptr) {
        user_shapes[k] = user->shape_ptr();
      }
    }
    std::vector<Instruction*> elements;
    bool any = false;
    for (size_t k = 0; k < shape.tuple_elements.size(); ++k) {
      Instruction* gte = ElementOf(x, static_cast<int64_t>(k), user_shapes);
      at.push_back(static_cast<int64_t>(k));
      Instruction* copied = CopyAt(gte, at, selection);
      at.pop_back();
      any = any || copied != nullptr;
      elements.push_back(copied != nullptr ? copied : gte);
    }
    if (!any) return nullptr;  // new get-tuple-elements stay dead for dce
    Instruction* tuple = Place(Opcode::kTuple, x->shape_ptr(), "tuple");
    for (Instruction* e : elements) tuple->AppendOperand(e);
    return tuple;
  }

  Module& module_;
  CopyInsertionReport& report_;
  Computation* comp_ = nullptr;
  Instruction* anchor_ = nullptr;
  std::vector<std::pair<ShapeIndex, Instruction*>> made_;
  // Per computation, in order of first use: each new instruction with the one it goes before.
  absl::flat_hash_map<Computation*, std::vector<std::pair<Instruction*, Instruction*>>> moves_;
  std::vector<Computation*> comps_;
};

// XLA's control edge from the copy that reads a buffer's old value to the copy that writes
// its new one (a while element's parameter and root copies, a donated parameter's copy and
// its output's): the writer must not run first. Edges only between two copies made here.
void OrderCopies(const std::vector<std::pair<ShapeIndex, Instruction*>>& readers,
                 const DeepCopier& writers,
                 absl::FunctionRef<ShapeIndex(const ShapeIndex&)> writer_index) {
  for (const auto& [index, reader] : readers) {
    if (Instruction* writer = writers.MadeAt(writer_index(index))) {
      AddPrintedControlEdge(reader, writer);
    }
  }
}

// Makes the listed users read `replacement` wherever they read `old`.
void ReplaceUses(Instruction* old, Instruction* replacement,
                 const std::vector<Instruction*>& users) {
  for (Instruction* user : users) {
    for (int64_t k = 0; k < user->operand_count(); ++k) {
      if (user->operand(k) == old) user->ReplaceOperand(k, replacement);
    }
  }
}

// The instruction after `instr` in its computation's order (null at the end).
Instruction* Next(const Instruction* instr) {
  absl::Span<Instruction* const> list = instr->parent()->instructions();
  auto it = std::find(list.begin(), list.end(), instr);
  if (it == list.end() || ++it == list.end()) return nullptr;
  return *it;
}

// Computations whose instructions own buffers: the entry and the callees of while,
// conditional and call (analysis/call_graph.h; a `call-start`'s callee too). Fusions and
// reducers run as part of one instruction (embedded), and the computation an async-start wraps,
// control flow that runs beside its caller, holds only the start's operands and result: no
// copies go in them.
// Fails when such a computation has several call sites (the copies one caller needs would be
// made for all of them); Run flattens the call graph first, so this is a guard.
absl::StatusOr<std::vector<Computation*>> ControlFlowComputations(const Module& module,
                                                                  const CallGraph& calls) {
  std::vector<Computation*> out;
  for (Computation* c : module.computations()) {
    if (calls.IsEmbedded(c)) continue;
    if (c != module.entry()) {
      absl::Span<const CallSite> callers = calls.ControlFlowSites(c);
      if (callers.empty()) continue;
      // XLA skips async computations (the wrapper holding the one wrapped op). The short
      // `call-start(...), to_apply=f` form has no wrapper here: f is the wrapped call's callee,
      // an ordinary computation to XLA, whose conditionals and loops get their copies.
      const Instruction* caller = callers[0].caller;
      if (callers[0].async && !(caller->opcode() == Opcode::kAsyncStart &&
                                caller->async_wrapped_opcode() == Opcode::kCall)) {
        continue;
      }
      if (callers.size() > 1) {
        return absl::FailedPreconditionError(fmt::format(
            "copy-insertion needs a flat call graph, but computation {} is called from {} "
            "places (%{} and %{}); run the flatten-call-graph pass first",
            c->name(), callers.size(), callers[0].caller->name(), callers[1].caller->name()));
      }
    }
    out.push_back(c);
  }
  return out;
}

// The operands of an async-start (calls=) or async-update that the chain's wrapped op updates
// in place. XLA's copy insertion asks the wrapped instruction (the async computation's root)
// for its in-place pairs and copies, for each, the operand that binds the parameter it
// updates: the start's own operand, or in a late-bound chain the async-update's that binds it
// (hlo/async_chain.h; XLA's copy_insertion.cc maps the wrapped operand number past the ones
// bound before the update). Each is copied once, by the instruction that binds it.
std::vector<int64_t> WrappedInPlaceOperands(const Instruction& instr) {
  std::vector<int64_t> out;
  const Instruction* start = &instr;
  if (instr.opcode() == Opcode::kAsyncUpdate) {
    for (int steps = 0; start != nullptr && start->opcode() == Opcode::kAsyncUpdate &&
                        start->operand_count() > 0 && steps < 1 << 20;
         ++steps) {
      start = start->operand(0);
    }
  }
  if (start == nullptr || start->opcode() != Opcode::kAsyncStart) return out;
  const Computation* wrapped = start->fused_computation();
  if (wrapped == nullptr || wrapped->root() == nullptr) return out;
  const Instruction& op = *wrapped->root();
  for (const InPlacePair& p : GetInPlaceInputOutputPairs(op)) {
    if (p.input.operand_number < 0 || p.input.operand_number >= op.operand_count()) continue;
    const Instruction* operand = op.operand(p.input.operand_number);
    if (operand->opcode() != Opcode::kParameter) continue;
    const AsyncBinding binding = FindAsyncParameterBinding(*start, operand->parameter_number());
    if (binding.binder == &instr) out.push_back(binding.operand_number);
  }
  return out;
}

class Inserter {
 public:
  Inserter(Module& module, AnalysisCache& analyses, const CopyInsertionOptions& options,
           CopyInsertionReport& report)
      : module_(module),
        analyses_(analyses),
        options_(options),
        copier_(module, report),
        report_(&report) {}

  bool Skipped(CopyRule rule) const {
    return std::find(options_.skip_rules.begin(), options_.skip_rules.end(), rule) !=
           options_.skip_rules.end();
  }

  absl::Status AddInterferenceCopies();
  absl::Status AddInputOutputAliasCopies(const std::vector<InputOutputAlias>& aliases);
  absl::Status AddRootCopies(const std::vector<InputOutputAlias>& aliases);
  int64_t control_edges_added() const { return control_edges_added_; }

 private:
  struct WhilePlan {
    Instruction* xla_while;
    Selection init, parameter, root;
  };
  struct ConditionalPlan {
    Instruction* conditional;
    std::vector<Selection> roots;  // per branch
  };
  struct InPlacePlan {
    Instruction* op;
    int64_t operand;
  };
  // A loop state element holding an in-flight buffer: ordered, never copied.
  struct InFlightPlan {
    Instruction* xla_while;
    ShapeIndex index;
    std::vector<std::pair<Instruction*, Instruction*>> edges;  // (done, start)
    std::vector<TransferOperandCopy> operand_copies;
  };
  // Everything AddInterferenceCopies will do, decided on the unchanged module.
  struct InterferencePlan {
    std::vector<WhilePlan> whiles;
    std::vector<ConditionalPlan> conditionals;
    std::vector<InPlacePlan> in_place;
    std::vector<InFlightPlan> in_flight;
  };
  absl::Status PlanInterference(const DataflowAnalysis& flow, InterferencePlan& plan) const;
  void PlanWhile(const DataflowAnalysis& flow, Instruction* xla_while,
                 InterferencePlan& plan) const;
  static void PlanConditional(const DataflowAnalysis& flow, Instruction* conditional,
                              InterferencePlan& plan);
  static absl::Status PlanInPlace(Instruction* instr, InterferencePlan& plan);
  void OrderInFlightTransfers(const std::vector<InFlightPlan>& in_flight);
  void AddInFlightTransitionCopies(const std::vector<InFlightPlan>& in_flight);
  void AddTransferOperandCopies(const std::vector<InFlightPlan>& in_flight);
  void AddInPlaceOperandCopies(const std::vector<InPlacePlan>& in_place);
  void AddWhileCopies(std::vector<WhilePlan>& whiles);
  void AddConditionalCopies(std::vector<ConditionalPlan>& conditionals);
  // The transition copies made after a *-done, each already ordered before the next start.
  absl::flat_hash_set<const Instruction*> transition_copies_;

  Module& module_;
  // Asked once per step, before the step edits; the step after an edit asks again.
  AnalysisCache& analyses_;
  const CopyInsertionOptions& options_;
  DeepCopier copier_;
  // The copy of each donated parameter element, with the output its buffer goes to.
  struct DonatedCopy {
    const Instruction* copy;
    int64_t parameter;
    ShapeIndex output;
  };
  std::vector<DonatedCopy> donated_copies_;
  int64_t control_edges_added_ = 0;
  CopyInsertionReport* report_ = nullptr;
};

absl::Status Inserter::AddInterferenceCopies() {
  absl::StatusOr<const AliasAnalysis*> alias = analyses_.Alias(DataflowOptions{});
  if (!alias.ok()) return alias.status();
  // Decide everything on the unchanged module first: the analysis knows only the instructions
  // it saw.
  InterferencePlan plan;
  if (absl::Status s = PlanInterference((*alias)->dataflow(), plan); !s.ok()) return s;

  OrderInFlightTransfers(plan.in_flight);
  if (!Skipped(CopyRule::kInFlightTransition)) {
    AddInFlightTransitionCopies(plan.in_flight);
    AddTransferOperandCopies(plan.in_flight);
  }
  if (!Skipped(CopyRule::kInPlaceOperand)) AddInPlaceOperandCopies(plan.in_place);
  AddWhileCopies(plan.whiles);
  if (!Skipped(CopyRule::kConditionalBranchRoot)) AddConditionalCopies(plan.conditionals);
  copier_.Flush();
  return absl::OkStatus();
}

absl::Status Inserter::PlanInterference(const DataflowAnalysis& flow,
                                        InterferencePlan& plan) const {
  absl::StatusOr<std::vector<Computation*>> computations =
      ControlFlowComputations(module_, flow.call_graph());
  if (!computations.ok()) return computations.status();
  for (Computation* c : *computations) {
    for (Instruction* instr : c->instructions()) {
      if (instr->opcode() == Opcode::kWhile) {
        PlanWhile(flow, instr, plan);
      } else if (instr->opcode() == Opcode::kConditional) {
        PlanConditional(flow, instr, plan);
      } else if (MayHaveInPlacePairs(instr->opcode()) || instr->opcode() == Opcode::kAsyncUpdate) {
        if (absl::Status s = PlanInPlace(instr, plan); !s.ok()) return s;
      }
    }
  }
  return absl::OkStatus();
}

// The copies of each loop state element whose value the body changes: init, body parameter and
// body root; an element holding an in-flight buffer gets order instead (InFlightPlan).
void Inserter::PlanWhile(const DataflowAnalysis& flow, Instruction* xla_while,
                         InterferencePlan& plans) const {
  Instruction* init = xla_while->operand(0);
  WhilePlan plan{xla_while, {}, {}, {}};
  const bool body_pins = StartsNonCopyableChain(*xla_while->while_body());
  ForEachSubshape(xla_while->shape(), [&](const Shape& sub, const ShapeIndex& index) {
    if (!sub.IsArray()) return;
    absl::Span<const ValueId> in = flow.ValuesAt(*init, index);
    absl::Span<const ValueId> out = flow.ValuesAt(*xla_while, index);
    const bool changes = in.size() != 1 || out.size() != 1 || in[0] != out[0];
    if (!changes) return;
    // XLA never copies a buffer a transfer still owns; it orders the transfer's done
    // before the next start instead.
    if (!options_.copy_in_flight_buffers &&
        (!InFlightStartsAt(flow, *init, index).empty() ||
         !InFlightStartsAt(flow, *xla_while->while_body()->root(), index).empty())) {
      InFlightPlan in_flight{xla_while, index, DoneBeforeStartEdges(flow, *xla_while, index), {}};
      in_flight.operand_copies = TransferOperandCopies(flow, *xla_while, index, in_flight.edges);
      plans.in_flight.push_back(std::move(in_flight));
      return;
    }
    const std::string at = IndexText(index);
    plan.init.Add(index, CopyRule::kWhileInit,
                  fmt::format("init of %{} at {}", xla_while->name(), at));
    if (options_.copy_in_flight_buffers || !body_pins || !PinnedLoopElement(*xla_while, index)) {
      plan.parameter.Add(
          index, CopyRule::kWhileBodyParameter,
          fmt::format("loop state {} of %{} as the body reads it", at, xla_while->name()));
    }
    plan.root.Add(index, CopyRule::kWhileBodyRoot,
                  fmt::format("loop state {} of %{} as the body writes it", at, xla_while->name()));
  });
  if (!plan.init.empty()) plans.whiles.push_back(std::move(plan));
}

// A copy of each branch root's element where the conditional's result merges the branches'
// values (a phi).
void Inserter::PlanConditional(const DataflowAnalysis& flow, Instruction* conditional,
                               InterferencePlan& plans) {
  Selection phis;
  ForEachSubshape(conditional->shape(), [&](const Shape& sub, const ShapeIndex& index) {
    if (!sub.IsArray()) return;
    for (ValueId v : flow.ValuesAt(*conditional, index)) {
      const HloValue& hv = flow.value(v);
      if (hv.is_phi && hv.instruction == conditional) {
        phis.Add(index, CopyRule::kConditionalBranchRoot,
                 fmt::format("result {} of %{} merges the branches' values", IndexText(index),
                             conditional->name()));
      }
    }
  });
  if (phis.empty()) return;
  ConditionalPlan plan{conditional, {}};
  for (size_t b = 0; b < conditional->branch_computations().size(); ++b) {
    plan.roots.push_back(phis);
  }
  plans.conditionals.push_back(std::move(plan));
}

// Each operand `instr` (or the op an async-start wraps) updates in place, once.
absl::Status Inserter::PlanInPlace(Instruction* instr, InterferencePlan& plans) {
  std::vector<int64_t> done;
  const bool chain_operand =
      instr->opcode() == Opcode::kAsyncUpdate || instr->opcode() == Opcode::kAsyncDone;
  for (const InPlacePair& p : GetInPlaceInputOutputPairs(*instr)) {
    const int64_t k = p.input.operand_number;
    // An update's or done's operand 0 is the chain itself, never copied (XLA skips
    // AddCopiesForInPlaceOperation for it): an update's own pair keeps a context buffer of the
    // chain in place, and the chain's pairs name an operand bound earlier, which its binder
    // copies (below).
    if (chain_operand && k == 0) continue;
    if (k < 0 || k >= instr->operand_count()) {
      // XLA's verifier rejects such an output_to_operand_aliasing; ours lets it through.
      return absl::InvalidArgumentError(fmt::format(
          "copy-insertion: %{} aliases its output with operand {}, but it has {} operands",
          instr->name(), k, instr->operand_count()));
    }
    if (std::find(done.begin(), done.end(), k) != done.end()) continue;
    done.push_back(k);
    plans.in_place.push_back({instr, k});
  }
  for (int64_t k : AsyncChainAliasedOperands(*instr)) {
    if (std::find(done.begin(), done.end(), k) != done.end()) continue;
    done.push_back(k);
    plans.in_place.push_back({instr, k});
  }
  for (int64_t k : WrappedInPlaceOperands(*instr)) {
    if (std::find(done.begin(), done.end(), k) != done.end()) continue;
    done.push_back(k);
    plans.in_place.push_back({instr, k});
  }
  return absl::OkStatus();
}

// Each pipelined transfer's *-done before the *-start that hands its buffer out again, where
// the dependencies do not already order them.
void Inserter::OrderInFlightTransfers(const std::vector<InFlightPlan>& in_flight) {
  for (const InFlightPlan& p : in_flight) {
    for (const auto& [done, start] : p.edges) {
      if (RunsBefore(done, start)) continue;  // already ordered
      AddPrintedControlEdge(done, start);
      ++control_edges_added_;
      report_->control_edges.push_back(
          {std::string(start->parent()->name()), std::string(done->name()),
           std::string(start->name()),
           fmt::format("%{} finishes the transfer of loop state {} of %{} before %{} starts the "
                       "next one in the same buffer",
                       done->name(), IndexText(p.index), p.xla_while->name(), start->name())});
    }
  }
}

// A finished transfer's data read after the next transfer starts in the same buffer: XLA's
// transition copy, taken right after the *-done and ordered before the next *-start.
void Inserter::AddInFlightTransitionCopies(const std::vector<InFlightPlan>& in_flight) {
  for (const InFlightPlan& p : in_flight) {
    for (const auto& [done, start] : p.edges) {
      // The finished data: the done itself (copy-done) or its tuple's array elements.
      std::vector<Instruction*> elements;
      if (done->shape().IsArray()) {
        elements.push_back(done);
      } else {
        for (Instruction* user : done->users()) {
          if (user->opcode() == Opcode::kGetTupleElement && user->shape().IsArray())
            elements.push_back(user);
        }
      }
      for (Instruction* element : elements) {
        std::vector<Instruction*> late;
        for (Instruction* user : element->users()) {
          if (user != start && !RunsBefore(user, start)) late.push_back(user);
        }
        if (late.empty()) continue;
        Selection whole;
        whole.Add({}, CopyRule::kInFlightTransition,
                  fmt::format("%{} is read after %{} starts the next transfer into its buffer",
                              element->name(), start->name()));
        if (Instruction* copy = copier_.Copy(element, whole, Next(element))) {
          ReplaceUses(element, copy, late);
          transition_copies_.insert(copy);
          AddPrintedControlEdge(copy, start);
          ++control_edges_added_;
        }
      }
    }
  }
}

// Every array of each operand that an instruction updates in place, copied just before it.
void Inserter::AddInPlaceOperandCopies(const std::vector<InPlacePlan>& in_place) {
  for (const InPlacePlan& p : in_place) {
    Instruction* operand = p.op->operand(p.operand);
    Selection all;
    ForEachSubshape(operand->shape(), [&](const Shape& sub, const ShapeIndex& index) {
      if (sub.IsArray()) {
        all.Add(
            index, CopyRule::kInPlaceOperand,
            fmt::format("operand {} of %{}, which updates it in place", p.operand, p.op->name()));
      }
    });
    if (Instruction* copy = copier_.Copy(operand, all, p.op)) {
      p.op->ReplaceOperand(p.operand, copy);
    }
  }
}

// Each planned loop's init copy, body parameter copy (read by the body's instructions) and body
// root copy, the parameter's copies ordered before the root's.
void Inserter::AddWhileCopies(std::vector<WhilePlan>& whiles) {
  for (WhilePlan& w : whiles) {
    Instruction* xla_while = w.xla_while;
    if (!Skipped(CopyRule::kWhileInit)) {
      Instruction* init = xla_while->operand(0);
      if (Instruction* copy = copier_.Copy(init, w.init, xla_while)) {
        xla_while->ReplaceOperand(0, copy);
      }
    }
    Computation* body = xla_while->while_body();
    Instruction* param = body->parameter(0);
    if (param == body->root()) continue;  // cannot be: every element passes through
    std::vector<std::pair<ShapeIndex, Instruction*>> parameter_copies;
    if (!Skipped(CopyRule::kWhileBodyParameter)) {
      std::vector<Instruction*> users(param->users().begin(), param->users().end());
      if (Instruction* copy = copier_.Copy(param, w.parameter, Next(param))) {
        ReplaceUses(param, copy, users);
        parameter_copies = copier_.made();
      }
    }
    if (!Skipped(CopyRule::kWhileBodyRoot)) {
      Instruction* root = body->root();
      if (Instruction* copy = copier_.Copy(root, w.root, nullptr)) {
        body->set_root(copy);
        OrderCopies(parameter_copies, copier_, [](const ShapeIndex& i) { return i; });
      }
    }
  }
}

// Each branch's root copied where the conditional merges the branches' values.
void Inserter::AddConditionalCopies(std::vector<ConditionalPlan>& conditionals) {
  for (ConditionalPlan& plan : conditionals) {
    std::vector<Computation*> branches = plan.conditional->branch_computations();
    for (size_t b = 0; b < branches.size(); ++b) {
      Instruction* root = branches[b]->root();
      std::vector<Instruction*> users(root->users().begin(), root->users().end());
      if (Instruction* copy = copier_.Copy(root, plan.roots[b], nullptr)) {
        ReplaceUses(root, copy, users);
        branches[b]->set_root(copy);
      }
    }
  }
}

// XLA's transition into a pipelined transfer: the start reads a copy of its operand (taken
// after the previous iteration's *-done in the body), so that the loop state never holds the
// operand's own buffer while the transfer owns it.
void Inserter::AddTransferOperandCopies(const std::vector<InFlightPlan>& in_flight) {
  absl::flat_hash_set<const Instruction*> copied;
  for (const InFlightPlan& p : in_flight) {
    for (const TransferOperandCopy& t : p.operand_copies) {
      if (!copied.insert(t.start).second) continue;
      Instruction* operand = t.start->operand(0);
      Instruction* copy = operand;
      // The transfer may already read a transition copy of a finished transfer's data that
      // nothing else reads (taken after that *-done): XLA's removal keeps one of the two.
      if (!transition_copies_.contains(operand) || operand->user_count() != 1) {
        Selection whole;
        whole.Add({}, CopyRule::kInFlightTransition,
                  fmt::format("operand 0 of %{}, whose buffer the transfer %{} carries owns until "
                              "it is done",
                              t.start->name(), p.xla_while->name()));
        copy = copier_.Copy(operand, whole, t.start);
        if (copy == nullptr) continue;
        t.start->ReplaceOperand(0, copy);
      }
      // The copy writes the buffer the previous iteration's transfer still owns (the loop
      // carries it): not before that transfer's *-done.
      if (t.done != nullptr && !RunsBefore(t.done, copy) && !RunsBefore(copy, t.done)) {
        AddPrintedControlEdge(t.done, copy);
        ++control_edges_added_;
      }
    }
  }
}

absl::Status Inserter::AddInputOutputAliasCopies(const std::vector<InputOutputAlias>& aliases) {
  if (aliases.empty() || Skipped(CopyRule::kInputOutputAlias)) return absl::OkStatus();
  Computation* entry = module_.entry();
  Selection outputs;
  // Each donated parameter element's copy, with the output that takes its buffer.
  std::vector<std::pair<ShapeIndex, Instruction*>> readers;
  for (Instruction* param : entry->parameters()) {
    if (param == nullptr) continue;
    Selection donated;
    std::vector<std::pair<ShapeIndex, ShapeIndex>> in_to_out;
    for (const InputOutputAlias& a : aliases) {
      if (a.parameter != param->parameter_number()) continue;
      const Shape* sub = Subshape(param->shape(), a.parameter_index);
      if (sub == nullptr) continue;
      // Every array under the donated index (XLA aliases leaves; a tuple index covers its own).
      ForEachSubshape(*sub, [&](const Shape& s, const ShapeIndex& rel) {
        if (!s.IsArray()) return;
        ShapeIndex in = a.parameter_index;
        in.insert(in.end(), rel.begin(), rel.end());
        ShapeIndex out = a.output_index;
        out.insert(out.end(), rel.begin(), rel.end());
        in_to_out.emplace_back(in, out);
        donated.Add(in, CopyRule::kInputOutputAlias,
                    fmt::format("entry parameter {} {} is donated to output {}",
                                param->parameter_number(), IndexText(in), IndexText(out)));
        outputs.Add(out, CopyRule::kInputOutputAlias,
                    fmt::format("output {} takes the buffer of entry parameter {} {}",
                                IndexText(out), param->parameter_number(), IndexText(in)));
      });
    }
    if (donated.empty()) continue;
    std::vector<Instruction*> users(param->users().begin(), param->users().end());
    const bool was_root = entry->root() == param;
    if (Instruction* copy = copier_.Copy(param, donated, Next(param))) {
      ReplaceUses(param, copy, users);
      if (was_root) entry->set_root(copy);
      for (const auto& [in, out] : in_to_out) {
        if (Instruction* c = copier_.MadeAt(in)) {
          readers.emplace_back(out, c);
          donated_copies_.push_back({c, param->parameter_number(), out});
        }
      }
    }
  }
  Instruction* root = entry->root();
  std::vector<Instruction*> users(root->users().begin(), root->users().end());
  if (Instruction* copy = copier_.Copy(root, outputs, nullptr)) {
    ReplaceUses(root, copy, users);
    entry->set_root(copy);
    OrderCopies(readers, copier_, [](const ShapeIndex& i) { return i; });
  }
  copier_.Flush();
  return absl::OkStatus();
}

bool IsReadOnly(const HloValue& v, const Module& module,
                const std::vector<InputOutputAlias>& aliases) {
  if (v.is_phi) return false;
  const Instruction& def = *v.instruction;
  if (def.opcode() == Opcode::kConstant) return true;
  if (def.opcode() != Opcode::kParameter || def.parent() != module.entry()) return false;
  for (const InputOutputAlias& a : aliases) {
    if (a.parameter == def.parameter_number() && HasPrefix(v.index, a.parameter_index)) {
      return false;
    }
  }
  return true;
}

absl::Status Inserter::AddRootCopies(const std::vector<InputOutputAlias>& aliases) {
  absl::StatusOr<const AliasAnalysis*> alias = analyses_.Alias(DataflowOptions{});
  if (!alias.ok()) return alias.status();
  const DataflowAnalysis& flow = (*alias)->dataflow();
  std::vector<std::pair<Computation*, Selection>> plans;
  absl::StatusOr<std::vector<Computation*>> computations =
      ControlFlowComputations(module_, flow.call_graph());
  if (!computations.ok()) return computations.status();
  for (Computation* c : *computations) {
    const bool is_entry = c == module_.entry();
    Instruction* root = c->root();
    Selection selection;
    absl::flat_hash_map<BufferId, ShapeIndex> seen;
    ForEachSubshape(root->shape(), [&](const Shape& sub, const ShapeIndex& index) {
      if (!sub.IsArray()) return;
      absl::Span<const ValueId> values = flow.ValuesAt(*root, index);
      std::vector<BufferId> buffers;
      for (ValueId v : values) {
        const BufferId b = (*alias)->BufferOf(v).id;
        if (std::find(buffers.begin(), buffers.end(), b) == buffers.end()) buffers.push_back(b);
      }
      const std::string at = IndexText(index);
      std::optional<ShapeIndex> earlier;
      for (BufferId b : buffers) {
        auto [it, inserted] = seen.emplace(b, index);
        if (!inserted && !earlier) earlier = it->second;
      }
      if (is_entry && earlier && buffers.size() == 1 && !Skipped(CopyRule::kEntryRootDuplicated)) {
        const bool donated = std::any_of(aliases.begin(), aliases.end(),
                                         [&](const auto& a) { return a.output_index == index; });
        if (donated) {  // the donated output keeps the buffer: copy the earlier one
          selection.Add(*earlier, CopyRule::kEntryRootDuplicated,
                        fmt::format("output {} shares its buffer with donated output {}",
                                    IndexText(*earlier), at));
          return;
        }
      }
      if (buffers.size() > 1 && !Skipped(CopyRule::kRootAmbiguous)) {
        selection.Add(
            index, CopyRule::kRootAmbiguous,
            fmt::format("root {} of %{} may be in {} buffers", at, c->name(), buffers.size()));
      } else if (is_entry && earlier && !Skipped(CopyRule::kEntryRootDuplicated)) {
        selection.Add(
            index, CopyRule::kEntryRootDuplicated,
            fmt::format("output {} shares its buffer with output {}", at, IndexText(*earlier)));
      }
      if (!is_entry) return;
      // XLA adds its entry-root copies after removing copies, when the copy of a donated
      // parameter is usually gone and the parameter's own buffer is what another output
      // holds; it then copies that output, as its buffer belongs to the donated one. The same
      // copy here, before copy-elision, lets the donated parameter's copy go.
      for (ValueId v : values) {
        if (Skipped(CopyRule::kEntryRootDuplicated)) break;
        const HloValue& hv = flow.value(v);
        for (const DonatedCopy& d : donated_copies_) {
          if (hv.instruction != d.copy || d.output == index) continue;
          selection.Add(index, CopyRule::kEntryRootDuplicated,
                        fmt::format("output {} holds donated entry parameter {}, whose buffer "
                                    "output {} takes",
                                    at, d.parameter, IndexText(d.output)));
        }
      }
      if (Skipped(CopyRule::kEntryRootReadOnly)) return;
      for (ValueId v : values) {
        const HloValue& hv = flow.value(v);
        if (!IsReadOnly(hv, module_, aliases)) continue;
        const std::string what =
            hv.instruction->opcode() == Opcode::kConstant
                ? fmt::format("constant %{}", hv.instruction->name())
                : fmt::format("entry parameter {}{} (not donated)",
                              hv.instruction->parameter_number(),
                              hv.index.empty() ? std::string() : " " + IndexText(hv.index));
        selection.Add(index, CopyRule::kEntryRootReadOnly,
                      fmt::format("output {} may hold read-only {}", at, what));
        break;
      }
    });
    if (!selection.empty()) plans.emplace_back(c, std::move(selection));
  }
  for (auto& [c, selection] : plans) {
    Instruction* root = c->root();
    std::vector<Instruction*> users(root->users().begin(), root->users().end());
    if (Instruction* copy = copier_.Copy(root, selection, nullptr)) {
      ReplaceUses(root, copy, users);
      c->set_root(copy);
    }
  }
  copier_.Flush();
  return absl::OkStatus();
}

// XLA never copies a non-copyable value (a b(...) buffer between Pin and Unpin custom-calls):
// where such a buffer is handed to its next value while a reader of the previous one is still
// unordered with that write, it orders the reader first. Repeated on the first conflict of the
// buffer-safety check while it involves a b(...) value and a control edge in one computation
// resolves it; bounded, since every round adds an edge.
absl::StatusOr<int64_t> OrderNonCopyableReaders(AnalysisCache& analyses,
                                                const std::vector<InputOutputAlias>& aliases,
                                                CopyInsertionReport& report) {
  int64_t added = 0;
  // Only modules with b(...) values can need this: one scan instead of the analyses.
  bool has_buffers = false;
  for (const Computation* c : analyses.module().computations()) {
    for (const Instruction* i : c->instructions()) has_buffers |= i->shape().IsBuffer();
  }
  if (!has_buffers) return added;
  for (int round = 0; round < 64; ++round) {
    absl::StatusOr<const AliasAnalysis*> alias = analyses.Alias(DataflowOptions{});
    if (!alias.ok()) return alias.status();
    absl::StatusOr<const ExecutionOrdering*> ordering = analyses.Ordering();
    if (!ordering.ok()) return ordering.status();
    const DataflowAnalysis& flow = (*alias)->dataflow();
    ValueLiveness live(flow, **ordering);
    std::optional<BufferConflict> conflict = FindBufferConflict(**alias, live, aliases);
    if (!conflict) break;
    const HloValue& kept = flow.value(conflict->live);
    const HloValue& written = flow.value(conflict->overwrite);
    // An array that an Unpin (or any op aliasing a b(...) operand) leaves in the buffer.
    auto unpinned = [](const HloValue& v) {
      if (v.is_phi || !v.shape->IsArray()) return false;
      const Instruction& def = *v.instruction;
      return std::any_of(def.operands().begin(), def.operands().end(),
                         [](const Instruction* op) { return op->shape().IsBuffer(); });
    };
    if (!kept.shape->IsBuffer() && !written.shape->IsBuffer() && !unpinned(kept)) break;
    Instruction* writer = const_cast<Instruction*>(written.instruction);
    bool progress = false;
    Instruction* transition = nullptr;
    std::vector<Instruction*> late;
    for (const ValueUse& use : live.uses(conflict->live)) {
      Instruction* reader = const_cast<Instruction*>(use.instruction);
      if (reader == writer || reader->parent() != writer->parent()) continue;
      if ((*ordering)->ExecutesBefore(*reader, *writer)) continue;
      if (RunsBefore(writer, reader)) {
        late.push_back(reader);
        continue;
      }
      AddPrintedControlEdge(reader, writer);
      report.control_edges.push_back(
          {std::string(writer->parent()->name()), std::string(reader->name()),
           std::string(writer->name()),
           fmt::format("%{} reads {} before %{} takes over its non-copyable buffer", reader->name(),
                       kept.ToString(), writer->name())});
      ++added;
      progress = true;
    }
    // Readers that the write must precede read the unpinned data from XLA's transition copy,
    // taken right after it is defined and ordered before the write.
    Instruction* source = const_cast<Instruction*>(kept.instruction);
    if (!late.empty() && unpinned(kept) && source->parent() == writer->parent() &&
        !RunsBefore(writer, source)) {
      DeepCopier copier(*source->parent()->module(), report);
      Selection whole;
      whole.Add({}, CopyRule::kInFlightTransition,
                fmt::format("%{} is read after %{} takes over its non-copyable buffer",
                            source->name(), writer->name()));
      transition = copier.Copy(source, whole, Next(source));
      if (transition != nullptr) {
        copier.Flush();
        ReplaceUses(source, transition, late);
        AddPrintedControlEdge(transition, writer);
        progress = true;
      }
    }
    if (!progress) break;
    analyses.Invalidate();
  }
  return added;
}

int64_t InstructionCount(const Module& module) {
  int64_t count = 0;
  for (const Computation* c : module.computations()) count += c->instruction_count();
  return count;
}

}  // namespace

std::unique_ptr<PassReport> CopyInsertion::LastReport() const {
  return std::make_unique<CopyInsertionPassReport>(report_);
}

absl::StatusOr<bool> CopyInsertion::RunOnModule(Module& module, AnalysisCache& analyses) {
  report_ = CopyInsertionReport{};
  if (module.entry() == nullptr) return false;
  const std::vector<InputOutputAlias> aliases(module.input_output_aliases().begin(),
                                              module.input_output_aliases().end());
  // XLA requires a flat call graph here; flattening first gives every callee one caller
  // (a no-op on modules that have that already).
  // The sub-passes run on the shared analyses: each invalidates them if it changes the module.
  FlattenCallGraph flatten;
  absl::StatusOr<bool> flattened = flatten.Run(module, analyses);
  if (!flattened.ok()) return flattened.status();
  Inserter inserter(module, analyses, options_, report_);
  const int64_t instructions_before = InstructionCount(module);
  if (absl::Status s = inserter.AddInterferenceCopies(); !s.ok()) return s;
  if (absl::Status s = inserter.AddInputOutputAliasCopies(aliases); !s.ok()) return s;
  // The steps above only add instructions and control edges: the analyses still hold when they
  // added none.
  if (InstructionCount(module) != instructions_before || inserter.control_edges_added() > 0)
    analyses.Invalidate();
  if (absl::Status s = inserter.AddRootCopies(aliases); !s.ok()) return s;
  if (InstructionCount(module) != instructions_before) analyses.Invalidate();
  // Fold the deep copies' tuples, as XLA does before removing copies.
  TupleSimplify simplify;
  absl::StatusOr<bool> simplified = simplify.Run(module, analyses);
  if (!simplified.ok()) return simplified.status();
  DeadCodeElimination dce;
  absl::StatusOr<bool> cleaned = dce.Run(module, analyses);
  if (!cleaned.ok()) return cleaned.status();
  if (!options_.copy_in_flight_buffers) {
    absl::StatusOr<int64_t> ordered = OrderNonCopyableReaders(analyses, aliases, report_);
    if (!ordered.ok()) return ordered.status();
  }
  // A scheduled module must stay one: a copy placed by its anchor may end up after a copy made
  // later that reads it (a while body's parameter and root copies).
  const bool reordered = RestoreScheduleOrder(module);
  if (reordered) analyses.Invalidate();
  return *flattened || !report_.copies.empty() || !report_.control_edges.empty() || *simplified ||
         *cleaned || reordered;
}

}  // namespace hloscope
