// Live ranges of buffers over one computation's schedule, and the live bytes at each step:
// the memory profiler's core (the model is described in memory_profile.h). (Copy-elision's
// live ranges are of dataflow values, in the partial execution ordering: value_liveness.h.)
//
//   LiveRangeBuilder builder(alias, sizes, scheduled);
//   ComputationLiveness entry = builder.Run(*module.entry(), /*is_entry=*/true, donated);
//
// Run a computation's synchronous control-flow callees (analysis/call_graph.h) before it
// (callee peaks are read from `callee_peak`); each Run reuses the builder's per-buffer scratch,
// so a run is linear in the computation's instructions and positions, not in the module's
// buffers.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "analysis/alias.h"
#include "analysis/memory/memory_schedulers.h"

namespace hloscope {

struct BufferSpan {
  BufferId buffer = 0;
  int32_t first = 0;  // schedule steps, inclusive
  int32_t last = 0;
};

struct ComputationLiveness {
  std::vector<const Instruction*> schedule;
  std::vector<int64_t> live;          // bytes at each step (buffers + copy + callee)
  std::vector<int64_t> copy_bytes;    // the second copy of same-buffer copies, by step
  std::vector<int64_t> callee_bytes;  // callee peaks, by step
  std::vector<BufferSpan> spans;      // buffers counted here (the caller's are left out)
  int64_t peak = 0;
  int32_t peak_step = -1;
  // Some step's bytes passed int64: those steps (and the peak) hold INT64_MAX instead.
  bool saturated = false;
};

class LiveRangeBuilder {
 public:
  // `buffer_bytes` by buffer id.
  LiveRangeBuilder(const AliasAnalysis& alias, const std::vector<int64_t>& buffer_bytes,
                   bool scheduled);

  // `donated`: entry parameter buffers that input_output_alias donates (they may end early).
  // `root_is_callers`: the root's buffers belong to the caller (a while body's state, a
  // call's or branch's result); false for a while condition, whose pred is its own.
  ComputationLiveness Run(const Computation& computation, bool is_entry,
                          const absl::flat_hash_set<BufferId>& donated,
                          bool root_is_callers = true);

  // Peaks of computations already run, for their callers.
  absl::flat_hash_map<const Computation*, int64_t> callee_peak;
  // Set by the caller, by unique_id: instructions of the backward pass. Every Run marks, by
  // buffer id, the buffers such an instruction reads.
  std::vector<uint8_t> backward_instruction;
  std::vector<uint8_t> read_by_backward;
  // Some computation run so far had a step past int64 bytes (saturated to INT64_MAX).
  bool saturated = false;
  // XLA's heap simulator: a result takes over an operand's buffer of the same size that dies
  // at the instruction when CanShareOperandBufferWithUser allows it (one result per operand
  // buffer); the operand's span then ends before the instruction.
  bool share_operand_buffers = false;
  // The order of an unscheduled module's computations (kText: text order made topological;
  // kMin is chosen by the caller).
  ScheduleKind schedule_kind = ScheduleKind::kText;

 private:
  struct ShareCandidate {
    BufferId result;
    BufferId operand;
    int32_t step;
  };
  // Per calling instruction of `computation`: the callee peak added at its step.
  absl::flat_hash_map<const Instruction*, int64_t> CalleeBytes(
      const Computation& computation) const;
  // Operand buffers `in`'s result at `position` (in buffer `result`) could take over.
  void AddShareCandidates(const Instruction& in, int32_t position, BufferId result, int32_t step,
                          std::vector<ShareCandidate>& out) const;
  // The steps of Run, over the scratch below (first_, last_, touched_).
  void Touch(BufferId buffer, int32_t step);
  // Marks the operand buffers `in` reads at `step`; returns (up to 8 of) them.
  absl::InlinedVector<BufferId, 8> TouchOperands(const Instruction& in, int32_t step);
  // Marks the buffers `in` defines at `step`; returns the bytes of a second copy, where a
  // result shares a buffer with an operand it cannot overwrite.
  int64_t TouchResults(const Instruction& in, int32_t step,
                       absl::Span<const BufferId> operand_buffers,
                       std::vector<ShareCandidate>& share_candidates);
  // Whether `in`'s result at `position`, in an operand's buffer `buffer`, needs that operand
  // intact (a copy always does).
  bool NeedsSecondCopy(const Instruction& in, int32_t position, BufferId buffer) const;
  // The buffers of the computation's interface: the root's live to the last step and, in the
  // entry, the parameters from step 0 (to the end unless donated). Fills `interface` (a
  // callee's parameters and root, the caller's) and `kept` (the entry's kept parameters and
  // live-out buffers).
  void TouchInterface(const Computation& computation, int32_t steps, bool is_entry,
                      const absl::flat_hash_set<BufferId>& donated, bool root_is_callers,
                      absl::flat_hash_set<BufferId>& interface,
                      absl::flat_hash_set<BufferId>& kept);
  // Ends an operand's span a step early where a result takes its memory over.
  void ShareOperandBuffers(const std::vector<ShareCandidate>& share_candidates,
                           const absl::flat_hash_set<BufferId>& interface,
                           const absl::flat_hash_set<BufferId>& kept);
  // The spans of the touched buffers not in `interface`, the live bytes at each step and the
  // peak; resets the scratch.
  void SumSpans(const absl::flat_hash_set<BufferId>& interface, ComputationLiveness& out);

  const AliasAnalysis& alias_;
  const DataflowAnalysis& flow_;
  const std::vector<int64_t>& bytes_;
  bool scheduled_;
  std::vector<int32_t> first_, last_;  // scratch by buffer id, -1 when untouched
  std::vector<BufferId> touched_;      // scratch: the buffers with a span in this Run
};

}  // namespace hloscope
