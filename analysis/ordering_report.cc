#include "analysis/ordering_report.h"

#include <memory>

#include "absl/container/flat_hash_set.h"
#include "analysis/alias.h"
#include "analysis/dataflow.h"
#include "analysis/in_place_pairs.h"
#include "analysis/ordering.h"
#include "analysis/value_liveness.h"
#include "fmt/format.h"
#include "hlo/computation.h"

namespace hloscope {

namespace {

// The instructions asked about, in module order (computations, then text order).
absl::StatusOr<std::vector<const Instruction*>> SelectedInstructions(
    const Module& module, const OrderingPrintOptions& options) {
  absl::flat_hash_set<std::string_view> wanted(options.instructions.begin(),
                                               options.instructions.end());
  absl::flat_hash_set<std::string_view> found;
  std::vector<const Instruction*> out;
  for (const Computation* c : module.computations()) {
    for (const Instruction* i : c->instructions()) {
      if (!wanted.empty() && !wanted.contains(i->name())) continue;
      out.push_back(i);
      found.insert(i->name());
    }
  }
  for (const std::string& name : options.instructions) {
    if (!found.contains(name)) {
      return absl::NotFoundError(
          fmt::format("no instruction named '{}' in module {}", name, module.name()));
    }
  }
  return out;
}

const char* Bool(bool b) { return b ? "true" : "false"; }

}  // namespace

std::string UseText(const ValueUse& use) {
  return fmt::format("{} operand {} {}", use.instruction->name(), use.operand_number,
                     ShapeIndexToString(use.operand_index));
}

std::string LiveRangeReasonText(const LiveRangeOrder& o, const HloValue& b) {
  switch (o.rule) {
    case LiveRangeRule::kBefore:
      return "";
    case LiveRangeRule::kLiveOut:
      return " (live out of the module)";
    case LiveRangeRule::kComputationRoot:
      return fmt::format(" (in the root of {}, which holds {})", o.computation->name(),
                         b.ToString());
    case LiveRangeRule::kReadAfter:
      return fmt::format(" (read by {} not before {})", UseText(*o.use), b.ToString());
    case LiveRangeRule::kNotInPlace:
      return fmt::format(" (read by {}, which cannot write {} into its buffer)", UseText(*o.use),
                         b.ToString());
    case LiveRangeRule::kEveryIteration:
      return fmt::format(" (read by {} on every iteration of {})", UseText(*o.use), o.loop->name());
    case LiveRangeRule::kDefinedAfter:
      return " (no uses, defined after)";
  }
  return "";
}

absl::StatusOr<std::string> PrintOrdering(const Module& module,
                                          const OrderingPrintOptions& options) {
  absl::StatusOr<std::vector<const Instruction*>> instrs = SelectedInstructions(module, options);
  if (!instrs.ok()) return instrs.status();
  absl::StatusOr<std::unique_ptr<ExecutionOrdering>> ordering = ExecutionOrdering::Run(module);
  if (!ordering.ok()) return ordering.status();
  // In SSA form the buffers are asked about too; the alias analysis's own dataflow then
  // answers everything, so value ids agree between the two.
  std::unique_ptr<AliasAnalysis> alias;
  std::unique_ptr<DataflowAnalysis> union_flow;
  const DataflowAnalysis* flow_ptr = nullptr;
  if (options.dataflow.ssa_form) {
    absl::StatusOr<std::unique_ptr<AliasAnalysis>> a = AliasAnalysis::Run(module, options.dataflow);
    if (!a.ok()) return a.status();
    alias = *std::move(a);
    flow_ptr = &alias->dataflow();
  } else {
    absl::StatusOr<std::unique_ptr<DataflowAnalysis>> f =
        DataflowAnalysis::Run(module, options.dataflow);
    if (!f.ok()) return f.status();
    union_flow = *std::move(f);
    flow_ptr = union_flow.get();
  }
  const DataflowAnalysis* flow = flow_ptr;
  ValueLiveness live(*flow, **ordering);

  std::string out =
      fmt::format("ordering: {}\n", (*ordering)->sequential() ? "sequential" : "dependency");
  for (const Instruction* a : *instrs) {
    for (const Instruction* b : *instrs) {
      if (a == b) continue;
      out += fmt::format("executes-before({}, {}): {}\n", a->name(), b->name(),
                         Bool((*ordering)->ExecutesBefore(*a, *b)));
    }
  }
  // The values the selected instructions define, in id order (the module's order).
  absl::flat_hash_set<const Instruction*> selected(instrs->begin(), instrs->end());
  std::vector<ValueId> values;
  for (const HloValue& v : flow->values()) {
    if (selected.contains(v.instruction)) values.push_back(v.id);
  }
  for (ValueId v : values) {
    out += fmt::format("uses({}):", flow->value(v).ToString());
    const char* sep = " ";
    for (const ValueUse& use : live.uses(v)) {
      out += sep;
      out += UseText(use);
      sep = ", ";
    }
    if (live.uses(v).empty()) out += " none";
    out += live.live_out(v) ? " (live out)\n" : "\n";
  }
  for (ValueId a : values) {
    const HloValue& va = flow->value(a);
    for (ValueId b : values) {
      const HloValue& vb = flow->value(b);
      if (a == b) {  // XLA's tests ask this too: a value interferes with itself
        out += fmt::format("may-interfere({}, {}): {}\n", va.ToString(), vb.ToString(),
                           Bool(live.MayInterfere(a, b)));
        continue;
      }
      const LiveRangeOrder o = live.StrictlyBefore(a, b);
      out += fmt::format("defined-before({}, {}): {}\n", va.ToString(), vb.ToString(),
                         Bool(live.IsDefinedBefore(a, b)));
      out += fmt::format("live-range-strictly-before({}, {}): {}{}\n", va.ToString(), vb.ToString(),
                         Bool(o.before()), LiveRangeReasonText(o, vb));
      out += fmt::format("may-interfere({}, {}): {}\n", va.ToString(), vb.ToString(),
                         Bool(live.MayInterfere(a, b)));
    }
  }
  if (alias == nullptr) return out;
  // XLA's alias tests ask whether any two values of one buffer may interfere: a buffer-safe
  // module has none (copy insertion's job), a swizzling loop does.
  absl::flat_hash_set<ValueId> asked(values.begin(), values.end());
  std::string pairs;
  for (const HloBuffer& buffer : alias->buffers()) {
    for (ValueId a : buffer.values) {
      for (ValueId b : buffer.values) {
        if (a >= b || !asked.contains(a) || !asked.contains(b) || !live.MayInterfere(a, b)) {
          continue;
        }
        pairs += fmt::format("same-buffer-interference(buffer {}: {}, {})\n", buffer.id,
                             flow->value(a).ToString(), flow->value(b).ToString());
      }
    }
  }
  out += fmt::format("values-in-same-buffer-interfere: {}\n", Bool(!pairs.empty()));
  out += pairs;
  return out;
}

absl::StatusOr<std::string> PrintSharing(const Module& module,
                                         const OrderingPrintOptions& options) {
  absl::StatusOr<std::vector<const Instruction*>> instrs = SelectedInstructions(module, options);
  if (!instrs.ok()) return instrs.status();
  std::string out;
  for (const Instruction* user : *instrs) {
    for (const InPlacePair& p : GetInPlaceInputOutputPairs(*user, options.dataflow)) {
      out += fmt::format("in-place({}): operand {} {} -> {}\n", user->name(),
                         p.input.operand_number, ShapeIndexToString(p.input.operand_index),
                         ShapeIndexToString(p.output_index));
    }
  }
  for (const Instruction* user : *instrs) {
    absl::flat_hash_set<const Instruction*> asked;
    for (const Instruction* operand : user->operands()) {
      if (!asked.insert(operand).second) continue;  // add(x, x) asks once about x
      ForEachSubshape(operand->shape(), [&](const Shape&, const ShapeIndex& operand_index) {
        ForEachSubshape(user->shape(), [&](const Shape&, const ShapeIndex& user_index) {
          out += fmt::format("can-share-operand-buffer({}{}, {}{}): {}\n", operand->name(),
                             ShapeIndexToString(operand_index), user->name(),
                             ShapeIndexToString(user_index),
                             Bool(CanShareOperandBufferWithUser(*operand, operand_index, *user,
                                                                user_index, options.dataflow)));
        });
      });
    }
  }
  return out;
}

}  // namespace hloscope
