// XLA:GPU's buffer-sharing hint, for the XLA assignment model (xla_assignment_model.h).
//
// XLA asks HloDataflowAnalysis::CanShareOperandBufferWithUser both when the buffer assigner
// decides whether a buffer may reuse an allocation whose last value dies where it starts and
// when the heap simulator lets a result take over a dying operand's chunk. The GPU backend
// installs a hook there (xla/service/gpu/buffer_sharing.cc, CanShareBufferHint and
// FusionCanShareBufferHint; read at openxla/xla commit
// 088587f378b9e15c351a783ea64aba61a0ec3dbe) that answers for fusions, all-reduces and two
// library custom-calls before the generic rule. Its main difference from the generic rule: a
// fusion may write its output into an operand of another shape when the fused parameter reaches
// the output through elementwise ops and bitcasts only (same element count and element size),
// and a reduction fusion's reduce hero ends the walk (the reduction emitter reads its input
// before it writes any output). XLA:CPU has no such hook.
#pragma once

#include <optional>

#include "analysis/dataflow_options.h"
#include "hlo/instruction.h"
#include "hlo/module.h"

namespace hloscope {

// XLA:GPU's CanShareBufferHint(user, operand, user_index): nullopt where the hook has no
// opinion (the generic rule decides), else its answer.
std::optional<bool> XlaGpuCanShareBufferHint(const Instruction& user, const Instruction& operand,
                                             const ShapeIndex& user_index);

// XLA's rule for a slice input fusion (an input fusion whose root is a tuple of 1-D unstrided
// slices, what horizontal fusion makes), which HloDataflowAnalysis::CanShareOperandBufferWithUser
// applies before any other, on every backend: output `user_index` may take the operand's buffer
// when both are arrays of the same element count and type and the operand's fused parameter
// reaches that output only through elementwise ops, bitcast reshapes and a concat that the root
// slices undo. nullopt for any other user.
std::optional<bool> XlaSliceInputFusionShare(const Instruction& operand,
                                             const ShapeIndex& operand_index,
                                             const Instruction& user, const ShapeIndex& user_index);

// HloDataflowAnalysis::CanShareOperandBufferWithUser with XLA:GPU's hook installed: a constant
// never; a slice input fusion by XlaSliceInputFusionShare; an in-place pair of equal shapes
// always; then the hint; then the generic rule (CanShareOperandBufferWithUser of
// analysis/in_place_pairs.h).
bool XlaGpuCanShareOperandBufferWithUser(const Instruction& operand,
                                         const ShapeIndex& operand_index, const Instruction& user,
                                         const ShapeIndex& user_index,
                                         const DataflowOptions& options);

// Whether the module carries marks only XLA:GPU writes: a GpuBackendConfig field in some
// backend_config (operation_queue_id, fusion_backend_config, force_earliest_schedule,
// gemm_backend_config, cudnn_conv_backend_config, collective_backend_config) or a cuBLAS,
// cuDNN, cuSOLVER or Triton custom-call target.
bool LooksLikeXlaGpuModule(const Module& module);

}  // namespace hloscope
