// XLA's region-based interference test (copy_region_interference.h). The names follow XLA's
// copy_removal.cc so the two can be read side by side; the code is this project's.
#include "passes/copy_region_interference.h"

#include <map>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "analysis/in_place_pairs.h"
#include "analysis/ordering.h"
#include "fmt/format.h"
#include "hlo/module.h"

namespace hloscope {
namespace {

// XLA's Relation::RuntimeOrder: bits of where one region's instruction runs against another's.
enum Order : uint8_t {
  kNoOverlap = 0,
  kSameInstr = 1,
  kBeforeStart = 2,
  kBeforeStartOrSameInstr = kBeforeStart | kSameInstr,
  kAfterEnd = 4,
  kAfterEndOrSameInstr = kAfterEnd | kSameInstr,
  kBeforeStartOrAfterEnd = kBeforeStart | kAfterEnd,
  kBeforeOrAfterOrOverlap = kBeforeStart | kAfterEnd | kSameInstr,
};

Order Reverse(Order o) {
  switch (o) {
    case kBeforeStart:
      return kAfterEnd;
    case kBeforeStartOrSameInstr:
      return kAfterEndOrSameInstr;
    case kAfterEnd:
      return kBeforeStart;
    case kAfterEndOrSameInstr:
      return kBeforeStartOrSameInstr;
    default:
      return o;
  }
}

bool ImpliesOverlap(Order o) { return o >= kBeforeStartOrAfterEnd; }
bool UseImpliesInterception(Order use) {
  return use == kBeforeStart || use == kBeforeStartOrAfterEnd;
}
bool DefinitionImpliesInterception(Order def) {
  return def == kAfterEnd || def == kBeforeStartOrAfterEnd;
}

// One instruction of a live-range region: whether it defines one of the region's values, and
// the definition of the region's value it reads (nullptr when it reads none).
struct Entry {
  const Instruction* instruction = nullptr;
  const Instruction* value_definition = nullptr;
  bool is_definition = false;
};

// XLA's LiveRangeRegions: computations in the order first met, each with its instructions by
// unique id.
class Region {
 public:
  Entry& At(const Instruction& instr) {
    auto [it, added] = by_computation_.try_emplace(instr.parent());
    if (added) order_.push_back(instr.parent());
    Entry& e = it->second[instr.unique_id()];
    e.instruction = &instr;
    return e;
  }
  bool Contains(const Instruction& instr) const {
    auto it = by_computation_.find(instr.parent());
    return it != by_computation_.end() && it->second.contains(instr.unique_id());
  }
  const std::vector<const Computation*>& computations() const { return order_; }
  const std::map<uint32_t, Entry>& In(const Computation* c) const { return by_computation_.at(c); }

 private:
  std::vector<const Computation*> order_;
  absl::flat_hash_map<const Computation*, std::map<uint32_t, Entry>> by_computation_;
};

// What one direction of the analysis found (XLA's Relation, reduced to what ValuesInterfere
// reads: whether any instruction's placement overlaps, and whether any write intercepts).
struct Relation {
  bool overlap = false;
  bool intercept = false;
};

class RelativeLocation {
 public:
  explicit RelativeLocation(const ExecutionOrdering& ordering) : ordering_(ordering) {}

  // Where range2's instructions run against range1's (XLA's ComputeBetweenLiveRangeRegions).
  // Sets needs_edges_ where XLA would force an order with control edges.
  Relation Between(const Region& range1, const Region& range2) {
    Relation out;
    for (const Computation* c1 : range1.computations()) {
      for (const Computation* c2 : range2.computations()) {
        if (!Dominates(c1, c2)) continue;
        for (const auto& [id2, entry2] : range2.In(c2)) {
          const bool can_modify = CanIntercept(entry2, range1);
          bool has_order = false, intercept = false, unordered = false, unordered_intercept = false;
          int order = kNoOverlap;
          for (const auto& [id1, entry1] : range1.In(c1)) {
            const auto [o, i] = BetweenEntries(entry1, entry2, can_modify);
            if (o == kBeforeStartOrAfterEnd) {
              unordered = true;
              unordered_intercept = unordered_intercept || i;
            } else {
              order |= o;
              has_order = true;
              intercept = intercept || i;
            }
          }
          if (unordered) {
            // XLA orders the unordered pairs with control edges when the others agree on one
            // side (ForceRuntimeOrder); this keeps the copy instead.
            const int desired = has_order ? order : kNoOverlap;
            if (desired == kBeforeStart || desired == kAfterEnd) {
              needs_edges_ = true;
            } else {
              order |= kBeforeStartOrAfterEnd;
              intercept = intercept || unordered_intercept;
            }
          }
          out.overlap = out.overlap || ImpliesOverlap(static_cast<Order>(order));
          out.intercept = out.intercept || intercept;
        }
      }
    }
    return out;
  }
  bool needs_edges() const { return needs_edges_; }

 private:
  // XLA's CallGraph::Dominates for computations with unique callers (the caller is checked to
  // be unique before: RegionInterference refuses shared computations).
  bool Dominates(const Computation* c1, const Computation* c2) const {
    for (const Computation* c = c2; c != nullptr;) {
      if (c == c1) return true;
      const Instruction* caller = ordering_.CallerOf(*c);
      c = caller == nullptr ? nullptr : caller->parent();
    }
    return false;
  }

  bool NestedInCallee(const Instruction& inner, const Instruction& call) const {
    if (inner.parent() == call.parent()) return false;
    for (const Computation* c : call.called_computations()) {
      if (ordering_.IsNestedIn(inner, *c)) return true;
    }
    return false;
  }

  // XLA's HloOrdering::GetExecutionConstraint turned into an order (ComputeRuntimeOrdering).
  Order Constraint(const Instruction& a, const Instruction& b) const {
    // An async op and the instruction it wraps are one operation (XLA's kIsSame).
    if (&a == &b || ExecutionOrdering::AsyncWrappedInstruction(a) == &b ||
        ExecutionOrdering::AsyncWrappedInstruction(b) == &a) {
      return kSameInstr;
    }
    if (ordering_.MutuallyExclusive(a, b)) return kNoOverlap;  // kRunExclusiveBefore/After
    // Inside a conditional's branch: runs before the conditional ends.
    if (b.opcode() == Opcode::kConditional && NestedInCallee(a, b)) return kBeforeStartOrSameInstr;
    if (a.opcode() == Opcode::kConditional && NestedInCallee(b, a)) return kAfterEnd;
    const ExecutionOrdering::CommonCaller common = ordering_.InnermostCommonCaller(a, b);
    if (common.caller != nullptr && common.caller->opcode() == Opcode::kWhile &&
        a.parent() != b.parent()) {
      const Instruction& loop = *common.caller;
      const bool a_cond = ordering_.IsNestedIn(a, *loop.while_condition());
      const bool b_body = ordering_.IsNestedIn(b, *loop.while_body());
      const bool a_body = ordering_.IsNestedIn(a, *loop.while_body());
      const bool b_cond = ordering_.IsNestedIn(b, *loop.while_condition());
      if (a_cond && b_body) return kBeforeStartOrSameInstr;  // kRunBeforeEnd
      if (a_body && b_cond) return kBeforeStartOrAfterEnd;   // XLA leaves it unordered
    }
    if (ordering_.ExecutesBefore(a, b)) return kBeforeStart;
    if (ordering_.ExecutesBefore(b, a)) return kAfterEnd;
    return kBeforeStartOrAfterEnd;
  }

  // XLA's ComputeRuntimeOrdering with its memo: a pair asked the other way round first is
  // answered as the reverse of that answer (which differs from asking afresh for an
  // instruction inside a conditional). Unordered answers are not remembered.
  Order RuntimeOrdering(const Instruction& a, const Instruction& b) {
    if (auto it = saved_.find({&b, &a}); it != saved_.end()) return it->second;
    if (auto it = saved_.find({&a, &b}); it != saved_.end()) return Reverse(it->second);
    const Order o = Constraint(a, b);
    if (o != kBeforeStartOrAfterEnd) saved_[{&b, &a}] = o;
    return o;
  }

  // XLA's AlwaysForceInterception: asynchronous starts and dones, collective-permute.
  static bool AlwaysIntercepts(const Instruction& instr) {
    const Opcode op = instr.opcode();
    return HasFlag(op, kOpAsyncStart) || HasFlag(op, kOpAsyncDone) || op == Opcode::kSend ||
           op == Opcode::kRecv || op == Opcode::kSendDone || op == Opcode::kRecvDone ||
           op == Opcode::kCollectivePermute;
  }

  // XLA's InstructionCanIntercept: whether the instruction may write a new value into the
  // combined buffer.
  static bool CanIntercept(const Entry& entry, const Region& region) {
    const Instruction& instr = *entry.instruction;
    if (!entry.is_definition) {
      for (const InPlacePair& pair : GetInPlaceInputOutputPairs(instr)) {
        if (region.Contains(*instr.operand(pair.input.operand_number))) return true;
      }
      return false;
    }
    switch (instr.opcode()) {
      case Opcode::kCopy: {
        const Instruction* operand = instr.operand(0);
        if (operand->opcode() == Opcode::kGetTupleElement) operand = operand->operand(0);
        return !(region.Contains(*operand) && instr.shape() == instr.operand(0)->shape());
      }
      case Opcode::kParameter:
      case Opcode::kTuple:
      case Opcode::kGetTupleElement:
      case Opcode::kWhile:
      case Opcode::kCall:
      case Opcode::kConditional:
        return false;
      default:
        return true;
    }
  }

  // XLA's ComputeBetweenInstructionEntries: where entry2 runs against entry1, and whether it
  // intercepts entry1's def-use chain.
  std::pair<Order, bool> BetweenEntries(const Entry& entry1, const Entry& entry2, bool can_modify) {
    const Instruction* def = entry1.value_definition;
    const Instruction& use = *entry1.instruction;
    const Instruction& instr2 = *entry2.instruction;
    Order order = RuntimeOrdering(instr2, use);
    if (order == kSameInstr && entry1.is_definition != entry2.is_definition) {
      order = entry1.is_definition ? kBeforeStart : kAfterEnd;
    }
    const bool always = AlwaysIntercepts(instr2);
    if (def == nullptr || !can_modify) return {order, always};
    // A parameter returned by its computation's root: any write intercepts.
    if (def->opcode() == Opcode::kParameter && use.IsRoot()) return {order, true};
    // A write inside a while body does not intercept a chain around the while.
    // (Evaluated in XLA's order: the memo makes a later reversed question depend on it.)
    if (use.parent() == def->parent() && RuntimeOrdering(use, instr2) == kAfterEnd &&
        def->opcode() == Opcode::kWhile && instr2.parent() == def->while_body()) {
      return {order, false};
    }
    if (use.parent() == def->parent() && RuntimeOrdering(*def, instr2) == kBeforeStart &&
        use.opcode() == Opcode::kWhile && instr2.parent() == use.while_body()) {
      return {order, false};
    }
    // A multi-output instruction in a conditional's branch: its outputs always intercept.
    if (use.parent() == def->parent() && def == &instr2 && def->shape().IsTuple()) {
      const Instruction* caller = ordering_.CallerOf(*def->parent());
      if (caller != nullptr && caller->opcode() == Opcode::kConditional) return {order, true};
    }
    bool intercept = always;
    if (UseImpliesInterception(order) &&
        DefinitionImpliesInterception(RuntimeOrdering(instr2, *def))) {
      intercept = true;
    }
    return {order, intercept};
  }

  const ExecutionOrdering& ordering_;
  // Keyed (second, first) as XLA's saved_relations_[entry2][entry1].
  absl::flat_hash_map<std::pair<const Instruction*, const Instruction*>, Order> saved_;
  bool needs_edges_ = false;
};

// The values a conditional's phi merges, through nested conditional phis (XLA's copy
// insertion analyses without phis: those values share the phi's positions and uses). False
// for a while's phi, which this does not model.
bool PhiInputs(const DataflowAnalysis& flow, ValueId phi, std::vector<ValueId>& out,
               absl::flat_hash_set<ValueId>& seen) {
  if (!seen.insert(phi).second) return true;
  const HloValue& hv = flow.value(phi);
  if (hv.instruction->opcode() != Opcode::kConditional) return false;
  const ShapeIndex index(hv.index.begin(), hv.index.end());
  for (const Computation* branch : hv.instruction->branch_computations()) {
    for (ValueId v : flow.ValuesAt(*branch->root(), index)) {
      if (!flow.value(v).is_phi) {
        out.push_back(v);
      } else if (!PhiInputs(flow, v, out, seen)) {
        return false;
      }
    }
  }
  return true;
}

// XLA's ComputeLiveRangeRegions: each value's definition, and each use with the definition it
// reads. A computation root that holds a value at a position other than its definition reads
// it (XLA counts roots as uses). Values are visited from the list's start, so a use read from
// two values keeps the later one's definition, as in XLA; a conditional's phi is no value
// there, and its uses are those of the values it merges (the last of them visited decides).
std::optional<std::string> Build(const ValueLiveness& live, absl::Span<const ValueId> values,
                                 Region& region) {
  const DataflowAnalysis& flow = live.dataflow();
  const ExecutionOrdering& ordering = live.ordering();
  auto check_computation = [&](const Computation& c) -> std::optional<std::string> {
    if (&c != c.module()->entry() && ordering.CallerOf(c) == nullptr) {
      return fmt::format("%{} has several callers", c.name());
    }
    return std::nullopt;
  };
  auto add_uses = [&](ValueId v, const Instruction& def) -> std::optional<std::string> {
    for (const ValueUse& use : live.uses(v)) {
      if (auto p = check_computation(*use.instruction->parent())) return p;
      region.At(*use.instruction).value_definition = &def;
    }
    for (const Computation* c : live.roots_of(v)) {
      if (c->root() != flow.value(v).instruction) region.At(*c->root()).value_definition = &def;
    }
    return std::nullopt;
  };
  absl::flat_hash_map<ValueId, size_t> visit;  // non-phi values: their place in the visit
  for (ValueId v : values) {
    const HloValue& hv = flow.value(v);
    if (hv.is_phi) continue;
    visit[v] = visit.size();
    const Instruction& def = *hv.instruction;
    if (auto p = check_computation(*def.parent())) return p;
    region.At(def).is_definition = true;
    if (auto p = add_uses(v, def)) return p;
  }
  for (ValueId v : values) {
    if (!flow.value(v).is_phi) continue;
    std::vector<ValueId> inputs;
    absl::flat_hash_set<ValueId> seen;
    if (!PhiInputs(flow, v, inputs, seen)) {
      return fmt::format("{} is a loop's phi", flow.value(v).ToString());
    }
    const Instruction* last = nullptr;
    size_t last_at = 0;
    for (ValueId in : inputs) {
      auto it = visit.find(in);
      if (it != visit.end() && (last == nullptr || it->second >= last_at)) {
        last = flow.value(in).instruction;
        last_at = it->second;
      }
    }
    if (last == nullptr)
      return fmt::format("{} merges no value of its buffer", flow.value(v).ToString());
    if (auto p = add_uses(v, *last)) return p;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> RegionInterference(const ValueLiveness& live,
                                              absl::Span<const ValueId> source,
                                              absl::Span<const ValueId> dest, RegionMerge merge) {
  Region src_range, dest_range;
  if (auto p = Build(live, source, src_range)) return p;
  if (auto p = Build(live, dest, dest_range)) return p;
  RelativeLocation location(live.ordering());
  const Relation rel1 = location.Between(src_range, dest_range);  // dest against source
  const Relation rel2 = location.Between(dest_range, src_range);  // source against dest
  if (location.needs_edges()) return std::string("unordered instructions would need control edges");
  if (rel1.overlap && rel2.overlap) return std::string("the two live ranges overlap each other");
  if (rel1.overlap &&
      (rel1.intercept || (merge != RegionMerge::kFirstDestInSource && rel2.intercept))) {
    return std::string("a write in the destination's range intercepts the source's");
  }
  if (rel2.overlap &&
      (rel2.intercept || (merge != RegionMerge::kLastSourceInDest && rel1.intercept))) {
    return std::string("a write in the source's range intercepts the destination's");
  }
  return std::nullopt;
}

}  // namespace hloscope
