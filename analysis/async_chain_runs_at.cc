#include "analysis/async_chain_runs_at.h"

#include <algorithm>
#include <cstdint>

#include "hlo/async_chain.h"
#include "hlo/computation.h"
#include "hlo/shape.h"

namespace hloscope {

namespace {

// A chain is short; the bound only guards against a malformed cycle of updates.
constexpr int kMaxChainSteps = 1 << 20;

// Whether an async-start or -update has bound every parameter of `wrapped` ({0}) and its whole
// result ({1}).
bool FullyBound(const Instruction& op, const Computation& wrapped) {
  const Shape& s = op.shape();
  if (!s.IsTuple() || s.tuple_elements.size() < 2) return false;
  const Shape& operands = *s.tuple_elements[0];
  if (!operands.IsTuple() ||
      static_cast<int64_t>(operands.tuple_elements.size()) != wrapped.parameter_count()) {
    return false;
  }
  return wrapped.root() != nullptr && s.tuple_elements[1]->Compatible(wrapped.root()->shape());
}

// The async-update or -done reading `op` as operand 0, or nullptr.
const Instruction* NextInChain(const Instruction& op) {
  for (const Instruction* u : op.users()) {
    if ((u->opcode() == Opcode::kAsyncUpdate || u->opcode() == Opcode::kAsyncDone) &&
        u->operand_count() > 0 && u->operand(0) == &op) {
      return u;
    }
  }
  return nullptr;
}

}  // namespace

const Instruction* AsyncChainRunsAt(const Instruction& start) {
  if (start.opcode() != Opcode::kAsyncStart ||
      start.async_wrapped_opcode() != Opcode::kOpcodeCount) {
    return nullptr;
  }
  const Computation* wrapped = AsyncChainComputation(start);
  if (wrapped == nullptr) return nullptr;
  const Instruction* at = &start;
  for (int steps = 0; at != nullptr && steps < kMaxChainSteps; ++steps) {
    if (at->opcode() == Opcode::kAsyncDone || FullyBound(*at, *wrapped)) return at;
    at = NextInChain(*at);
  }
  return nullptr;
}

bool WrappedRootWritesInPlace(const Instruction& start, const Instruction& root,
                              int64_t operand_number, const ShapeIndex& operand_index,
                              const ShapeIndex& root_index) {
  if (start.opcode() != Opcode::kAsyncStart ||
      start.async_wrapped_opcode() != Opcode::kOpcodeCount) {
    return false;
  }
  const Computation* wrapped = AsyncChainComputation(start);
  if (wrapped == nullptr || wrapped->root() != &root || operand_number < 0 ||
      operand_number >= root.operand_count()) {
    return false;
  }
  const Instruction* operand = root.operand(operand_number);
  if (operand->opcode() != Opcode::kParameter) return false;
  for (const OperandAlias& a : start.output_to_operand_aliasing()) {
    if (a.output_index.empty() || a.output_index[0] != 1) continue;
    if (a.operand < 0 || a.operand >= wrapped->parameter_count() ||
        wrapped->parameter(a.operand) != operand || a.operand_index != operand_index) {
      continue;
    }
    if (std::equal(a.output_index.begin() + 1, a.output_index.end(), root_index.begin(),
                   root_index.end())) {
      return true;
    }
  }
  return false;
}

}  // namespace hloscope
