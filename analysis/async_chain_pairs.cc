#include "analysis/async_chain_pairs.h"

#include <algorithm>
#include <cstdint>
#include <string>

#include "fmt/format.h"
#include "hlo/async_chain.h"
#include "hlo/async_chain_start.h"
#include "hlo/computation.h"
#include "hlo/shape.h"

namespace hloscope {

namespace {

// A chain is short; the bound only guards against a malformed cycle of updates.
constexpr int kMaxChainSteps = 1 << 20;

// The async-start that `op` (a start, update or done) continues through operand 0, or nullptr.
const Instruction* ChainStart(const Instruction& op) {
  const Instruction* at = &op;
  for (int steps = 0; at != nullptr && steps < kMaxChainSteps; ++steps) {
    if (at->opcode() == Opcode::kAsyncStart) return at;
    if (at->opcode() != Opcode::kAsyncUpdate && at->opcode() != Opcode::kAsyncDone) return nullptr;
    if (at->operand_count() == 0) return nullptr;
    at = at->operand(0);
  }
  return nullptr;
}

// How many parameters the chain has bound up to and including `op` (a start or update that
// reaches its start): XLA's GetAsyncBoundOperands(op).size(), counted from the operands.
int64_t BoundThrough(const Instruction& op) {
  int64_t bound = 0;
  const Instruction* at = &op;
  for (int steps = 0; at != nullptr && steps < kMaxChainSteps; ++steps) {
    if (at->opcode() == Opcode::kAsyncStart) return bound + at->operand_count();
    bound += at->operand_count() - 1;
    at = at->operand(0);
  }
  return bound;
}

// The start's own aliasing; the short forms' attribute is the wrapped op's (see the header).
absl::Span<const OperandAlias> StartAliasing(const Instruction& start) {
  const Opcode wrapped = start.async_wrapped_opcode();
  if (wrapped == Opcode::kCustomCall || wrapped == Opcode::kFusion) return {};
  return start.output_to_operand_aliasing();
}

bool ValidIndex(const Shape& shape, const ShapeIndex& index) {
  return Subshape(shape, index) != nullptr;
}

// Whether the result element ({1}) of an async-start or -update is the `()` of one not bound.
bool ResultUnbound(const Instruction& op) {
  const Shape* result = Subshape(op.shape(), {1});
  return result != nullptr && IsUnboundAsyncResult(*result);
}

std::string EntryText(const OperandAlias& a) {
  return fmt::format("{}: ({}, {})", ShapeIndexToString(a.output_index), a.operand,
                     ShapeIndexToString(a.operand_index));
}

absl::Status EmptyOutputIndex(const Instruction& start, const OperandAlias& a) {
  return absl::InvalidArgumentError(
      fmt::format("alias analysis: %{}'s output_to_operand_aliasing entry {} aliases the whole "
                  "async chain, not an element of it",
                  start.name(), EntryText(a)));
}

// Appends the pair binding `a`'s parameter at operand `k` of `binder` (the start or an update).
absl::Status AppendBound(const Instruction& binder, const Instruction& start, const OperandAlias& a,
                         int64_t k, std::vector<InPlacePair>& out) {
  if (!ValidIndex(binder.operand(k)->shape(), a.operand_index)) {
    return absl::InvalidArgumentError(fmt::format(
        "alias analysis: %{}'s output_to_operand_aliasing entry {} names index {} of "
        "parameter {}, which %{} binds with %{} of shape {}",
        start.name(), EntryText(a), ShapeIndexToString(a.operand_index), a.operand, binder.name(),
        binder.operand(k)->name(), binder.operand(k)->shape().ToString()));
  }
  out.push_back({{k, a.operand_index}, a.output_index});
  return absl::OkStatus();
}

// Whether the chain starting at `start` has a parameter `n` (true when its wrapped computation
// is unknown: nothing says otherwise).
bool IsParameterOf(const Instruction& start, int64_t n) {
  const Computation* wrapped = AsyncChainComputation(start);
  return n >= 0 && (wrapped == nullptr || n < wrapped->parameter_count());
}

// The entries of the start's aliasing that `binder` binds, `first` being the parameter its
// first bound operand (number `base`) holds.
absl::Status AppendBinderPairs(const Instruction& binder, const Instruction& start, int64_t first,
                               int64_t base, std::vector<InPlacePair>& out) {
  absl::Status status;
  const bool result_unbound = ResultUnbound(binder);
  for (const OperandAlias& a : StartAliasing(start)) {
    if (a.output_index.empty()) {
      status.Update(EmptyOutputIndex(start, a));
      continue;
    }
    if (a.output_index[0] == 1 && result_unbound) continue;  // bound later
    if (!ValidIndex(binder.shape(), a.output_index)) continue;
    const int64_t k = base + (a.operand - first);
    if (&binder == &start && k >= binder.operand_count() && !IsParameterOf(start, a.operand)) {
      // Not a parameter of the chain at all (XLA's verifier rejects it, ours may not have
      // run): kept as written, so that its users report the operand it names.
      out.push_back({{k, a.operand_index}, a.output_index});
      continue;
    }
    if (k < base || k >= binder.operand_count()) continue;  // bound before or later
    status.Update(AppendBound(binder, start, a, k, out));
  }
  return status;
}

}  // namespace

absl::Status AppendAsyncChainPairs(const Instruction& instr, std::vector<InPlacePair>& out) {
  switch (instr.opcode()) {
    case Opcode::kAsyncStart:
      if (instr.operand_count() == 0) return absl::OkStatus();
      return AppendBinderPairs(instr, instr, /*first=*/0, /*base=*/0, out);
    case Opcode::kAsyncUpdate: {
      if (instr.operand_count() <= 1) return absl::OkStatus();
      const Instruction* start = ChainStart(instr);
      if (start == nullptr) return absl::OkStatus();
      return AppendBinderPairs(instr, *start, BoundThrough(*instr.operand(0)), /*base=*/1, out);
    }
    case Opcode::kAsyncDone: {
      // XLA's done finds its start through a loop the chain crosses (async_chain_start()).
      const Instruction* start = ChainStart(instr);
      if (start == nullptr) start = FindAsyncChainStartAcrossLoops(instr);
      if (start == nullptr) return absl::OkStatus();
      for (const OperandAlias& a : StartAliasing(*start)) {
        // XLA logs and ignores an entry that does not name the result.
        if (a.output_index.empty() || a.output_index[0] != 1) continue;
        ShapeIndex result(a.output_index.begin() + 1, a.output_index.end());
        if (!ValidIndex(instr.shape(), result)) continue;
        ShapeIndex chain = {0, a.operand};
        chain.insert(chain.end(), a.operand_index.begin(), a.operand_index.end());
        out.push_back({{0, std::move(chain)}, std::move(result)});
      }
      return absl::OkStatus();
    }
    default:
      return absl::OkStatus();
  }
}

std::vector<int64_t> AsyncChainAliasedOperands(const Instruction& binder) {
  std::vector<int64_t> out;
  const bool update = binder.opcode() == Opcode::kAsyncUpdate;
  if (!update && binder.opcode() != Opcode::kAsyncStart) return out;
  const Instruction* start = ChainStart(binder);
  if (start == nullptr) return out;
  const int64_t base = update ? 1 : 0;
  const int64_t first = update ? BoundThrough(*binder.operand(0)) : 0;
  for (const OperandAlias& a : StartAliasing(*start)) {
    const int64_t k = base + (a.operand - first);
    if (k < base || k >= binder.operand_count()) continue;
    if (std::find(out.begin(), out.end(), k) == out.end()) out.push_back(k);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace hloscope
