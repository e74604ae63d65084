#include "analysis/memory/xla_gpu_buffer_sharing.h"

#include <algorithm>
#include <deque>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "analysis/in_place_pairs.h"
#include "hlo/backend_config.h"
#include "hlo/computation.h"

namespace hloscope {
namespace {

// XLA's HloInstruction::operand_index: the first operand slot holding `operand`.
int64_t FirstOperandIndex(const Instruction& user, const Instruction* operand) {
  for (int64_t i = 0; i < user.operand_count(); ++i) {
    if (user.operand(i) == operand) return i;
  }
  return -1;
}

// HloInstruction::IsElementwiseOnOperand: a dynamic-update-slice is elementwise on its operand
// 0 only; other ops by their opcode (copy included, which the hint then excludes itself).
bool ElementwiseOnOperand(const Instruction& hlo, int64_t operand_index) {
  if (hlo.opcode() == Opcode::kDynamicUpdateSlice) return operand_index == 0;
  return IsElementwise(hlo.opcode());
}

bool IsEffectiveScalar(const Shape& s) { return s.IsArray() && s.ElementCount() == 1; }

// HloFusionAnalysis's reduce hero of one fusion root (FindNonTrivialHero, simplified to what
// reduction fusions hold): walk up from the root through bitcasts, reshapes and unary
// elementwise ops, each read by one user only, to a reduce.
const Instruction* ReduceHeroOf(const Instruction* root) {
  const Instruction* at = root;
  for (int depth = 0; at != nullptr && depth < 64; ++depth) {
    if (at->opcode() == Opcode::kReduce) return at;
    const bool passes = at->opcode() == Opcode::kBitcast || at->opcode() == Opcode::kReshape ||
                        (IsElementwise(at->opcode()) && at->operand_count() == 1);
    if (!passes || (at != root && at->user_count() != 1)) return nullptr;
    at = at->operand(0);
  }
  return nullptr;
}

// The reduction emitter's hero (HloFusionAnalysis::FindHeroReduction): the first root, in the
// fused root tuple's order, whose hero is a reduce; nullptr when the fusion is no reduction.
const Instruction* ReductionHero(const Computation& fused) {
  const Instruction* root = fused.root();
  if (root == nullptr) return nullptr;
  if (root->opcode() != Opcode::kTuple) return ReduceHeroOf(root);
  for (const Instruction* r : root->operands()) {
    if (const Instruction* hero = ReduceHeroOf(r)) return hero;
  }
  return nullptr;
}

// XLA's Is1dSliceWithoutStrides.
bool Is1dSliceWithoutStrides(const Instruction& in) {
  if (in.opcode() != Opcode::kSlice) return false;
  const auto dims = in.slice();
  return dims.size() == 1 && dims[0].stride == 1;
}

// XLA's IsSliceInputFusion: an input fusion whose root is a tuple of 1-D unstrided slices (what
// horizontal fusion makes).
bool IsSliceInputFusion(const Instruction& fusion) {
  if (fusion.opcode() != Opcode::kFusion || fusion.fusion_kind() != FusionKind::kInput) {
    return false;
  }
  const Computation* fused = fusion.fused_computation();
  const Instruction* root = fused == nullptr ? nullptr : fused->root();
  if (root == nullptr || root->opcode() != Opcode::kTuple) return false;
  const auto ops = root->operands();
  return std::all_of(ops.begin(), ops.end(),
                     [](const Instruction* in) { return Is1dSliceWithoutStrides(*in); });
}

struct ConcatUsage {
  const Instruction* concat = nullptr;
  int64_t operand_number = 0;
  const Instruction* slice_recovering_operand = nullptr;
};

// XLA's ConcatIsEffectivelyElementwise: the concat's users are 1-D unstrided slices that cut it
// back into its (distinct) operands, in order; a concat seen before must be alike (same shape
// and dimension, operands aside) and `operand` at the same operand number.
std::optional<ConcatUsage> ConcatIsEffectivelyElementwise(const Instruction& concat,
                                                          const Instruction& operand,
                                                          const ConcatUsage& seen) {
  std::vector<const Instruction*> users(concat.users().begin(), concat.users().end());
  if (!std::all_of(users.begin(), users.end(),
                   [](const Instruction* u) { return Is1dSliceWithoutStrides(*u); })) {
    return std::nullopt;
  }
  const auto ops = concat.operands();
  const absl::flat_hash_set<const Instruction*> unique(ops.begin(), ops.end());
  if (static_cast<int64_t>(users.size()) != concat.operand_count() ||
      static_cast<int64_t>(unique.size()) != concat.operand_count()) {
    return std::nullopt;
  }
  std::sort(users.begin(), users.end(), [](const Instruction* a, const Instruction* b) {
    return a->slice()[0].start < b->slice()[0].start;
  });
  int64_t previous_limit = 0;
  for (size_t i = 0; i < users.size(); ++i) {
    const SliceDim& d = users[i]->slice()[0];
    if (d.start != previous_limit ||
        d.limit - d.start != concat.operand(static_cast<int64_t>(i))->shape().ElementCount()) {
      return std::nullopt;
    }
    previous_limit = d.limit;
  }
  const int64_t number = FirstOperandIndex(concat, &operand);
  if (seen.concat != nullptr) {
    const bool alike =
        seen.concat->shape() == concat.shape() &&
        seen.concat->operand_count() == concat.operand_count() &&
        std::equal(seen.concat->dimensions().begin(), seen.concat->dimensions().end(),
                   concat.dimensions().begin(), concat.dimensions().end());
    if (!alike || seen.operand_number != number) return std::nullopt;
  }
  return ConcatUsage{&concat, number, users[static_cast<size_t>(number)]};
}

// Dimensions without those of size 1: a reshape that keeps them (and the default layouts on
// both sides) moves no element, as XLA's ShapeUtil::ReshapeIsBitcast asks; other reshapes are
// taken as moving elements (a narrower reading of XLA's rule).
bool ReshapeIsBitcast(const Shape& from, const Shape& to) {
  auto squeeze = [](const Shape& s) {
    std::vector<int64_t> out;
    for (int64_t d : s.dims) {
      if (d != 1) out.push_back(d);
    }
    return out;
  };
  auto major_to_minor = [](const Shape& s) {
    if (!s.has_layout) return true;
    const auto& m2m = s.layout.minor_to_major;
    for (size_t i = 0; i < m2m.size(); ++i) {
      if (m2m[i] != static_cast<int64_t>(m2m.size() - 1 - i)) return false;
    }
    return true;
  };
  return from.element_type == to.element_type && squeeze(from) == squeeze(to) &&
         major_to_minor(from) && major_to_minor(to);
}

// XLA's AreTransitiveUsesEffectivelyElementwise: every use from the fused parameter on is
// elementwise (same layout), a bitcast reshape, or a concat that the root's slices undo (then
// only the slice recovering this operand is followed), and the walk reaches output
// `out_index` of the root tuple.
bool AreTransitiveUsesEffectivelyElementwise(const Instruction* param,
                                             const Instruction* root_tuple, int64_t out_index) {
  absl::flat_hash_set<const Instruction*> visited;
  std::vector<const Instruction*> stack = {param};
  ConcatUsage concat_usage;
  bool output_reachable = false;
  while (!stack.empty()) {
    const Instruction* current = stack.back();
    stack.pop_back();
    visited.insert(current);
    for (const Instruction* user : current->users()) {
      switch (user->opcode()) {
        case Opcode::kTuple:
          if (user == root_tuple && out_index < root_tuple->operand_count() &&
              current == root_tuple->operand(out_index)) {
            output_reachable = true;
          }
          break;
        case Opcode::kReshape:
          if (!ReshapeIsBitcast(current->shape(), user->shape())) return false;
          break;
        case Opcode::kConcatenate: {
          std::optional<ConcatUsage> usage =
              ConcatIsEffectivelyElementwise(*user, *current, concat_usage);
          if (!usage) return false;
          concat_usage = *usage;
          if (visited.contains(concat_usage.slice_recovering_operand)) return false;
          stack.push_back(concat_usage.slice_recovering_operand);
          continue;
        }
        default:
          for (int64_t i = 0; i < user->operand_count(); ++i) {
            if (user->operand(i) == current && !ElementwiseOnOperand(*user, i)) return false;
          }
          if (!(current->shape().layout == user->shape().layout)) return false;
          break;
      }
      if (!visited.contains(user)) stack.push_back(user);
    }
  }
  return output_reachable;
}

std::optional<bool> FusionHint(const Instruction& fusion, const Instruction& operand,
                               const ShapeIndex& user_index) {
  const Shape* user_subshape = Subshape(fusion.shape(), user_index);
  if (user_subshape == nullptr) return false;
  const Shape& operand_shape = operand.shape();
  if (!(operand_shape == *user_subshape)) {
    if (!operand_shape.IsArray() || !user_subshape->IsArray()) return false;
    // The same iteration space and bytes per element, or the buffers cannot be one.
    if (operand_shape.ElementCount() != user_subshape->ElementCount()) return false;
    if ((operand_shape.ElementBits() + 7) / 8 != (user_subshape->ElementBits() + 7) / 8) {
      return false;
    }
  }
  const Computation* fused = fusion.fused_computation();
  const int64_t param_number = FirstOperandIndex(fusion, &operand);
  if (fused == nullptr || param_number < 0 || param_number >= fused->parameter_count()) {
    return false;
  }
  const Instruction* hero =
      fusion.fusion_kind() == FusionKind::kCustom ? nullptr : ReductionHero(*fused);
  const Instruction* fused_root = fused->root();
  const Instruction* output = fused_root;
  if (output->opcode() == Opcode::kTuple) {
    if (user_index.empty() || user_index[0] >= output->operand_count()) return false;
    output = output->operand(user_index[0]);
  }
  const Instruction* non_bitcast_root =
      output->opcode() == Opcode::kBitcast ? output->operand(0) : output;

  // Every path from the parameter must reach the output through ops that read and write each
  // element at the same place (elementwise, bitcast, tuple, the root dynamic-update-slice's
  // update or a dynamic-slice of the very slice it writes), or end at the reduce hero.
  const Instruction* param = fused->parameter(param_number);
  std::deque<const Instruction*> queue = {param};
  absl::flat_hash_set<const Instruction*> visited = {param};
  bool found_path_to_output = false;
  while (!queue.empty()) {
    const Instruction* at = queue.front();
    queue.pop_front();
    if (at == output) found_path_to_output = true;  // its other users still count
    if (at == hero) continue;
    for (const Instruction* hlo : at->users()) {
      if (visited.insert(hlo).second) queue.push_back(hlo);
      const int64_t at_index = FirstOperandIndex(*hlo, at);
      if (hlo == non_bitcast_root && hlo->opcode() == Opcode::kScatter) {
        const int64_t inputs =
            hlo->shape().IsTuple() ? static_cast<int64_t>(hlo->shape().tuple_elements.size()) : 1;
        const auto ops = hlo->operands();
        if (at_index < inputs && std::count(ops.begin(), ops.end(), at) == 1) continue;
      }
      if (non_bitcast_root->opcode() == Opcode::kDynamicUpdateSlice &&
          hlo->opcode() == Opcode::kDynamicSlice && non_bitcast_root->operand_count() >= 2 &&
          hlo->operand_count() >= 1 && non_bitcast_root->operand(0) == hlo->operand(0) &&
          hlo->shape() == non_bitcast_root->operand(1)->shape()) {
        // The dynamic-slice reads exactly the slice the update writes: fine, unless the
        // starts may differ (two one-element slices cannot race either).
        if (!IsEffectiveScalar(hlo->shape()) ||
            !IsEffectiveScalar(non_bitcast_root->operand(1)->shape())) {
          for (int64_t i = 1; i < hlo->operand_count(); ++i) {
            if (i + 1 >= non_bitcast_root->operand_count() ||
                hlo->operand(i) != non_bitcast_root->operand(i + 1)) {
              return false;
            }
          }
        }
      } else if ((!ElementwiseOnOperand(*hlo, at_index) || hlo->opcode() == Opcode::kCopy) &&
                 hlo->opcode() != Opcode::kBitcast && hlo->opcode() != Opcode::kTuple &&
                 hlo != hero) {
        // Not in element order; only the root dynamic-update-slice's update may be so.
        if (hlo != non_bitcast_root || hlo->opcode() != Opcode::kDynamicUpdateSlice ||
            at_index != 1) {
          return false;
        }
      }
    }
  }
  // A multi-output fusion whose output is written out of element order (dynamic-update-slice,
  // scatter) must not let the parameter reach another output too.
  const bool non_bitcast_root_elementwise =
      non_bitcast_root->opcode() != Opcode::kDynamicUpdateSlice &&
      IsElementwise(non_bitcast_root->opcode());
  if (fused_root->opcode() == Opcode::kTuple && !non_bitcast_root_elementwise) {
    for (const Instruction* other : fused_root->operands()) {
      if (other != output && visited.contains(other)) return false;
    }
  }
  return found_path_to_output;
}

}  // namespace

std::optional<bool> XlaGpuCanShareBufferHint(const Instruction& user, const Instruction& operand,
                                             const ShapeIndex& user_index) {
  switch (user.opcode()) {
    case Opcode::kAllReduce:
      // NCCL reduces in place.
      return user.operand_count() == 1 ||
             (user_index.size() == 1 && user_index[0] < user.operand_count() &&
              user.operand(user_index[0]) == &operand);
    case Opcode::kCustomCall: {
      const std::string_view target = user.custom_call_target();
      if (target == "__cublas$lt$matmul") {
        // XLA reads beta from the proto, 0 by default; the text holds the config as JSON.
        const double beta = ConfigNumber(BackendConfigText(user), "beta").value_or(0);
        return beta != 0 && user.operand_count() > 2 && user.operand(2) == &operand;
      }
      if (target == "__cusolver$cholesky") return user_index.size() == 1 && user_index[0] == 0;
      return false;
    }
    case Opcode::kFusion:
      return FusionHint(user, operand, user_index);
    default:
      return std::nullopt;
  }
}

std::optional<bool> XlaSliceInputFusionShare(const Instruction& operand,
                                             const ShapeIndex& operand_index,
                                             const Instruction& user,
                                             const ShapeIndex& user_index) {
  if (!IsSliceInputFusion(user)) return std::nullopt;
  const Shape* operand_subshape = Subshape(operand.shape(), operand_index);
  const Shape* user_subshape = Subshape(user.shape(), user_index);
  const Computation* fused = user.fused_computation();
  const int64_t number = FirstOperandIndex(user, &operand);
  if (operand_subshape == nullptr || user_subshape == nullptr || user_index.size() != 1 ||
      number < 0 || number >= fused->parameter_count()) {
    return false;
  }
  return operand_subshape->IsArray() && user_subshape->IsArray() &&
         operand_subshape->ElementCount() == user_subshape->ElementCount() &&
         operand_subshape->element_type == user_subshape->element_type &&
         AreTransitiveUsesEffectivelyElementwise(fused->parameter(number), fused->root(),
                                                 user_index[0]);
}

bool XlaGpuCanShareOperandBufferWithUser(const Instruction& operand,
                                         const ShapeIndex& operand_index, const Instruction& user,
                                         const ShapeIndex& user_index,
                                         const DataflowOptions& options) {
  if (operand.opcode() == Opcode::kConstant) return false;
  if (std::optional<bool> slices =
          XlaSliceInputFusionShare(operand, operand_index, user, user_index)) {
    return *slices;
  }
  const Shape* operand_subshape = Subshape(operand.shape(), operand_index);
  const Shape* user_subshape = Subshape(user.shape(), user_index);
  if (operand_subshape == nullptr || user_subshape == nullptr) return false;
  if (*operand_subshape == *user_subshape) {
    for (const InPlacePair& p : GetInPlaceInputOutputPairs(user, options)) {
      if (p.output_index == user_index && p.input.operand_index == operand_index &&
          p.input.operand_number < user.operand_count() &&
          user.operand(p.input.operand_number) == &operand) {
        return true;
      }
    }
  }
  if (std::optional<bool> hint = XlaGpuCanShareBufferHint(user, operand, user_index)) {
    return *hint;
  }
  return CanShareOperandBufferWithUser(operand, operand_index, user, user_index, options);
}

bool LooksLikeXlaGpuModule(const Module& module) {
  constexpr std::string_view kConfigFields[] = {
      "\"operation_queue_id\"",  "\"fusion_backend_config\"",     "\"force_earliest_schedule\"",
      "\"gemm_backend_config\"", "\"cudnn_conv_backend_config\"", "\"collective_backend_config\""};
  constexpr std::string_view kTargetPrefixes[] = {"__cublas", "__cudnn", "__cusolver", "__triton"};
  for (const Computation* c : module.computations()) {
    for (const Instruction* in : c->instructions()) {
      const std::string_view config = in->backend_config();
      for (std::string_view field : kConfigFields) {
        if (config.find(field) != std::string_view::npos) return true;
      }
      if (in->opcode() == Opcode::kCustomCall) {
        const std::string_view target = in->custom_call_target();
        for (std::string_view prefix : kTargetPrefixes) {
          if (target.starts_with(prefix)) return true;
        }
      }
    }
  }
  return false;
}

}  // namespace hloscope
