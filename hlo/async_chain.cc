#include "hlo/async_chain.h"

namespace hloscope {

const Computation* AsyncChainComputation(const Instruction& op) {
  const Instruction* at = &op;
  // A chain is short; the bound only guards against a malformed cycle of updates.
  for (int steps = 0; at != nullptr && steps < 1 << 20; ++steps) {
    switch (at->opcode()) {
      case Opcode::kAsyncStart: {
        if (const Computation* c = at->fused_computation(); c != nullptr) return c;
        // `call-start(...), to_apply=f`: the wrapped call takes f's parameters.
        if (at->async_wrapped_opcode() != Opcode::kCall) return nullptr;
        if (at->to_apply() != nullptr) return at->to_apply();
        return at->called_computations().empty() ? nullptr : at->called_computations()[0];
      }
      case Opcode::kAsyncUpdate:
      case Opcode::kAsyncDone:
        if (at->operand_count() == 0) return nullptr;
        at = at->operand(0);
        break;
      default:
        return nullptr;
    }
  }
  return nullptr;
}

int64_t AsyncBoundCount(const Instruction& op) {
  const Shape& s = op.shape();
  if (!s.IsTuple() || s.tuple_elements.empty() || !s.tuple_elements[0]->IsTuple()) return -1;
  return static_cast<int64_t>(s.tuple_elements[0]->tuple_elements.size());
}

bool IsUnboundAsyncResult(const Shape& shape) {
  return shape.IsTuple() && shape.tuple_elements.empty();
}

bool IsAsyncShapePrefix(const Shape& prefix, const Shape& shape,
                        absl::FunctionRef<bool(const Shape&, const Shape&)> same) {
  if (same(prefix, shape) || IsUnboundAsyncResult(prefix)) return true;
  if (!prefix.IsTuple() || !shape.IsTuple()) return false;
  if (prefix.tuple_elements.size() > shape.tuple_elements.size()) return false;
  for (size_t i = 0; i < prefix.tuple_elements.size(); ++i) {
    if (!IsAsyncShapePrefix(*prefix.tuple_elements[i], *shape.tuple_elements[i], same)) {
      return false;
    }
  }
  return true;
}

AsyncBinding FindAsyncParameterBinding(const Instruction& start, int64_t n) {
  if (n < start.operand_count()) return {&start, n};
  const Instruction* at = &start;
  for (int steps = 0; steps < 1 << 20; ++steps) {
    const Instruction* next = nullptr;
    for (const Instruction* user : at->users()) {
      if (user->opcode() == Opcode::kAsyncUpdate && user->operand_count() > 0 &&
          user->operand(0) == at) {
        next = user;
        break;
      }
    }
    if (next == nullptr) return {};
    const int64_t before = AsyncBoundCount(*at);
    const int64_t after = AsyncBoundCount(*next);
    if (before < 0 || after < 0) return {};
    if (n < after) {
      const int64_t k = 1 + (n - before);
      if (n < before || k >= next->operand_count()) return {};
      return {next, k};
    }
    at = next;
  }
  return {};
}

namespace {

// The fusion a long-form async fusion's wrapped computation holds: its root, a fusion whose
// operands are the computation's parameters in order, with nothing else beside them (XLA's
// HloComputation::CanExpandIntoSingleInstruction, as its parser builds `fusion-start`).
const Instruction* WrappedFusion(const Computation& c) {
  const Instruction* root = c.root();
  if (root == nullptr || root->opcode() != Opcode::kFusion ||
      root->fused_computation() == nullptr || root->operand_count() != c.parameter_count()) {
    return nullptr;
  }
  for (int64_t i = 0; i < root->operand_count(); ++i) {
    const Instruction* operand = root->operand(i);
    if (operand->opcode() != Opcode::kParameter || operand->parameter_number() != i) return nullptr;
  }
  for (const Instruction* in : c.instructions()) {
    if (in != root && in->opcode() != Opcode::kParameter) return nullptr;
  }
  return root;
}

}  // namespace

const Computation* FusedComputationRunBy(const Instruction& in) {
  if (in.opcode() == Opcode::kFusion) return in.fused_computation();
  if (in.opcode() != Opcode::kAsyncStart) return nullptr;
  if (in.async_wrapped_opcode() == Opcode::kFusion) return in.fused_computation();
  if (in.async_wrapped_opcode() != Opcode::kOpcodeCount) return nullptr;
  const Computation* wrapped = in.fused_computation();
  if (wrapped == nullptr || wrapped->parameter_count() != in.operand_count()) return nullptr;
  const Instruction* fusion = WrappedFusion(*wrapped);
  return fusion != nullptr ? fusion->fused_computation() : nullptr;
}

bool IsAsyncFusionWrapper(const Computation& c) { return WrappedFusion(c) != nullptr; }

}  // namespace hloscope
