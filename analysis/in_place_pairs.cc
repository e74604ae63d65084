#include "analysis/in_place_pairs.h"

#include <algorithm>
#include <utility>

#include "analysis/async_chain_pairs.h"
#include "hlo/attribute_values.h"
#include "hlo/computation.h"

namespace hloscope {

namespace {

// Shapes equal as XLA compares them after parsing: XLA's parser gives an array written without
// a layout the default one ({rank-1,...,0}), so `f32[100]` and `f32[100]{0}` are the same shape
// there (BufferAssignmentTest.IntermediateValueWithMultiplePositionsCanBeReused mixes them).
bool SameShapeAsXlaParsed(const Shape& a, const Shape& b) {
  if (a.element_type != b.element_type || a.dims != b.dims || a.dynamic != b.dynamic ||
      a.tuple_elements.size() != b.tuple_elements.size()) {
    return false;
  }
  if (a.IsArray()) {
    const auto effective = [](const Shape& s) {
      if (s.has_layout) return s.layout;
      Layout descending;
      for (int64_t d = s.rank() - 1; d >= 0; --d) descending.minor_to_major.push_back(d);
      return descending;
    };
    if (!(effective(a) == effective(b))) return false;
  } else if (a.has_layout != b.has_layout || !(a.layout == b.layout)) {
    return false;
  }
  for (size_t i = 0; i < a.tuple_elements.size(); ++i) {
    if (!SameShapeAsXlaParsed(*a.tuple_elements[i], *b.tuple_elements[i])) return false;
  }
  return true;
}

// Nested fusions are at most as deep as the computation nesting; this bounds a malformed
// (recursive) module too.
constexpr int kMaxFusionDepth = 64;

std::vector<InPlacePair> PairsOf(const Instruction& instr, const DataflowOptions& options,
                                 int depth);

// Walks from (instr, index) towards the instruction that produced that subshape, through
// tuple, get-tuple-element, and bitcast when bitcasts are aliases and the options walk them.
std::pair<const Instruction*, ShapeIndex> FollowIndirection(const Instruction* instr,
                                                            ShapeIndex index,
                                                            const DataflowOptions& options) {
  while (true) {
    if (instr->opcode() == Opcode::kTuple && !index.empty() && index.front() >= 0 &&
        index.front() < instr->operand_count()) {
      instr = instr->operand(index.front());
      index.erase(index.begin());
    } else if (instr->opcode() == Opcode::kGetTupleElement && instr->operand_count() == 1) {
      index.insert(index.begin(), instr->tuple_index());
      instr = instr->operand(0);
    } else if (!options.bitcast_defines_value && options.in_place_through_bitcast &&
               instr->opcode() == Opcode::kBitcast && index.empty() &&
               instr->operand_count() == 1) {
      instr = instr->operand(0);
    } else {
      return {instr, std::move(index)};
    }
  }
}

void AppendAliasing(const Instruction& instr, std::vector<InPlacePair>& out) {
  for (const OperandAlias& a : instr.output_to_operand_aliasing()) {
    out.push_back({{a.operand, a.operand_index}, a.output_index});
  }
}

// The pairs a fusion of shape `shape` gets from its fused computation.
void FusedPairs(const Computation* fused, const Shape& shape, const DataflowOptions& options,
                int depth, std::vector<InPlacePair>& out) {
  if (fused == nullptr || fused->root() == nullptr || depth >= kMaxFusionDepth) return;
  // Every array leaf of the fusion's output may be written in place into a parameter.
  ForEachSubshape(shape, [&](const Shape& subshape, const ShapeIndex& index) {
    if (subshape.IsTuple()) return;
    auto [source, source_index] = FollowIndirection(fused->root(), index, options);
    const Instruction* input = nullptr;
    ShapeIndex input_index;
    for (const InPlacePair& p : PairsOf(*source, options, depth + 1)) {
      if (p.output_index != source_index) continue;
      if (p.input.operand_number < 0 || p.input.operand_number >= source->operand_count()) {
        continue;
      }
      std::tie(input, input_index) = FollowIndirection(source->operand(p.input.operand_number),
                                                       p.input.operand_index, options);
      // A nested fusion that itself updates one of its operands in place passes that
      // operand's buffer through: keep walking from that operand.
      if (input->opcode() == Opcode::kFusion) {
        for (const InPlacePair& q : PairsOf(*input, options, depth + 1)) {
          if (q.output_index != input_index || q.input.operand_number >= input->operand_count()) {
            continue;
          }
          std::tie(input, input_index) = FollowIndirection(input->operand(q.input.operand_number),
                                                           q.input.operand_index, options);
          break;
        }
      }
      break;
    }
    if (input != nullptr && input->opcode() == Opcode::kParameter) {
      out.push_back({{input->parameter_number(), input_index}, index});
    }
  });
}

void FusionPairs(const Instruction& fusion, const DataflowOptions& options, int depth,
                 std::vector<InPlacePair>& out) {
  FusedPairs(fusion.fused_computation(), fusion.shape(), options, depth, out);
}

std::vector<InPlacePair> PairsOf(const Instruction& instr, const DataflowOptions& options,
                                 int depth) {
  std::vector<InPlacePair> out;
  const int64_t n = instr.operand_count();
  switch (instr.opcode()) {
    case Opcode::kDynamicUpdateSlice:
    case Opcode::kSetDimensionSize:
      if (n > 0) out.push_back({{0, {}}, {}});
      break;
    case Opcode::kScatter: {
      // scatter(inputs..., indices, updates...): 2N + 1 operands.
      const int64_t inputs = (n - 1) / 2;
      if (inputs == 1) out.push_back({{0, {}}, {}});
      for (int64_t i = 0; inputs > 1 && i < inputs; ++i) out.push_back({{i, {}}, {i}});
      break;
    }
    case Opcode::kAllReduceStart:
      if (n == 1) out.push_back({{0, {}}, {}});
      for (int64_t i = 0; n > 1 && i < n; ++i) out.push_back({{i, {}}, {i}});
      break;
    case Opcode::kCollectivePermute:
    case Opcode::kCollectivePermuteStart: {
      if (n != 4) break;  // only the 4-operand form writes into operand 1
      const bool start = instr.opcode() == Opcode::kCollectivePermuteStart;
      // As in XLA, a collective-permute-start is in place only in the form with slice_sizes
      // (input, output, input offsets, output offsets); four operands without them are a
      // combined permute of four arrays, each received into a new buffer.
      if (start && !RawAttribute(instr, "slice_sizes").has_value() &&
          instr.dynamic_slice_sizes().empty()) {
        break;
      }
      ShapeIndex base = start ? ShapeIndex{1} : ShapeIndex{};
      out.push_back({{1, {}}, base});
      const Shape& buffer = instr.operand(1)->shape();
      for (int64_t i = 0;
           buffer.IsTuple() && i < static_cast<int64_t>(buffer.tuple_elements.size()); ++i) {
        ShapeIndex output = base;
        output.push_back(i);
        out.push_back({{1, {i}}, output});
      }
      break;
    }
    case Opcode::kRaggedAllToAll:
      if (n > 1) out.push_back({{1, {}}, {}});
      break;
    case Opcode::kCustomCall:
      AppendAliasing(instr, out);
      break;
    case Opcode::kAsyncStart: {
      // In the short form of a wrapped custom-call or fusion (`custom-call-start`), the
      // attribute is the wrapped op's, as XLA's parser hands it over: its output indices are
      // of the wrapped op's result, element {1} of the start. Elsewhere (an async-start with
      // calls=, a call-start) they are of the start's own shape.
      const Opcode wrapped = instr.async_wrapped_opcode();
      if (wrapped != Opcode::kCustomCall && wrapped != Opcode::kFusion) {
        // The entries it binds (late-bound chains: async_chain_pairs.h); the alias analysis
        // reports the entries XLA CHECK-fails on.
        AppendAsyncChainPairs(instr, out).IgnoreError();
        break;
      }
      for (const OperandAlias& a : instr.output_to_operand_aliasing()) {
        ShapeIndex output = {1};
        output.insert(output.end(), a.output_index.begin(), a.output_index.end());
        out.push_back({{a.operand, a.operand_index}, std::move(output)});
      }
      // A wrapped fusion (`fusion-start(...), calls=body`, as XLA:GPU prints an async
      // dynamic-update-slice fusion) updates in place what its body does, as the fusion
      // would: its operands are the fusion's, its result is element {1}.
      const Shape* result = Subshape(instr.shape(), {1});
      if (wrapped == Opcode::kFusion && result != nullptr) {
        std::vector<InPlacePair> fused;
        FusedPairs(instr.fused_computation(), *result, options, depth, fused);
        for (InPlacePair& p : fused) {
          p.output_index.insert(p.output_index.begin(), 1);
          out.push_back(std::move(p));
        }
      }
      break;
    }
    case Opcode::kAsyncUpdate:
      // Its own output_to_operand_aliasing first (XLA's alias_info.cc since 3c1e341809): a
      // context element {2, ...} the update defines that stays in the buffer of its operand's,
      // usually {2}: (0, {2}); then what the chain's async-start aliases where this update
      // binds it (async_chain_pairs.h), in XLA's order.
      AppendAliasing(instr, out);
      AppendAsyncChainPairs(instr, out).IgnoreError();
      break;
    case Opcode::kAsyncDone:
      // What the chain's async-start aliases, where the done ends the chain.
      AppendAsyncChainPairs(instr, out).IgnoreError();
      break;
    case Opcode::kFusion:
      FusionPairs(instr, options, depth, out);
      AppendAliasing(instr, out);
      break;
    default:
      break;
  }
  return out;
}

std::vector<int64_t> OperandNumbers(const Instruction& user, const Instruction& operand) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < user.operand_count(); ++i) {
    if (user.operand(i) == &operand) out.push_back(i);
  }
  return out;
}

// Every transitive use of `instr` inside its computation is elementwise on it or a tuple. A
// dynamic-update-slice that takes `instr` only as the array it updates (operand 0) is
// elementwise on it: each element of its result reads that element of `instr` or the update.
// XLA:GPU's buffer-sharing hint (FusionCanShareBufferHint) accepts that path, and its
// after-optimization modules rely on it (a loop fusion's select feeding an in-place
// dynamic-update-slice, written into its operand's buffer).
bool UsesAreElementwiseOrTuple(const Instruction& instr, int depth = 0) {
  if (depth > 256) return false;
  for (const Instruction* user : instr.users()) {
    if (user->opcode() == Opcode::kTuple) continue;
    if (user->opcode() == Opcode::kDynamicUpdateSlice) {
      const std::vector<int64_t> numbers = OperandNumbers(*user, instr);
      if (numbers.size() != 1 || numbers[0] != 0) return false;
    } else if (!IsElementwise(user->opcode())) {
      return false;
    }
    if (!UsesAreElementwiseOrTuple(*user, depth + 1)) return false;
  }
  return true;
}

}  // namespace

std::vector<InPlacePair> GetInPlaceInputOutputPairs(const Instruction& instr,
                                                    const DataflowOptions& options) {
  return PairsOf(instr, options, 0);
}

std::vector<InPlacePair> FusedComputationInPlacePairs(const Computation& fused,
                                                      const DataflowOptions& options) {
  std::vector<InPlacePair> out;
  if (fused.root() != nullptr) FusedPairs(&fused, fused.root()->shape(), options, 0, out);
  return out;
}

std::vector<InPlacePair> FusionInPlacePairs(const Instruction& fusion,
                                            absl::Span<const InPlacePair> fused_pairs) {
  std::vector<InPlacePair> out(fused_pairs.begin(), fused_pairs.end());
  AppendAliasing(fusion, out);
  return out;
}

bool SameTupleStructure(const Shape& a, const Shape& b) {
  if (&a == &b) return true;
  if (a.IsTuple() != b.IsTuple()) return false;
  if (!a.IsTuple()) return true;
  if (a.tuple_elements.size() != b.tuple_elements.size()) return false;
  for (size_t i = 0; i < a.tuple_elements.size(); ++i) {
    if (!SameTupleStructure(*a.tuple_elements[i], *b.tuple_elements[i])) return false;
  }
  return true;
}

// The opcode table flags the cases of PairsOf (kOpMayWriteInPlace); a test checks that every
// opcode PairsOf answers for is flagged. async-update and async-done are the cases outside
// the table: theirs come from the update's own aliasing and the chain's start
// (async_chain_pairs.h), and flagging them in hlo/opcodes.def would rebuild every file.
bool MayHaveInPlacePairs(Opcode opcode) {
  return MayWriteInPlace(opcode) || opcode == Opcode::kAsyncUpdate || opcode == Opcode::kAsyncDone;
}

bool CanShareOperandBufferWithUser(const Instruction& operand, const ShapeIndex& operand_index,
                                   const Instruction& user, const ShapeIndex& user_index,
                                   const DataflowOptions& options) {
  // A constant's buffer is read-only.
  if (operand.opcode() == Opcode::kConstant) return false;
  const std::vector<int64_t> numbers = OperandNumbers(user, operand);
  if (numbers.empty()) return false;
  const Shape* operand_shape = Subshape(operand.shape(), operand_index);
  const Shape* user_shape = Subshape(user.shape(), user_index);
  if (operand_shape == nullptr || user_shape == nullptr) return false;

  for (const InPlacePair& p : GetInPlaceInputOutputPairs(user, options)) {
    if (p.output_index == user_index && p.input.operand_index == operand_index &&
        std::find(numbers.begin(), numbers.end(), p.input.operand_number) != numbers.end()) {
      return true;
    }
  }
  // Reusing a buffer of another shape or layout would change the bytes the user reads.
  if (!SameShapeAsXlaParsed(*operand_shape, *user_shape)) return false;

  switch (user.opcode()) {
    case Opcode::kFusion: {
      if (user.fusion_kind() != FusionKind::kLoop && user.fusion_kind() != FusionKind::kInput) {
        return false;
      }
      const Computation* fused = user.fused_computation();
      if (fused == nullptr) return false;
      for (int64_t n : numbers) {
        if (n >= fused->parameter_count() || !UsesAreElementwiseOrTuple(*fused->parameter(n))) {
          return false;
        }
      }
      return true;
    }
    case Opcode::kWhile:
    case Opcode::kConditional:
      // Sharing across the call is fine in itself; what the callees do with the buffer is
      // decided at the instructions inside them.
      return true;
    case Opcode::kDynamicUpdateSlice:
    case Opcode::kScatter:
    case Opcode::kSetDimensionSize:
      return numbers.size() == 1 && numbers[0] == 0;
    case Opcode::kTriangularSolve:
      return numbers.size() == 1 && numbers[0] == 1;
    case Opcode::kSort:
      // Sorting overwrites its input: only when nothing else reads it.
      if (operand.user_count() != 1) return false;
      if (user.operand_count() == 1) return true;
      return numbers.size() == 1 && !user_index.empty() && user_index[0] == numbers[0];
    default:
      return IsElementwise(user.opcode());
  }
}

}  // namespace hloscope
