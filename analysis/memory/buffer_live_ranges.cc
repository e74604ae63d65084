#include "analysis/memory/buffer_live_ranges.h"

#include <algorithm>
#include <limits>

#include "absl/container/inlined_vector.h"
#include "analysis/in_place_pairs.h"
#include "analysis/memory/instruction_sequence.h"
#include "analysis/value_uses.h"
#include "hlo/computation.h"

namespace hloscope {
namespace {

// Instructions whose result only passes on what they receive (or that are accounted for by
// their callees; kOpNoStorage in the opcode table), and parameters, which have no operands:
// they never need a second copy of an operand's buffer.
bool NeverCopies(Opcode op) { return WritesNoStorage(op) || op == Opcode::kParameter; }

}  // namespace

LiveRangeBuilder::LiveRangeBuilder(const AliasAnalysis& alias,
                                   const std::vector<int64_t>& buffer_bytes, bool scheduled)
    : alias_(alias),
      flow_(alias.dataflow()),
      bytes_(buffer_bytes),
      scheduled_(scheduled),
      first_(alias.buffers().size(), -1),
      last_(alias.buffers().size(), -1) {
  read_by_backward.assign(alias.buffers().size(), 0);
}

absl::flat_hash_map<const Instruction*, int64_t> LiveRangeBuilder::CalleeBytes(
    const Computation& computation) const {
  // The callees that run within their calling instruction (analysis/call_graph.h: synchronous
  // control flow: a while's body and condition, a conditional's branches, a call's target) add
  // the largest of their own peaks at its step. An async-start's computation runs beside its
  // caller; what it holds is the start's tuple, counted in this computation.
  absl::flat_hash_map<const Instruction*, int64_t> bytes;
  for (const CallSite& site : flow_.call_graph().CallsIn(computation)) {
    if (site.context != CallContext::kControlFlow || site.async) continue;
    auto it = callee_peak.find(site.callee);
    int64_t& at_caller = bytes[site.caller];
    at_caller = std::max(at_caller, it == callee_peak.end() ? 0 : it->second);
  }
  return bytes;
}

void LiveRangeBuilder::AddShareCandidates(const Instruction& in, int32_t position, BufferId result,
                                          int32_t step, std::vector<ShareCandidate>& out) const {
  if (in.opcode() == Opcode::kConstant || NeverCopies(in.opcode())) return;
  const ShapeIndex out_index = flow_.IndexAt(in, position);
  for (const Instruction* op : in.operands()) {
    if (op->opcode() == Opcode::kConstant) continue;  // constants are never overwritten
    for (int32_t q = 0; q < flow_.PositionCount(*op); ++q) {
      for (ValueId u : flow_.ValuesAtPosition(*op, q)) {
        const BufferId ob = alias_.BufferOf(u).id;
        if (ob == result || bytes_[ob] != bytes_[result]) continue;
        if (!CanShareOperandBufferWithUser(*op, flow_.IndexAt(*op, q), in, out_index)) continue;
        out.push_back({result, ob, step});
      }
    }
  }
}

void LiveRangeBuilder::Touch(BufferId buffer, int32_t step) {
  if (first_[buffer] < 0) {
    first_[buffer] = step;
    last_[buffer] = step;
    touched_.push_back(buffer);
    return;
  }
  first_[buffer] = std::min(first_[buffer], step);
  last_[buffer] = std::max(last_[buffer], step);
}

absl::InlinedVector<BufferId, 8> LiveRangeBuilder::TouchOperands(const Instruction& in,
                                                                 int32_t step) {
  const bool backward =
      in.unique_id() < backward_instruction.size() && backward_instruction[in.unique_id()];
  // The operand positions `in` touches (UseNotion::kBufferTouch, value_uses.h: every position,
  // but only the top-level table of a tuple's or get-tuple-element's operand). That rule is the
  // same for every operand and index, so the positions are counted without asking IsUse for
  // each.
  absl::InlinedVector<BufferId, 8> operand_buffers;
  const UsedPositions used = PositionsUsedBy(UseNotion::kBufferTouch, in.opcode());
  for (const Instruction* operand : in.operands()) {
    const int32_t positions = used == UsedPositions::kAny        ? flow_.PositionCount(*operand)
                              : used == UsedPositions::kTopLevel ? 1
                                                                 : 0;
    for (int32_t position = 0; position < positions; ++position) {
      for (ValueId value : flow_.ValuesAtPosition(*operand, position)) {
        const BufferId buffer = alias_.BufferOf(value).id;
        Touch(buffer, step);
        if (backward) read_by_backward[buffer] = 1;
        if (operand_buffers.size() < 8) operand_buffers.push_back(buffer);
      }
    }
  }
  return operand_buffers;
}

bool LiveRangeBuilder::NeedsSecondCopy(const Instruction& in, int32_t position,
                                       BufferId buffer) const {
  const ShapeIndex out_index = flow_.IndexAt(in, position);
  for (const Instruction* operand : in.operands()) {
    for (int32_t operand_position = 0; operand_position < flow_.PositionCount(*operand);
         ++operand_position) {
      for (ValueId value : flow_.ValuesAtPosition(*operand, operand_position)) {
        if (alias_.BufferOf(value).id != buffer) continue;
        // The first value of this position in the buffer decides for the operand.
        if (in.opcode() == Opcode::kCopy ||
            !CanShareOperandBufferWithUser(*operand, flow_.IndexAt(*operand, operand_position), in,
                                           out_index)) {
          return true;
        }
        break;
      }
    }
  }
  return false;
}

int64_t LiveRangeBuilder::TouchResults(const Instruction& in, int32_t step,
                                       absl::Span<const BufferId> operand_buffers,
                                       std::vector<ShareCandidate>& share_candidates) {
  const bool may_copy = !NeverCopies(in.opcode());
  int64_t copy_bytes = 0;
  for (int32_t position = 0; position < flow_.PositionCount(in); ++position) {
    for (ValueId value : flow_.ValuesAtPosition(in, position)) {
      if (flow_.value(value).instruction != &in) continue;
      const BufferId buffer = alias_.BufferOf(value).id;
      Touch(buffer, step);
      if (share_operand_buffers) AddShareCandidates(in, position, buffer, step, share_candidates);
      if (!may_copy || std::find(operand_buffers.begin(), operand_buffers.end(), buffer) ==
                           operand_buffers.end()) {
        continue;
      }
      if (NeedsSecondCopy(in, position, buffer)) {
        copy_bytes = std::min<__int128>(static_cast<__int128>(copy_bytes) + bytes_[buffer],
                                        std::numeric_limits<int64_t>::max());
      }
    }
  }
  return copy_bytes;
}

void LiveRangeBuilder::TouchInterface(const Computation& computation, int32_t steps, bool is_entry,
                                      const absl::flat_hash_set<BufferId>& donated,
                                      bool root_is_callers,
                                      absl::flat_hash_set<BufferId>& interface,
                                      absl::flat_hash_set<BufferId>& kept) {
  if (const Instruction* root = computation.root(); root != nullptr && steps > 0) {
    for (int32_t position = 0; position < flow_.PositionCount(*root); ++position) {
      for (ValueId value : flow_.ValuesAtPosition(*root, position)) {
        const BufferId buffer = alias_.BufferOf(value).id;
        Touch(buffer, steps - 1);
        if (!is_entry && root_is_callers) interface.insert(buffer);
        if (is_entry) kept.insert(buffer);  // live out: no later instruction takes it over
      }
    }
  }
  for (const Instruction* param : computation.parameters()) {
    for (int32_t position = 0; position < flow_.PositionCount(*param); ++position) {
      for (ValueId value : flow_.ValuesAtPosition(*param, position)) {
        const BufferId buffer = alias_.BufferOf(value).id;
        if (!is_entry) {
          interface.insert(buffer);
          continue;
        }
        if (steps == 0) continue;
        Touch(buffer, 0);
        if (!donated.contains(buffer)) {
          Touch(buffer, steps - 1);
          kept.insert(buffer);  // the caller keeps it: no result takes it over
        }
      }
    }
  }
}

void LiveRangeBuilder::ShareOperandBuffers(const std::vector<ShareCandidate>& share_candidates,
                                           const absl::flat_hash_set<BufferId>& interface,
                                           const absl::flat_hash_set<BufferId>& kept) {
  absl::flat_hash_set<BufferId> given_away, taken_over;  // one operand to one result
  for (const ShareCandidate& candidate : share_candidates) {
    if (interface.contains(candidate.operand) || interface.contains(candidate.result) ||
        kept.contains(candidate.operand)) {
      continue;
    }
    if (last_[candidate.operand] != candidate.step || first_[candidate.result] != candidate.step ||
        first_[candidate.operand] >= candidate.step) {
      continue;
    }
    if (given_away.contains(candidate.operand) || !taken_over.insert(candidate.result).second) {
      continue;
    }
    given_away.insert(candidate.operand);
    last_[candidate.operand] = candidate.step - 1;
  }
}

void LiveRangeBuilder::SumSpans(const absl::flat_hash_set<BufferId>& interface,
                                ComputationLiveness& out) {
  // A difference array, in 128 bits: every buffer fits in int64 but a sum of them may not, and
  // a wrapped sum would print as a plausible number.
  const int32_t steps = static_cast<int32_t>(out.schedule.size());
  std::vector<__int128> change(static_cast<size_t>(steps) + 1, 0);
  out.spans.reserve(touched_.size());
  for (BufferId buffer : touched_) {
    if (!interface.contains(buffer)) {
      change[first_[buffer]] += bytes_[buffer];
      change[last_[buffer] + 1] -= bytes_[buffer];
      out.spans.push_back({buffer, first_[buffer], last_[buffer]});
    }
    first_[buffer] = -1;
    last_[buffer] = -1;
  }
  touched_.clear();
  out.live.resize(steps);
  constexpr __int128 kMax = std::numeric_limits<int64_t>::max();
  __int128 running = 0;
  for (int32_t step = 0; step < steps; ++step) {
    running += change[step];
    const __int128 live = running + out.copy_bytes[step] + out.callee_bytes[step];
    if (live > kMax) out.saturated = true;
    out.live[step] = static_cast<int64_t>(std::min(live, kMax));
    if (out.live[step] > out.peak || out.peak_step < 0) {
      out.peak = out.live[step];
      out.peak_step = step;
    }
  }
}

ComputationLiveness LiveRangeBuilder::Run(const Computation& computation, bool is_entry,
                                          const absl::flat_hash_set<BufferId>& donated,
                                          bool root_is_callers) {
  ComputationLiveness out;
  out.schedule = scheduled_ || schedule_kind == ScheduleKind::kText
                     ? InstructionSequence(computation, scheduled_)
                     : ScheduleWith(computation, schedule_kind);
  const int32_t steps = static_cast<int32_t>(out.schedule.size());
  out.copy_bytes.assign(steps, 0);
  out.callee_bytes.assign(steps, 0);
  touched_.clear();
  std::vector<ShareCandidate> share_candidates;
  const absl::flat_hash_map<const Instruction*, int64_t> callee_bytes = CalleeBytes(computation);
  for (int32_t step = 0; step < steps; ++step) {
    const Instruction& in = *out.schedule[step];
    const absl::InlinedVector<BufferId, 8> operand_buffers = TouchOperands(in, step);
    out.copy_bytes[step] = TouchResults(in, step, operand_buffers, share_candidates);
    // A call's result comes out of its callee (the call defines no value), but it exists from
    // the call on, not from its first use; a while's and a conditional's are touched above.
    if (in.opcode() == Opcode::kCall) {
      for (int32_t position = 0; position < flow_.PositionCount(in); ++position) {
        for (ValueId value : flow_.ValuesAtPosition(in, position)) {
          Touch(alias_.BufferOf(value).id, step);
        }
      }
    }
    if (!in.called_computations().empty()) {
      if (auto it = callee_bytes.find(&in); it != callee_bytes.end()) {
        out.callee_bytes[step] = it->second;
      }
    }
  }
  // The result lives to the end; so do entry parameters the caller keeps.
  absl::flat_hash_set<BufferId> interface;
  absl::flat_hash_set<BufferId> kept;
  TouchInterface(computation, steps, is_entry, donated, root_is_callers, interface, kept);
  // A result that takes over an operand buffer dying at its instruction occupies that memory
  // from then on: the operand's span ends one step earlier, so the step counts one of them.
  ShareOperandBuffers(share_candidates, interface, kept);
  SumSpans(interface, out);
  callee_peak[&computation] = out.peak;
  if (out.saturated) saturated = true;
  return out;
}

}  // namespace hloscope
