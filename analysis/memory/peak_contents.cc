#include "analysis/memory/peak_contents.h"

#include <algorithm>
#include <string>
#include <vector>

#include "hlo/computation.h"

namespace hloscope::memory_profile_internal {
namespace {

// At most this many nested callees are followed down from the peak.
constexpr size_t kMaxCalleeDepth = 16;

struct PeakDescriber {
  const AliasAnalysis& alias;
  const ModuleProfile& profile;
  const StageNames& names;

  std::string StageName(int stage) const { return stage >= 0 ? names.names[stage] : std::string(); }

  // A buffer live at a peak, as listed; `starts` is the instruction that defines it there.
  LiveBuffer Buffer(const BufferSpan& span, const Instruction* starts) const {
    const HloValue& def = NamingValue(alias, span.buffer, starts);
    LiveBuffer live;
    live.bytes = profile.buffer_bytes[span.buffer];
    live.instruction = std::string(def.instruction->name());
    if (!def.index.empty()) live.instruction += ShapeIndexToString(def.index);
    live.op_name = std::string(OpNameOf(def.instruction));
    live.shape = def.shape->ToString();
    live.stage = StageName(profile.buffer_stage[span.buffer]);
    if (profile.activation_bytes[span.buffer] > 0) {
      live.kind = profile.stashes.empty() ? LiveBufferKind::kActivation : LiveBufferKind::kStash;
    }
    live.category = kCategoryNames[profile.buffer_category[span.buffer]];
    live.opcode = std::string(OpcodeName(def.instruction->opcode()));
    live.source = SourceOf(def.instruction);
    live.start = span.first;
    live.end = span.last;
    return live;
  }

  // What one step holds besides its buffers: the second copy of a same-buffer copy (kCopy,
  // with the instruction's shape) or its callee's peak (kCallee), a temporary of `at`.
  LiveBuffer StepTransient(int64_t bytes, const Instruction* at, LiveBufferKind kind, int64_t start,
                           int64_t end) const {
    return {bytes,
            std::string(at->name()),
            std::string(OpNameOf(at)),
            kind == LiveBufferKind::kCopy ? at->shape().ToString() : "",
            StageName(profile.roles.stage[at->unique_id()]),
            kind,
            kCategoryNames[kTemporaries],
            std::string(OpcodeName(at->opcode())),
            SourceOf(at),
            start,
            end};
  }

  // The step's second copy and callee peak, when it has them.
  void AddStepTransients(const ComputationLiveness& liveness, int32_t step, int64_t start,
                         int64_t end, std::vector<LiveBuffer>& out) const {
    const Instruction* at = liveness.schedule[step];
    if (liveness.copy_bytes[step] > 0) {
      out.push_back(
          StepTransient(liveness.copy_bytes[step], at, LiveBufferKind::kCopy, start, end));
    }
    if (liveness.callee_bytes[step] > 0) {
      out.push_back(
          StepTransient(liveness.callee_bytes[step], at, LiveBufferKind::kCallee, start, end));
    }
  }
};

void SortLargestFirst(std::vector<LiveBuffer>& buffers) {
  std::stable_sort(
      buffers.begin(), buffers.end(),
      [](const LiveBuffer& left, const LiveBuffer& right) { return left.bytes > right.bytes; });
}

void KeepFirst(std::vector<LiveBuffer>& buffers, int top_buffers) {
  const size_t keep = static_cast<size_t>(std::max(top_buffers, 0));
  if (buffers.size() > keep) buffers.resize(keep);
}

// The callees a calling instruction's step counts the largest peak of: a while's condition
// and body, any other instruction's called computations.
std::vector<const Computation*> CalleesAt(const Instruction& caller) {
  if (caller.opcode() == Opcode::kWhile) {
    return {caller.while_condition(), caller.while_body()};
  }
  return {caller.called_computations().begin(), caller.called_computations().end()};
}

// The callee of `caller` with the highest own peak (nullptr when none has a step).
const Computation* HighestCallee(const Instruction& caller, const CalleeLiveness& callees) {
  const Computation* highest = nullptr;
  const ComputationLiveness* highest_liveness = nullptr;
  for (const Computation* callee : CalleesAt(caller)) {
    auto found = callee == nullptr ? callees.end() : callees.find(callee);
    if (found == callees.end() || found->second.peak_step < 0) continue;
    if (highest_liveness == nullptr || found->second.peak > highest_liveness->peak) {
      highest = callee;
      highest_liveness = &found->second;
    }
  }
  return highest;
}

// What `callee` (called by `caller`) holds at its own peak: every buffer there is one of its
// temporaries.
CalleePeak DescribeCalleePeak(const PeakDescriber& describer, const Computation& callee,
                              const ComputationLiveness& liveness, const Instruction& caller,
                              int top_buffers) {
  const Instruction* there = liveness.schedule[liveness.peak_step];
  CalleePeak peak;
  peak.computation = std::string(callee.name());
  peak.caller = std::string(caller.name());
  peak.peak_bytes = liveness.peak;
  peak.peak_instruction = std::string(there->name());
  for (const BufferSpan& span : liveness.spans) {
    if (span.first > liveness.peak_step || span.last < liveness.peak_step) continue;
    if (describer.profile.buffer_bytes[span.buffer] == 0) continue;
    peak.top_buffers.push_back(describer.Buffer(span, liveness.schedule[span.first]));
    peak.top_buffers.back().category = kCategoryNames[kTemporaries];
  }
  describer.AddStepTransients(liveness, liveness.peak_step, 0, 0, peak.top_buffers);
  SortLargestFirst(peak.top_buffers);
  KeepFirst(peak.top_buffers, top_buffers);
  return peak;
}

// A peak inside a callee (a call, a while body, a branch, a command buffer): what the callee
// holds at its own peak, and so on down the nested callees that peak is in. The caller's step
// counts the largest peak of its callees (buffer_live_ranges.h).
std::vector<CalleePeak> DescribeCalleePeaks(const PeakDescriber& describer,
                                            const CalleeLiveness& callees, int top_buffers) {
  const ComputationLiveness& entry = describer.profile.entry;
  std::vector<CalleePeak> out;
  const Instruction* caller = entry.schedule[entry.peak_step];
  int64_t inside = entry.callee_bytes[entry.peak_step];
  while (inside > 0 && caller != nullptr && out.size() < kMaxCalleeDepth) {
    const Computation* callee = HighestCallee(*caller, callees);
    if (callee == nullptr) break;
    const ComputationLiveness& liveness = callees.at(callee);
    out.push_back(DescribeCalleePeak(describer, *callee, liveness, *caller, top_buffers));
    inside = liveness.callee_bytes[liveness.peak_step];
    caller = liveness.schedule[liveness.peak_step];
  }
  return out;
}

}  // namespace

void DescribePeak(const AliasAnalysis& alias, const CalleeLiveness& callees,
                  const StageNames& names, int top_buffers, ModuleProfile& profile) {
  const ComputationLiveness& entry = profile.entry;
  if (entry.peak_step < 0) return;
  ModuleMemory& memory = profile.memory;
  const Instruction* at = entry.schedule[entry.peak_step];
  memory.peak_instruction = std::string(at->name());
  memory.peak_op_name = std::string(OpNameOf(at));
  const PeakDescriber describer{alias, profile, names};
  std::vector<LiveBuffer> live;
  for (const BufferSpan& span : entry.spans) {
    if (span.first > entry.peak_step || span.last < entry.peak_step) continue;
    if (profile.buffer_bytes[span.buffer] == 0) continue;
    live.push_back(describer.Buffer(span, DefiningInstruction(profile, span)));
  }
  describer.AddStepTransients(entry, entry.peak_step, entry.peak_step, entry.peak_step, live);
  SortLargestFirst(live);
  memory.peak_groups = GroupPeakBuffers(live, top_buffers);
  KeepFirst(live, top_buffers);
  memory.top_buffers = std::move(live);
  memory.callee_peaks = DescribeCalleePeaks(describer, callees, top_buffers);
}

}  // namespace hloscope::memory_profile_internal
