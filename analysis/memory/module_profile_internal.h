// The memory profiler's working state for one module, shared by its steps: buffer sizes
// (buffer_sizes.cc), the peak's contents (peak_contents.cc), the per-stage rows
// (stage_rows.cc) and the rest of memory_profile.cc. Private to analysis/memory.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "analysis/alias.h"
#include "analysis/memory/buffer_live_ranges.h"
#include "analysis/memory/memory_profile.h"
#include "analysis/memory/stage_assignment.h"
#include "analysis/memory/stash_buffers.h"

namespace hloscope::memory_profile_internal {

// The categories of the stacked view, bottom first.
enum Category : uint8_t {
  kParameters,
  kStashedActivations,
  kOtherActivations,
  kTemporaries,
  kOutputs,
  kCategories
};
inline constexpr const char* kCategoryNames[kCategories] = {
    "parameters", "stashed activations", "other activations", "temporaries", "outputs"};

// What one module contributes: its summary and per-buffer facts the stages need.
struct ModuleProfile {
  ModuleMemory memory;
  ComputationLiveness entry;
  std::vector<int64_t> buffer_bytes;
  std::vector<int64_t> unpadded_bytes;    // by buffer: buffer_bytes without tiled padding
  std::vector<int64_t> buffer_space;      // by buffer: its memory space S(n)
  std::vector<int64_t> constant_bytes;    // by buffer: a constant's size (the model may count 0)
  std::vector<uint8_t> is_constant;       // by buffer: every value is a constant
  std::vector<uint8_t> buffer_category;   // by buffer: an index into kCategoryNames
  std::vector<int> buffer_stage;          // by buffer; -1 none
  std::vector<int64_t> activation_bytes;  // by buffer: 0 = not an activation
  // The entry parameter whose buffer it is (such a buffer is live from step 0, which is
  // another instruction's step, so the parameter names it).
  absl::flat_hash_map<BufferId, const Instruction*> parameter_of;
  std::vector<StashBuffer> stashes;
  InstructionRoles roles;
  bool saturated = false;  // some sum passed int64
};

// The instruction that defines a buffer counted in the entry: its entry parameter, else the
// instruction where its span starts.
inline const Instruction* DefiningInstruction(const ModuleProfile& profile,
                                              const BufferSpan& span) {
  auto it = profile.parameter_of.find(span.buffer);
  return it != profile.parameter_of.end() ? it->second : profile.entry.schedule[span.first];
}

// The metadata's op_name ("" without metadata).
std::string_view OpNameOf(const Instruction* instruction);
// "source_file:source_line" of the metadata ("" without a source_file), for attribution.
std::string SourceOf(const Instruction* instruction);
// The value that names a buffer: the first non-phi one `defined_in` defines if any.
const HloValue& NamingValue(const AliasAnalysis& alias, BufferId buffer,
                            const Instruction* defined_in);
// The name of a buffer: its naming value's instruction (and shape index).
std::string BufferName(const AliasAnalysis& alias, BufferId buffer, const Instruction* defined_in);

// Live bytes over the entry's schedule of the buffers `weight` gives bytes to, plus the
// step-local bytes (copies, callees) of the steps `step_counts` accepts.
// Sums past int64 saturate and set `*saturated`.
template <typename Weight, typename StepCounts>
std::vector<int64_t> Series(const ModuleProfile& profile, Weight weight, StepCounts step_counts,
                            bool* saturated) {
  const ComputationLiveness& entry = profile.entry;
  const size_t steps = entry.schedule.size();
  std::vector<__int128> change(steps + 1, 0);  // bytes that start (+) or end (-) at a step
  for (const BufferSpan& span : entry.spans) {
    const int64_t bytes = weight(span.buffer);
    if (bytes == 0) continue;
    change[span.first] += bytes;
    change[span.last + 1] -= bytes;
  }
  std::vector<int64_t> out(steps);
  constexpr __int128 kMax = std::numeric_limits<int64_t>::max();
  __int128 running = 0;
  for (size_t step = 0; step < steps; ++step) {
    running += change[step];
    __int128 live = running;
    if (step_counts(step)) {
      live += static_cast<__int128>(entry.copy_bytes[step]) + entry.callee_bytes[step];
    }
    if (live > kMax) *saturated = true;
    out[step] = static_cast<int64_t>(std::min(live, kMax));
  }
  return out;
}

inline int64_t MaxOf(const std::vector<int64_t>& values) {
  return values.empty() ? 0 : *std::max_element(values.begin(), values.end());
}

}  // namespace hloscope::memory_profile_internal
