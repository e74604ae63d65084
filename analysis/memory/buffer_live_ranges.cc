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

ComputationLiveness LiveRangeBuilder::Run(const Computation& computation, bool is_entry,
                                          const absl::flat_hash_set<BufferId>& donated,
                                          bool root_is_callers) {
  ComputationLiveness out;
  out.schedule = scheduled_ || schedule_kind == ScheduleKind::kText
                     ? InstructionSequence(computation, scheduled_)
                     : ScheduleWith(computation, schedule_kind);
  const int32_t n = static_cast<int32_t>(out.schedule.size());
  out.copy_bytes.assign(n, 0);
  out.callee_bytes.assign(n, 0);
  std::vector<BufferId> touched;
  auto touch = [&](BufferId b, int32_t t) {
    if (first_[b] < 0) {
      first_[b] = t;
      last_[b] = t;
      touched.push_back(b);
      return;
    }
    first_[b] = std::min(first_[b], t);
    last_[b] = std::max(last_[b], t);
  };
  absl::InlinedVector<BufferId, 8> operand_buffers;
  std::vector<ShareCandidate> share_candidates;
  const absl::flat_hash_map<const Instruction*, int64_t> callee_bytes = CalleeBytes(computation);
  for (int32_t t = 0; t < n; ++t) {
    const Instruction& in = *out.schedule[t];
    const bool backward =
        in.unique_id() < backward_instruction.size() && backward_instruction[in.unique_id()];
    // Reads: the operand positions `in` touches (UseNotion::kBufferTouch, value_uses.h: every
    // position, but only the top-level table of a tuple's or get-tuple-element's operand).
    // That rule is the same for every operand and index, so the positions are counted
    // without asking IsUse for each.
    operand_buffers.clear();
    const UsedPositions used = PositionsUsedBy(UseNotion::kBufferTouch, in.opcode());
    for (const Instruction* op : in.operands()) {
      const int32_t positions = used == UsedPositions::kAny        ? flow_.PositionCount(*op)
                                : used == UsedPositions::kTopLevel ? 1
                                                                   : 0;
      for (int32_t p = 0; p < positions; ++p) {
        for (ValueId v : flow_.ValuesAtPosition(*op, p)) {
          BufferId b = alias_.BufferOf(v).id;
          touch(b, t);
          if (backward) read_by_backward[b] = 1;
          if (operand_buffers.size() < 8) operand_buffers.push_back(b);
        }
      }
    }
    // Writes, and a second copy where the result shares a buffer with an operand it cannot
    // overwrite (a copy always needs its source intact).
    const bool may_copy = !NeverCopies(in.opcode());
    for (int32_t p = 0; p < flow_.PositionCount(in); ++p) {
      for (ValueId v : flow_.ValuesAtPosition(in, p)) {
        if (flow_.value(v).instruction != &in) continue;
        BufferId b = alias_.BufferOf(v).id;
        touch(b, t);
        if (share_operand_buffers) AddShareCandidates(in, p, b, t, share_candidates);
        if (!may_copy ||
            std::find(operand_buffers.begin(), operand_buffers.end(), b) == operand_buffers.end()) {
          continue;
        }
        const ShapeIndex out_index = flow_.IndexAt(in, p);
        bool needs_copy = false;
        for (const Instruction* op : in.operands()) {
          for (int32_t q = 0; q < flow_.PositionCount(*op) && !needs_copy; ++q) {
            for (ValueId u : flow_.ValuesAtPosition(*op, q)) {
              if (alias_.BufferOf(u).id != b) continue;
              needs_copy =
                  in.opcode() == Opcode::kCopy ||
                  !CanShareOperandBufferWithUser(*op, flow_.IndexAt(*op, q), in, out_index);
              break;
            }
          }
          if (needs_copy) break;
        }
        if (needs_copy) {
          out.copy_bytes[t] =
              std::min<__int128>(static_cast<__int128>(out.copy_bytes[t]) + bytes_[b],
                                 std::numeric_limits<int64_t>::max());
        }
      }
    }
    // A call's result comes out of its callee (the call defines no value), but it exists from
    // the call on, not from its first use; a while's and a conditional's are touched above.
    if (in.opcode() == Opcode::kCall) {
      for (int32_t p = 0; p < flow_.PositionCount(in); ++p) {
        for (ValueId v : flow_.ValuesAtPosition(in, p)) touch(alias_.BufferOf(v).id, t);
      }
    }
    if (!in.called_computations().empty()) {
      if (auto it = callee_bytes.find(&in); it != callee_bytes.end()) {
        out.callee_bytes[t] = it->second;
      }
    }
  }
  // The result lives to the end; so do entry parameters the caller keeps.
  absl::flat_hash_set<BufferId> interface;
  absl::flat_hash_set<BufferId> kept;  // the entry's kept parameters and live-out buffers
  if (const Instruction* root = computation.root(); root != nullptr && n > 0) {
    for (int32_t p = 0; p < flow_.PositionCount(*root); ++p) {
      for (ValueId v : flow_.ValuesAtPosition(*root, p)) {
        BufferId b = alias_.BufferOf(v).id;
        touch(b, n - 1);
        if (!is_entry && root_is_callers) interface.insert(b);
        if (is_entry) kept.insert(b);  // live out: no later instruction takes it over
      }
    }
  }
  for (const Instruction* param : computation.parameters()) {
    for (int32_t p = 0; p < flow_.PositionCount(*param); ++p) {
      for (ValueId v : flow_.ValuesAtPosition(*param, p)) {
        BufferId b = alias_.BufferOf(v).id;
        if (!is_entry) {
          interface.insert(b);
          continue;
        }
        if (n == 0) continue;
        touch(b, 0);
        if (!donated.contains(b)) {
          touch(b, n - 1);
          kept.insert(b);  // the caller keeps it: no result takes it over
        }
      }
    }
  }
  // A result that takes over an operand buffer dying at its instruction occupies that memory
  // from then on: the operand's span ends one step earlier, so the step counts one of them.
  absl::flat_hash_set<BufferId> given_away, taken_over;  // one operand to one result
  for (const ShareCandidate& c : share_candidates) {
    if (interface.contains(c.operand) || interface.contains(c.result) || kept.contains(c.operand)) {
      continue;
    }
    if (last_[c.operand] != c.step || first_[c.result] != c.step || first_[c.operand] >= c.step) {
      continue;
    }
    if (given_away.contains(c.operand) || !taken_over.insert(c.result).second) continue;
    given_away.insert(c.operand);
    last_[c.operand] = c.step - 1;
  }
  // Sum the spans with a difference array, in 128 bits: every buffer fits in int64 but a sum
  // of them may not, and a wrapped sum would print as a plausible number.
  std::vector<__int128> diff(static_cast<size_t>(n) + 1, 0);
  out.spans.reserve(touched.size());
  for (BufferId b : touched) {
    if (!interface.contains(b)) {
      diff[first_[b]] += bytes_[b];
      diff[last_[b] + 1] -= bytes_[b];
      out.spans.push_back({b, first_[b], last_[b]});
    }
    first_[b] = -1;
    last_[b] = -1;
  }
  out.live.resize(n);
  constexpr __int128 kMax = std::numeric_limits<int64_t>::max();
  __int128 running = 0;
  for (int32_t t = 0; t < n; ++t) {
    running += diff[t];
    const __int128 live = running + out.copy_bytes[t] + out.callee_bytes[t];
    if (live > kMax) out.saturated = true;
    out.live[t] = static_cast<int64_t>(std::min(live, kMax));
    if (out.live[t] > out.peak || out.peak_step < 0) {
      out.peak = out.live[t];
      out.peak_step = t;
    }
  }
  callee_peak[&computation] = out.peak;
  if (out.saturated) saturated = true;
  return out;
}

}  // namespace hloscope
