#include "analysis/dataflow_rules.h"

#include <string>

#include "fmt/format.h"
#include "hlo/async_chain.h"
#include "hlo/computation.h"

namespace hloscope {

namespace {

class RuleBuilder {
 public:
  RuleBuilder(const Instruction& instr, ShapePositions& positions, InstructionRule& rule)
      : instr_(instr), positions_(positions), rule_(rule) {}

  // Output subtree at `dst_index` receives `src`'s subtree at `src_index`.
  absl::Status Forward(const ShapeIndex& dst_index, const Instruction* src,
                       const ShapeIndex& src_index) {
    if (src == nullptr) return Error("has no producer to forward from");
    std::optional<int32_t> dst = positions_.Offset(instr_.shape(), dst_index);
    std::optional<int32_t> from = positions_.Offset(src->shape(), src_index);
    if (!dst || !from) {
      return Error(fmt::format("index {} of its output or {} of '{}' does not exist",
                               ShapeIndexToString(dst_index), ShapeIndexToString(src_index),
                               src->name()));
    }
    const Shape* dst_shape = positions_.SubshapeAt(instr_.shape(), *dst);
    const Shape* src_shape = positions_.SubshapeAt(src->shape(), *from);
    const int32_t count = positions_.Count(*dst_shape);
    if (count != positions_.Count(*src_shape)) {
      return Error(fmt::format("output{} {} does not have the structure of '{}'{} {}",
                               ShapeIndexToString(dst_index), dst_shape->ToString(), src->name(),
                               ShapeIndexToString(src_index), src_shape->ToString()));
    }
    rule_.ranges.push_back({*dst, count, src, *from});
    return absl::OkStatus();
  }

  // Whether output subtree `dst_index` and `src`'s subtree `src_index` both exist and have
  // the same structure (so Forward would succeed).
  bool Fits(const ShapeIndex& dst_index, const Instruction* src, const ShapeIndex& src_index) {
    if (src == nullptr) return false;
    std::optional<int32_t> dst = positions_.Offset(instr_.shape(), dst_index);
    std::optional<int32_t> from = positions_.Offset(src->shape(), src_index);
    if (!dst || !from) return false;
    return positions_.Count(*positions_.SubshapeAt(instr_.shape(), *dst)) ==
           positions_.Count(*positions_.SubshapeAt(src->shape(), *from));
  }

  // The asynchronous collectives exist in two printed forms: the start as a tuple holding
  // (operand, result, ...) or, in newer XLA, the start's shape is the result itself. The
  // first candidate that fits is used; none fitting means the output is defined here.
  absl::Status ForwardFirstFitting(const ShapeIndex& dst_index, int64_t operand,
                                   std::initializer_list<ShapeIndex> src_indices) {
    if (operand >= instr_.operand_count()) return absl::OkStatus();
    for (const ShapeIndex& src_index : src_indices) {
      if (Fits(dst_index, instr_.operand(operand), src_index)) {
        return Forward(dst_index, instr_.operand(operand), src_index);
      }
    }
    return absl::OkStatus();
  }

  // Like ForwardOperand, but only the array (and token) leaves of the subtree: its tuples are
  // defined here.
  absl::Status ForwardLeaves(const ShapeIndex& dst_index, int64_t operand,
                             const ShapeIndex& src_index) {
    if (operand >= instr_.operand_count()) return Error("has too few operands");
    const Shape* dst_shape = Subshape(instr_.shape(), dst_index);
    if (dst_shape == nullptr || !dst_shape->IsTuple()) {
      return Forward(dst_index, instr_.operand(operand), src_index);
    }
    ShapeIndex dst = dst_index;
    ShapeIndex src = src_index;
    return ForwardLeafTree(*dst_shape, dst, instr_.operand(operand), src);
  }

  // The leaves of `shape` (the output subtree at `dst`) from `src`'s subtree at `from`. A
  // buffer b(T) is one leaf, as in XLA: the array Shape keeps inside it has no position of its
  // own, so the walk stops there (descending asked for an index {..., 0} that does not exist).
  absl::Status ForwardLeafTree(const Shape& shape, ShapeIndex& dst, const Instruction* src,
                               ShapeIndex& from) {
    if (!shape.IsTuple()) return Forward(dst, src, from);
    for (size_t i = 0; i < shape.tuple_elements.size(); ++i) {
      dst.push_back(static_cast<int64_t>(i));
      from.push_back(static_cast<int64_t>(i));
      absl::Status s = ForwardLeafTree(*shape.tuple_elements[i], dst, src, from);
      dst.pop_back();
      from.pop_back();
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  }

  absl::Status ForwardOperand(const ShapeIndex& dst_index, int64_t operand,
                              const ShapeIndex& src_index) {
    if (operand >= instr_.operand_count()) return Error("has too few operands");
    return Forward(dst_index, instr_.operand(operand), src_index);
  }

  absl::Status Error(std::string_view what) const {
    return absl::InvalidArgumentError(fmt::format("computation '{}': instruction '{}': {} {}",
                                                  instr_.parent()->name(), instr_.name(),
                                                  instr_.PrintedOpcode(), what));
  }

 private:
  const Instruction& instr_;
  ShapePositions& positions_;
  InstructionRule& rule_;
};

const Instruction* RootOf(const Computation* c) { return c == nullptr ? nullptr : c->root(); }

absl::Status ParameterRule(const Instruction& instr, const CallGraph* calls,
                           const DataflowAnalysis::Options& options, RuleBuilder& b,
                           InstructionRule& rule) {
  if (calls == nullptr) return absl::OkStatus();
  const Computation* comp = instr.parent();
  const absl::Span<const CallSite> callers = calls->ControlFlowSites(comp);
  // Entry, uncalled and embedded computations: the parameter defines its values.
  if (callers.empty() || comp->is_entry()) return absl::OkStatus();
  const int64_t n = instr.parameter_number();
  // The parameter receives the union of what every call site passes (XLA's dataflow); where a
  // loop or a conditional is among the sites, the values merge in a phi (SSA form), which
  // phi resolution removes again when only one value reaches it.
  bool merges = false;
  for (const CallSite& site : callers) {
    const Opcode op = site.caller->opcode();
    merges = merges || op == Opcode::kWhile || (op == Opcode::kConditional && callers.size() > 1);
  }
  rule.phi = options.ssa_form && merges;
  for (const CallSite& site : callers) {
    const Instruction* caller = site.caller;
    switch (caller->opcode()) {
      case Opcode::kWhile: {
        // Body and condition parameters: the loop's init, then whatever the body produced.
        const Instruction* init = caller->operand_count() > 0 ? caller->operand(0) : nullptr;
        if (absl::Status s = b.Forward({}, init, {}); !s.ok()) return s;
        if (absl::Status s = b.Forward({}, RootOf(caller->while_body()), {}); !s.ok()) return s;
        break;
      }
      case Opcode::kConditional: {
        // Every branch slot naming this computation passes its operand.
        const std::vector<Computation*> branches = caller->branch_computations();
        bool found = false;
        for (size_t k = 0; k < branches.size(); ++k) {
          if (branches[k] != comp) continue;
          if (static_cast<int64_t>(k) + 1 >= caller->operand_count()) break;
          if (absl::Status s = b.Forward({}, caller->operand(static_cast<int64_t>(k) + 1), {});
              !s.ok()) {
            return s;
          }
          found = true;
        }
        if (!found) return b.Error("is in a branch its conditional has no operand for");
        break;
      }
      case Opcode::kAsyncStart: {
        // Parameter n holds the operand that binds it: the start's operand n, or, late-bound
        // (hlo/async_chain.h), the operand of the async-update that binds slot n.
        const AsyncBinding bound = FindAsyncParameterBinding(*caller, n);
        // A chain that never binds it (no done yet, as a module being built may be): the
        // parameter then defines its own value, as an entry parameter does.
        if (bound.binder == nullptr) break;
        if (absl::Status s = b.Forward({}, bound.binder->operand(bound.operand_number), {});
            !s.ok()) {
          return s;
        }
        break;
      }
      default:  // call (and call-start): parameter n holds operand n
        if (n >= caller->operand_count()) return b.Error("has no matching operand at its caller");
        if (absl::Status s = b.Forward({}, caller->operand(n), {}); !s.ok()) return s;
    }
  }
  return absl::OkStatus();
}

}  // namespace

// Forwards the array (and token) leaves of `src`'s subtree `src_index` to the output subtree
// `dst_index` (their tuples are defined here).
absl::Status ForwardLeavesFrom(RuleBuilder& b, const Instruction& instr,
                               const ShapeIndex& dst_index, const Instruction* src,
                               const ShapeIndex& src_index) {
  if (src == nullptr) return b.Error("has no computation result to return");
  const Shape* dst_shape = Subshape(instr.shape(), dst_index);
  if (dst_shape == nullptr) return b.Error("has no such output index");
  ShapeIndex dst = dst_index;
  ShapeIndex from = src_index;
  return b.ForwardLeafTree(*dst_shape, dst, src, from);
}

// The opcode an async op wraps: its `<op>-start` sugar's, else the root of its calls= (XLA's
// async_wrapped_opcode); kOpcodeCount when neither names one.
Opcode WrappedOpcodeOf(const Instruction& instr) {
  if (instr.async_wrapped_opcode() != Opcode::kOpcodeCount) return instr.async_wrapped_opcode();
  const Computation* wrapped = instr.fused_computation();
  if (wrapped == nullptr && !instr.called_computations().empty()) {
    wrapped = instr.called_computations()[0];
  }
  const Instruction* root = RootOf(wrapped);
  return root == nullptr ? Opcode::kOpcodeCount : root->opcode();
}

// XLA's one exception to "an async-update defines its context" (UpdateAsyncUpdateValueSet at
// 183fa00cb5): a wrapped dynamic-slice or dynamic-update-slice whose chain comes through a
// loop (operand 0 a get-tuple-element, tuple, while or parameter) passes every element after
// the operands on from that operand, its context included.
bool KeepsChainContext(const Instruction& instr) {
  const Opcode chain = instr.operand(0)->opcode();
  const bool loop_crossing = chain == Opcode::kGetTupleElement || chain == Opcode::kTuple ||
                             chain == Opcode::kWhile || chain == Opcode::kParameter;
  const Opcode wrapped = WrappedOpcodeOf(instr);
  return loop_crossing &&
         (wrapped == Opcode::kDynamicSlice || wrapped == Opcode::kDynamicUpdateSlice);
}

// The context elements {2, ...} of an async-update: its own values (XLA since 3c1e341809,
// "async-update defines its context buffers instead of forwarding them"; at 183fa00cb5), so a
// context handed on unchanged is a new value too; the buffer stays the start's only where the
// update's output_to_operand_aliasing says so (an in-place pair, in_place_pairs.h). The loop
// crossing slice of KeepsChainContext passes on the elements that keep their shape.
absl::Status UpdateContextRule(const Instruction& instr, RuleBuilder& b) {
  if (!KeepsChainContext(instr)) return absl::OkStatus();
  const Instruction& prev = *instr.operand(0);
  const int64_t elements = static_cast<int64_t>(instr.shape().tuple_elements.size());
  for (int64_t i = 2; i < elements; ++i) {
    // Same leaf count is not enough: u32[] changed to f32[4] is a new value (XLA compares the
    // shapes, ShapeUtil::Compatible).
    const Shape* own = Subshape(instr.shape(), {i});
    const Shape* kept = Subshape(prev.shape(), {i});
    if (!b.Fits({i}, &prev, {i}) || own == nullptr || kept == nullptr || !own->Compatible(*kept)) {
      continue;
    }
    if (absl::Status s = ForwardLeavesFrom(b, instr, {i}, &prev, {i}); !s.ok()) return s;
  }
  return absl::OkStatus();
}

// An async-update that binds (hlo/async_chain.h): slots bound before it come from its first
// operand, the new ones from its other operands; a result already bound passes on, one bound
// here is the computation's result. Its context is UpdateContextRule's.
absl::Status LateBoundUpdateRule(const Instruction& instr, RuleBuilder& b) {
  const Instruction& prev = *instr.operand(0);
  const int64_t before = AsyncBoundCount(prev);
  const int64_t after = AsyncBoundCount(instr);
  if (before < 0 || after < before) return b.Error("does not extend the operands of its chain");
  for (int64_t i = 0; i < after; ++i) {
    absl::Status s = i < before
                         ? ForwardLeavesFrom(b, instr, {0, i}, &prev, {0, i})
                         : ForwardLeavesFrom(b, instr, {0, i}, instr.operand(1 + i - before), {});
    if (!s.ok()) return s;
  }
  // The part of the result bound so far (all of it, `()`, or a prefix of a tuple result,
  // IsAsyncShapePrefix) holds the computation's result there, as XLA's
  // UpdateAsyncChainOutputValueSet gives each bound leaf the root's value.
  const Shape& result = *instr.shape().tuple_elements[1];
  if (!IsUnboundAsyncResult(result)) {
    const Shape& prev_result = *prev.shape().tuple_elements[1];
    absl::Status s =
        prev_result.Compatible(result)
            ? ForwardLeavesFrom(b, instr, {1}, &prev, {1})
            : ForwardLeavesFrom(b, instr, {1}, RootOf(AsyncChainComputation(instr)), {});
    if (!s.ok()) return s;
  }
  return UpdateContextRule(instr, b);
}

// An async-update that binds nothing and keeps its operand's shape: the operands {0, ...} and
// the result {1} pass on (their arrays; the tuples are its own), the context is
// UpdateContextRule's.
absl::Status UnboundUpdateRule(const Instruction& instr, RuleBuilder& b) {
  const int64_t elements = static_cast<int64_t>(instr.shape().tuple_elements.size());
  for (int64_t i = 0; i < elements && i < 2; ++i) {
    if (absl::Status s = ForwardLeavesFrom(b, instr, {i}, instr.operand(0), {i}); !s.ok()) {
      return s;
    }
  }
  return UpdateContextRule(instr, b);
}

// The table. Every opcode not listed defines a value at each index of its output.
absl::Status BuildRule(const Instruction& instr, const CallGraph* calls,
                       const DataflowAnalysis::Options& options, ShapePositions& positions,
                       InstructionRule& rule) {
  RuleBuilder b(instr, positions, rule);
  const int64_t n = instr.operand_count();
  const auto i64 = [](size_t v) { return static_cast<int64_t>(v); };
  switch (instr.opcode()) {
    case Opcode::kParameter:
      return ParameterRule(instr, calls, options, b, rule);
    case Opcode::kTuple:  // defines {}, element i is operand i
      for (int64_t i = 0; i < n; ++i) {
        if (absl::Status s = b.ForwardOperand({i}, i, {}); !s.ok()) return s;
      }
      return absl::OkStatus();
    case Opcode::kGetTupleElement:
      return b.ForwardOperand({}, 0, {instr.tuple_index()});
    case Opcode::kBitcast:
      if (options.bitcast_defines_value) return absl::OkStatus();
      return b.ForwardOperand({}, 0, {});
    case Opcode::kDomain:
    case Opcode::kOptBarrier:
    case Opcode::kAddDependency:  // operand 1 is only an ordering token
      return b.ForwardOperand({}, 0, {});
    case Opcode::kAsyncUpdate:
      // As XLA at 183fa00cb5: the arrays of the operands and the result pass on; the tuples
      // and the context elements are its own.
      if (!instr.shape().IsTuple() || instr.shape().tuple_elements.size() < 2) {
        return b.Error("is not a tuple of (operands, result, context...)");
      }
      if (n == 1 && instr.shape().Compatible(instr.operand(0)->shape())) {
        return UnboundUpdateRule(instr, b);
      }
      return LateBoundUpdateRule(instr, b);
    case Opcode::kAllReduceDone:  // the buffer all-reduce-start wrote (in place)
      return b.ForwardFirstFitting({}, 0, {{}, {1}});
    case Opcode::kCopy: {  // shallow: a new top-level buffer, nested elements shared
      if (!instr.shape().IsTuple()) return absl::OkStatus();
      for (size_t i = 0; i < instr.shape().tuple_elements.size(); ++i) {
        if (absl::Status s = b.ForwardOperand({i64(i)}, 0, {i64(i)}); !s.ok()) return s;
      }
      return absl::OkStatus();
    }
    case Opcode::kWhile: {
      rule.phi = options.ssa_form;
      if (absl::Status s = b.ForwardOperand({}, 0, {}); !s.ok()) return s;
      return b.Forward({}, RootOf(instr.while_body()), {});
    }
    case Opcode::kConditional: {
      rule.phi = options.ssa_form;
      for (const Computation* branch : instr.branch_computations()) {
        if (absl::Status s = b.Forward({}, RootOf(branch), {}); !s.ok()) return s;
      }
      return absl::OkStatus();
    }
    case Opcode::kCall:
      return b.Forward({}, RootOf(instr.to_apply()), {});
    case Opcode::kAsyncStart: {  // ((operands...), result, context...)
      // {} and {0} are defined here; operand i is {0, i}; the wrapped root is {1}.
      for (int64_t i = 0; i < n; ++i) {
        if (absl::Status s = b.ForwardOperand({0, i}, i, {}); !s.ok()) return s;
      }
      // A result bound later (`()`, hlo/async_chain.h) is an empty tuple the start defines.
      const Shape* result = Subshape(instr.shape(), {1});
      if (result != nullptr && IsUnboundAsyncResult(*result)) return absl::OkStatus();
      const Opcode wrapped = instr.async_wrapped_opcode();
      if (wrapped != Opcode::kOpcodeCount) {
        // `<op>-start`: the wrapped op is not in a computation of its own; it defines the
        // result, except a wrapped call, whose result is its callee's root.
        if (wrapped != Opcode::kCall) return absl::OkStatus();
        const Computation* callee = instr.to_apply();
        if (callee == nullptr && !instr.called_computations().empty()) {
          callee = instr.called_computations()[0];
        }
        return b.Forward({1}, RootOf(callee), {});
      }
      const Instruction* root = RootOf(instr.CalledComputation(kAttrCalls));
      if (root == nullptr && !instr.called_computations().empty()) {
        root = RootOf(instr.called_computations()[0]);
      }
      return b.Forward({1}, root, {});
    }
    case Opcode::kAsyncDone: {  // the result element of the start's tuple (its arrays)
      const Shape& started = instr.operand(0)->shape();
      if (started.IsTuple() && started.tuple_elements.size() >= 2 &&
          (IsUnboundAsyncResult(*started.tuple_elements[1]) ||
           (!started.tuple_elements[1]->Compatible(instr.shape()) &&
            AsyncChainComputation(instr) != nullptr))) {
        // Late-bound result, not bound before the done or only a prefix of it: the done binds
        // the rest, and returns the computation's result.
        return ForwardLeavesFrom(b, instr, {}, RootOf(AsyncChainComputation(instr)), {});
      }
      return b.ForwardLeaves({}, 0, {1});
    }
    case Opcode::kAllGatherDone:
    case Opcode::kCollectivePermuteDone:
      // A tuple-shaped done (several operands) defines its own tuple and returns the start's
      // result elements, as XLA's dataflow does.
      if (instr.shape().IsTuple() && n == 1 && b.Fits({}, instr.operand(0), {1})) {
        for (size_t i = 0; i < instr.shape().tuple_elements.size(); ++i) {
          if (absl::Status s = b.ForwardOperand({i64(i)}, 0, {1, i64(i)}); !s.ok()) return s;
        }
        return absl::OkStatus();
      }
      return b.ForwardFirstFitting({}, 0, {{1}, {}});
    case Opcode::kCopyDone:
      return b.ForwardOperand({}, 0, {0});  // copy-start's destination
    case Opcode::kCopyStart:  // (destination, source, context): the source is the operand
      return b.ForwardOperand({1}, 0, {});
    case Opcode::kSend:  // (data, context, token): the data is the operand
      return b.ForwardOperand({0}, 0, {});
    case Opcode::kRecvDone:  // (data, token): the data recv wrote
      return b.ForwardOperand({0}, 0, {0});
    case Opcode::kAllGatherStart:  // (operands, results), or just the results
      if (!instr.shape().IsTuple()) return absl::OkStatus();
      if (n == 1) return b.ForwardFirstFitting({0}, 0, {{}});
      for (int64_t i = 0; i < n; ++i) {
        if (absl::Status s = b.ForwardFirstFitting({0, i}, i, {{}}); !s.ok()) return s;
      }
      return absl::OkStatus();
    case Opcode::kCollectivePermuteStart:  // (operand, result, contexts...), or the result
      if (!instr.shape().IsTuple()) return absl::OkStatus();
      if (n > 1) {  // combined: ((operands...), (results...), ...)
        for (int64_t i = 0; i < n; ++i) {
          if (absl::Status s = b.ForwardFirstFitting({0, i}, i, {{}}); !s.ok()) return s;
        }
        return absl::OkStatus();
      }
      if (n == 1 && instr.operand(0)->shape().IsTuple() && b.Fits({0}, instr.operand(0), {})) {
        // A tuple operand: {0} is the start's own tuple, its elements the operand's.
        for (size_t i = 0; i < instr.operand(0)->shape().tuple_elements.size(); ++i) {
          if (absl::Status s = b.ForwardOperand({0, i64(i)}, 0, {i64(i)}); !s.ok()) return s;
        }
        return absl::OkStatus();
      }
      return b.ForwardFirstFitting({0}, 0, {{}});
    default:
      // Includes fusion, custom-call, all-reduce-start, dynamic-update-slice and scatter:
      // their output is a new value; that it reuses an operand's buffer is an aliasing fact
      // (in_place_pairs.h, alias.h), not a dataflow one.
      return absl::OkStatus();
  }
}

}  // namespace hloscope
