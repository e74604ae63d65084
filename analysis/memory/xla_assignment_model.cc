#include "analysis/memory/xla_assignment_model.h"

#include <algorithm>
#include <deque>
#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

#include "absl/algorithm/container.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "analysis/alias.h"
#include "analysis/call_graph.h"
#include "analysis/in_place_pairs.h"
#include "analysis/memory/xla_gpu_buffer_sharing.h"
#include "fmt/format.h"
#include "hlo/computation.h"
#include "hlo/input_output_alias.h"
#include "support/checked_int.h"

namespace hloscope {
namespace {

enum class Scope : uint8_t { kNone, kGlobal, kThreadLocal };

// Global computations (control flow from the entry), thread-local ones (called by reduce, map,
// sort, ... from those), and the rest (fusion bodies and what they call; unreachable ones).
absl::flat_hash_map<const Computation*, Scope> Scopes(const Module& module) {
  absl::flat_hash_map<const Computation*, Scope> scope;
  std::deque<const Computation*> work;
  scope[module.entry()] = Scope::kGlobal;
  work.push_back(module.entry());
  while (!work.empty()) {
    const Computation* c = work.front();
    work.pop_front();
    const Scope here = scope[c];
    for (const Instruction* in : c->instructions()) {
      for (const Computation* callee : in->called_computations()) {
        Scope s = Scope::kNone;
        // A fusion's body is not assigned (its values live in registers), also when the
        // fusion runs asynchronously: the short form `fusion-start(...), calls=body` that XLA
        // prints for an async-start wrapping a fusion names the body itself.
        const bool fusion_body =
            in->opcode() == Opcode::kFusion ||
            (in->opcode() == Opcode::kAsyncStart && in->async_wrapped_opcode() == Opcode::kFusion);
        if (!fusion_body) {
          s = here == Scope::kGlobal && CallContextOf(*in, *callee) == CallContext::kControlFlow
                  ? Scope::kGlobal
                  : Scope::kThreadLocal;
        }
        if (in->opcode() == Opcode::kAsyncUpdate || in->opcode() == Opcode::kAsyncDone) continue;
        auto [it, inserted] = scope.emplace(callee, s);
        if (!inserted) {
          if (static_cast<int>(s) <= static_cast<int>(it->second) || it->second == Scope::kGlobal) {
            continue;
          }
          it->second = s;
        }
        work.push_back(callee);
      }
    }
  }
  return scope;
}

std::string ValueName(const HloValue& v) {
  std::string name(v.instruction->name());
  if (!v.index.empty()) name += ShapeIndexToString(v.index);
  return name;
}

// XLA's HloComputation::MakeInstructionPostOrder: a depth-first walk from each instruction
// without users, in the computation's order, operands first to last, control predecessors
// before them (they are pushed last), each instruction after what it reads.
std::vector<const Instruction*> XlaInstructionPostOrder(const Computation& c) {
  std::vector<const Instruction*> out;
  absl::flat_hash_set<const Instruction*> done, entered;
  std::vector<const Instruction*> stack;
  for (const Instruction* root : c.instructions()) {
    if (!root->users().empty()) continue;
    stack.push_back(root);
    while (!stack.empty()) {
      const Instruction* at = stack.back();
      if (done.contains(at)) {
        stack.pop_back();
        continue;
      }
      if (!entered.insert(at).second) {
        stack.pop_back();
        done.insert(at);
        out.push_back(at);
        continue;
      }
      for (auto it = at->operands().rbegin(); it != at->operands().rend(); ++it) {
        if (!done.contains(*it)) stack.push_back(*it);
      }
      for (const Instruction* p : at->control_predecessors()) {
        if (!done.contains(p)) stack.push_back(p);
      }
    }
  }
  return out;
}

class Assigner {
 public:
  Assigner(const Module& module, const AliasAnalysis& alias, const XlaLiveRanges& ranges,
           const XlaModelOptions& options)
      : module_(module),
        alias_(alias),
        flow_(alias.dataflow()),
        ranges_(ranges),
        options_(options),
        gpu_sharing_(options.gpu_buffer_sharing.value_or(LooksLikeXlaGpuModule(module))) {}

  absl::StatusOr<XlaModelAssignment> Run() {
    scopes_ = Scopes(module_);
    for (const InputOutputAlias& a : module_.input_output_aliases()) {
      donated_.insert({a.parameter, ShapeIndexToString(a.parameter_index)});
    }
    allocation_of_value_.assign(flow_.values().size(), -1);
    // Positions of every value (the output shape of an allocation asks for the root's; sharing
    // with a user asks for each).
    positions_.resize(flow_.values().size());
    for (const Computation* c : module_.computations()) {
      for (const Instruction* in : c->instructions()) {
        for (int32_t p = 0; p < flow_.PositionCount(*in); ++p) {
          for (ValueId v : flow_.ValuesAtPosition(*in, p)) positions_[v].push_back({in, p});
        }
      }
    }
    // Post order: callers' computations first, each in operand-first order.
    {
      int64_t position = 0;
      absl::flat_hash_set<const Computation*> placed;
      for (const XlaOrderNode& node : XlaComputationOrder()) {
        if (node.wrapping != nullptr) {
          wrapped_position_[node.wrapping] = position++;
          continue;
        }
        placed.insert(node.computation);
        for (const Instruction* in : XlaInstructionPostOrder(*node.computation)) {
          post_order_[in] = position++;
        }
      }
      for (const Computation* c : module_.computations()) {
        if (placed.contains(c)) continue;
        for (const Instruction* in : XlaInstructionPostOrder(*c)) post_order_[in] = position++;
      }
    }
    std::vector<const HloBuffer*> global, thread_local_buffers;
    for (const HloBuffer& b : alias_.buffers()) {
      const Computation* c = flow_.value(b.values.front()).instruction->parent();
      auto it = scopes_.find(c);
      const Scope s = it == scopes_.end() ? Scope::kNone : it->second;
      if (s == Scope::kGlobal) global.push_back(&b);
      if (s == Scope::kThreadLocal) thread_local_buffers.push_back(&b);
    }
    // As XLA's RunAssignBuffers: the global computations' buffers, their temporaries' heap,
    // then the thread-local computations' buffers (the order the allocations are made in
    // decides where CombineTemporaries puts each).
    for (auto* list : {&global, &thread_local_buffers}) {
      std::vector<const HloBuffer*>& buffers = *list;
      // Each buffer's key computed once: FirstPosition and XlaBufferRank walk all of its
      // values, which the comparator would otherwise do at every comparison. XlaBufferRank is
      // unique per buffer, so the order is total.
      using Key = std::tuple<int64_t, bool, int64_t, int64_t>;
      std::vector<std::pair<Key, ToAssign>> keyed;
      keyed.reserve(buffers.size());
      for (const HloBuffer* b : buffers) {
        keyed.push_back(
            {Key(-b->bytes, !b->live_out, FirstPosition(*b), XlaBufferRank(*b)), {b, kNoValue}});
        if (list != &global) continue;
        // A wrapped tuple-shaped collective's own table is a buffer of XLA's wrapped
        // computation: it takes its turn in the same order (no live-out, the wrapped
        // computation's position, its value's id: the root's table before its elements).
        for (const ValueId table : WrappedTupleTablesOf(*b)) {
          keyed.push_back(
              {Key(-b->bytes, true, wrapped_position_.at(flow_.value(table).instruction),
                   XlaValueRanks()[table]),
               {b, table}});
        }
      }
      std::sort(keyed.begin(), keyed.end(),
                [](const auto& a, const auto& b) { return a.first < b.first; });
      reusable_.clear();
      for (const auto& [key, item] : keyed) {
        if (item.wrapped_table != kNoValue) {
          AddWrappedTupleTable(*item.buffer, item.wrapped_table);
          continue;
        }
        AssignOne(*item.buffer, list == &thread_local_buffers);
      }
      if (list == &global) PackTemporaries();
    }
    CombineTemporaries();
    out_.value_allocation = allocation_of_value_;
    out_.timeline = ranges_.sequence;
    for (XlaModelAllocation& a : out_.allocations) {
      XlaModelTotals& t = out_.totals;
      if (a.parameter) t.parameter_bytes += a.size;
      if (a.constant) t.constant_bytes += a.size;
      if (a.maybe_live_out) t.maybe_live_out_bytes += a.size;
      if (a.thread_local_) t.thread_local_bytes += a.size;
      if (a.preallocated_temp) t.preallocated_temp_bytes += a.size;
      t.total_bytes += a.size;
    }
    out_.totals.total_fragmentation_bytes = out_.totals.total_bytes - MinimumMemoryForModule();
    return std::move(out_);
  }

 private:
  // One turn of the buffer order: a buffer to assign, or (wrapped_table set) the wrapped tuple
  // table that the async-start's {1} value `wrapped_table` of `buffer` stands for.
  struct ToAssign {
    const HloBuffer* buffer;
    ValueId wrapped_table;
  };

  struct Allocation {
    std::vector<ValueId> values;
    // The values' live ranges by (start, end, id). Values assigned to one allocation never
    // interfere, so their ranges at most touch: by start they are also by end, and the values
    // a new range [s, e] can meet are the last ones starting at or before e, back to the first
    // that ends before s. Only the values of an allocation's first buffer may overlap (a value
    // off the timeline counts as live throughout): then `disjoint` is false and every value is
    // checked.
    std::set<std::tuple<int64_t, int64_t, ValueId>> ranges;
    bool disjoint = true;
    bool readonly = false;
    bool reusable = true;
  };

  // XLA's HloBuffer ids follow its values' ids: a buffer ranks by its lowest value's.
  int64_t XlaBufferRank(const HloBuffer& b) {
    const std::vector<int64_t>& rank = XlaValueRanks();
    int64_t lowest = std::numeric_limits<int64_t>::max();
    for (ValueId v : b.values) lowest = std::min(lowest, rank[v]);
    return lowest;
  }

  // Whether `in` is an async-start in the short form (`reduce-scatter-start`) around an op XLA
  // holds in a wrapped computation of its own (not a call or fusion, whose computations the
  // model has).
  static bool WrapsOpInOwnComputation(const Instruction& in) {
    if (in.opcode() != Opcode::kAsyncStart) return false;
    const Opcode wrapped = in.async_wrapped_opcode();
    return wrapped != Opcode::kOpcodeCount && wrapped != Opcode::kCall &&
           wrapped != Opcode::kFusion;
  }

  // Whether `v` is the value of an op a short-form async-start wraps (`reduce-scatter-start`:
  // its output element {1, ...}, but for the {1} table of a tuple result, which the
  // async-start defines itself): XLA defines it in the wrapped computation.
  bool DefinedInWrappedComputation(const HloValue& v) const {
    if (v.is_phi || v.index.empty() || v.index[0] != 1) return false;
    if (!WrapsOpInOwnComputation(*v.instruction)) return false;
    return !(v.index.size() == 1 && v.shape->IsTuple());
  }

  // A computation of XLA's buffer order, or (`wrapping` set) the computation XLA wraps that
  // short-form async-start's op in, which our module does not hold.
  struct XlaOrderNode {
    const Computation* computation = nullptr;
    const Instruction* wrapping = nullptr;
  };

  // XLA's buffer order ranks a buffer by the post-order position of its first value's
  // instruction, over the global computations in the reverse of CallGraph::VisitNodes's order:
  // a depth-first walk from the entry that visits each computation's callees in the order of
  // its in-memory instruction list (CallSitesInXlaOrder), each computation after its callees.
  // Here the walk follows the synchronous control flow (while, conditional, call), and each
  // short-form async-start that wraps an op in a computation of its own stands for that
  // computation where it calls it. Reversed, the entry comes first, and a wrapped computation
  // lands after its caller and after the callees of the call sites that follow its async-start
  // (the later call site's first). On the MaxText train step the wrapped computation of the
  // entry's reduce-scatter-start.4 ranks before the layer loop's body, those of the body's
  // reduce-scatters after it, and their tuple tables take XLA's places among the temp
  // allocation's parts.
  std::vector<XlaOrderNode> XlaComputationOrder() const {
    std::vector<XlaOrderNode> out;
    absl::flat_hash_set<const Computation*> seen;
    // (computation, its call sites in XLA's order, the next to look at): no recursion, so a
    // deep call chain cannot exhaust the stack.
    struct Frame {
      const Computation* computation;
      std::vector<const Instruction*> sites;
      size_t next = 0;
    };
    std::vector<Frame> stack;
    seen.insert(module_.entry());
    stack.push_back({module_.entry(), CallSitesInXlaOrder(*module_.entry())});
    while (!stack.empty()) {
      Frame& frame = stack.back();
      if (frame.next == frame.sites.size()) {
        out.push_back({frame.computation, nullptr});
        stack.pop_back();
        continue;
      }
      const Instruction* in = frame.sites[frame.next++];
      if (WrapsOpInOwnComputation(*in)) {
        out.push_back({nullptr, in});
        continue;
      }
      // The callees in the order the instruction names them, pushed last first so the first
      // is walked first; each is done before the next call site is looked at (`frame` is not
      // used after the pushes, which may move it).
      const auto callees = in->called_computations();
      for (auto it = callees.rbegin(); it != callees.rend(); ++it) {
        if (seen.insert(*it).second) stack.push_back({*it, CallSitesInXlaOrder(**it)});
      }
    }
    std::reverse(out.begin(), out.end());
    return out;
  }

  // The instructions of `c` XlaComputationOrder walks into: synchronous control flow and the
  // short-form async-starts that stand for a wrapped computation. In XLA's in-memory order,
  // by XlaModelOptions::instruction_ids, when every one of them has an id; else in the
  // module's. On the MaxText train step, read back in schedule order, the entry's
  // `reduce-scatter-start.4` (XLA's id 65158) comes before the layer loop `while.7.0` (id
  // 9483), which XLA made long before it: by the module's order its wrapped computation ranked
  // after the loop body, and its tuple table sat among the body's, 1,792 bytes from XLA's.
  std::vector<const Instruction*> CallSitesInXlaOrder(const Computation& c) const {
    std::vector<const Instruction*> sites;
    for (const Instruction* in : c.instructions()) {
      if (WrapsOpInOwnComputation(*in) || (CallContextOf(*in) == CallContext::kControlFlow &&
                                           in->opcode() != Opcode::kAsyncStart)) {
        sites.push_back(in);
      }
    }
    const absl::flat_hash_map<std::string, int64_t>& ids = options_.instruction_ids;
    if (ids.empty() || sites.size() < 2) return sites;
    std::vector<std::pair<int64_t, const Instruction*>> by_id;
    by_id.reserve(sites.size());
    for (const Instruction* in : sites) {
      auto it = ids.find(std::string(in->name()));
      if (it == ids.end()) return sites;
      by_id.push_back({it->second, in});
    }
    std::stable_sort(by_id.begin(), by_id.end(),
                     [](const auto& x, const auto& y) { return x.first < y.first; });
    for (size_t i = 0; i < sites.size(); ++i) sites[i] = by_id[i].second;
    return sites;
  }

  int64_t PositionOf(ValueId v) const {
    const HloValue& hv = flow_.value(v);
    if (DefinedInWrappedComputation(hv)) {
      auto it = wrapped_position_.find(hv.instruction);
      if (it != wrapped_position_.end()) return it->second;
    }
    auto it = post_order_.find(hv.instruction);
    return it == post_order_.end() ? std::numeric_limits<int64_t>::max() : it->second;
  }

  int64_t FirstPosition(const HloBuffer& b) const {
    int64_t first = std::numeric_limits<int64_t>::max();
    for (ValueId v : b.values) first = std::min(first, PositionOf(v));
    return first;
  }

  XlaLiveRange RangeOf(ValueId v) const {
    const XlaLiveRange& r = ranges_.ranges[v];
    if (r.defined) return r;
    // Off the timeline (another execution thread): live throughout, never shared.
    return {true, 0, ranges_.end_time(), nullptr, 0};
  }

  // XLA's LiveRangeInterferes.
  bool Interferes(ValueId a, ValueId b) const {
    const XlaLiveRange ra = RangeOf(a), rb = RangeOf(b);
    if (ra.start > rb.end || rb.start > ra.end) return false;
    if (ra.end == rb.start) return !CanShareAsOperand(b, a);
    if (rb.end == ra.start) return !CanShareAsOperand(a, b);
    return true;
  }

  // Whether the user's instruction may write over the operand value where their ranges touch:
  // it reads the value at one of the value's positions (not necessarily the latest, which may
  // be inside a loop the value also flows through) and may share that position's buffer. XLA
  // asks every position since 183fa00cb5 (IntermediateValueWithMultiplePositionsCanBeReused);
  // before, only the range's end position.
  bool CanShareAsOperand(ValueId user, ValueId operand) const {
    const HloValue& u = flow_.value(user);
    // A value off the timeline (another execution thread) shares nothing.
    if (RangeOf(operand).end_instruction == nullptr || u.instruction->opcode() == Opcode::kCopy) {
      return false;
    }
    const auto users_of = [&](const Instruction& in) {
      const auto users = in.users();
      return std::find(users.begin(), users.end(), u.instruction) != users.end();
    };
    for (const auto& [at, p] : positions_[operand]) {
      if (users_of(*at) && CanShare(*at, flow_.IndexAt(*at, p), *u.instruction, u.index)) {
        return true;
      }
    }
    return false;
  }

  // XLA's HloDataflowAnalysis::CanShareOperandBufferWithUser, with XLA:GPU's hint when the
  // model models XLA:GPU.
  bool CanShare(const Instruction& operand, const ShapeIndex& operand_index,
                const Instruction& user, const ShapeIndex& user_index) const {
    if (gpu_sharing_) {
      return XlaGpuCanShareOperandBufferWithUser(operand, operand_index, user, user_index,
                                                 flow_.options());
    }
    if (operand.opcode() == Opcode::kConstant) return false;
    if (std::optional<bool> slices =
            XlaSliceInputFusionShare(operand, operand_index, user, user_index)) {
      return *slices;
    }
    return CanShareOperandBufferWithUser(operand, operand_index, user, user_index, flow_.options());
  }

  bool MaybeAssign(size_t index, const HloBuffer& b) {
    Allocation& a = allocations_[index];
    XlaModelAllocation& m = out_.allocations[index];
    if (b.bytes > m.size || a.readonly || !a.reusable) return false;
    if (SpaceOf(b) != m.memory_space) return false;
    for (ValueId v : b.values) {
      const XlaLiveRange r = RangeOf(v);
      if (a.disjoint) {
        auto it = a.ranges.upper_bound({r.end, std::numeric_limits<int64_t>::max(), kNoValue});
        while (it != a.ranges.begin()) {
          --it;
          if (std::get<1>(*it) < r.start) break;
          if (Interferes(v, std::get<2>(*it))) return false;
        }
      } else {
        for (ValueId assigned : a.values) {
          if (Interferes(v, assigned)) return false;
        }
      }
      // A copy never shares with a value it reads.
      const Instruction* copy = flow_.value(v).instruction;
      if (copy->opcode() == Opcode::kCopy) {
        for (const Instruction* op : copy->operands()) {
          for (int32_t q = 0; q < flow_.PositionCount(*op); ++q) {
            for (ValueId u : flow_.ValuesAtPosition(*op, q)) {
              if (allocation_of_value_[u] == static_cast<int64_t>(index)) return false;
            }
          }
        }
      }
    }
    if (b.live_out && m.size != b.bytes) return false;
    Add(index, b);
    return true;
  }

  int64_t SpaceOf(const HloBuffer& b) const {
    int64_t space = 0;
    for (ValueId v : b.values) {
      const Shape& s = *flow_.value(v).shape;
      if (s.IsArray()) space = std::max(space, s.layout.memory_space);
    }
    return space;
  }

  size_t NewAllocation(const HloBuffer& b) {
    XlaModelAllocation m;
    m.index = static_cast<int64_t>(out_.allocations.size());
    m.size = b.bytes;
    m.memory_space = SpaceOf(b);
    out_.allocations.push_back(std::move(m));
    allocations_.emplace_back();
    Add(out_.allocations.size() - 1, b);
    // XLA's NewAllocation names the buffer's first value as the allocation's peak buffer; the
    // buffers that later reuse the allocation leave it as it is.
    out_.allocations.back().peak_values.push_back(ValueName(flow_.value(b.values.front())));
    return out_.allocations.size() - 1;
  }

  void Add(size_t index, const HloBuffer& b) {
    XlaModelAllocation& m = out_.allocations[index];
    Allocation& a = allocations_[index];
    for (ValueId v : b.values) {
      a.values.push_back(v);
      const XlaLiveRange r = RangeOf(v);
      if (a.disjoint && !a.ranges.empty()) {
        // Within the first buffer's values (later buffers are checked before they are added).
        auto next = a.ranges.lower_bound({r.start, r.end, v});
        if (next != a.ranges.end() && std::get<0>(*next) < r.end) a.disjoint = false;
        if (next != a.ranges.begin() && std::get<1>(*std::prev(next)) > r.start) {
          a.disjoint = false;
        }
      }
      a.ranges.insert({r.start, r.end, v});
      allocation_of_value_[v] = static_cast<int64_t>(index);
      m.values.push_back(ModelValue(v, 0, b.bytes));
      for (const auto& [at, unused_position] : positions_[v]) {
        if (at == module_.entry()->root() && flow_.IndexAt(*at, 0).empty() &&
            !flow_.ValuesAtPosition(*at, 0).empty() && flow_.ValuesAtPosition(*at, 0)[0] == v) {
          m.output_shape = at->shape().ToString(/*print_layout=*/false);
        }
      }
    }
    if (b.live_out) m.maybe_live_out = true;
    assigned_.insert(b.id);
    allocation_of_[b.id] = index;
  }

  XlaModelValue ModelValue(ValueId v, int64_t offset, int64_t size) const {
    const HloValue& hv = flow_.value(v);
    XlaModelValue out{ValueName(hv),        offset,   size, static_cast<int64_t>(v),
                      hv.shape->ToString(), hv.is_phi};
    const XlaLiveRange r = RangeOf(v);
    out.start = r.start;
    out.end = r.end;
    out.buffer = alias_.BufferOf(v).id;
    return out;
  }

  // An async-start in the short form (`reduce-scatter-start(...)`, no wrapped computation in
  // our module) whose wrapped op returns a tuple: XLA holds that op in a computation of its
  // own, where it defines its own tuple table beside the async-start's {1}; the dumps' XLA
  // assignments have one such temporary table per wrapped tuple (the MaxText train step's
  // five reduce-scatters, 640 bytes at alignment 128; Pax's four, 1,152 bytes). The async-start's
  // {1} value in buffer `b` stands for it (none: `b` holds no such value). The table is a buffer of
  // the wrapped computation in XLA, so it is made in XLA's buffer order, ranked at the wrapped
  // computation's position (XlaComputationOrder): where it is made decides its place among the
  // temp allocation's parts, so its offset (made right after the {1} table's, the MaxText
  // train step had 18 tables and Pax 64 at another offset than XLA's).
  std::vector<ValueId> WrappedTupleTablesOf(const HloBuffer& b) const {
    std::vector<ValueId> out;
    for (ValueId v : b.values) {
      const HloValue& hv = flow_.value(v);
      if (hv.is_phi || hv.index.size() != 1 || hv.index[0] != 1) continue;
      const Instruction* in = hv.instruction;
      if (!WrapsOpInOwnComputation(*in) || !wrapped_position_.contains(in)) continue;
      if (hv.shape->IsTuple()) out.push_back(v);
    }
    return out;
  }

  // The wrapped table of v, one of WrappedTupleTablesOf(b): a temp tuple-table allocation of the
  // {1} table's size, named `<start>{1}.wrapped`.
  void AddWrappedTupleTable(const HloBuffer& b, ValueId v) {
    XlaModelAllocation m;
    m.index = static_cast<int64_t>(out_.allocations.size());
    m.size = b.bytes;
    m.memory_space = SpaceOf(b);
    m.tuple = true;
    m.preallocated_temp = true;
    XlaModelValue value = ModelValue(v, 0, b.bytes);
    value.name += ".wrapped";
    value.buffer = -1;
    m.peak_values.push_back(value.name);
    m.values.push_back(std::move(value));
    out_.allocations.push_back(std::move(m));
    allocations_.emplace_back();
    allocations_.back().reusable = false;
  }

  void AssignOne(const HloBuffer& b, bool thread_local_buffer) {
    for (ValueId v : b.values) {
      const HloValue& hv = flow_.value(v);
      if (!hv.is_phi && hv.instruction->opcode() == Opcode::kConstant) {
        const size_t i = NewAllocation(b);
        out_.allocations[i].constant = true;
        allocations_[i].readonly = true;
        return;
      }
    }
    for (ValueId v : b.values) {
      const HloValue& hv = flow_.value(v);
      const Instruction* in = hv.instruction;
      if (hv.is_phi || in->opcode() != Opcode::kParameter || in->parent() != module_.entry()) {
        continue;
      }
      const size_t i = NewAllocation(b);
      XlaModelAllocation& m = out_.allocations[i];
      m.parameter = true;
      m.parameter_number = in->parameter_number();
      m.parameter_index = hv.index;
      m.parameter_shape = in->shape().ToString(/*print_layout=*/false);
      m.parameter_aliased =
          donated_.contains({in->parameter_number(), ShapeIndexToString(hv.index)});
      allocations_[i].readonly = !m.parameter_aliased;
      if (m.parameter_aliased) reusable_.push_back(i);
      return;
    }
    if (thread_local_buffer) {
      const size_t i = NewAllocation(b);
      out_.allocations[i].thread_local_ = true;
      allocations_[i].reusable = false;
      return;
    }
    for (ValueId v : b.values) {
      const HloValue& hv = flow_.value(v);
      if (hv.shape->IsTuple()) {
        // A tuple's index table gets an allocation of its own; one that does not live out is
        // a temporary, concatenated into the temp allocation at the end (XLA's
        // CombineTempAllocations).
        const size_t i = NewAllocation(b);
        out_.allocations[i].tuple = true;
        out_.allocations[i].preallocated_temp = !b.live_out;
        allocations_[i].reusable = false;
        return;
      }
      if (!hv.index.empty()) continue;
      for (const Instruction* op : hv.instruction->operands()) {
        for (BufferId ob : alias_.BuffersAt(*op, {})) {
          auto it = allocation_of_.find(ob);
          if (it != allocation_of_.end() && MaybeAssign(it->second, b)) return;
        }
      }
    }
    for (size_t k = reusable_.size(); k-- > 0;) {
      if (MaybeAssign(reusable_[k], b)) return;
    }
    if (!b.live_out) {
      temporaries_.push_back(&b);
      return;
    }
    reusable_.push_back(NewAllocation(b));
  }

  // The heap simulator over the temporaries, one temp allocation per memory space.
  void PackTemporaries() {
    absl::flat_hash_map<int64_t, std::vector<const HloBuffer*>> by_space;
    std::vector<int64_t> spaces;
    for (const HloBuffer* b : temporaries_) {
      const int64_t s = SpaceOf(*b);
      if (!by_space.contains(s)) spaces.push_back(s);
      by_space[s].push_back(b);
    }
    std::sort(spaces.begin(), spaces.end());
    for (int64_t space : spaces) {
      std::vector<HeapBuffer> heap;
      std::vector<ValueId> value_of;
      absl::flat_hash_map<ValueId, int32_t> index_of;
      std::vector<const HloBuffer*>& buffers = by_space[space];
      std::sort(buffers.begin(), buffers.end(),
                [](const HloBuffer* a, const HloBuffer* b) { return a->id < b->id; });
      for (const HloBuffer* b : buffers) {
        for (ValueId v : b->values) value_of.push_back(v);
      }
      // In XLA's value id order: XLA's heap breaks ties between equal intervals by that id.
      const std::vector<int64_t>& rank = XlaValueRanks();
      std::sort(value_of.begin(), value_of.end(),
                [&](ValueId a, ValueId b) { return rank[a] < rank[b]; });
      for (ValueId v : value_of) {
        const XlaLiveRange r = RangeOf(v);
        index_of[v] = static_cast<int32_t>(heap.size());
        heap.push_back({AliasAnalysis::ValueBytes(flow_.value(v)), static_cast<int32_t>(r.start),
                        static_cast<int32_t>(r.end), -1});
      }
      // XLA's heap simulator replays the values' definitions and frees step by step
      // (HeapSimulator::RunComputation), and its heap algorithm sees them only as Alloc,
      // ShareWith and Free calls: it takes each call as one tick of its own clock, so the
      // intervals it packs are in those ticks, not in schedule steps (a range's length, by
      // which the spatial order sorts equal sizes, counts the calls made meanwhile).
      out_.heap_traces.emplace_back();
      const std::vector<HeapBuffer> ticks =
          ReplayHeapEvents(heap, value_of, index_of, &out_.heap_traces.back());
      for (size_t i = 0; i < heap.size(); ++i) heap[i].colocated_with = ticks[i].colocated_with;
      const int64_t limit = options_.multiheap_size_constraint_per_heap < 0
                                ? std::numeric_limits<int64_t>::max()
                                : options_.multiheap_size_constraint_per_heap;
      const HeapLayout layout = PackBestFit(ticks, {.order = options_.heap_order,
                                                    .alignment = options_.alignment,
                                                    .size_limit_per_heap = limit});
      const HeapLayout ideal =
          PackBestFit(heap, {.order = HeapOrder::kIdeal, .alignment = options_.alignment});
      out_.totals.ideal_temp_bytes += ideal.heap_bytes;
      if (layout.heap_sizes.size() <= 1) {
        AddHeapAllocation(space, heap, ticks, layout, value_of);
        continue;
      }
      // Several heaps (a size limit per heap): an allocation for each, in heap order, as XLA's
      // AssignBuffersFromHeapSimulator makes one per heap result.
      for (size_t h = 0; h < layout.heap_sizes.size(); ++h) {
        std::vector<HeapBuffer> part, part_ticks;
        std::vector<ValueId> part_values;
        std::vector<int32_t> part_index(heap.size(), -1);
        HeapLayout part_layout;
        part_layout.heap_bytes = layout.heap_sizes[h];
        part_layout.heap_sizes = {layout.heap_sizes[h]};
        for (size_t i = 0; i < heap.size(); ++i) {
          if (layout.heap_of[i] != static_cast<int32_t>(h)) continue;
          part_index[i] = static_cast<int32_t>(part.size());
          part.push_back(heap[i]);
          part_ticks.push_back(ticks[i]);
          part_values.push_back(value_of[i]);
          part_layout.offsets.push_back(layout.offsets[i]);
          part_layout.sizes.push_back(layout.sizes[i]);
          part_layout.heap_of.push_back(0);
        }
        // A colocated group is placed whole, so its members are all in this part.
        for (std::vector<HeapBuffer>* v : {&part, &part_ticks}) {
          for (HeapBuffer& b : *v) {
            if (b.colocated_with >= 0) b.colocated_with = part_index[b.colocated_with];
          }
        }
        AddHeapAllocation(space, part, part_ticks, part_layout, part_values);
      }
    }
  }

  // One preallocated temp allocation for a heap's values (`heap`, by index as `value_of`;
  // `ticks`, the same values on the heap's own clock).
  void AddHeapAllocation(int64_t space, const std::vector<HeapBuffer>& heap,
                         const std::vector<HeapBuffer>& ticks, const HeapLayout& layout,
                         const std::vector<ValueId>& value_of) {
    XlaModelAllocation m;
    m.index = static_cast<int64_t>(out_.allocations.size());
    m.size = layout.heap_bytes;
    m.preallocated_temp = true;
    m.memory_space = space;
    for (size_t i = 0; i < heap.size(); ++i) {
      if (flow_.value(value_of[i]).shape->IsTuple()) m.tuple = true;
      m.values.push_back(ModelValue(value_of[i], layout.offsets[i],
                                    AliasAnalysis::ValueBytes(flow_.value(value_of[i]))));
    }
    for (ValueId v : value_of) allocation_of_value_[v] = m.index;
    FindPeak(heap, ticks, layout, value_of, m);
    out_.allocations.push_back(std::move(m));
    // allocations_ stays parallel to out_.allocations: thread-local allocations follow.
    allocations_.emplace_back();
    allocations_.back().reusable = false;
  }

  // The order of XLA's value ids (HloDataflowAnalysis::InitializeInstructionValueSets): the
  // computations in post order (each after those its instructions call, in instruction order,
  // from the module's list: HloModule::MakeComputationPostOrder), in each the instructions in
  // XlaInstructionPostOrder, in each its values by shape index in pre-order; the phi values,
  // made later while the analysis propagates, after all of them (among themselves by our id).
  // Rank by ValueId.
  const std::vector<int64_t>& XlaValueRanks() {
    if (!value_rank_.empty()) return value_rank_;
    std::vector<const Computation*> computations;
    absl::flat_hash_set<const Computation*> seen;
    auto visit = [&](auto&& self, const Computation* c) -> void {
      if (!seen.insert(c).second) return;
      for (const Instruction* in : c->instructions()) {
        for (const Computation* callee : in->called_computations()) self(self, callee);
      }
      computations.push_back(c);
    };
    for (const Computation* c : module_.computations()) visit(visit, c);
    absl::flat_hash_map<const Instruction*, int64_t> instruction_rank;
    int64_t next = 0;
    for (const Computation* c : computations) {
      for (const Instruction* in : XlaInstructionPostOrder(*c)) instruction_rank[in] = next++;
    }
    const int64_t n = static_cast<int64_t>(flow_.values().size());
    std::vector<ValueId> ids(n);
    for (int64_t v = 0; v < n; ++v) ids[v] = static_cast<ValueId>(v);
    // Each value's instruction rank looked up once, not at every comparison.
    std::vector<int64_t> defined_at(n, 0);
    for (int64_t v = 0; v < n; ++v) {
      const HloValue& hv = flow_.value(static_cast<ValueId>(v));
      if (hv.is_phi) continue;
      auto it = instruction_rank.find(hv.instruction);
      defined_at[v] = it == instruction_rank.end() ? next : it->second;
    }
    // By (phi last, instruction rank, shape index, id): ids are unique, so the order is total.
    std::sort(ids.begin(), ids.end(), [&](ValueId a, ValueId b) {
      const HloValue& x = flow_.value(a);
      const HloValue& y = flow_.value(b);
      if (x.is_phi != y.is_phi) return y.is_phi;
      if (defined_at[a] != defined_at[b]) return defined_at[a] < defined_at[b];
      if (x.index != y.index) {
        return std::lexicographical_compare(x.index.begin(), x.index.end(), y.index.begin(),
                                            y.index.end());
      }
      return a < b;
    });
    value_rank_.assign(n, 0);
    for (int64_t k = 0; k < n; ++k) value_rank_[ids[k]] = k;
    return value_rank_;
  }

  // XLA's HeapSimulator::RunComputation over the heap's values (`heap`: schedule steps, by
  // value id), returned in the heap algorithm's clock: each Alloc, ShareWith and Free call of
  // a value with bytes is one tick. At each step the values defined there are taken by (start,
  // end, id): a value of a buffer whose first value is already placed shares its chunk; else
  // it takes over the chunk of an operand value that dies at this step (freed first, then
  // shared), when both are the only values of their buffers, the operand value is the
  // operand's own top-level value, not yet taken, the user is no copy and
  // CanShareOperandBufferWithUser allows; else it is allocated. Then the step's other values
  // are freed, in the same order. `colocated_with` names the value whose chunk one shares.
  // With `trace`, each call is also appended to it, in the order made (XLA's debug trace).
  std::vector<HeapBuffer> ReplayHeapEvents(const std::vector<HeapBuffer>& heap,
                                           const std::vector<ValueId>& value_of,
                                           const absl::flat_hash_map<ValueId, int32_t>& index_of,
                                           std::vector<XlaModelHeapEvent>* trace = nullptr) const {
    using Event = XlaModelHeapEvent;
    auto note = [&](Event::Kind kind, int32_t i, int32_t with) {
      if (trace == nullptr) return;
      trace->push_back({kind, static_cast<int64_t>(value_of[i]),
                        with < 0 ? -1 : static_cast<int64_t>(value_of[with])});
    };
    const int32_t n = static_cast<int32_t>(heap.size());
    std::vector<int32_t> order(n);
    for (int32_t i = 0; i < n; ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
      return std::make_tuple(heap[a].first, heap[a].last, a) <
             std::make_tuple(heap[b].first, heap[b].last, b);
    });
    std::vector<int32_t> by_end = order;
    std::stable_sort(by_end.begin(), by_end.end(),
                     [&](int32_t a, int32_t b) { return heap[a].last < heap[b].last; });
    std::vector<HeapBuffer> out = heap;
    std::vector<bool> freed(n, false);
    absl::flat_hash_map<BufferId, int32_t> first_placed;
    int32_t tick = 0;
    size_t d = 0, f = 0;
    constexpr int32_t kNone = std::numeric_limits<int32_t>::max();
    while (d < order.size() || f < by_end.size()) {
      const int32_t step = std::min(d < order.size() ? heap[order[d]].first : kNone,
                                    f < by_end.size() ? heap[by_end[f]].last : kNone);
      for (; d < order.size() && heap[order[d]].first == step; ++d) {
        const int32_t i = order[d];
        const bool counts = heap[i].bytes > 0;
        const BufferId buffer = alias_.BufferOf(value_of[i]).id;
        if (auto it = first_placed.find(buffer); it != first_placed.end()) {
          note(Event::Kind::kShareWith, i, it->second);
          out[i].colocated_with = it->second;
          out[i].first = tick;
          if (counts) ++tick;
          continue;
        }
        const int32_t with = OperandToShare(heap, value_of, index_of, freed, i, step);
        if (with >= 0) {
          note(Event::Kind::kFree, with, -1);
          note(Event::Kind::kShareWith, i, with);
          freed[with] = true;
          out[with].last = tick;
          if (heap[with].bytes > 0) ++tick;
          out[i].colocated_with = with;
        } else {
          note(Event::Kind::kAlloc, i, -1);
          first_placed[buffer] = i;
        }
        out[i].first = tick;
        if (counts) ++tick;
      }
      for (; f < by_end.size() && heap[by_end[f]].last == step; ++f) {
        const int32_t i = by_end[f];
        if (freed[i]) continue;
        note(Event::Kind::kFree, i, -1);
        freed[i] = true;
        out[i].last = tick;
        if (heap[i].bytes > 0) ++tick;
      }
    }
    return out;
  }

  // The operand value whose chunk heap value `i`, defined at `step`, takes over; -1: none.
  int32_t OperandToShare(const std::vector<HeapBuffer>& heap, const std::vector<ValueId>& value_of,
                         const absl::flat_hash_map<ValueId, int32_t>& index_of,
                         const std::vector<bool>& freed, int32_t i, int32_t step) const {
    const HloValue& v = flow_.value(value_of[i]);
    if (v.is_phi || alias_.BufferOf(value_of[i]).values.size() != 1) return -1;
    const Instruction* in = v.instruction;
    if (in->opcode() == Opcode::kCopy) return -1;
    for (const Instruction* op : in->operands()) {
      for (int32_t q = 0; q < flow_.PositionCount(*op); ++q) {
        if (!flow_.IndexAt(*op, q).empty()) continue;  // XLA reads the operand's top level
        for (ValueId u : flow_.ValuesAtPosition(*op, q)) {
          auto it = index_of.find(u);
          if (it == index_of.end() || freed[it->second]) continue;
          if (alias_.BufferOf(u).values.size() != 1) continue;
          if (flow_.value(u).instruction != op) continue;
          // Equal sizes: XLA's heap checks that a value is freed at the size it was shared at.
          if (heap[it->second].last != step || heap[it->second].bytes != heap[i].bytes) continue;
          if (!CanShare(*op, {}, *in, v.index)) continue;
          return it->second;
        }
      }
    }
    return -1;
  }

  // The heap's peak: the first time with the most bytes in chunks (a chunk counted once while
  // any value sharing it lives), the values live then, and where that time is (the
  // instruction of the flattened timeline and its computation, a callee's when the peak is
  // inside one).
  // `ticks` is `heap` on the heap algorithm's clock (ReplayHeapEvents).
  void FindPeak(const std::vector<HeapBuffer>& heap, const std::vector<HeapBuffer>& ticks,
                const HeapLayout& layout, const std::vector<ValueId>& value_of,
                XlaModelAllocation& m) {
    const int32_t n = static_cast<int32_t>(heap.size());
    std::vector<int32_t> root(n);
    for (int32_t i = 0; i < n; ++i) root[i] = i;
    auto find = [&](int32_t x) {
      while (root[x] != x) x = root[x] = root[root[x]];
      return x;
    };
    for (int32_t i = 0; i < n; ++i) {
      const int32_t j = heap[i].colocated_with;
      if (j >= 0 && j < n) root[find(i)] = find(j);
    }
    // A chunk counts while any value sharing it lives: over the union of their ranges, not
    // from the first one's start to the last one's end. A loop's values of one buffer leave
    // gaps that the heap fills with other values (XLA's best-fit heap checks each colocated
    // value's own interval); counted over the whole span, the peak passed the heap's size
    // (found by the memory fuzzer on a layer-scan loop).
    std::vector<std::tuple<int32_t, int32_t, int32_t>> spans;  // (chunk's root, first, last)
    for (int32_t i = 0; i < n; ++i) {
      if (heap[i].last >= 0) spans.push_back({find(i), heap[i].first, heap[i].last});
    }
    std::sort(spans.begin(), spans.end());
    const int64_t steps = ranges_.end_time() + 2;
    std::vector<int64_t> diff(static_cast<size_t>(steps) + 1, 0);
    for (size_t k = 0; k < spans.size();) {
      const auto [r, lo, first_hi] = spans[k];
      int32_t hi = first_hi;
      for (++k; k < spans.size() && std::get<0>(spans[k]) == r &&
                std::get<1>(spans[k]) <= int64_t{hi} + 1;
           ++k) {
        hi = std::max(hi, std::get<2>(spans[k]));
      }
      // [lo, hi]: one stretch of the chunk in use; after a gap the next span starts another.
      diff[std::clamp<int64_t>(lo, 0, steps)] += layout.sizes[r];
      diff[std::clamp<int64_t>(int64_t{hi} + 1, 0, steps)] -= layout.sizes[r];
    }
    int64_t live = 0, peak_time = -1;
    for (int64_t t = 0; t < steps; ++t) {
      live += diff[t];
      if (live > m.peak_bytes) {
        m.peak_bytes = live;
        peak_time = t;
      }
    }
    // XLA's fragmentation: the heap's size less the most bytes its values ever hold, each
    // value counted whole from its Alloc or ShareWith call to its Free call (XLA's
    // NoFragmentationStatsHeap takes a ShareWith as an Alloc of its own). So it is counted on
    // the heap's clock, not by schedule step: a result that takes over a dying operand's chunk
    // comes after the operand's Free, and the two are never counted at once (by step they
    // were, and a heap whose chunks were all shared that way showed a negative figure).
    const int64_t raw_peak = NoFragmentationPeak(ticks);
    out_.totals.temp_fragmentation_bytes =
        (heap_simulated_ ? out_.totals.temp_fragmentation_bytes : 0) + layout.heap_bytes - raw_peak;
    heap_simulated_ = true;
    if (peak_time < 0) return;
    // One value per chunk: of values sharing one (a buffer's, or a result that took over its
    // operand's), the first live at the peak stands for it, as XLA counts a SHARE_WITH
    // of a chunk already live as no bytes and leaves it out of the peak buffers.
    absl::flat_hash_set<int32_t> counted;
    for (int32_t i = 0; i < n; ++i) {
      if (heap[i].first <= peak_time && peak_time <= heap[i].last &&
          counted.insert(find(i)).second) {
        m.peak_values.push_back(ValueName(flow_.value(value_of[i])));
      }
    }
    m.heap_peak_values = m.peak_values;
    if (peak_time < ranges_.end_time()) {
      const Instruction* at = ranges_.sequence[peak_time];
      m.peak_instruction = std::string(at->name());
      m.peak_computation = std::string(at->parent()->name());
    }
  }

  // XLA's MinimumMemoryForModule: the no-fragmentation heap over every value but constants
  // (and thread-local ones, which are off the timeline), on the whole-module timeline, replayed
  // as HeapSimulator::RunComputation calls it (ReplayHeapEvents): a result that takes over a
  // dying operand's chunk is counted after the operand's Free, not beside it.
  int64_t MinimumMemoryForModule() {
    std::vector<std::pair<ValueId, int64_t>> sized;  // (value, its size in its allocation)
    std::vector<int64_t> wrapped;  // wrapped tuple tables: no value of ours, counted apart
    for (const XlaModelAllocation& a : out_.allocations) {
      if (a.constant || a.thread_local_) continue;
      for (const XlaModelValue& v : a.values) {
        if (v.buffer == -1) {
          wrapped.push_back(v.size);
        } else {
          sized.push_back({static_cast<ValueId>(v.id), v.size});
        }
      }
    }
    const std::vector<int64_t>& rank = XlaValueRanks();
    std::sort(sized.begin(), sized.end(),
              [&](const auto& a, const auto& b) { return rank[a.first] < rank[b.first]; });
    std::vector<HeapBuffer> heap;
    std::vector<ValueId> value_of;
    absl::flat_hash_map<ValueId, int32_t> index_of;
    for (const auto& [v, bytes] : sized) {
      const XlaLiveRange r = RangeOf(v);
      index_of[v] = static_cast<int32_t>(heap.size());
      value_of.push_back(v);
      heap.push_back({bytes, static_cast<int32_t>(r.start), static_cast<int32_t>(r.end), -1});
    }
    int64_t peak = NoFragmentationPeak(ReplayHeapEvents(heap, value_of, index_of));
    // A wrapped op's table lives in XLA's wrapped computation; counted whole, as before.
    for (int64_t bytes : wrapped) peak += bytes;
    return peak;
  }

  // XLA's NoFragmentationStatsHeap over values on the heap algorithm's clock (ticks from
  // ReplayHeapEvents): the most bytes held at once, each value whole from its Alloc or
  // ShareWith call to its Free call (a ShareWith counts as an Alloc of its own).
  static int64_t NoFragmentationPeak(const std::vector<HeapBuffer>& ticks) {
    int64_t end = 0;
    for (const HeapBuffer& b : ticks) end = std::max<int64_t>(end, int64_t{b.last} + 2);
    std::vector<int64_t> diff(static_cast<size_t>(end) + 1, 0);
    for (const HeapBuffer& b : ticks) {
      if (b.last < 0) continue;
      diff[std::clamp<int64_t>(b.first, 0, end)] += b.bytes;
      diff[std::clamp<int64_t>(int64_t{b.last} + 1, 0, end)] -= b.bytes;
    }
    int64_t live = 0, peak = 0;
    for (int64_t t = 0; t < end; ++t) {
      live += diff[t];
      peak = std::max(peak, live);
    }
    return peak;
  }

  // The allocations in the order XLA's CombineTempAllocations leaves them: it moves the temp
  // allocations after the others with std::partition, which is not stable. Both standard
  // libraries partition a random-access range the same way: the first temp allocation from
  // the front swaps places with the last other one from the back, and so on until the two
  // meet. So the first temp allocations made (the largest tuple tables) end up last, after
  // the heap, and the thread-local allocations made after the heap come forward, in reverse.
  std::vector<size_t> XlaPartitionOrder() const {
    std::vector<size_t> order(out_.allocations.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    auto temp = [&](size_t i) { return out_.allocations[order[i]].preallocated_temp; };
    size_t first = 0, last = order.size();
    while (true) {
      while (first != last && !temp(first)) ++first;
      if (first == last) break;
      --last;
      while (first != last && temp(last)) --last;
      if (first == last) break;
      std::swap(order[first], order[last]);
      ++first;
    }
    return order;
  }

  // XLA's CombineTempAllocations: per memory space, every temp allocation (the temporary
  // tuple tables' and the heap's, in XlaPartitionOrder) concatenated into one, each part
  // starting at a multiple of the alignment; it goes after the other allocations, which keep
  // XlaPartitionOrder too.
  void CombineTemporaries() {
    std::vector<XlaModelAllocation> kept;
    // By memory space: the combined allocations, the last one taking parts (several only under
    // a size limit per heap).
    std::map<int64_t, std::vector<XlaModelAllocation>> combined;
    std::vector<int64_t> new_index(out_.allocations.size(), -1);
    // Each temp part's combined allocation: (memory space, its place in that space's list).
    std::vector<std::pair<int64_t, size_t>> part_of(out_.allocations.size(), {-1, 0});
    const int64_t limit = options_.multiheap_size_constraint_per_heap;
    for (size_t k : XlaPartitionOrder()) {
      XlaModelAllocation& a = out_.allocations[k];
      const int64_t old = a.index;
      if (!a.preallocated_temp) {
        a.index = static_cast<int64_t>(kept.size());
        new_index[old] = a.index;
        kept.push_back(std::move(a));
        continue;
      }
      std::vector<XlaModelAllocation>& list = combined[a.memory_space];
      // XLA's CombineTempAllocations starts another combined allocation when this part would
      // bring the current one to the limit (xla_multiheap_size_constraint_per_heap; -1: none).
      if (list.empty() || (limit >= 0 && list.back().size + a.size >= limit)) {
        part_of[old] = {a.memory_space, list.size()};
        list.push_back(std::move(a));
        continue;
      }
      part_of[old] = {a.memory_space, list.size() - 1};
      XlaModelAllocation& c = list.back();
      const int64_t base =
          (c.size + options_.alignment - 1) / options_.alignment * options_.alignment;
      for (XlaModelValue& v : a.values) {
        v.offset += base;
        c.values.push_back(std::move(v));
      }
      c.size = base + a.size;
      c.tuple = c.tuple || a.tuple;
      // XLA's CombineTempAllocations appends each part's peak buffers.
      c.peak_values.insert(c.peak_values.end(), a.peak_values.begin(), a.peak_values.end());
      if (!a.peak_instruction.empty() || a.peak_bytes > 0) {
        c.peak_bytes = a.peak_bytes;
        c.heap_peak_values = std::move(a.heap_peak_values);
        c.peak_instruction = std::move(a.peak_instruction);
        c.peak_computation = std::move(a.peak_computation);
      }
    }
    std::map<std::pair<int64_t, size_t>, int64_t> index_of_combined;
    for (auto& [space, list] : combined) {
      for (size_t i = 0; i < list.size(); ++i) {
        list[i].index = static_cast<int64_t>(kept.size());
        index_of_combined[{space, i}] = list[i].index;
        kept.push_back(std::move(list[i]));
      }
    }
    for (size_t old = 0; old < part_of.size(); ++old) {
      if (part_of[old].first >= 0) new_index[old] = index_of_combined[part_of[old]];
    }
    out_.allocations = std::move(kept);
    for (int64_t& a : allocation_of_value_) {
      if (a >= 0) a = new_index[a];
    }
  }

  const Module& module_;
  const AliasAnalysis& alias_;
  const DataflowAnalysis& flow_;
  const XlaLiveRanges& ranges_;
  const XlaModelOptions& options_;
  const bool gpu_sharing_;  // XLA:GPU's CanShareBufferHint decides before the generic rule
  absl::flat_hash_map<const Computation*, Scope> scopes_;
  absl::flat_hash_set<std::pair<int64_t, std::string>> donated_;
  std::vector<std::vector<std::pair<const Instruction*, int32_t>>> positions_;
  absl::flat_hash_map<const Instruction*, int64_t> post_order_;
  absl::flat_hash_map<const Instruction*, int64_t> wrapped_position_;
  std::vector<Allocation> allocations_;  // parallel to out_.allocations
  std::vector<size_t> reusable_;         // XLA's allocation_indices
  absl::flat_hash_set<BufferId> assigned_;
  absl::flat_hash_map<BufferId, size_t> allocation_of_;
  std::vector<int64_t> allocation_of_value_;  // by ValueId; -1: none (yet)
  std::vector<const HloBuffer*> temporaries_;
  bool heap_simulated_ = false;      // temp_fragmentation_bytes holds a sum
  std::vector<int64_t> value_rank_;  // XlaValueRanks, by ValueId
  XlaModelAssignment out_;
};

// Every size the model computes stays below a bound that fits in int64, or the module is
// refused: an allocation holds one buffer (or a wrapped tuple table of its size), a heap at
// most its values' sizes each padded to the alignment, the combined temp allocation its parts
// each padded again, and the minimum memory its values' sizes. Four times the values' buffer
// sizes plus the alignment, summed, bounds them all, so no sum below wraps (a module of two
// 2^62-byte parameters did, found by the memory fuzzer; UBSan).
absl::Status CheckSizesFit(const Module& module, const AliasAnalysis& alias, int64_t alignment) {
  std::optional<int64_t> bound = 0;
  for (const HloBuffer& b : alias.buffers()) {
    std::optional<int64_t> padded = CheckedAdd(b.bytes, alignment);
    std::optional<int64_t> per_value =
        padded ? CheckedMul(*padded, 4 * static_cast<int64_t>(b.values.size())) : std::nullopt;
    bound = per_value ? CheckedAdd(*bound, *per_value) : std::nullopt;
    if (!bound) {
      return absl::OutOfRangeError(fmt::format(
          "module '{}': XLA's buffer assignment cannot be modeled: its buffers (with alignment "
          "{}) add up past int64 bytes",
          module.name(), alignment));
    }
  }
  return absl::OkStatus();
}

}  // namespace

int64_t XlaModelAssignment::AllocationOf(std::string_view value_name) const {
  for (const XlaModelAllocation& a : allocations) {
    for (const XlaModelValue& v : a.values) {
      if (v.name == value_name) return a.index;
    }
  }
  return -1;
}

DataflowOptions XlaModelDataflowOptions() {
  DataflowOptions options;
  options.in_place_through_bitcast = false;
  return options;
}

absl::StatusOr<XlaModelAssignment> AssignLikeXla(const Module& module,
                                                 const XlaModelOptions& options) {
  if (module.entry() == nullptr) {
    return absl::InvalidArgumentError(fmt::format("module '{}' has no entry", module.name()));
  }
  if (options.alignment < 1) {
    return absl::InvalidArgumentError(
        fmt::format("alignment {} is not a positive number of bytes", options.alignment));
  }
  absl::StatusOr<std::unique_ptr<AliasAnalysis>> alias =
      AliasAnalysis::Run(module, XlaModelDataflowOptions());
  if (!alias.ok()) return alias.status();
  if (absl::Status s = CheckSizesFit(module, **alias, options.alignment); !s.ok()) return s;
  absl::StatusOr<XlaLiveRanges> ranges = ComputeXlaLiveRanges(module, **alias, options.live_ranges);
  if (!ranges.ok()) return ranges.status();
  Assigner assigner(module, **alias, *ranges, options);
  return assigner.Run();
}

}  // namespace hloscope
