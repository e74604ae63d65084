#include "eval/custom_calls.h"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "absl/status/status.h"
#include "eval/block_scaled_dot.h"
#include "eval/buffers.h"
#include "eval/cub_sort.h"
#include "eval/dynamic_shapes.h"
#include "eval/element_io.h"
#include "eval/evaluator.h"
#include "eval/layout_util.h"
#include "eval/spmd_multi_slice.h"
#include "eval/xla_builder_calls.h"
#include "support/str_util.h"

namespace hloscope::eval {
namespace {

constexpr std::string_view kIdentityTargets[] = {"Sharding",
                                                 "xla.sdy.FuncResultSharding",
                                                 "annotate_device_placement",
                                                 "MoveToHost",
                                                 "MoveToDevice",
                                                 "Pin",
                                                 "Unpin",
                                                 "ShardBarrierFrom",
                                                 "ShardBarrierTo",
                                                 "LayoutConstraint"};

// Shardy's round-trip markers of a manual computation: per operand, what SPMDFullToShardShape
// and SPMDShardToFullShape give.
constexpr std::string_view kGlobalToLocal = "xla.sdy.GlobalToLocalShape";
constexpr std::string_view kLocalToGlobal = "xla.sdy.LocalToGlobalShape";

absl::Status Refuse(const Instruction& instr, std::string_view why) {
  return absl::InvalidArgumentError(StrCat("cannot run custom-call %", instr.name(), " (",
                                           instr.custom_call_target(), "): ", why));
}

// result[i] = operand[i mod operand dims] in logical indices: the leading block when the
// result is smaller, the operand tiled when it is larger.
absl::StatusOr<Bytes> Tile(const Instruction& instr, const ArrayRef& x, const Shape& to) {
  if (x.shape->element_type != to.element_type || x.shape->dims.size() != to.dims.size()) {
    return Refuse(instr, "the operand and result differ in element type or rank");
  }
  const int64_t size = ElementBytes(to.element_type);
  Bytes out(static_cast<size_t>(DenseBytes(to)), 0);
  const std::vector<int64_t> from = PhysicalStrides(*x.shape);
  const std::vector<int64_t> into = PhysicalStrides(to);
  for (int64_t d : x.shape->dims) {
    if (d == 0) return out;
  }
  ForEachIndex(to.dims, [&](const std::vector<int64_t>& index) {
    int64_t f = 0, t = 0;
    for (size_t d = 0; d < index.size(); ++d) {
      f += (index[d] % x.shape->dims[d]) * from[d];
      t += index[d] * into[d];
    }
    std::memcpy(out.data() + t * size, x.data + f * size, static_cast<size_t>(size));
  });
  return out;
}

absl::StatusOr<std::vector<Bytes>> TopK(const Instruction& instr, const ArrayRef& x,
                                        absl::Span<const Shape* const> results,
                                        const ScalarPredicate& less) {
  if (results.size() != 2 || results[1]->element_type != PrimitiveType::kS32 ||
      results[0]->element_type != x.shape->element_type || x.shape->dims.empty() ||
      x.shape->dims.size() > 2 || results[0]->dims.size() != x.shape->dims.size()) {
    return Refuse(instr,
                  "TopK needs a rank-1 or rank-2 operand and a (values, s32 indices) result");
  }
  const Shape& in = *x.shape;
  const size_t rank = in.dims.size();
  const int64_t n = in.dims[rank - 1];
  const int64_t k = results[0]->dims[rank - 1];
  const int64_t batch = rank == 2 ? in.dims[0] : 1;
  if (k > n || (rank == 2 && results[0]->dims[0] != batch)) {
    return Refuse(instr, "k is larger than the operand's last dimension");
  }
  const PrimitiveType type = in.element_type;
  const int64_t size = ElementBytes(type);
  std::vector<uint8_t> scratch;
  const uint8_t* rows = RowMajorData(in, x.data, scratch);
  Bytes values(static_cast<size_t>(batch * k * size));
  Bytes indices(static_cast<size_t>(batch * k * 4));
  std::vector<Scalar> row(static_cast<size_t>(n));
  std::vector<int64_t> order(static_cast<size_t>(n));
  absl::Status failed;
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t i = 0; i < n; ++i) row[i] = LoadScalar(type, rows + (b * n + i) * size);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t l, int64_t r) {
      if (!failed.ok()) return false;
      absl::StatusOr<bool> c = less(row[l], row[r], l, r);
      if (!c.ok()) {
        failed = c.status();
        return false;
      }
      return *c;
    });
    if (!failed.ok()) return failed;
    for (int64_t j = 0; j < k; ++j) {
      std::memcpy(values.data() + (b * k + j) * size, rows + (b * n + order[j]) * size,
                  static_cast<size_t>(size));
      StoreInt(PrimitiveType::kS32, indices.data() + (b * k + j) * 4, order[j]);
    }
  }
  std::vector<Bytes> out;
  out.push_back(ToPhysical(*results[0], std::move(values)));
  out.push_back(ToPhysical(*results[1], std::move(indices)));
  return out;
}

}  // namespace

bool IsKnownCustomCallTarget(std::string_view target) {
  return std::find(std::begin(kIdentityTargets), std::end(kIdentityTargets), target) !=
             std::end(kIdentityTargets) ||
         target == "SPMDFullToShardShape" || target == "SPMDShardToFullShape" ||
         target == "AllocateBuffer" || target == "TopK" || target == "__cublas$gemm" ||
         target == "__cublas$lt$matmul" || target == "__cublas$lt$matmul$f8" ||
         target == "__op$block_scaled_dot" || IsCudnnConvolutionTarget(target) ||
         IsXlaBuilderTarget(target) || IsCubSortTarget(target) || target == kGlobalToLocal ||
         target == kLocalToGlobal || target == "_SPMDInternalOp_MultiSlice";
}

CustomCallRun RunnableCustomCall(const Instruction& instr, const EvalOptions& options) {
  const std::string_view target = instr.custom_call_target();
  if (IsKnownCustomCallTarget(target)) return CustomCallRun::kKnown;
  // Run before the custom-call dispatch, and only in the plain form (not wrapped in a start).
  if (instr.opcode() == Opcode::kCustomCall &&
      (IsDynamicShapeCustomCall(target) || IsBufferOp(instr))) {
    return CustomCallRun::kKnown;
  }
  // Calls on buffers b(T) run opaque too: they read each buffer's array and write their result
  // into the buffers they return (opaque_custom_call.h).
  if (options.custom_calls != CustomCalls::kOpaque || IsDynamicShapeCustomCall(target) ||
      target == "CreateBuffer") {
    return CustomCallRun::kRefused;
  }
  return CustomCallRun::kOpaque;
}

absl::StatusOr<std::vector<Bytes>> EvalCustomCall(const Instruction& instr,
                                                  absl::Span<const ArrayRef> operands,
                                                  absl::Span<const Shape* const> results,
                                                  const ScalarPredicate& less,
                                                  const ScalarRunner& run) {
  const std::string_view target = instr.custom_call_target();
  for (const ArrayRef& o : operands) {
    if (o.shape == nullptr || !o.shape->IsArray()) return Refuse(instr, "needs array operands");
  }
  for (const Shape* r : results) {
    if (!r->IsArray()) return Refuse(instr, "needs array results");
  }
  if (target == "__cublas$gemm" || target == "__cublas$lt$matmul" ||
      target == "__cublas$lt$matmul$f8") {
    return EvalCublasGemm(instr, operands, results);
  }
  if (IsCudnnConvolutionTarget(target)) return EvalCudnnConvolution(instr, operands, results);
  if (target == "__op$block_scaled_dot") {
    if (results.size() != 1) return Refuse(instr, "needs one array result");
    absl::StatusOr<Bytes> r = EvalBlockScaledDotCustomCall(instr, operands);
    if (!r.ok()) return r.status();
    std::vector<Bytes> out;
    out.push_back(std::move(*r));
    return out;
  }
  if (IsXlaBuilderTarget(target)) return EvalXlaBuilderCall(instr, operands, results, run);
  if (IsCubSortTarget(target)) return EvalCubSort(instr, operands, results);
  if (target == "AllocateBuffer") {
    std::vector<Bytes> out;
    for (const Shape* r : results) out.emplace_back(static_cast<size_t>(DenseBytes(*r)), 0);
    return out;
  }
  if (target == kGlobalToLocal || target == kLocalToGlobal) {
    if (operands.size() != results.size()) {
      return Refuse(instr, "needs one result per operand");
    }
    std::vector<Bytes> out;
    for (size_t i = 0; i < operands.size(); ++i) {
      absl::StatusOr<Bytes> r = Tile(instr, operands[i], *results[i]);
      if (!r.ok()) return r.status();
      out.push_back(std::move(*r));
    }
    return out;
  }
  if (operands.size() != 1) return Refuse(instr, "needs exactly one operand");
  if (target == "_SPMDInternalOp_MultiSlice") {
    return EvalSpmdMultiSlice(instr, operands[0], results);
  }
  if (target == "TopK") return TopK(instr, operands[0], results, less);
  if (results.size() != 1) return Refuse(instr, "needs one array result");
  const bool identity = std::find(std::begin(kIdentityTargets), std::end(kIdentityTargets),
                                  target) != std::end(kIdentityTargets);
  if (identity && operands[0].shape->dims != results[0]->dims) {
    return Refuse(instr, "the operand and result shapes differ");
  }
  if (!identity && !IsKnownCustomCallTarget(target)) {
    return absl::UnimplementedError(StrCat("the interpreter does not support custom-call target '",
                                           target, "' (instruction %", instr.name(), ")"));
  }
  absl::StatusOr<Bytes> r = Tile(instr, operands[0], *results[0]);
  if (!r.ok()) return r.status();
  std::vector<Bytes> out;
  out.push_back(std::move(*r));
  return out;
}

}  // namespace hloscope::eval
