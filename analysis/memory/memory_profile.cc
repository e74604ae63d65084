#include "analysis/memory/memory_profile.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <numeric>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "analysis/alias.h"
#include "analysis/call_graph.h"
#include "analysis/memory/buffer_live_ranges.h"
#include "analysis/memory/heap_simulation.h"
#include "analysis/memory/host_placement.h"
#include "analysis/memory/memory_schedulers.h"
#include "analysis/memory/stage_assignment.h"
#include "analysis/memory/stash_buffers.h"
#include "fmt/format.h"
#include "hlo/computation.h"
#include "hlo/input_output_alias.h"
#include "support/checked_int.h"

namespace hloscope {
namespace {

// What sizing the buffers found out about the shapes.
struct SizeNotes {
  bool dynamic = false;    // some array had a dynamic dimension
  bool unbounded = false;  // ... an unbounded one (`?`) sized without a dim_value
};

// Bytes of an array as XLA sizes it: dynamic dimensions evaluated at `dim_value` (capped by
// the bound), or at the bound when there is none; with a tiled layout, the physical
// dimensions the first tile covers (the minor-most ones, the tile's last dimension on the
// most minor) rounded up to the tile, the rest as they are (later tiles add no padding);
// then the tail padding L(n) in elements and the element width (E(n) when given). An
// unbounded dimension without `dim_value` has no size: it is noted, and counts 0. A size past
// int64 saturates (the caller's sums notice it).
int64_t ArrayBytes(const Shape& s, const std::optional<int64_t>& dim_value, SizeNotes* notes) {
  if (!s.IsArray()) return 0;
  const bool tiled = !s.layout.tiles.empty() || s.layout.tail_padding_alignment > 1;
  if (!s.IsDynamic() && !tiled) return s.ByteSize();
  constexpr __int128 kMax = std::numeric_limits<int64_t>::max();
  absl::InlinedVector<int64_t, 6> extents(s.dims.begin(), s.dims.end());
  if (s.IsDynamic()) notes->dynamic = true;
  for (int64_t d = 0; d < s.rank(); ++d) {
    if (!s.dynamic[d]) continue;
    if (extents[d] == Shape::kUnboundedSize) {
      if (!dim_value) notes->unbounded = true;
      extents[d] = dim_value.value_or(0);
    } else if (dim_value) {
      extents[d] = std::min(extents[d], *dim_value);
    }
  }
  __int128 elements = 1;
  auto times = [&](int64_t extent) {
    elements = std::min<__int128>(elements * std::max<int64_t>(extent, 0), kMax);
  };
  auto round_up = [](int64_t x, int64_t to) {
    return to <= 1 || to == Tile::kTileCombine ? x : (x + to - 1) / to * to;
  };
  if (s.layout.tiles.empty()) {
    for (int64_t e : extents) times(e);
  } else {
    // Physical order, minor first: the layout's minor_to_major (default: the last dimension).
    absl::InlinedVector<int64_t, 6> minor_to_major(s.layout.minor_to_major.begin(),
                                                   s.layout.minor_to_major.end());
    if (static_cast<int64_t>(minor_to_major.size()) != s.rank()) {
      minor_to_major.clear();
      for (int64_t d = s.rank() - 1; d >= 0; --d) minor_to_major.push_back(d);
    }
    const auto& tile = s.layout.tiles.front().dims;
    const int64_t t = static_cast<int64_t>(tile.size());
    int64_t k = 0;
    for (; k < t; ++k) {
      const int64_t extent = k < s.rank() ? extents[minor_to_major[k]] : 1;
      times(round_up(extent, tile[t - k - 1]));
    }
    for (; k < s.rank(); ++k) times(extents[minor_to_major[k]]);
  }
  if (s.layout.tail_padding_alignment > 1) {
    const __int128 a = s.layout.tail_padding_alignment;
    elements = std::min<__int128>((elements + a - 1) / a * a, kMax);
  }
  const int64_t bits = s.layout.element_size_bits != 0 ? s.layout.element_size_bits
                                                       : GetPrimitiveTypeInfo(s.element_type).bits;
  return static_cast<int64_t>(std::min<__int128>((elements * bits + 7) / 8, kMax));
}

std::string_view OpNameOf(const Instruction* in) {
  return in != nullptr && in->metadata() != nullptr ? in->metadata()->op_name : std::string_view();
}

// "source_file:source_line" of the metadata ("" without a source_file), for attribution.
std::string SourceOf(const Instruction* in) {
  if (in == nullptr || in->metadata() == nullptr || in->metadata()->source_file.empty()) return {};
  const Metadata& m = *in->metadata();
  return m.source_line >= 0 ? fmt::format("{}:{}", m.source_file, m.source_line)
                            : std::string(m.source_file);
}

// The value that names a buffer: the first non-phi one `def_in` defines if any.
const HloValue& NamingValue(const AliasAnalysis& alias, BufferId buffer,
                            const Instruction* def_in) {
  const DataflowAnalysis& flow = alias.dataflow();
  const HloBuffer& b = alias.buffers()[buffer];
  const HloValue* def = &flow.value(b.values.front());
  for (ValueId v : b.values) {
    const HloValue& hv = flow.value(v);
    if (!hv.is_phi && (def->is_phi || hv.instruction == def_in)) def = &hv;
  }
  return *def;
}

// The name of a buffer: its naming value's instruction (and shape index).
std::string BufferName(const AliasAnalysis& alias, BufferId buffer, const Instruction* def_in) {
  const HloValue& def = NamingValue(alias, buffer, def_in);
  std::string name(def.instruction->name());
  if (!def.index.empty()) name += ShapeIndexToString(def.index);
  return name;
}

// The categories of the stacked view, bottom first.
enum Category : uint8_t {
  kParameters,
  kStashedActivations,
  kOtherActivations,
  kTemporaries,
  kOutputs,
  kCategories
};
constexpr const char* kCategoryNames[kCategories] = {"parameters", "stashed activations",
                                                     "other activations", "temporaries", "outputs"};

// What one module contributes: its summary and per-buffer facts the stages need.
struct ModuleProfile {
  ModuleMemory memory;
  ComputationLiveness entry;
  std::vector<int64_t> buffer_bytes;
  std::vector<int64_t> unpadded_bytes;    // by buffer: buffer_bytes without tiled padding
  std::vector<int64_t> buffer_space;      // by buffer: its memory space S(n)
  std::vector<int64_t> constant_bytes;    // by buffer: a constant's size (the model may count 0)
  std::vector<uint8_t> buffer_category;   // by buffer: an index into kCategoryNames
  std::vector<int> buffer_stage;          // by buffer; -1 none
  std::vector<int64_t> activation_bytes;  // by buffer: 0 = not an activation
  std::vector<StashBuffer> stashes;
  InstructionRoles roles;
  bool saturated = false;  // some sum passed int64
};

// Every buffer the entry counts, as XLA's kinds of allocation with its values, offsets and
// live ranges: for the comparison with XLA's own assignment. Phis are listed too: they sit
// where XLA's non-SSA dataflow defines values (a while's results, its body's and condition's
// parameters), with the same names. `offset` is by span, in the heap of `fixed` bytes of own
// allocations and the temps above.
void ListAllocations(const AliasAnalysis& alias, const ComputationLiveness& entry,
                     ModuleProfile& mp,
                     const absl::flat_hash_map<BufferId, const Instruction*>& parameter_of,
                     const absl::flat_hash_set<BufferId>& live_out,
                     const std::vector<int64_t>& offset, int64_t fixed) {
  const DataflowAnalysis& flow = alias.dataflow();
  using Kind = SimulatedAllocation::Kind;
  std::vector<SimulatedAllocation>& out = mp.memory.simulated_allocations;
  SimulatedAllocation temp;
  temp.bytes = mp.memory.allocations.temp_bytes;
  for (size_t i = 0; i < entry.spans.size(); ++i) {
    const BufferSpan& s = entry.spans[i];
    const int64_t bytes =
        mp.constant_bytes[s.buffer] > 0 ? mp.constant_bytes[s.buffer] : mp.buffer_bytes[s.buffer];
    SimulatedAllocation own;
    own.bytes = bytes;
    const auto param = parameter_of.find(s.buffer);
    if (param != parameter_of.end()) {
      own.kind = Kind::kParameter;
      own.parameter_number = param->second->parameter_number();
    } else if (mp.constant_bytes[s.buffer] > 0) {
      own.kind = Kind::kConstant;
    } else if (live_out.contains(s.buffer)) {
      own.kind = Kind::kLiveOut;
    }
    const int64_t at = own.kind == Kind::kTemp ? offset[i] - fixed : 0;
    std::vector<SimulatedValue>& values = own.kind == Kind::kTemp ? temp.values : own.values;
    for (ValueId v : alias.buffers()[s.buffer].values) {
      const HloValue& hv = flow.value(v);
      if (own.kind == Kind::kParameter && hv.instruction == param->second) {
        own.parameter_index.assign(hv.index.begin(), hv.index.end());
      }
      values.push_back({.instruction = std::string(hv.instruction->name()),
                        .index = {hv.index.begin(), hv.index.end()},
                        .bytes = bytes,
                        .offset = at,
                        .first = s.first,
                        .last = s.last,
                        .buffer = static_cast<int64_t>(s.buffer)});
    }
    if (own.kind != Kind::kTemp) out.push_back(std::move(own));
  }
  if (temp.bytes > 0 || !temp.values.empty()) out.push_back(std::move(temp));
}

// The simulated heap of the entry (every buffer counted in it, and each step's copies and
// callee peak as buffers of that one step), the buffers at the peak with their offsets, and
// XLA's allocation categories.
template <typename Defining>
void FillHeap(const AliasAnalysis& alias, const ComputationLiveness& entry, ModuleProfile& mp,
              const absl::flat_hash_map<BufferId, const Instruction*>& parameter_of,
              const std::vector<uint8_t>& is_constant, int top, bool list_allocations,
              Defining defining) {
  ModuleMemory& mm = mp.memory;
  const DataflowAnalysis& flow = alias.dataflow();
  absl::flat_hash_set<BufferId> live_out;
  if (const Instruction* root = entry.schedule.empty() ? nullptr : entry.schedule.back()) {
    root = root->parent() != nullptr && root->parent()->root() != nullptr ? root->parent()->root()
                                                                          : root;
    for (int32_t p = 0; p < flow.PositionCount(*root); ++p) {
      for (ValueId v : flow.ValuesAtPosition(*root, p)) live_out.insert(alias.BufferOf(v).id);
    }
  }
  // As XLA allocates: each entry parameter, constant (when it is counted at all) and live-out
  // buffer has its own allocation, laid out one after another from offset 0; the rest share
  // the preallocated temp allocation above them, packed best-fit. (Packing the long-lived
  // buffers with the temporaries would also make every temporary overlap all of them.)
  std::vector<int64_t> offset(entry.spans.size(), -1);
  std::vector<HeapBuffer> temps;
  std::vector<size_t> temp_span;  // span index of each temp; SIZE_MAX for a step's transient
  int64_t fixed = 0;
  AllocationSummary& a = mm.allocations;
  for (size_t i = 0; i < entry.spans.size(); ++i) {
    const BufferSpan& s = entry.spans[i];
    const int64_t bytes = mp.buffer_bytes[s.buffer];
    const bool parameter = parameter_of.contains(s.buffer);
    const bool out = !parameter && live_out.contains(s.buffer);
    if (parameter) a.parameter_bytes = SaturatingAdd(a.parameter_bytes, bytes, &mp.saturated);
    if (out) a.maybe_live_out_bytes = SaturatingAdd(a.maybe_live_out_bytes, bytes, &mp.saturated);
    if (parameter || out || is_constant[s.buffer]) {
      offset[i] = fixed;
      fixed = SaturatingAdd(fixed, bytes, &mp.saturated);
    } else {
      temps.push_back({bytes, s.first, s.last});
      temp_span.push_back(i);
    }
  }
  for (size_t t = 0; t < entry.schedule.size(); ++t) {
    const int32_t step = static_cast<int32_t>(t);
    for (int64_t transient : {entry.copy_bytes[t], entry.callee_bytes[t]}) {
      if (transient == 0) continue;
      temps.push_back({transient, step, step});
      temp_span.push_back(SIZE_MAX);
    }
  }
  const HeapLayout temp_heap = PackBestFit(temps);
  for (size_t k = 0; k < temps.size(); ++k) {
    if (temp_span[k] != SIZE_MAX) {
      offset[temp_span[k]] = SaturatingAdd(fixed, temp_heap.offsets[k], &mp.saturated);
    }
  }
  a.temp_bytes = temp_heap.heap_bytes;
  mm.heap_bytes = SaturatingAdd(fixed, temp_heap.heap_bytes, &mp.saturated);
  if (list_allocations) ListAllocations(alias, entry, mp, parameter_of, live_out, offset, fixed);
  a.total_bytes = a.parameter_bytes;
  for (int64_t part : {a.constant_bytes, a.maybe_live_out_bytes, a.temp_bytes}) {
    a.total_bytes = SaturatingAdd(a.total_bytes, part, &mp.saturated);
  }
  // The boxes to draw: the largest buffers (a page stays light whatever the module's size).
  {
    constexpr size_t kMaxBoxes = 2000;
    std::vector<size_t> order;
    for (size_t i = 0; i < entry.spans.size(); ++i) {
      if (mp.buffer_bytes[entry.spans[i].buffer] > 0) order.push_back(i);
    }
    auto larger = [&](size_t x, size_t y) {
      return mp.buffer_bytes[entry.spans[x].buffer] > mp.buffer_bytes[entry.spans[y].buffer];
    };
    if (order.size() > kMaxBoxes) {
      std::nth_element(order.begin(), order.begin() + kMaxBoxes, order.end(), larger);
      order.resize(kMaxBoxes);
    }
    std::sort(order.begin(), order.end());
    for (size_t i : order) {
      const BufferSpan& s = entry.spans[i];
      const HloValue& def = NamingValue(alias, s.buffer, defining(s));
      mm.heap_boxes.push_back({.first = s.first,
                               .last = s.last,
                               .offset = offset[i],
                               .bytes = mp.buffer_bytes[s.buffer],
                               .name = BufferName(alias, s.buffer, defining(s)),
                               .shape = def.shape->ToString(),
                               .opcode = std::string(OpcodeName(def.instruction->opcode())),
                               .op_name = std::string(OpNameOf(def.instruction)),
                               .source = SourceOf(def.instruction),
                               .category = kCategoryNames[mp.buffer_category[s.buffer]],
                               .unpadded_bytes = mp.unpadded_bytes[s.buffer]});
    }
  }
  if (entry.peak_step < 0) return;
  std::vector<size_t> at_peak;
  for (size_t i = 0; i < entry.spans.size(); ++i) {
    const BufferSpan& s = entry.spans[i];
    if (s.first <= entry.peak_step && entry.peak_step <= s.last && mp.buffer_bytes[s.buffer] > 0) {
      at_peak.push_back(i);
    }
  }
  std::stable_sort(at_peak.begin(), at_peak.end(), [&](size_t x, size_t y) {
    return mp.buffer_bytes[entry.spans[x].buffer] > mp.buffer_bytes[entry.spans[y].buffer];
  });
  if (at_peak.size() > static_cast<size_t>(std::max(top, 0))) at_peak.resize(std::max(top, 0));
  for (size_t i : at_peak) {
    const BufferSpan& s = entry.spans[i];
    mm.peak_layout.push_back(
        {offset[i], mp.buffer_bytes[s.buffer], BufferName(alias, s.buffer, defining(s))});
  }
  std::stable_sort(mm.peak_layout.begin(), mm.peak_layout.end(),
                   [](const HeapSlot& x, const HeapSlot& y) { return x.offset < y.offset; });
}

// A control-flow callee with two call sites is one set of buffers for both callers: the
// dataflow accepts that (its parameters hold the union) but the profile would not be XLA's.
// The profiler runs the synchronous callees (while, conditional, call) before their caller and
// adds each one's own peak at its calling instruction; an async-start's computation runs beside
// its caller and what it holds is the start's tuple, so it is not walked, but shared by two
// starts it would still make their results one buffer. An error names the first control-flow
// callee with two sites, async ones included (as analysis/call_graph.h classifies them);
// flatten-call-graph gives each site its own copy.
absl::Status CheckOneCallSitePerCallee(const Module& module, const CallGraph& calls) {
  absl::flat_hash_map<const Computation*, int> sites;
  for (const Computation* c : calls.CalleesFirst(*module.entry(), CallGraph::kControlFlow)) {
    for (const CallSite& site : calls.CallsIn(*c)) {
      if (site.context != CallContext::kControlFlow) continue;
      if (++sites[site.callee] == 2) {
        return absl::InvalidArgumentError(fmt::format(
            "module '{}': computation '{}' has more than one call site; the memory profiler "
            "needs one per control-flow callee: run --passes=flatten-call-graph first",
            module.name(), site.callee->name()));
      }
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<ModuleProfile> ProfileOne(const Module& module, const MemoryOptions& options,
                                         StageNames& names, bool* dynamic) {
  SizeNotes notes;
  ModuleProfile mp;
  if (module.entry() == nullptr) {
    return absl::InvalidArgumentError(fmt::format("module '{}' has no entry", module.name()));
  }
  const std::shared_ptr<const CallGraph> calls = CallGraph::Build(module);
  if (absl::Status s = CheckOneCallSitePerCallee(module, *calls); !s.ok()) return s;
  absl::StatusOr<InstructionRoles> roles = AssignRoles(module, *calls, options, names);
  if (!roles.ok()) return roles.status();
  mp.roles = *std::move(roles);
  absl::StatusOr<std::unique_ptr<AliasAnalysis>> aa =
      AliasAnalysis::Run(module, options.dataflow, calls);
  if (!aa.ok()) return aa.status();
  const AliasAnalysis& alias = **aa;
  const DataflowAnalysis& flow = alias.dataflow();

  const size_t nb = alias.buffers().size();
  mp.buffer_bytes.assign(nb, 0);
  mp.buffer_space.assign(nb, 0);
  mp.unpadded_bytes.assign(nb, 0);
  for (const HloBuffer& b : alias.buffers()) {
    int64_t bytes = 0;
    int64_t unpadded = 0;  // the same without tile padding, for the HTML page to say both
    int64_t space = 0;     // S(n) of its arrays (the largest when they differ)
    for (ValueId v : b.values) {
      const Shape& s = *flow.value(v).shape;
      const int64_t vb =
          s.IsTuple()
              ? (options.count_tuple_tables ? 8 * static_cast<int64_t>(s.tuple_elements.size()) : 0)
              : ArrayBytes(s, options.dim_value, &notes);
      if (notes.unbounded) {
        // A peak that leaves such a buffer out would be a wrong number printed as success.
        const HloValue& value = flow.value(v);
        return absl::InvalidArgumentError(fmt::format(
            "module '{}': the peak cannot be determined: {} ({}) has an unbounded dynamic "
            "dimension; size it with --dim-value=N",
            module.name(), value.instruction->name(), s.ToString()));
      }
      bytes = std::max(bytes, vb);
      int64_t ub = vb;
      if (s.IsArray() && (!s.layout.tiles.empty() || s.layout.tail_padding_alignment > 1)) {
        Shape untiled = s;
        untiled.layout.tiles.clear();
        untiled.layout.tail_padding_alignment = 1;
        ub = ArrayBytes(untiled, options.dim_value, &notes);
      }
      unpadded = std::max(unpadded, ub);
      if (s.IsArray()) space = std::max(space, s.layout.memory_space);
    }
    mp.buffer_bytes[b.id] = bytes;
    mp.unpadded_bytes[b.id] = unpadded;
    mp.buffer_space[b.id] = space;
  }
  // Values a before-offloading module places on the host are host memory as S(5) is.
  {
    const std::vector<bool> host = HostOffloadedBuffers(alias);
    for (size_t b = 0; b < nb; ++b) {
      if (host[b] && mp.buffer_space[b] == 0) mp.buffer_space[b] = kHostMemorySpace;
    }
  }
  if (notes.dynamic) *dynamic = true;
  // Constants: XLA gives each its own allocation, outside the heap.
  std::vector<uint8_t> is_constant(nb, 0);
  mp.constant_bytes.assign(nb, 0);
  for (const HloBuffer& b : alias.buffers()) {
    is_constant[b.id] = std::all_of(b.values.begin(), b.values.end(), [&](ValueId v) {
      const HloValue& hv = flow.value(v);
      return !hv.is_phi && hv.instruction->opcode() == Opcode::kConstant;
    });
    if (!is_constant[b.id]) continue;
    mp.constant_bytes[b.id] = mp.buffer_bytes[b.id];
    mp.memory.allocations.constant_bytes =
        SaturatingAdd(mp.memory.allocations.constant_bytes, mp.buffer_bytes[b.id], &mp.saturated);
    if (options.model == MemoryOptions::Model::kXla) mp.buffer_bytes[b.id] = 0;
  }

  absl::flat_hash_set<BufferId> donated;
  {
    const Computation& entry = *module.entry();
    for (const InputOutputAlias& a : module.input_output_aliases()) {
      if (a.parameter < 0 || a.parameter >= entry.parameter_count()) continue;
      for (BufferId b : alias.BuffersAt(*entry.parameter(a.parameter), a.parameter_index)) {
        donated.insert(b);
      }
    }
  }

  const absl::flat_hash_set<BufferId> none;
  // A while condition's pred is nobody else's buffer: the condition counts it itself.
  absl::flat_hash_set<const Computation*> conditions;
  for (const Computation* c : module.computations()) {
    for (const Instruction* in : c->instructions()) {
      if (in->opcode() == Opcode::kWhile && in->while_condition() != nullptr) {
        conditions.insert(in->while_condition());
      }
    }
  }
  const std::vector<const Computation*> callees_first =
      calls->CalleesFirst(*module.entry(), CallGraph::kSynchronous);
  absl::flat_hash_map<const Computation*, ComputationLiveness> callee_liveness;
  // Runs every computation, callees first, with one schedule kind; returns the entry's.
  auto run = [&](LiveRangeBuilder& builder, ScheduleKind kind) {
    builder.share_operand_buffers = options.model == MemoryOptions::Model::kXla;
    builder.schedule_kind = kind;
    builder.backward_instruction.assign(mp.roles.direction.size(), 0);
    for (size_t i = 0; i < mp.roles.direction.size(); ++i) {
      builder.backward_instruction[i] = mp.roles.direction[i] == Direction::kBackward;
    }
    ComputationLiveness entry_liveness;
    for (const Computation* c : callees_first) {
      if (c == module.entry()) {
        entry_liveness = builder.Run(*c, true, donated);
      } else {
        ComputationLiveness callee =
            builder.Run(*c, false, none, /*root_is_callers=*/!conditions.contains(c));
        // Kept for the whole-program timeline and for the breakdown of a peak inside a callee.
        callee_liveness[c] = std::move(callee);
      }
    }
    return entry_liveness;
  };
  ScheduleKind kind = options.schedule;
  if (module.is_scheduled()) {
    mp.memory.schedule = "text order (is_scheduled)";
    kind = ScheduleKind::kText;
  } else if (kind == ScheduleKind::kMin) {
    // XLA's default scheduler: the lowest peak of list, dfs and post-order (ties in that
    // order).
    std::string tried;
    int64_t best_peak = 0;
    for (ScheduleKind candidate :
         {ScheduleKind::kList, ScheduleKind::kDfs, ScheduleKind::kPostOrder}) {
      LiveRangeBuilder trial(alias, mp.buffer_bytes, /*scheduled=*/false);
      const int64_t peak = run(trial, candidate).peak;
      tried += fmt::format("{}{} {}", tried.empty() ? "" : ", ", ScheduleKindName(candidate), peak);
      if (kind == ScheduleKind::kMin || peak < best_peak) {
        kind = candidate;
        best_peak = peak;
      }
    }
    mp.memory.schedule = fmt::format("min: {} ({})", ScheduleKindName(kind), tried);
  } else {
    mp.memory.schedule = kind == ScheduleKind::kText ? "topological" : ScheduleKindName(kind);
  }
  LiveRangeBuilder builder(alias, mp.buffer_bytes, module.is_scheduled());
  mp.entry = run(builder, kind);
  mp.saturated = builder.saturated;
  const ComputationLiveness& entry = mp.entry;
  // The instruction that defines each buffer counted in the entry: an entry parameter for its
  // buffers (they are live from step 0, which is some other instruction's step), else the
  // instruction where the buffer starts.
  absl::flat_hash_map<BufferId, const Instruction*> parameter_of;
  for (const Instruction* param : module.entry()->parameters()) {
    for (int32_t p = 0; p < flow.PositionCount(*param); ++p) {
      for (ValueId v : flow.ValuesAtPosition(*param, p)) {
        parameter_of.try_emplace(alias.BufferOf(v).id, param);
      }
    }
  }
  auto defining = [&](const BufferSpan& s) {
    auto it = parameter_of.find(s.buffer);
    return it != parameter_of.end() ? it->second : entry.schedule[s.first];
  };

  // Stages of buffers: the stage of the instruction that starts them in the entry.
  mp.buffer_stage.assign(nb, -1);
  for (const BufferSpan& s : entry.spans) {
    mp.buffer_stage[s.buffer] = mp.roles.stage[defining(s)->unique_id()];
  }
  // Activations: stash buffers, or else forward values read by the backward pass.
  mp.activation_bytes.assign(nb, 0);
  const bool forward_only = std::none_of(mp.roles.direction.begin(), mp.roles.direction.end(),
                                         [](Direction d) { return d == Direction::kBackward; });
  mp.stashes = FindStashBuffers(
      alias, [&](const Shape& s) { return ArrayBytes(s, options.dim_value, &notes); },
      forward_only);
  for (const StashBuffer& s : mp.stashes) {
    mp.activation_bytes[s.buffer] = mp.buffer_bytes[s.buffer];
    const int writer_stage = mp.roles.stage[s.writer->unique_id()];
    if (writer_stage >= 0) mp.buffer_stage[s.buffer] = writer_stage;
  }
  if (mp.stashes.empty()) {
    for (const BufferSpan& s : entry.spans) {
      const Instruction* def = defining(s);
      if (mp.roles.direction[def->unique_id()] == Direction::kForward &&
          builder.read_by_backward[s.buffer]) {
        mp.activation_bytes[s.buffer] = mp.buffer_bytes[s.buffer];
      }
    }
  }

  // Categories of the buffers, for the stacked view (first match wins).
  mp.buffer_category.assign(nb, kTemporaries);
  {
    absl::flat_hash_set<BufferId> stash;
    for (const StashBuffer& st : mp.stashes) stash.insert(st.buffer);
    const Instruction* root = module.entry()->root();
    absl::flat_hash_set<BufferId> outputs;
    if (root != nullptr) {
      for (int32_t p = 0; p < flow.PositionCount(*root); ++p) {
        for (ValueId v : flow.ValuesAtPosition(*root, p)) outputs.insert(alias.BufferOf(v).id);
      }
    }
    for (const BufferSpan& sp : entry.spans) {
      const BufferId b = sp.buffer;
      mp.buffer_category[b] = parameter_of.contains(b)     ? kParameters
                              : outputs.contains(b)        ? kOutputs
                              : stash.contains(b)          ? kStashedActivations
                              : mp.activation_bytes[b] > 0 ? kOtherActivations
                                                           : kTemporaries;
    }
  }

  // The module's summary.
  ModuleMemory& mm = mp.memory;
  mm.module = std::string(module.name());
  mm.scheduled = module.is_scheduled();
  mm.instructions = static_cast<int64_t>(entry.schedule.size());
  mm.peak_bytes = entry.peak;
  mm.saturated = mp.saturated;
  if (entry.peak_step >= 0) {
    const Instruction* at = entry.schedule[entry.peak_step];
    mm.peak_instruction = std::string(at->name());
    mm.peak_op_name = std::string(OpNameOf(at));
    std::vector<LiveBuffer> live;
    const auto stage_name = [&](int s) { return s >= 0 ? names.names[s] : std::string(); };
    // A buffer live at a peak, as listed; `starts` is the instruction that defines it there.
    const auto describe = [&](const BufferSpan& s, const Instruction* starts) {
      const HloBuffer& b = alias.buffers()[s.buffer];
      // The defining value: the first non-phi one of the largest size.
      const HloValue* def = &flow.value(b.values.front());
      for (ValueId v : b.values) {
        const HloValue& hv = flow.value(v);
        if (!hv.is_phi && (def->is_phi || hv.instruction == starts)) {
          def = &hv;
        }
      }
      LiveBuffer lb;
      lb.bytes = mp.buffer_bytes[s.buffer];
      lb.instruction = std::string(def->instruction->name());
      if (!def->index.empty()) lb.instruction += ShapeIndexToString(def->index);
      lb.op_name = std::string(OpNameOf(def->instruction));
      lb.shape = def->shape->ToString();
      lb.stage = stage_name(mp.buffer_stage[s.buffer]);
      if (mp.activation_bytes[s.buffer] > 0) {
        lb.kind = mp.stashes.empty() ? LiveBufferKind::kActivation : LiveBufferKind::kStash;
      }
      lb.category = kCategoryNames[mp.buffer_category[s.buffer]];
      lb.opcode = std::string(OpcodeName(def->instruction->opcode()));
      lb.source = SourceOf(def->instruction);
      lb.start = s.first;
      lb.end = s.last;
      return lb;
    };
    for (const BufferSpan& s : entry.spans) {
      if (s.first > entry.peak_step || s.last < entry.peak_step) continue;
      if (mp.buffer_bytes[s.buffer] == 0) continue;
      live.push_back(describe(s, defining(s)));
    }
    const int at_stage = mp.roles.stage[at->unique_id()];
    if (entry.copy_bytes[entry.peak_step] > 0) {
      live.push_back({entry.copy_bytes[entry.peak_step], std::string(at->name()),
                      std::string(OpNameOf(at)), at->shape().ToString(), stage_name(at_stage),
                      LiveBufferKind::kCopy, kCategoryNames[kTemporaries],
                      std::string(OpcodeName(at->opcode())), SourceOf(at), entry.peak_step,
                      entry.peak_step});
    }
    if (entry.callee_bytes[entry.peak_step] > 0) {
      live.push_back({entry.callee_bytes[entry.peak_step], std::string(at->name()),
                      std::string(OpNameOf(at)), "", stage_name(at_stage), LiveBufferKind::kCallee,
                      kCategoryNames[kTemporaries], std::string(OpcodeName(at->opcode())),
                      SourceOf(at), entry.peak_step, entry.peak_step});
    }
    std::stable_sort(live.begin(), live.end(),
                     [](const LiveBuffer& a, const LiveBuffer& b) { return a.bytes > b.bytes; });
    mm.peak_groups = GroupPeakBuffers(live, options.top_buffers);
    if (live.size() > static_cast<size_t>(std::max(options.top_buffers, 0))) {
      live.resize(static_cast<size_t>(std::max(options.top_buffers, 0)));
    }
    mm.top_buffers = std::move(live);

    // A peak inside a callee (a call, a while body, a branch, a command buffer): what the
    // callee holds at its own peak, and so on down the nested callees that peak is in. The
    // caller's step counts the largest peak of its callees (buffer_live_ranges.h).
    const Instruction* caller = at;
    int64_t inside = entry.callee_bytes[entry.peak_step];
    while (inside > 0 && caller != nullptr && mm.callee_peaks.size() < 16) {
      std::vector<const Computation*> callees;
      if (caller->opcode() == Opcode::kWhile) {
        callees = {caller->while_condition(), caller->while_body()};
      } else {
        callees.assign(caller->called_computations().begin(), caller->called_computations().end());
      }
      const Computation* callee = nullptr;
      const ComputationLiveness* cl = nullptr;
      for (const Computation* c : callees) {
        auto it = c == nullptr ? callee_liveness.end() : callee_liveness.find(c);
        if (it == callee_liveness.end() || it->second.peak_step < 0) continue;
        if (cl == nullptr || it->second.peak > cl->peak) {
          callee = c;
          cl = &it->second;
        }
      }
      if (cl == nullptr) break;
      const Instruction* there = cl->schedule[cl->peak_step];
      CalleePeak cp;
      cp.computation = std::string(callee->name());
      cp.caller = std::string(caller->name());
      cp.peak_bytes = cl->peak;
      cp.peak_instruction = std::string(there->name());
      for (const BufferSpan& s : cl->spans) {
        if (s.first > cl->peak_step || s.last < cl->peak_step) continue;
        if (mp.buffer_bytes[s.buffer] == 0) continue;
        cp.top_buffers.push_back(describe(s, cl->schedule[s.first]));
        cp.top_buffers.back().category = kCategoryNames[kTemporaries];
      }
      const int there_stage = mp.roles.stage[there->unique_id()];
      if (cl->copy_bytes[cl->peak_step] > 0) {
        cp.top_buffers.push_back({cl->copy_bytes[cl->peak_step], std::string(there->name()),
                                  std::string(OpNameOf(there)), there->shape().ToString(),
                                  stage_name(there_stage), LiveBufferKind::kCopy,
                                  kCategoryNames[kTemporaries],
                                  std::string(OpcodeName(there->opcode())), SourceOf(there)});
      }
      if (cl->callee_bytes[cl->peak_step] > 0) {
        cp.top_buffers.push_back({cl->callee_bytes[cl->peak_step], std::string(there->name()),
                                  std::string(OpNameOf(there)), "", stage_name(there_stage),
                                  LiveBufferKind::kCallee, kCategoryNames[kTemporaries],
                                  std::string(OpcodeName(there->opcode())), SourceOf(there)});
      }
      std::stable_sort(cp.top_buffers.begin(), cp.top_buffers.end(),
                       [](const LiveBuffer& a, const LiveBuffer& b) { return a.bytes > b.bytes; });
      if (cp.top_buffers.size() > static_cast<size_t>(std::max(options.top_buffers, 0))) {
        cp.top_buffers.resize(static_cast<size_t>(std::max(options.top_buffers, 0)));
      }
      inside = cl->callee_bytes[cl->peak_step];
      caller = there;
      mm.callee_peaks.push_back(std::move(cp));
    }
  }
  mm.model = options.model == MemoryOptions::Model::kXla ? "xla" : "liveness";
  if (options.heap) {
    FillHeap(alias, entry, mp, parameter_of, is_constant, options.top_buffers,
             options.list_allocations, defining);
  }
  // Host bytes after each entry step (host_placement.h), for the timeline's points.
  std::vector<int64_t> host_at(entry.schedule.size(), 0);
  {
    std::vector<__int128> diff(entry.schedule.size() + 1, 0);
    for (const BufferSpan& s : entry.spans) {
      if (mp.buffer_space[s.buffer] != kHostMemorySpace) continue;
      diff[s.first] += mp.buffer_bytes[s.buffer];
      diff[s.last + 1] -= mp.buffer_bytes[s.buffer];
    }
    __int128 running = 0;
    constexpr __int128 kMax = std::numeric_limits<int64_t>::max();
    for (size_t t = 0; t < host_at.size(); ++t) {
      running += diff[t];
      host_at[t] = static_cast<int64_t>(std::min(running, kMax));
    }
  }
  if (options.timeline && !options.whole_program_timeline) {
    mm.timeline.reserve(entry.schedule.size());
    for (size_t t = 0; t < entry.schedule.size(); ++t) {
      const Instruction* in = entry.schedule[t];
      mm.timeline.push_back({in, mp.roles.stage[in->unique_id()], entry.live[t], host_at[t]});
    }
  } else if (options.timeline) {
    // `outside`: bytes of the callers around this computation at the current call; `host`:
    // the host bytes of the entry step that calls it.
    std::function<void(const ComputationLiveness&, int64_t, int64_t)> expand =
        [&](const ComputationLiveness& l, int64_t outside, int64_t host) {
          for (size_t t = 0; t < l.schedule.size(); ++t) {
            const Instruction* in = l.schedule[t];
            const int64_t here = SaturatingAdd(outside, l.live[t], &mp.saturated);
            const int64_t host_here = &l == &entry ? host_at[t] : host;
            std::vector<const Computation*> callees;
            if (in->opcode() == Opcode::kWhile) {
              callees = {in->while_condition(), in->while_body()};
            } else if (in->opcode() == Opcode::kConditional || in->opcode() == Opcode::kCall) {
              callees.assign(in->called_computations().begin(), in->called_computations().end());
            }
            for (const Computation* c : callees) {
              auto it = c == nullptr ? callee_liveness.end() : callee_liveness.find(c);
              if (it != callee_liveness.end()) {
                expand(it->second, here - l.callee_bytes[t], host_here);
              }
            }
            mm.timeline.push_back({in, mp.roles.stage[in->unique_id()], here, host_here});
          }
        };
    expand(entry, 0, 0);
  }
  return mp;
}

// Live bytes over the entry's schedule of the buffers `weight` gives bytes to, plus the
// step-local bytes (copies, callees) of the steps `step_counts` accepts.
// Sums past int64 saturate and set `*saturated`.
template <typename Weight, typename StepCounts>
std::vector<int64_t> Series(const ModuleProfile& mp, Weight weight, StepCounts step_counts,
                            bool* saturated) {
  const ComputationLiveness& e = mp.entry;
  const size_t n = e.schedule.size();
  std::vector<__int128> diff(n + 1, 0);
  for (const BufferSpan& s : e.spans) {
    const int64_t w = weight(s.buffer);
    if (w == 0) continue;
    diff[s.first] += w;
    diff[s.last + 1] -= w;
  }
  std::vector<int64_t> out(n);
  constexpr __int128 kMax = std::numeric_limits<int64_t>::max();
  __int128 running = 0;
  for (size_t t = 0; t < n; ++t) {
    running += diff[t];
    __int128 live = running;
    if (step_counts(t)) live += static_cast<__int128>(e.copy_bytes[t]) + e.callee_bytes[t];
    if (live > kMax) *saturated = true;
    out[t] = static_cast<int64_t>(std::min(live, kMax));
  }
  return out;
}

int64_t MaxOf(const std::vector<int64_t>& v) {
  return v.empty() ? 0 : *std::max_element(v.begin(), v.end());
}

}  // namespace

std::string SimulatedAllocation::KindText() const {
  switch (kind) {
    case Kind::kParameter: {
      std::string index = "{";
      for (size_t i = 0; i < parameter_index.size(); ++i) {
        index += (i ? "," : "") + std::to_string(parameter_index[i]);
      }
      return fmt::format("parameter {} {}}}", parameter_number, index);
    }
    case Kind::kConstant:
      return "constant";
    case Kind::kLiveOut:
      return "maybe-live-out";
    case Kind::kTemp:
      return "preallocated-temp";
  }
  return "";
}

std::string_view LiveBufferKindName(LiveBufferKind kind) {
  switch (kind) {
    case LiveBufferKind::kBuffer:
      return "buffer";
    case LiveBufferKind::kStash:
      return "stash";
    case LiveBufferKind::kActivation:
      return "activation";
    case LiveBufferKind::kCopy:
      return "copy";
    case LiveBufferKind::kCallee:
      return "callee";
  }
  return "buffer";
}

absl::StatusOr<MemoryReport> ProfileModules(std::vector<const Module*> modules,
                                            const MemoryOptions& options) {
  if (modules.empty()) return absl::InvalidArgumentError("no module to profile");
  if (options.stage_by == MemoryOptions::StageBy::kFrontendAttribute &&
      options.stage_attr.empty()) {
    return absl::InvalidArgumentError("--stage-by=attr:NAME needs an attribute name");
  }
  MemoryReport report;
  report.dim_value = options.dim_value;
  StageNames names;
  std::vector<ModuleProfile> profiles;
  profiles.reserve(modules.size());
  for (const Module* m : modules) {
    absl::StatusOr<ModuleProfile> p = ProfileOne(*m, options, names, &report.has_dynamic_dims);
    if (!p.ok()) return p.status();
    profiles.push_back(*std::move(p));
  }
  for (size_t i = 0; i < profiles.size(); ++i) {
    if (profiles[i].saturated) report.saturated = true;
    const ModuleMemory& mm = profiles[i].memory;
    if (i == 0 || mm.peak_bytes > report.peak_bytes) {
      report.peak_bytes = mm.peak_bytes;
      report.peak_instruction = mm.peak_instruction;
      report.peak_op_name = mm.peak_op_name;
      report.peak_module = mm.module;
      report.top_buffers = mm.top_buffers;
    }
  }

  // Live bytes by category over the entry's schedule (a step's copies and callee peak are
  // temporaries); with the per-instruction timeline only.
  if (options.timeline && !options.whole_program_timeline) {
    for (ModuleProfile& mp : profiles) {
      for (int k = 0; k < kCategories; ++k) {
        CategorySeries series;
        series.category = kCategoryNames[k];
        series.live_bytes = Series(
            mp, [&](BufferId b) { return mp.buffer_category[b] == k ? mp.buffer_bytes[b] : 0; },
            [&](size_t) { return k == kTemporaries; }, &report.saturated);
        mp.memory.categories.push_back(std::move(series));
      }
    }
  }

  // Memory spaces other than the default each get their own peak (the module's peak holds
  // all of them together).
  for (ModuleProfile& mp : profiles) {
    std::vector<int64_t> spaces(mp.buffer_space.begin(), mp.buffer_space.end());
    std::sort(spaces.begin(), spaces.end());
    spaces.erase(std::unique(spaces.begin(), spaces.end()), spaces.end());
    if (spaces.size() <= 1 && (spaces.empty() || spaces[0] == 0)) continue;
    for (int64_t space : spaces) {
      const std::vector<int64_t> live = Series(
          mp, [&](BufferId b) { return mp.buffer_space[b] == space ? mp.buffer_bytes[b] : 0; },
          [](size_t) { return false; }, &report.saturated);
      auto it = std::max_element(live.begin(), live.end());
      MemorySpacePeak peak;
      peak.space = space;
      if (it != live.end()) {
        peak.peak_bytes = *it;
        peak.peak_instruction = std::string(mp.entry.schedule[it - live.begin()]->name());
      }
      mp.memory.memory_spaces.push_back(std::move(peak));
    }
  }
  // The device and the host apart: a host-offloaded stash is not device memory.
  for (ModuleProfile& mp : profiles) {
    mp.memory.device_peak_bytes = mp.memory.peak_bytes;
    mp.memory.device_peak_instruction = mp.memory.peak_instruction;
    if (std::find(mp.buffer_space.begin(), mp.buffer_space.end(), kHostMemorySpace) ==
        mp.buffer_space.end()) {
      continue;
    }
    auto peak_of = [&](bool host, bool with_step_extras, int64_t* bytes, std::string* at) {
      const std::vector<int64_t> live = Series(
          mp,
          [&](BufferId b) {
            return (mp.buffer_space[b] == kHostMemorySpace) == host ? mp.buffer_bytes[b] : 0;
          },
          [&](size_t) { return with_step_extras; }, &report.saturated);
      auto it = std::max_element(live.begin(), live.end());
      *bytes = it == live.end() ? 0 : *it;
      *at = it == live.end() ? "" : std::string(mp.entry.schedule[it - live.begin()]->name());
    };
    // Copies and callee peaks are device memory (what runs on the device).
    peak_of(false, true, &mp.memory.device_peak_bytes, &mp.memory.device_peak_instruction);
    peak_of(true, false, &mp.memory.host_peak_bytes, &mp.memory.host_peak_instruction);
  }

  using StageBy = MemoryOptions::StageBy;
  auto stash_activation = [&](const ModuleProfile& mp, StageMemory& st, int stage) {
    for (const StashBuffer& s : mp.stashes) {
      if (stage >= 0 && mp.buffer_stage[s.buffer] != stage) continue;
      st.activation_bytes_per_microbatch =
          SaturatingAdd(st.activation_bytes_per_microbatch, s.update_bytes, &report.saturated);
      st.microbatch_slots = std::max(st.microbatch_slots, s.slots);
      ++st.stash_buffers;
    }
  };
  auto opname_activation = [&](const ModuleProfile& mp, StageMemory& st, int stage) {
    for (const BufferSpan& s : mp.entry.spans) {
      if (mp.activation_bytes[s.buffer] == 0) continue;
      if (stage >= 0 && mp.buffer_stage[s.buffer] != stage) continue;
      st.activation_bytes_per_microbatch = SaturatingAdd(
          st.activation_bytes_per_microbatch, mp.activation_bytes[s.buffer], &report.saturated);
    }
  };
  auto fill_peak = [&](const ModuleProfile& mp, StageMemory& st, const std::vector<int64_t>& tl) {
    if (options.timeline) st.timeline = tl;
    auto it = std::max_element(tl.begin(), tl.end());
    if (it == tl.end()) return;
    st.peak_bytes = *it;
    st.peak_instruction = std::string(mp.entry.schedule[it - tl.begin()]->name());
  };

  if (options.stage_by == StageBy::kModule || options.stage_by == StageBy::kNone) {
    // One stage per module; without stage flags, a module's stash may hold several stages.
    for (size_t i = 0; i < profiles.size(); ++i) {
      const ModuleProfile& mp = profiles[i];
      int64_t stages = 1;
      if (options.stage_by == StageBy::kNone) {
        for (const StashBuffer& s : mp.stashes) stages = std::max(stages, s.stages);
      }
      const std::vector<int64_t> activations = Series(
          mp, [&](BufferId b) { return mp.activation_bytes[b]; }, [](size_t) { return false; },
          &report.saturated);
      for (int64_t k = 0; k < stages; ++k) {
        StageMemory st;
        st.stage = options.stage_by == StageBy::kModule || profiles.size() == 1
                       ? std::to_string(stages > 1 ? k : static_cast<int64_t>(i))
                       : fmt::format("{}/{}", i, k);
        st.module = mp.memory.module;
        st.module_index = static_cast<int>(i);
        fill_peak(mp, st, mp.entry.live);
        if (!mp.stashes.empty()) {
          st.activation_source = "stash";
          for (const StashBuffer& s : mp.stashes) {
            // With a stage dimension, one stage's share of what each write covers.
            const int64_t share =
                stages > 1 ? s.update_bytes / s.stage_extent_of_update : s.update_bytes;
            st.activation_bytes_per_microbatch =
                SaturatingAdd(st.activation_bytes_per_microbatch, share, &report.saturated);
            st.microbatch_slots = std::max(st.microbatch_slots, s.slots);
            ++st.stash_buffers;
          }
          st.peak_activation_bytes = MaxOf(activations) / stages;
        } else {
          opname_activation(mp, st, -1);
          st.activation_source = st.activation_bytes_per_microbatch > 0 ? "op_name" : "none";
          st.peak_activation_bytes = MaxOf(activations);
        }
        report.stages.push_back(std::move(st));
      }
    }
  } else {
    // Stages named inside the modules: sorted numerically when they are numbers.
    const std::vector<int> order = names.SortedOrder();
    for (int stage : order) report.stage_names.push_back(names.names[stage]);
    for (int stage : order) {
      for (size_t i = 0; i < profiles.size(); ++i) {
        const ModuleProfile& mp = profiles[i];
        StageMemory st;
        st.stage = names.names[stage];
        st.module = mp.memory.module;
        st.module_index = static_cast<int>(i);
        const std::vector<int64_t> total = Series(
            mp, [&](BufferId b) { return mp.buffer_stage[b] == stage ? mp.buffer_bytes[b] : 0; },
            [&](size_t t) { return mp.roles.stage[mp.entry.schedule[t]->unique_id()] == stage; },
            &report.saturated);
        if (MaxOf(total) == 0) continue;  // this module has nothing of this stage
        fill_peak(mp, st, total);
        if (!mp.stashes.empty()) {
          stash_activation(mp, st, stage);
          st.activation_source = "stash";
        } else {
          opname_activation(mp, st, stage);
          st.activation_source = st.activation_bytes_per_microbatch > 0 ? "op_name" : "none";
        }
        st.peak_activation_bytes = MaxOf(Series(
            mp,
            [&](BufferId b) { return mp.buffer_stage[b] == stage ? mp.activation_bytes[b] : 0; },
            [](size_t) { return false; }, &report.saturated));
        report.stages.push_back(std::move(st));
      }
    }
    // Timeline points name stages by their sorted index.
    std::vector<int> new_index(order.size());
    for (size_t k = 0; k < order.size(); ++k) new_index[order[k]] = static_cast<int>(k);
    for (ModuleProfile& mp : profiles) {
      for (TimelinePoint& p : mp.memory.timeline) {
        if (p.stage >= 0) p.stage = new_index[p.stage];
      }
    }
  }
  if (options.stage_by == StageBy::kModule || options.stage_by == StageBy::kNone) {
    for (size_t i = 0; i < profiles.size(); ++i) {
      for (TimelinePoint& p : profiles[i].memory.timeline) p.stage = -1;
    }
  }
  for (ModuleProfile& mp : profiles) report.modules.push_back(std::move(mp.memory));
  return report;
}

absl::StatusOr<MemoryReport> ProfileModule(const Module& module, const MemoryOptions& options) {
  return ProfileModules({&module}, options);
}

}  // namespace hloscope
