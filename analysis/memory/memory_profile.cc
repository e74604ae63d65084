#include "analysis/memory/memory_profile.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "analysis/alias.h"
#include "analysis/call_graph.h"
#include "analysis/memory/buffer_live_ranges.h"
#include "analysis/memory/buffer_sizes.h"
#include "analysis/memory/heap_simulation.h"
#include "analysis/memory/host_placement.h"
#include "analysis/memory/memory_schedulers.h"
#include "analysis/memory/module_profile_internal.h"
#include "analysis/memory/peak_contents.h"
#include "analysis/memory/stage_assignment.h"
#include "analysis/memory/stage_rows.h"
#include "analysis/memory/stash_buffers.h"
#include "analysis/memory/xla_assignment_model.h"
#include "analysis/memory/xla_model_peak.h"
#include "fmt/format.h"
#include "hlo/computation.h"
#include "hlo/input_output_alias.h"
#include "support/checked_int.h"
#include "support/option_error.h"

namespace hloscope {
namespace memory_profile_internal {

std::string_view OpNameOf(const Instruction* instruction) {
  return instruction != nullptr && instruction->metadata() != nullptr
             ? instruction->metadata()->op_name
             : std::string_view();
}

std::string SourceOf(const Instruction* instruction) {
  if (instruction == nullptr || instruction->metadata() == nullptr ||
      instruction->metadata()->source_file.empty()) {
    return {};
  }
  const Metadata& metadata = *instruction->metadata();
  return metadata.source_line >= 0
             ? fmt::format("{}:{}", metadata.source_file, metadata.source_line)
             : std::string(metadata.source_file);
}

const HloValue& NamingValue(const AliasAnalysis& alias, BufferId buffer,
                            const Instruction* defined_in) {
  const DataflowAnalysis& flow = alias.dataflow();
  const HloBuffer& values = alias.buffers()[buffer];
  const HloValue* naming = &flow.value(values.values.front());
  for (ValueId value_id : values.values) {
    const HloValue& value = flow.value(value_id);
    if (!value.is_phi && (naming->is_phi || value.instruction == defined_in)) naming = &value;
  }
  return *naming;
}

std::string BufferName(const AliasAnalysis& alias, BufferId buffer, const Instruction* defined_in) {
  const HloValue& naming = NamingValue(alias, buffer, defined_in);
  std::string name(naming.instruction->name());
  if (!naming.index.empty()) name += ShapeIndexToString(naming.index);
  return name;
}

}  // namespace memory_profile_internal

namespace {

using memory_profile_internal::ArrayBytes;
using memory_profile_internal::BufferName;
using memory_profile_internal::CalleeLiveness;
using memory_profile_internal::Category;
using memory_profile_internal::DefiningInstruction;
using memory_profile_internal::kCategories;
using memory_profile_internal::kCategoryNames;
using memory_profile_internal::kOtherActivations;
using memory_profile_internal::kOutputs;
using memory_profile_internal::kParameters;
using memory_profile_internal::kStashedActivations;
using memory_profile_internal::kTemporaries;
using memory_profile_internal::ModuleProfile;
using memory_profile_internal::NamingValue;
using memory_profile_internal::OpNameOf;
using memory_profile_internal::Series;
using memory_profile_internal::SizeNotes;
using memory_profile_internal::SourceOf;

// The buffers of every value at some position of `instruction`.
absl::flat_hash_set<BufferId> BuffersOf(const AliasAnalysis& alias,
                                        const Instruction& instruction) {
  const DataflowAnalysis& flow = alias.dataflow();
  absl::flat_hash_set<BufferId> buffers;
  for (int32_t position = 0; position < flow.PositionCount(instruction); ++position) {
    for (ValueId value : flow.ValuesAtPosition(instruction, position)) {
      buffers.insert(alias.BufferOf(value).id);
    }
  }
  return buffers;
}

// Every buffer the entry counts, as XLA's kinds of allocation with its values, offsets and
// live ranges: for the comparison with XLA's own assignment. Phis are listed too: they sit
// where XLA's non-SSA dataflow defines values (a while's results, its body's and condition's
// parameters), with the same names. `offset` is by span, in the heap of `fixed` bytes of own
// allocations and the temps above.
void ListAllocations(const AliasAnalysis& alias, const absl::flat_hash_set<BufferId>& live_out,
                     const std::vector<int64_t>& offset, int64_t fixed, ModuleProfile& profile) {
  const DataflowAnalysis& flow = alias.dataflow();
  const ComputationLiveness& entry = profile.entry;
  using Kind = SimulatedAllocation::Kind;
  std::vector<SimulatedAllocation>& out = profile.memory.simulated_allocations;
  SimulatedAllocation temp;
  temp.bytes = profile.memory.allocations.temp_bytes;
  for (size_t span_index = 0; span_index < entry.spans.size(); ++span_index) {
    const BufferSpan& span = entry.spans[span_index];
    const int64_t bytes = profile.constant_bytes[span.buffer] > 0
                              ? profile.constant_bytes[span.buffer]
                              : profile.buffer_bytes[span.buffer];
    SimulatedAllocation own;
    own.bytes = bytes;
    const auto param = profile.parameter_of.find(span.buffer);
    if (param != profile.parameter_of.end()) {
      own.kind = Kind::kParameter;
      own.parameter_number = param->second->parameter_number();
    } else if (profile.constant_bytes[span.buffer] > 0) {
      own.kind = Kind::kConstant;
    } else if (live_out.contains(span.buffer)) {
      own.kind = Kind::kLiveOut;
    }
    const int64_t at = own.kind == Kind::kTemp ? offset[span_index] - fixed : 0;
    std::vector<SimulatedValue>& values = own.kind == Kind::kTemp ? temp.values : own.values;
    for (ValueId value_id : alias.buffers()[span.buffer].values) {
      const HloValue& value = flow.value(value_id);
      if (own.kind == Kind::kParameter && value.instruction == param->second) {
        own.parameter_index.assign(value.index.begin(), value.index.end());
      }
      values.push_back({.instruction = std::string(value.instruction->name()),
                        .index = {value.index.begin(), value.index.end()},
                        .bytes = bytes,
                        .offset = at,
                        .first = span.first,
                        .last = span.last,
                        .buffer = static_cast<int64_t>(span.buffer)});
    }
    if (own.kind != Kind::kTemp) out.push_back(std::move(own));
  }
  if (temp.bytes > 0 || !temp.values.empty()) out.push_back(std::move(temp));
}

// The buffers of the entry's result at the end of its schedule (the root of the computation
// of its last step).
absl::flat_hash_set<BufferId> LiveOutBuffers(const AliasAnalysis& alias,
                                             const ComputationLiveness& entry) {
  const Instruction* root = entry.schedule.empty() ? nullptr : entry.schedule.back();
  if (root == nullptr) return {};
  if (root->parent() != nullptr && root->parent()->root() != nullptr) root = root->parent()->root();
  return BuffersOf(alias, *root);
}

// The heap's offsets by span, as XLA allocates: each entry parameter, constant (when it is
// counted at all) and live-out buffer has its own allocation, laid out one after another from
// offset 0 (their total in `*fixed`); the rest share the preallocated temp allocation above
// them, packed best-fit with each step's copies and callee peak as buffers of that one step.
// (Packing the long-lived buffers with the temporaries would also make every temporary overlap
// all of them.) Fills the allocation summary's parameter, live-out and temp bytes.
std::vector<int64_t> LayOutHeap(const absl::flat_hash_set<BufferId>& live_out,
                                ModuleProfile& profile, int64_t* fixed) {
  const ComputationLiveness& entry = profile.entry;
  AllocationSummary& allocations = profile.memory.allocations;
  std::vector<int64_t> offset(entry.spans.size(), -1);
  std::vector<HeapBuffer> temps;
  std::vector<size_t> temp_span;  // span index of each temp; SIZE_MAX for a step's transient
  *fixed = 0;
  for (size_t span_index = 0; span_index < entry.spans.size(); ++span_index) {
    const BufferSpan& span = entry.spans[span_index];
    const int64_t bytes = profile.buffer_bytes[span.buffer];
    const bool parameter = profile.parameter_of.contains(span.buffer);
    const bool output = !parameter && live_out.contains(span.buffer);
    if (parameter) {
      allocations.parameter_bytes =
          SaturatingAdd(allocations.parameter_bytes, bytes, &profile.saturated);
    }
    if (output) {
      allocations.maybe_live_out_bytes =
          SaturatingAdd(allocations.maybe_live_out_bytes, bytes, &profile.saturated);
    }
    if (parameter || output || profile.is_constant[span.buffer]) {
      offset[span_index] = *fixed;
      *fixed = SaturatingAdd(*fixed, bytes, &profile.saturated);
    } else {
      temps.push_back({bytes, span.first, span.last});
      temp_span.push_back(span_index);
    }
  }
  for (size_t step_index = 0; step_index < entry.schedule.size(); ++step_index) {
    const int32_t step = static_cast<int32_t>(step_index);
    for (int64_t transient : {entry.copy_bytes[step_index], entry.callee_bytes[step_index]}) {
      if (transient == 0) continue;
      temps.push_back({transient, step, step});
      temp_span.push_back(SIZE_MAX);
    }
  }
  const HeapLayout temp_heap = PackBestFit(temps);
  for (size_t temp = 0; temp < temps.size(); ++temp) {
    if (temp_span[temp] != SIZE_MAX) {
      offset[temp_span[temp]] = SaturatingAdd(*fixed, temp_heap.offsets[temp], &profile.saturated);
    }
  }
  allocations.temp_bytes = temp_heap.heap_bytes;
  profile.memory.heap_bytes = SaturatingAdd(*fixed, temp_heap.heap_bytes, &profile.saturated);
  return offset;
}

// The boxes to draw: the largest buffers (a page stays light whatever the module's size).
void AddHeapBoxes(const AliasAnalysis& alias, const std::vector<int64_t>& offset,
                  ModuleProfile& profile) {
  constexpr size_t kMaxBoxes = 2000;
  const ComputationLiveness& entry = profile.entry;
  std::vector<size_t> order;
  for (size_t span_index = 0; span_index < entry.spans.size(); ++span_index) {
    if (profile.buffer_bytes[entry.spans[span_index].buffer] > 0) order.push_back(span_index);
  }
  auto larger = [&](size_t left, size_t right) {
    return profile.buffer_bytes[entry.spans[left].buffer] >
           profile.buffer_bytes[entry.spans[right].buffer];
  };
  if (order.size() > kMaxBoxes) {
    std::nth_element(order.begin(), order.begin() + kMaxBoxes, order.end(), larger);
    order.resize(kMaxBoxes);
  }
  std::sort(order.begin(), order.end());
  for (size_t span_index : order) {
    const BufferSpan& span = entry.spans[span_index];
    const Instruction* defining = DefiningInstruction(profile, span);
    const HloValue& def = NamingValue(alias, span.buffer, defining);
    profile.memory.heap_boxes.push_back(
        {.first = span.first,
         .last = span.last,
         .offset = offset[span_index],
         .bytes = profile.buffer_bytes[span.buffer],
         .name = BufferName(alias, span.buffer, defining),
         .shape = def.shape->ToString(),
         .opcode = std::string(OpcodeName(def.instruction->opcode())),
         .op_name = std::string(OpNameOf(def.instruction)),
         .source = SourceOf(def.instruction),
         .category = kCategoryNames[profile.buffer_category[span.buffer]],
         .unpadded_bytes = profile.unpadded_bytes[span.buffer]});
  }
}

// The `top` largest buffers live at the peak, by offset.
void AddPeakLayout(const AliasAnalysis& alias, const std::vector<int64_t>& offset, int top,
                   ModuleProfile& profile) {
  const ComputationLiveness& entry = profile.entry;
  if (entry.peak_step < 0) return;
  std::vector<size_t> at_peak;
  for (size_t span_index = 0; span_index < entry.spans.size(); ++span_index) {
    const BufferSpan& span = entry.spans[span_index];
    if (span.first <= entry.peak_step && entry.peak_step <= span.last &&
        profile.buffer_bytes[span.buffer] > 0) {
      at_peak.push_back(span_index);
    }
  }
  std::stable_sort(at_peak.begin(), at_peak.end(), [&](size_t left, size_t right) {
    return profile.buffer_bytes[entry.spans[left].buffer] >
           profile.buffer_bytes[entry.spans[right].buffer];
  });
  if (at_peak.size() > static_cast<size_t>(std::max(top, 0))) at_peak.resize(std::max(top, 0));
  std::vector<HeapSlot>& layout = profile.memory.peak_layout;
  for (size_t span_index : at_peak) {
    const BufferSpan& span = entry.spans[span_index];
    layout.push_back({offset[span_index], profile.buffer_bytes[span.buffer],
                      BufferName(alias, span.buffer, DefiningInstruction(profile, span))});
  }
  std::stable_sort(layout.begin(), layout.end(), [](const HeapSlot& left, const HeapSlot& right) {
    return left.offset < right.offset;
  });
}

// The simulated heap of the entry (every buffer counted in it, and each step's copies and
// callee peak as buffers of that one step), the buffers at the peak with their offsets, and
// XLA's allocation categories.
void FillHeap(const AliasAnalysis& alias, const MemoryOptions& options, ModuleProfile& profile) {
  const absl::flat_hash_set<BufferId> live_out = LiveOutBuffers(alias, profile.entry);
  int64_t fixed = 0;
  const std::vector<int64_t> offset = LayOutHeap(live_out, profile, &fixed);
  if (options.list_allocations) ListAllocations(alias, live_out, offset, fixed, profile);
  AllocationSummary& allocations = profile.memory.allocations;
  allocations.total_bytes = allocations.parameter_bytes;
  for (int64_t part :
       {allocations.constant_bytes, allocations.maybe_live_out_bytes, allocations.temp_bytes}) {
    allocations.total_bytes = SaturatingAdd(allocations.total_bytes, part, &profile.saturated);
  }
  if (options.heap_boxes) AddHeapBoxes(alias, offset, profile);
  AddPeakLayout(alias, offset, options.top_buffers, profile);
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
  for (const Computation* computation :
       calls.CalleesFirst(*module.entry(), CallGraph::kControlFlow)) {
    for (const CallSite& site : calls.CallsIn(*computation)) {
      if (site.context != CallContext::kControlFlow) continue;
      if (++sites[site.callee] == 2) {
        return absl::InvalidArgumentError(fmt::format(
            "module '{}': computation '{}' has more than one call site; the memory profiler "
            "needs one per control-flow callee: run the flatten-call-graph pass first",
            module.name(), site.callee->name()));
      }
    }
  }
  return absl::OkStatus();
}

// Constants: XLA gives each its own allocation, outside the heap (the XLA model counts them 0
// in it).
void MarkConstants(const AliasAnalysis& alias, const MemoryOptions& options,
                   ModuleProfile& profile) {
  const DataflowAnalysis& flow = alias.dataflow();
  const size_t buffer_count = alias.buffers().size();
  profile.is_constant.assign(buffer_count, 0);
  profile.constant_bytes.assign(buffer_count, 0);
  for (const HloBuffer& buffer : alias.buffers()) {
    profile.is_constant[buffer.id] =
        std::all_of(buffer.values.begin(), buffer.values.end(), [&](ValueId value_id) {
          const HloValue& value = flow.value(value_id);
          return !value.is_phi && value.instruction->opcode() == Opcode::kConstant;
        });
    if (!profile.is_constant[buffer.id]) continue;
    profile.constant_bytes[buffer.id] = profile.buffer_bytes[buffer.id];
    profile.memory.allocations.constant_bytes =
        SaturatingAdd(profile.memory.allocations.constant_bytes, profile.buffer_bytes[buffer.id],
                      &profile.saturated);
    if (options.model == MemoryOptions::Model::kXla) profile.buffer_bytes[buffer.id] = 0;
  }
}

// The entry parameter buffers input_output_alias donates.
absl::flat_hash_set<BufferId> DonatedBuffers(const Module& module, const AliasAnalysis& alias) {
  absl::flat_hash_set<BufferId> donated;
  const Computation& entry = *module.entry();
  for (const InputOutputAlias& output_alias : module.input_output_aliases()) {
    if (output_alias.parameter < 0 || output_alias.parameter >= entry.parameter_count()) continue;
    for (BufferId buffer :
         alias.BuffersAt(*entry.parameter(output_alias.parameter), output_alias.parameter_index)) {
      donated.insert(buffer);
    }
  }
  return donated;
}

// A while condition's pred is nobody else's buffer: the condition counts it itself.
absl::flat_hash_set<const Computation*> WhileConditions(const Module& module) {
  absl::flat_hash_set<const Computation*> conditions;
  for (const Computation* computation : module.computations()) {
    for (const Instruction* instruction : computation->instructions()) {
      if (instruction->opcode() == Opcode::kWhile && instruction->while_condition() != nullptr) {
        conditions.insert(instruction->while_condition());
      }
    }
  }
  return conditions;
}

// What the live ranges of a module's computations need besides the builder.
struct ComputationOrder {
  const Computation* entry = nullptr;
  std::vector<const Computation*> callees_first;  // synchronous control flow
  absl::flat_hash_set<const Computation*> while_conditions;
  absl::flat_hash_set<BufferId> donated;
};

// Runs every computation, callees first, with one schedule kind; returns the entry's and
// keeps each callee's in `callees` (for the whole-program timeline and for the breakdown of a
// peak inside a callee).
ComputationLiveness RunComputations(const ComputationOrder& order, const MemoryOptions& options,
                                    const InstructionRoles& roles, ScheduleKind kind,
                                    LiveRangeBuilder& builder, CalleeLiveness& callees) {
  static const absl::flat_hash_set<BufferId> kNoneDonated;
  builder.share_operand_buffers = options.model == MemoryOptions::Model::kXla;
  builder.schedule_kind = kind;
  builder.backward_instruction.assign(roles.direction.size(), 0);
  for (size_t id = 0; id < roles.direction.size(); ++id) {
    builder.backward_instruction[id] = roles.direction[id] == Direction::kBackward;
  }
  ComputationLiveness entry_liveness;
  for (const Computation* computation : order.callees_first) {
    if (computation == order.entry) {
      entry_liveness = builder.Run(*computation, true, order.donated);
    } else {
      callees[computation] =
          builder.Run(*computation, false, kNoneDonated,
                      /*root_is_callers=*/!order.while_conditions.contains(computation));
    }
  }
  return entry_liveness;
}

// The schedule kind of an unscheduled module under `min`: XLA's default scheduler, the lowest
// peak of list, dfs and post-order (ties in that order); `*description` says each one's peak.
ScheduleKind LowestPeakSchedule(const AliasAnalysis& alias, const ComputationOrder& order,
                                const MemoryOptions& options, const ModuleProfile& profile,
                                std::string* description) {
  std::string tried;
  ScheduleKind best = ScheduleKind::kMin;
  int64_t best_peak = 0;
  for (ScheduleKind candidate :
       {ScheduleKind::kList, ScheduleKind::kDfs, ScheduleKind::kPostOrder}) {
    LiveRangeBuilder trial(alias, profile.buffer_bytes, /*scheduled=*/false);
    CalleeLiveness callees;
    const int64_t peak =
        RunComputations(order, options, profile.roles, candidate, trial, callees).peak;
    tried += fmt::format("{}{} {}", tried.empty() ? "" : ", ", ScheduleKindName(candidate), peak);
    if (best == ScheduleKind::kMin || peak < best_peak) {
      best = candidate;
      best_peak = peak;
    }
  }
  *description = fmt::format("min: {} ({})", ScheduleKindName(best), tried);
  return best;
}

// The schedule the module runs in, and its description for the report.
ScheduleKind ChooseSchedule(const Module& module, const AliasAnalysis& alias,
                            const ComputationOrder& order, const MemoryOptions& options,
                            ModuleProfile& profile) {
  if (module.is_scheduled()) {
    profile.memory.schedule = "text order (is_scheduled)";
    return ScheduleKind::kText;
  }
  if (options.schedule == ScheduleKind::kMin) {
    return LowestPeakSchedule(alias, order, options, profile, &profile.memory.schedule);
  }
  profile.memory.schedule = options.schedule == ScheduleKind::kText
                                ? "topological"
                                : std::string(ScheduleKindName(options.schedule));
  return options.schedule;
}

// The entry parameter each of their buffers belongs to (the first parameter for a shared one).
absl::flat_hash_map<BufferId, const Instruction*> ParameterBuffers(const Module& module,
                                                                   const AliasAnalysis& alias) {
  const DataflowAnalysis& flow = alias.dataflow();
  absl::flat_hash_map<BufferId, const Instruction*> parameter_of;
  for (const Instruction* param : module.entry()->parameters()) {
    for (int32_t position = 0; position < flow.PositionCount(*param); ++position) {
      for (ValueId value : flow.ValuesAtPosition(*param, position)) {
        parameter_of.try_emplace(alias.BufferOf(value).id, param);
      }
    }
  }
  return parameter_of;
}

// Activations: stash buffers (each in its writer's stage), or else forward values read by the
// backward pass. Buffers get the stage of the instruction that starts them in the entry first.
void FindActivations(const AliasAnalysis& alias, const MemoryOptions& options,
                     const std::vector<uint8_t>& read_by_backward, ModuleProfile& profile,
                     SizeNotes& notes) {
  const size_t buffer_count = alias.buffers().size();
  profile.buffer_stage.assign(buffer_count, -1);
  for (const BufferSpan& span : profile.entry.spans) {
    profile.buffer_stage[span.buffer] =
        profile.roles.stage[DefiningInstruction(profile, span)->unique_id()];
  }
  profile.activation_bytes.assign(buffer_count, 0);
  const std::vector<Direction>& directions = profile.roles.direction;
  const bool forward_only =
      std::none_of(directions.begin(), directions.end(),
                   [](Direction direction) { return direction == Direction::kBackward; });
  profile.stashes = FindStashBuffers(
      alias, [&](const Shape& shape) { return ArrayBytes(shape, options.dim_value, &notes); },
      forward_only);
  for (const StashBuffer& stash : profile.stashes) {
    profile.activation_bytes[stash.buffer] = profile.buffer_bytes[stash.buffer];
    const int writer_stage = profile.roles.stage[stash.writer->unique_id()];
    if (writer_stage >= 0) profile.buffer_stage[stash.buffer] = writer_stage;
  }
  if (!profile.stashes.empty()) return;
  for (const BufferSpan& span : profile.entry.spans) {
    const Instruction* defining = DefiningInstruction(profile, span);
    if (directions[defining->unique_id()] == Direction::kForward && read_by_backward[span.buffer]) {
      profile.activation_bytes[span.buffer] = profile.buffer_bytes[span.buffer];
    }
  }
}

// Categories of the buffers, for the stacked view (first match wins).
void AssignCategories(const Module& module, const AliasAnalysis& alias, ModuleProfile& profile) {
  profile.buffer_category.assign(alias.buffers().size(), kTemporaries);
  absl::flat_hash_set<BufferId> stash;
  for (const StashBuffer& stash_buffer : profile.stashes) stash.insert(stash_buffer.buffer);
  const Instruction* root = module.entry()->root();
  const absl::flat_hash_set<BufferId> outputs =
      root != nullptr ? BuffersOf(alias, *root) : absl::flat_hash_set<BufferId>();
  for (const BufferSpan& span : profile.entry.spans) {
    const BufferId buffer = span.buffer;
    profile.buffer_category[buffer] = profile.parameter_of.contains(buffer)  ? kParameters
                                      : outputs.contains(buffer)             ? kOutputs
                                      : stash.contains(buffer)               ? kStashedActivations
                                      : profile.activation_bytes[buffer] > 0 ? kOtherActivations
                                                                             : kTemporaries;
  }
}

// Host bytes after each entry step (host_placement.h), for the timeline's points.
std::vector<int64_t> HostBytesByStep(const ModuleProfile& profile) {
  const ComputationLiveness& entry = profile.entry;
  std::vector<int64_t> host_at(entry.schedule.size(), 0);
  std::vector<__int128> change(entry.schedule.size() + 1, 0);
  for (const BufferSpan& span : entry.spans) {
    if (profile.buffer_space[span.buffer] != kHostMemorySpace) continue;
    change[span.first] += profile.buffer_bytes[span.buffer];
    change[span.last + 1] -= profile.buffer_bytes[span.buffer];
  }
  __int128 running = 0;
  constexpr __int128 kMax = std::numeric_limits<int64_t>::max();
  for (size_t step = 0; step < host_at.size(); ++step) {
    running += change[step];
    host_at[step] = static_cast<int64_t>(std::min(running, kMax));
  }
  return host_at;
}

// The callees the whole-program timeline steps through at a calling instruction.
std::vector<const Computation*> TimelineCallees(const Instruction& instruction) {
  if (instruction.opcode() == Opcode::kWhile) {
    return {instruction.while_condition(), instruction.while_body()};
  }
  if (instruction.opcode() == Opcode::kConditional || instruction.opcode() == Opcode::kCall) {
    return {instruction.called_computations().begin(), instruction.called_computations().end()};
  }
  return {};
}

// The whole-program timeline of `liveness`: `outside` is the bytes of the callers around this
// computation at the current call, `host` the host bytes of the entry step that calls it.
void ExpandTimeline(const ComputationLiveness& liveness, int64_t outside, int64_t host,
                    const std::vector<int64_t>& host_at, const CalleeLiveness& callees,
                    ModuleProfile& profile) {
  const bool is_entry = &liveness == &profile.entry;
  for (size_t step = 0; step < liveness.schedule.size(); ++step) {
    const Instruction* instruction = liveness.schedule[step];
    const int64_t here = SaturatingAdd(outside, liveness.live[step], &profile.saturated);
    const int64_t host_here = is_entry ? host_at[step] : host;
    for (const Computation* callee : TimelineCallees(*instruction)) {
      auto found = callee == nullptr ? callees.end() : callees.find(callee);
      if (found != callees.end()) {
        ExpandTimeline(found->second, here - liveness.callee_bytes[step], host_here, host_at,
                       callees, profile);
      }
    }
    profile.memory.timeline.push_back(
        {instruction, profile.roles.stage[instruction->unique_id()], here, host_here});
  }
}

// The timeline's points: one per entry step, or with `whole_program_timeline` one per step of
// every control-flow callee too, before its calling instruction.
void FillTimeline(const MemoryOptions& options, const CalleeLiveness& callees,
                  ModuleProfile& profile) {
  if (!options.timeline) return;
  const std::vector<int64_t> host_at = HostBytesByStep(profile);
  const ComputationLiveness& entry = profile.entry;
  if (options.whole_program_timeline) {
    ExpandTimeline(entry, 0, 0, host_at, callees, profile);
    return;
  }
  profile.memory.timeline.reserve(entry.schedule.size());
  for (size_t step = 0; step < entry.schedule.size(); ++step) {
    const Instruction* instruction = entry.schedule[step];
    profile.memory.timeline.push_back({instruction, profile.roles.stage[instruction->unique_id()],
                                       entry.live[step], host_at[step]});
  }
}

// The module's summary numbers.
void FillSummary(const Module& module, const MemoryOptions& options, ModuleProfile& profile) {
  ModuleMemory& memory = profile.memory;
  memory.module = std::string(module.name());
  memory.scheduled = module.is_scheduled();
  memory.instructions = static_cast<int64_t>(profile.entry.schedule.size());
  memory.peak_bytes = profile.entry.peak;
  memory.saturated = profile.saturated;
  memory.model = options.model == MemoryOptions::Model::kXla ? "xla" : "liveness";
}

// Under the xla model, the peak as XLA counts it, on our model of XLA's assignment
// (ModuleMemory::modeled_xla_peak_bytes). The model lays the module out in its text order when
// it is scheduled, else in the topological order: the figure is given only when that is the
// order the report's timeline is on.
void FillModeledXlaPeak(const Module& module, const MemoryOptions& options, ModuleMemory& memory) {
  if (options.model != MemoryOptions::Model::kXla || !options.modeled_xla_peak) return;
  if (!module.is_scheduled() && options.schedule != ScheduleKind::kText) {
    memory.modeled_xla_peak_unknown = fmt::format(
        "XLA's buffer assignment is modeled on the topological order of an unscheduled module, "
        "not on the {} schedule",
        memory.schedule);
    return;
  }
  absl::StatusOr<XlaModelAssignment> assignment = AssignLikeXla(module);
  absl::StatusOr<XlaModelPeak> peak =
      assignment.ok() ? XlaModelPeakMemory(*assignment) : assignment.status();
  if (!peak.ok()) {
    memory.modeled_xla_peak_unknown = std::string(peak.status().message());
    return;
  }
  memory.modeled_xla_peak_bytes = peak->peak_bytes;
  memory.modeled_xla_peak_static_bytes = peak->static_bytes;
}

absl::StatusOr<ModuleProfile> ProfileOne(const Module& module, const MemoryOptions& options,
                                         StageNames& names, bool* dynamic) {
  if (module.entry() == nullptr) {
    return absl::InvalidArgumentError(fmt::format("module '{}' has no entry", module.name()));
  }
  const std::shared_ptr<const CallGraph> calls = CallGraph::Build(module);
  if (absl::Status status = CheckOneCallSitePerCallee(module, *calls); !status.ok()) {
    return status;
  }
  ModuleProfile profile;
  absl::StatusOr<InstructionRoles> roles = AssignRoles(module, *calls, options, names);
  if (!roles.ok()) return roles.status();
  profile.roles = *std::move(roles);
  absl::StatusOr<std::unique_ptr<AliasAnalysis>> alias_analysis =
      AliasAnalysis::Run(module, options.dataflow, calls);
  if (!alias_analysis.ok()) return alias_analysis.status();
  const AliasAnalysis& alias = **alias_analysis;

  SizeNotes notes;
  if (absl::Status status = SizeBuffers(module, alias, options, profile, notes); !status.ok()) {
    return status;
  }
  if (notes.dynamic) *dynamic = true;
  MarkConstants(alias, options, profile);

  const ComputationOrder order{
      .entry = module.entry(),
      .callees_first = calls->CalleesFirst(*module.entry(), CallGraph::kSynchronous),
      .while_conditions = WhileConditions(module),
      .donated = DonatedBuffers(module, alias)};
  const ScheduleKind kind = ChooseSchedule(module, alias, order, options, profile);
  LiveRangeBuilder builder(alias, profile.buffer_bytes, module.is_scheduled());
  CalleeLiveness callees;
  profile.entry = RunComputations(order, options, profile.roles, kind, builder, callees);
  profile.saturated = builder.saturated;

  profile.parameter_of = ParameterBuffers(module, alias);
  FindActivations(alias, options, builder.read_by_backward, profile, notes);
  AssignCategories(module, alias, profile);
  FillSummary(module, options, profile);
  FillModeledXlaPeak(module, options, profile.memory);
  DescribePeak(alias, callees, names, options.top_buffers, profile);
  if (options.heap) FillHeap(alias, options, profile);
  FillTimeline(options, callees, profile);
  return profile;
}

// The report's peak: the highest module's (the first on a tie).
void PickReportPeak(const std::vector<ModuleProfile>& profiles, MemoryReport& report) {
  for (size_t index = 0; index < profiles.size(); ++index) {
    if (profiles[index].saturated) report.saturated = true;
    const ModuleMemory& memory = profiles[index].memory;
    if (index == 0 || memory.peak_bytes > report.peak_bytes) {
      report.peak_bytes = memory.peak_bytes;
      report.peak_instruction = memory.peak_instruction;
      report.peak_op_name = memory.peak_op_name;
      report.peak_module = memory.module;
      report.top_buffers = memory.top_buffers;
    }
  }
}

// Live bytes by category over the entry's schedule (a step's copies and callee peak are
// temporaries).
void AddCategorySeries(ModuleProfile& profile, bool* saturated) {
  for (int category = 0; category < kCategories; ++category) {
    CategorySeries series;
    series.category = kCategoryNames[category];
    series.live_bytes = Series(
        profile,
        [&](BufferId buffer) {
          return profile.buffer_category[buffer] == category ? profile.buffer_bytes[buffer] : 0;
        },
        [&](size_t) { return category == kTemporaries; }, saturated);
    profile.memory.categories.push_back(std::move(series));
  }
}

// Memory spaces other than the default each get their own peak (the module's peak holds all
// of them together).
void AddMemorySpacePeaks(ModuleProfile& profile, bool* saturated) {
  std::vector<int64_t> spaces(profile.buffer_space.begin(), profile.buffer_space.end());
  std::sort(spaces.begin(), spaces.end());
  spaces.erase(std::unique(spaces.begin(), spaces.end()), spaces.end());
  if (spaces.size() <= 1 && (spaces.empty() || spaces[0] == 0)) return;
  for (int64_t space : spaces) {
    const std::vector<int64_t> live = Series(
        profile,
        [&](BufferId buffer) {
          return profile.buffer_space[buffer] == space ? profile.buffer_bytes[buffer] : 0;
        },
        [](size_t) { return false; }, saturated);
    auto highest = std::max_element(live.begin(), live.end());
    MemorySpacePeak peak;
    peak.space = space;
    if (highest != live.end()) {
      peak.peak_bytes = *highest;
      peak.peak_instruction = std::string(profile.entry.schedule[highest - live.begin()]->name());
    }
    profile.memory.memory_spaces.push_back(std::move(peak));
  }
}

// The highest of the live bytes of the host's buffers (`host`) or the device's, with the
// step's copies and callee peaks when `with_step_transients`, and where it is.
void SpacePeak(const ModuleProfile& profile, bool host, bool with_step_transients, bool* saturated,
               int64_t* bytes, std::string* at) {
  const std::vector<int64_t> live = Series(
      profile,
      [&](BufferId buffer) {
        return (profile.buffer_space[buffer] == kHostMemorySpace) == host
                   ? profile.buffer_bytes[buffer]
                   : 0;
      },
      [&](size_t) { return with_step_transients; }, saturated);
  auto highest = std::max_element(live.begin(), live.end());
  *bytes = highest == live.end() ? 0 : *highest;
  *at = highest == live.end() ? ""
                              : std::string(profile.entry.schedule[highest - live.begin()]->name());
}

// The device and the host apart: a host-offloaded stash is not device memory.
void SplitDeviceAndHost(ModuleProfile& profile, bool* saturated) {
  ModuleMemory& memory = profile.memory;
  memory.device_peak_bytes = memory.peak_bytes;
  memory.device_peak_instruction = memory.peak_instruction;
  if (std::find(profile.buffer_space.begin(), profile.buffer_space.end(), kHostMemorySpace) ==
      profile.buffer_space.end()) {
    return;
  }
  // Copies and callee peaks are device memory (what runs on the device).
  SpacePeak(profile, false, true, saturated, &memory.device_peak_bytes,
            &memory.device_peak_instruction);
  SpacePeak(profile, true, false, saturated, &memory.host_peak_bytes,
            &memory.host_peak_instruction);
}

}  // namespace

std::string SimulatedAllocation::KindText() const {
  switch (kind) {
    case Kind::kParameter: {
      std::string index = "{";
      for (size_t position = 0; position < parameter_index.size(); ++position) {
        index += (position ? "," : "") + std::to_string(parameter_index[position]);
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
    return InvalidOptionError("", "stage_attr",
                              " is empty: stages by frontend attribute need the attribute's name");
  }
  MemoryReport report;
  report.dim_value = options.dim_value;
  StageNames names;
  std::vector<ModuleProfile> profiles;
  profiles.reserve(modules.size());
  for (const Module* module : modules) {
    absl::StatusOr<ModuleProfile> profile =
        ProfileOne(*module, options, names, &report.has_dynamic_dims);
    if (!profile.ok()) return profile.status();
    profiles.push_back(*std::move(profile));
  }
  PickReportPeak(profiles, report);
  for (ModuleProfile& profile : profiles) {
    // With the per-instruction timeline only.
    if (options.timeline && !options.whole_program_timeline) {
      AddCategorySeries(profile, &report.saturated);
    }
  }
  for (ModuleProfile& profile : profiles) AddMemorySpacePeaks(profile, &report.saturated);
  for (ModuleProfile& profile : profiles) SplitDeviceAndHost(profile, &report.saturated);
  memory_profile_internal::AddStageRows(options, names, profiles, report);
  for (ModuleProfile& profile : profiles) report.modules.push_back(std::move(profile.memory));
  return report;
}

absl::StatusOr<MemoryReport> ProfileModule(const Module& module, const MemoryOptions& options) {
  return ProfileModules({&module}, options);
}

}  // namespace hloscope
