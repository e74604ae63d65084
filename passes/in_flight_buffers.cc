#include "passes/in_flight_buffers.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "hlo/computation.h"
#include "hlo/shape.h"

namespace hloscope {
namespace {

bool IsPin(const Instruction& instr) {
  return instr.opcode() == Opcode::kCustomCall && instr.custom_call_target() == "Pin";
}

bool IsDone(Opcode op) {
  return op == Opcode::kRecvDone || op == Opcode::kSendDone || op == Opcode::kCopyDone;
}

// Whether `target` runs before `from` by the dependencies alone (operands and control
// predecessors, transitively), within one computation.
bool Precedes(const Instruction* target, const Instruction* from) {
  std::vector<const Instruction*> stack = {from};
  absl::flat_hash_set<const Instruction*> seen = {from};
  while (!stack.empty()) {
    const Instruction* at = stack.back();
    stack.pop_back();
    auto visit = [&](const Instruction* pred) {
      if (pred == target) return true;
      if (seen.insert(pred).second) stack.push_back(pred);
      return false;
    };
    for (const Instruction* op : at->operands())
      if (visit(op)) return true;
    for (const Instruction* pred : at->control_predecessors())
      if (visit(pred)) return true;
  }
  return false;
}

}  // namespace

bool RunsBefore(const Instruction* first, const Instruction* second) {
  return Precedes(first, second);
}

bool StartsInFlightBuffer(const Instruction& instr) {
  return instr.opcode() == Opcode::kSend || instr.opcode() == Opcode::kRecv ||
         instr.opcode() == Opcode::kCopyStart;
}

bool HoldsInFlightBuffer(const DataflowAnalysis& flow, absl::Span<const ValueId> values) {
  return std::any_of(values.begin(), values.end(), [&](ValueId v) {
    const HloValue& hv = flow.value(v);
    return !hv.is_phi && StartsInFlightBuffer(*hv.instruction);
  });
}

std::vector<Instruction*> InFlightStartsAt(const DataflowAnalysis& flow, const Instruction& holder,
                                           const ShapeIndex& index) {
  std::vector<Instruction*> starts;
  ShapeIndex prefix;
  for (size_t depth = 0;; ++depth) {
    for (ValueId v : flow.ValuesAt(holder, prefix)) {
      const HloValue& hv = flow.value(v);
      if (hv.is_phi || !StartsInFlightBuffer(*hv.instruction)) continue;
      // Only the start's own tuple counts, as in XLA (IsNonCopyableInWhileInit: the element
      // is the start itself): an array of it held alone, as recv-done's data is once the
      // transfer is done, is copyable.
      if (!hv.index.empty()) continue;
      Instruction* start = const_cast<Instruction*>(hv.instruction);
      if (std::find(starts.begin(), starts.end(), start) == starts.end()) starts.push_back(start);
    }
    if (depth == index.size()) break;
    prefix.push_back(index[depth]);
  }
  return starts;
}

bool TransfersOperand(const Instruction& start) {
  return (start.opcode() == Opcode::kSend || start.opcode() == Opcode::kCopyStart) &&
         start.operand_count() > 0 && start.operand(0)->shape().IsArray();
}

bool IsPipelinedTransfer(const Instruction& start) {
  return std::any_of(start.users().begin(), start.users().end(), [](const Instruction* user) {
    if (user->opcode() != Opcode::kTuple) return false;
    if (user == user->parent()->root()) return true;
    return std::any_of(user->users().begin(), user->users().end(),
                       [](const Instruction* u) { return u->opcode() == Opcode::kWhile; });
  });
}

const Instruction* TransferReadingCopy(const Instruction& copy) {
  for (const Instruction* user : copy.users()) {
    if (TransfersOperand(*user) && user->operand(0) == &copy && IsPipelinedTransfer(*user)) {
      return user;
    }
  }
  return nullptr;
}

std::vector<TransferOperandCopy> TransferOperandCopies(
    const DataflowAnalysis& flow, const Instruction& xla_while, const ShapeIndex& index,
    absl::Span<const std::pair<Instruction*, Instruction*>> edges) {
  std::vector<TransferOperandCopy> out;
  auto listed = [&](const Instruction* start) {
    return std::any_of(out.begin(), out.end(),
                       [&](const TransferOperandCopy& c) { return c.start == start; });
  };
  for (Instruction* start : InFlightStartsAt(flow, *xla_while.operand(0), index)) {
    if (start->parent() == xla_while.parent() && TransfersOperand(*start) && !listed(start)) {
      out.push_back({start, nullptr});
    }
  }
  for (const auto& [done, start] : edges) {
    if (TransfersOperand(*start) && !listed(start)) out.push_back({start, done});
  }
  return out;
}

bool StartsNonCopyableChain(const Computation& c) {
  return std::any_of(c.instructions().begin(), c.instructions().end(),
                     [](const Instruction* i) { return IsPin(*i); });
}

bool PinnedLoopElement(const Instruction& xla_while, const ShapeIndex& index) {
  const Computation* body = xla_while.while_body();
  const Instruction* param = body->parameter(0);
  const Instruction* root = body->root();
  if (index.size() != 1 || param == nullptr || root->opcode() != Opcode::kTuple ||
      index[0] >= root->operand_count()) {
    return false;
  }
  const Instruction* new_value = root->operand(index[0]);
  absl::Span<Instruction* const> order = body->instructions();
  const auto position = [&](const Instruction* i) {
    return std::find(order.begin(), order.end(), i) - order.begin();
  };
  bool pinned = false;
  for (const Instruction* element : param->users()) {
    if (element->opcode() != Opcode::kGetTupleElement) return false;
    if (element->tuple_index() != index[0]) continue;
    if (element == new_value) return false;
    for (const Instruction* reader : element->users()) {
      if (reader == root || reader == new_value || Precedes(new_value, reader) ||
          position(reader) > position(root)) {
        return false;
      }
      pinned |= IsPin(*reader) && reader->operand(0) == element &&
                !reader->output_to_operand_aliasing().empty();
    }
  }
  return pinned;
}

std::vector<std::pair<Instruction*, Instruction*>> DoneBeforeStartEdges(
    const DataflowAnalysis& flow, const Instruction& xla_while, const ShapeIndex& index) {
  const Computation* body = xla_while.while_body();
  const Instruction* param = body->parameter(0);
  absl::Span<const ValueId> pending = flow.ValuesAt(*param, index);

  std::vector<Instruction*> starts;
  for (Instruction* start : InFlightStartsAt(flow, *body->root(), index)) {
    if (start->parent() == body) starts.push_back(start);
  }

  std::vector<std::pair<Instruction*, Instruction*>> edges;
  for (Instruction* done : body->instructions()) {
    if (!IsDone(done->opcode()) || done->operand_count() == 0) continue;
    bool reads_pending = false;
    ForEachSubshape(done->operand(0)->shape(), [&](const Shape&, const ShapeIndex& at) {
      for (ValueId v : flow.ValuesAt(*done->operand(0), at)) {
        if (std::find(pending.begin(), pending.end(), v) != pending.end()) reads_pending = true;
      }
    });
    if (!reads_pending) continue;
    for (Instruction* start : starts) {
      if (start == done || Precedes(start, done)) continue;
      edges.emplace_back(done, start);
    }
  }
  return edges;
}

}  // namespace hloscope
