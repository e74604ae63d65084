#include "analysis/memory/stage_rows.h"

#include <algorithm>
#include <string>

#include "analysis/memory/host_placement.h"
#include "fmt/format.h"
#include "support/checked_int.h"

namespace hloscope::memory_profile_internal {
namespace {

using StageBy = MemoryOptions::StageBy;

// The row's peak (and, with the timeline, its series) from the live bytes of its buffers.
void FillPeak(const MemoryOptions& options, const ModuleProfile& profile,
              const std::vector<int64_t>& live, StageMemory& row) {
  if (options.timeline) row.timeline = live;
  auto highest = std::max_element(live.begin(), live.end());
  if (highest == live.end()) return;
  row.peak_bytes = *highest;
  row.peak_instruction = std::string(profile.entry.schedule[highest - live.begin()]->name());
}

// The highest of `live` and the entry step where it is ("" when `live` is empty).
void HighestStep(const ModuleProfile& profile, const std::vector<int64_t>& live, int64_t* bytes,
                 std::string* at) {
  auto highest = std::max_element(live.begin(), live.end());
  *bytes = highest == live.end() ? 0 : *highest;
  *at = highest == live.end() ? ""
                              : std::string(profile.entry.schedule[highest - live.begin()]->name());
}

// A row of one whole module: the module's device and host peaks (memory_profile.cc).
void CopyModuleDeviceAndHost(const ModuleProfile& profile, StageMemory& row) {
  row.device_peak_bytes = profile.memory.device_peak_bytes;
  row.device_peak_instruction = profile.memory.device_peak_instruction;
  row.host_peak_bytes = profile.memory.host_peak_bytes;
  row.host_peak_instruction = profile.memory.host_peak_instruction;
}

// The device's and the host's part of named stage `stage`: its host buffers on one side, the
// rest with its steps' copies and callee peaks (device memory: what runs on the device) on
// the other. A stage without host bytes keeps its peak as the device's. With `timeline`, the
// row keeps both series.
void SplitStageDeviceAndHost(const ModuleProfile& profile, int stage, bool timeline,
                             StageMemory& row, bool* saturated) {
  row.device_peak_bytes = row.peak_bytes;
  row.device_peak_instruction = row.peak_instruction;
  const auto in_stage_on = [&](bool host) {
    return [&profile, stage, host](BufferId buffer) {
      const bool on_host = profile.buffer_space[buffer] == kHostMemorySpace;
      return profile.buffer_stage[buffer] == stage && on_host == host ? profile.buffer_bytes[buffer]
                                                                      : 0;
    };
  };
  const std::vector<int64_t> host = Series(
      profile, in_stage_on(true), [](size_t) { return false; }, saturated);
  if (MaxOf(host) == 0) return;
  HighestStep(profile, host, &row.host_peak_bytes, &row.host_peak_instruction);
  const std::vector<int64_t> device = Series(
      profile, in_stage_on(false),
      [&](size_t step) {
        return profile.roles.stage[profile.entry.schedule[step]->unique_id()] == stage;
      },
      saturated);
  HighestStep(profile, device, &row.device_peak_bytes, &row.device_peak_instruction);
  if (timeline) {
    row.device_timeline = device;
    row.host_timeline = host;
  }
}

// The activations of stage `stage` from its stash buffers.
void AddStashActivations(const ModuleProfile& profile, int stage, StageMemory& row,
                         bool* saturated) {
  for (const StashBuffer& stash : profile.stashes) {
    if (profile.buffer_stage[stash.buffer] != stage) continue;
    row.activation_bytes_per_microbatch =
        SaturatingAdd(row.activation_bytes_per_microbatch, stash.update_bytes, saturated);
    row.microbatch_slots = std::max(row.microbatch_slots, stash.slots);
    ++row.stash_buffers;
  }
}

// The activations of stage `stage` (every stage when -1) found by op_name.
void AddOpNameActivations(const ModuleProfile& profile, int stage, StageMemory& row,
                          bool* saturated) {
  for (const BufferSpan& span : profile.entry.spans) {
    if (profile.activation_bytes[span.buffer] == 0) continue;
    if (stage >= 0 && profile.buffer_stage[span.buffer] != stage) continue;
    row.activation_bytes_per_microbatch = SaturatingAdd(
        row.activation_bytes_per_microbatch, profile.activation_bytes[span.buffer], saturated);
  }
}

// The stages one module holds: 1, or without stage flags the largest stage dimension of its
// stash buffers.
int64_t StagesOfModule(const MemoryOptions& options, const ModuleProfile& profile) {
  int64_t stages = 1;
  if (options.stage_by == StageBy::kNone) {
    for (const StashBuffer& stash : profile.stashes) stages = std::max(stages, stash.stages);
  }
  return stages;
}

// One row per module (stage-by=module, or no stage flags: then a module's stash may hold
// several stages, each one row with its share).
void AddRowsPerModule(const MemoryOptions& options, const std::vector<ModuleProfile>& profiles,
                      MemoryReport& report) {
  for (size_t module_index = 0; module_index < profiles.size(); ++module_index) {
    const ModuleProfile& profile = profiles[module_index];
    const int64_t stages = StagesOfModule(options, profile);
    const std::vector<int64_t> activations = Series(
        profile, [&](BufferId buffer) { return profile.activation_bytes[buffer]; },
        [](size_t) { return false; }, &report.saturated);
    for (int64_t stage = 0; stage < stages; ++stage) {
      StageMemory row;
      row.stage = options.stage_by == StageBy::kModule || profiles.size() == 1
                      ? std::to_string(stages > 1 ? stage : static_cast<int64_t>(module_index))
                      : fmt::format("{}/{}", module_index, stage);
      row.module = profile.memory.module;
      row.module_index = static_cast<int>(module_index);
      FillPeak(options, profile, profile.entry.live, row);
      CopyModuleDeviceAndHost(profile, row);
      if (!profile.stashes.empty()) {
        row.activation_source = "stash";
        for (const StashBuffer& stash : profile.stashes) {
          // With a stage dimension, one stage's share of what each write covers.
          const int64_t share =
              stages > 1 ? stash.update_bytes / stash.stage_extent_of_update : stash.update_bytes;
          row.activation_bytes_per_microbatch =
              SaturatingAdd(row.activation_bytes_per_microbatch, share, &report.saturated);
          row.microbatch_slots = std::max(row.microbatch_slots, stash.slots);
          ++row.stash_buffers;
        }
        row.peak_activation_bytes = MaxOf(activations) / stages;
      } else {
        AddOpNameActivations(profile, -1, row, &report.saturated);
        row.activation_source = row.activation_bytes_per_microbatch > 0 ? "op_name" : "none";
        row.peak_activation_bytes = MaxOf(activations);
      }
      report.stages.push_back(std::move(row));
    }
  }
}

// The row of named stage `stage` in one module; false when the module has nothing of it.
bool NamedStageRow(const MemoryOptions& options, const ModuleProfile& profile, int stage,
                   StageMemory& row, bool* saturated) {
  const std::vector<int64_t> live = Series(
      profile,
      [&](BufferId buffer) {
        return profile.buffer_stage[buffer] == stage ? profile.buffer_bytes[buffer] : 0;
      },
      [&](size_t step) {
        return profile.roles.stage[profile.entry.schedule[step]->unique_id()] == stage;
      },
      saturated);
  if (MaxOf(live) == 0) return false;
  FillPeak(options, profile, live, row);
  SplitStageDeviceAndHost(profile, stage, options.timeline, row, saturated);
  if (!profile.stashes.empty()) {
    AddStashActivations(profile, stage, row, saturated);
    row.activation_source = "stash";
  } else {
    AddOpNameActivations(profile, stage, row, saturated);
    row.activation_source = row.activation_bytes_per_microbatch > 0 ? "op_name" : "none";
  }
  row.peak_activation_bytes = MaxOf(Series(
      profile,
      [&](BufferId buffer) {
        return profile.buffer_stage[buffer] == stage ? profile.activation_bytes[buffer] : 0;
      },
      [](size_t) { return false; }, saturated));
  return true;
}

// One row per stage named inside the modules and module that has some of it, in stage order
// (numeric when the names are numbers).
void AddRowsPerNamedStage(const MemoryOptions& options, const StageNames& names,
                          std::vector<ModuleProfile>& profiles, MemoryReport& report) {
  const std::vector<int> order = names.SortedOrder();
  for (int stage : order) report.stage_names.push_back(names.names[stage]);
  for (int stage : order) {
    for (size_t module_index = 0; module_index < profiles.size(); ++module_index) {
      StageMemory row;
      row.stage = names.names[stage];
      row.module = profiles[module_index].memory.module;
      row.module_index = static_cast<int>(module_index);
      if (NamedStageRow(options, profiles[module_index], stage, row, &report.saturated)) {
        report.stages.push_back(std::move(row));
      }
    }
  }
  // Timeline points name stages by their sorted index.
  std::vector<int> sorted_index(order.size());
  for (size_t position = 0; position < order.size(); ++position) {
    sorted_index[order[position]] = static_cast<int>(position);
  }
  for (ModuleProfile& profile : profiles) {
    for (TimelinePoint& point : profile.memory.timeline) {
      if (point.stage >= 0) point.stage = sorted_index[point.stage];
    }
  }
}

}  // namespace

void AddStageRows(const MemoryOptions& options, const StageNames& names,
                  std::vector<ModuleProfile>& profiles, MemoryReport& report) {
  if (options.stage_by == StageBy::kModule || options.stage_by == StageBy::kNone) {
    AddRowsPerModule(options, profiles, report);
    for (ModuleProfile& profile : profiles) {
      for (TimelinePoint& point : profile.memory.timeline) point.stage = -1;
    }
    return;
  }
  AddRowsPerNamedStage(options, names, profiles, report);
}

}  // namespace hloscope::memory_profile_internal
